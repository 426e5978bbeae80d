//! The probe's report: the `--format json` contract and the table people read.
//!
//! ```json
//! {"targets": [{"kind": "gpu"|"mig"|"mps", "gpu": 0, "uuid": "MIG-…",
//!               "memory": {"total_mib", "free_mib", "limit_mib", "limit_enforced", "allocated_mib"},
//!               "bandwidth_gbps": {"h2d", "d2h", "d2d"}, "launch_latency_us": {"p50", "p99"},
//!               "multiprocessors", "clients", "error", …}],
//!  "d2d_counts": "read_and_write",
//!  "verdict": "pass"|"fail", "failures": [{"target", "uuid", "check", "message"}]}
//! ```
//! The field names are a contract: fields may be added, never renamed.

use super::protocol::BufferSizes;
use super::sharers::Sharer;
use super::targets::{Promise, TargetKind};
use crate::support::output::{Output, Style, table};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Report {
    /// `nvml` or `sim:<name>`: where the targets came from.
    pub source: String,
    pub quick: bool,
    /// How `d2d` bandwidth counts bytes: [`D2D_COUNTS`].
    pub d2d_counts: &'static str,
    pub targets: Vec<TargetReport>,
    pub verdict: Verdict,
    pub failures: Vec<CheckFailure>,
}

/// D2D bandwidth is an SM copy kernel's bytes read plus bytes written (comparable with the
/// memory's peak figure; about twice nvbandwidth's copy-engine `device_local_copy`, which counts
/// each byte once).
pub(crate) const D2D_COUNTS: &str = "read_and_write";

/// The line under the table that says so.
pub(crate) const D2D_NOTE: &str = "D2D: an SM copy kernel, bytes read + bytes written (about 2x nvbandwidth's device_local_copy, which counts each byte once)";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Verdict {
    Pass,
    Fail,
}

/// A promise the measurements did not keep.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct CheckFailure {
    /// `GPU 0 MIG 1g.5gb`.
    pub target: String,
    pub uuid: String,
    /// `probe`, `clients`, `mps`, `memory_limit`, `memory_available`, `memory_total`,
    /// `multiprocessors` or `sms_observed`.
    pub check: &'static str,
    pub message: String,
    /// What to do about it, when there is something to say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct TargetReport {
    pub kind: TargetKind,
    pub gpu: u32,
    pub uuid: String,
    /// The GPU's name, or the MIG profile.
    pub name: String,
    /// How tables name the target.
    pub label: String,
    pub memory: MemoryReport,
    /// With several clients: what they got together (all their bytes over the span of their
    /// timed samples; the clients meet before each step, so the samples overlap).
    pub bandwidth_gbps: Bandwidth,
    /// Event-timed empty-kernel launches; with several clients, over all of their launches.
    pub launch_latency_us: Latency,
    /// Host-timed launch + synchronize round trips (they include waiting for a time slice).
    pub roundtrip_us: Latency,
    /// SMs the context is given (`CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT`).
    pub multiprocessors: Option<u32>,
    /// The most SMs running the probe's kernel at one moment (the most any client saw).
    pub sms_observed: Option<u32>,
    /// Distinct SMs the kernel ran on over its whole run (later waves may use other SMs).
    pub sms_distinct: Option<u32>,
    /// The host CPUs the workers ran on (the GPU's local CPUs); `null` when not bound.
    pub host_cpus: Option<String>,
    /// The copy sizes used (smaller than `--buffer` when the memory promised is small).
    pub buffers_mib: Option<BufferSizes>,
    /// Clients that ran at once for these figures.
    pub clients: u32,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub per_client: Vec<ClientReport>,
    /// `--compare`: the target alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub solo: Option<Figures>,
    /// `--compare`: how many times slower each client is than the target alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slowdown: Option<Slowdown>,
    pub promised: Promise,
    /// The other processes on the device when the probe started or ended, with their pods.
    pub shared_with: Vec<Sharer>,
    /// Why the target could not be measured (no client finished).
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// The check `error` fails: `probe`, or `mps` when no MPS daemon serves the pipe dir.
    #[serde(skip)]
    pub error_check: &'static str,
    /// Every client failed because there is no usable driver.
    #[serde(skip)]
    pub no_driver: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct MemoryReport {
    pub total_mib: Option<u64>,
    pub free_mib: Option<u64>,
    /// The limit tested: the memory the target promised.
    pub limit_mib: Option<u64>,
    /// No allocation past the limit succeeded.
    pub limit_enforced: Option<bool>,
    /// What could be allocated before the driver refused (the most any client got).
    pub allocated_mib: Option<u64>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub(crate) struct Bandwidth {
    pub h2d: Option<f64>,
    pub d2h: Option<f64>,
    pub d2d: Option<f64>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub(crate) struct Latency {
    pub p50: Option<f64>,
    pub p99: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ClientReport {
    pub client: u32,
    pub bandwidth_gbps: Bandwidth,
    pub launch_latency_us: Latency,
    pub roundtrip_us: Latency,
    pub multiprocessors: Option<u32>,
    pub sms_observed: Option<u32>,
    pub error: Option<String>,
}

/// Figures of one run of a target.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub(crate) struct Figures {
    pub bandwidth_gbps: Bandwidth,
    pub launch_latency_us: Latency,
    pub roundtrip_us: Latency,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub(crate) struct Slowdown {
    pub h2d: Option<f64>,
    pub d2h: Option<f64>,
    pub d2d: Option<f64>,
    pub launch_p50: Option<f64>,
    pub roundtrip_p50: Option<f64>,
}

fn num(x: Option<f64>) -> String {
    x.map_or_else(|| "-".into(), |v| format!("{v:.1}"))
}

fn int(x: Option<u64>) -> String {
    x.map_or_else(|| "-".into(), |v| v.to_string())
}

fn times(x: Option<f64>) -> String {
    x.map_or_else(|| "-".into(), |v| format!("{v:.2}×"))
}

/// The table: a line per target (and per client), the alone-vs-together comparison, the verdict.
pub(crate) fn render(out: &Output, report: &Report) -> String {
    let mut rows = Vec::new();
    for t in &report.targets {
        let failed = report.failures.iter().any(|f| f.uuid == t.uuid);
        let result = match (&t.error, failed) {
            (Some(_), _) => out.paint(Style::Bad, "error"),
            (None, true) => out.paint(Style::Bad, "FAIL"),
            (None, false) => out.paint(Style::Good, "pass"),
        };
        let limit = match (t.memory.limit_mib, t.memory.limit_enforced) {
            (Some(l), Some(true)) => format!("{l} held"),
            (Some(l), Some(false)) => out.paint(Style::Bad, &format!("{l} NOT HELD")),
            _ => "-".into(),
        };
        rows.push(vec![
            t.label.clone(),
            short_uuid(&t.uuid),
            format!("{}/{}", int(t.memory.free_mib), int(t.memory.total_mib)),
            limit,
            num(t.bandwidth_gbps.h2d),
            num(t.bandwidth_gbps.d2h),
            num(t.bandwidth_gbps.d2d),
            format!(
                "{} / {}",
                num(t.launch_latency_us.p50),
                num(t.launch_latency_us.p99)
            ),
            format!(
                "{}/{}",
                int(t.sms_observed.map(u64::from)),
                int(t.multiprocessors.map(u64::from))
            ),
            t.clients.to_string(),
            result,
        ]);
        for c in &t.per_client {
            rows.push(vec![
                format!("  client {}", c.client),
                String::new(),
                String::new(),
                String::new(),
                num(c.bandwidth_gbps.h2d),
                num(c.bandwidth_gbps.d2h),
                num(c.bandwidth_gbps.d2d),
                format!(
                    "{} / {}",
                    num(c.launch_latency_us.p50),
                    num(c.launch_latency_us.p99)
                ),
                format!(
                    "{}/{}",
                    int(c.sms_observed.map(u64::from)),
                    int(c.multiprocessors.map(u64::from))
                ),
                String::new(),
                c.error
                    .as_ref()
                    .map_or_else(String::new, |_| out.paint(Style::Bad, "error")),
            ]);
        }
    }
    let mut s = table(
        &[
            "TARGET",
            "UUID",
            "FREE/TOTAL MiB",
            "LIMIT MiB",
            "H2D GB/s",
            "D2H GB/s",
            "D2D GB/s",
            "LAUNCH p50/p99 µs",
            "SMS seen/given",
            "CLIENTS",
            "RESULT",
        ],
        rows,
    );
    if report
        .targets
        .iter()
        .any(|t| t.bandwidth_gbps.d2d.is_some())
    {
        s.push_str(D2D_NOTE);
        s.push('\n');
    }
    for t in report.targets.iter().filter(|t| !t.shared_with.is_empty()) {
        let with: Vec<String> = t.shared_with.iter().map(Sharer::describe).collect();
        s.push_str(&format!("{} shared with: {}\n", t.label, with.join(", ")));
    }
    let compared: Vec<&TargetReport> = report.targets.iter().filter(|t| t.solo.is_some()).collect();
    if !compared.is_empty() {
        s.push('\n');
        s.push_str(&compare_table(&compared));
    }
    s.push('\n');
    s.push_str(&verdict_text(out, report));
    s
}

fn compare_table(targets: &[&TargetReport]) -> String {
    let cell = |solo: Option<f64>, together: Option<f64>, slowdown: Option<f64>| {
        format!("{} → {} ({})", num(solo), num(together), times(slowdown))
    };
    let rows = targets
        .iter()
        .map(|t| {
            let solo = t.solo.unwrap_or_default();
            let slow = t.slowdown.unwrap_or_default();
            let per_client = |agg: Option<f64>| agg.map(|a| a / f64::from(t.clients.max(1)));
            vec![
                t.label.clone(),
                t.clients.to_string(),
                cell(
                    solo.bandwidth_gbps.h2d,
                    per_client(t.bandwidth_gbps.h2d),
                    slow.h2d,
                ),
                cell(
                    solo.bandwidth_gbps.d2d,
                    per_client(t.bandwidth_gbps.d2d),
                    slow.d2d,
                ),
                cell(
                    solo.launch_latency_us.p50,
                    t.launch_latency_us.p50,
                    slow.launch_p50,
                ),
                cell(
                    solo.roundtrip_us.p50,
                    t.roundtrip_us.p50,
                    slow.roundtrip_p50,
                ),
            ]
        })
        .collect();
    let mut s = String::from("Alone → per client with N at once (slowdown):\n");
    s.push_str(&table(
        &[
            "TARGET",
            "N",
            "H2D GB/s",
            "D2D GB/s",
            "LAUNCH p50 µs",
            "ROUND TRIP p50 µs",
        ],
        rows,
    ));
    s
}

fn verdict_text(out: &Output, report: &Report) -> String {
    let n = report.targets.len();
    if report.verdict == Verdict::Pass {
        return format!(
            "verdict: {} ({n} target{} as promised)\n",
            out.paint(Style::Good, "pass"),
            if n == 1 { "" } else { "s" }
        );
    }
    let mut s = format!(
        "verdict: {} ({} failure{})\n",
        out.paint(Style::Bad, "FAIL"),
        report.failures.len(),
        if report.failures.len() == 1 { "" } else { "s" }
    );
    for f in &report.failures {
        s.push_str(&format!(
            "  {} ({}): {}\n",
            f.target,
            short_uuid(&f.uuid),
            f.message
        ));
        if let Some(hint) = &f.hint {
            s.push_str(&format!("    hint: {hint}\n"));
        }
    }
    s
}

/// `MIG-1d3e5a0c-…` → `MIG-1d3e5a0c`: enough to tell devices apart in a table.
fn short_uuid(uuid: &str) -> String {
    let cut = uuid
        .char_indices()
        .filter(|(_, c)| *c == '-')
        .nth(1)
        .map_or(uuid.len(), |(i, _)| i);
    uuid[..cut].to_string()
}

/// A measured MIG target that keeps its promises (for tests).
#[cfg(test)]
pub(crate) fn sample_target(uuid: &str) -> TargetReport {
    TargetReport {
        kind: TargetKind::Mig,
        gpu: 0,
        uuid: uuid.into(),
        name: "1g.5gb".into(),
        label: "GPU 0 MIG 1g.5gb".into(),
        memory: MemoryReport {
            total_mib: Some(4864),
            free_mib: Some(4600),
            limit_mib: Some(4864),
            limit_enforced: Some(true),
            allocated_mib: Some(4560),
        },
        bandwidth_gbps: Bandwidth {
            h2d: Some(24.51),
            d2h: Some(25.0),
            d2d: Some(180.0),
        },
        launch_latency_us: Latency {
            p50: Some(2.5),
            p99: Some(4.0),
        },
        roundtrip_us: Latency {
            p50: Some(9.0),
            p99: Some(12.0),
        },
        multiprocessors: Some(14),
        sms_observed: Some(14),
        sms_distinct: Some(14),
        host_cpus: None,
        buffers_mib: None,
        clients: 1,
        per_client: Vec::new(),
        solo: None,
        slowdown: None,
        shared_with: Vec::new(),
        promised: Promise {
            memory_mib: 4864,
            memory_from: "MIG 1g.5gb memory".into(),
            multiprocessors: Some(14),
            max_multiprocessors: None,
            thread_percentage: None,
            clients: None,
            mps_missing: false,
        },
        error: None,
        hint: None,
        error_check: "probe",
        no_driver: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::output::{ColorChoice, Format};

    fn out() -> Output {
        Output::new(Format::Table, false, ColorChoice::Never)
    }

    #[test]
    fn the_json_has_every_contract_field() {
        let report = Report {
            source: "sim:x".into(),
            quick: true,
            d2d_counts: D2D_COUNTS,
            targets: vec![sample_target("MIG-1d3e5a0c-4a5b-5c6d-8e9f-0a1b2c3d4e5f")],
            verdict: Verdict::Pass,
            failures: vec![],
        };
        let v = serde_json::to_value(&report).unwrap();
        assert_eq!(v["verdict"], "pass");
        assert_eq!(v["d2d_counts"], "read_and_write");
        let t = &v["targets"][0];
        for key in [
            "kind",
            "gpu",
            "uuid",
            "memory",
            "bandwidth_gbps",
            "launch_latency_us",
            "multiprocessors",
            "clients",
            "error",
        ] {
            assert!(t.get(key).is_some(), "missing {key}");
        }
        for key in ["total_mib", "free_mib", "limit_mib", "limit_enforced"] {
            assert!(t["memory"].get(key).is_some(), "missing memory.{key}");
        }
        assert_eq!(t["kind"], "mig");
        assert_eq!(t["bandwidth_gbps"]["h2d"], 24.51);
        assert!(t["error"].is_null());
        assert!(t.get("per_client").is_none() && t.get("solo").is_none());
    }

    #[test]
    fn the_table_shows_figures_failures_and_the_verdict() {
        let mut bad = sample_target("MIG-2222aaaa-4a5b-5c6d-8e9f-0a1b2c3d4e5f");
        bad.memory.limit_enforced = Some(false);
        let report = Report {
            source: "sim:x".into(),
            quick: false,
            d2d_counts: D2D_COUNTS,
            targets: vec![
                sample_target("MIG-1111aaaa-4a5b-5c6d-8e9f-0a1b2c3d4e5f"),
                bad,
            ],
            verdict: Verdict::Fail,
            failures: vec![CheckFailure {
                target: "GPU 0 MIG 1g.5gb".into(),
                uuid: "MIG-2222aaaa-4a5b-5c6d-8e9f-0a1b2c3d4e5f".into(),
                check: "memory_limit",
                message: "not enforced".into(),
                hint: Some("set MPS limits by device ordinal".into()),
            }],
        };
        let text = render(&out(), &report);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("TARGET"), "{text}");
        assert!(
            lines[1].contains("MIG-1111aaaa") && lines[1].ends_with("pass"),
            "{text}"
        );
        assert!(
            lines[1].contains("4600/4864") && lines[1].contains("4864 held"),
            "{text}"
        );
        assert!(
            lines[1].contains("24.5") && lines[1].contains("2.5 / 4.0"),
            "{text}"
        );
        assert!(
            lines[2].contains("4864 NOT HELD") && lines[2].ends_with("FAIL"),
            "{text}"
        );
        assert!(text.contains("verdict: FAIL (1 failure)"), "{text}");
        assert!(
            text.contains("D2D: an SM copy kernel, bytes read + bytes written"),
            "{text}"
        );
        assert!(
            text.contains(
                "  GPU 0 MIG 1g.5gb (MIG-2222aaaa): not enforced\n    hint: set MPS limits by device ordinal\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn compare_shows_alone_and_together() {
        let mut t = sample_target("GPU-1111aaaa-4a5b-5c6d-8e9f-0a1b2c3d4e5f");
        t.clients = 4;
        t.bandwidth_gbps.h2d = Some(24.0);
        t.solo = Some(Figures {
            bandwidth_gbps: Bandwidth {
                h2d: Some(24.0),
                d2h: None,
                d2d: Some(1400.0),
            },
            launch_latency_us: Latency {
                p50: Some(2.0),
                p99: None,
            },
            roundtrip_us: Latency {
                p50: Some(8.0),
                p99: None,
            },
        });
        t.slowdown = Some(Slowdown {
            h2d: Some(4.0),
            ..Default::default()
        });
        let report = Report {
            source: "nvml".into(),
            quick: false,
            d2d_counts: D2D_COUNTS,
            targets: vec![t],
            verdict: Verdict::Pass,
            failures: vec![],
        };
        let text = render(&out(), &report);
        assert!(text.contains("Alone → per client with N at once"), "{text}");
        assert!(text.contains("24.0 → 6.0 (4.00×)"), "{text}");
        assert!(
            text.contains("verdict: pass (1 target as promised)"),
            "{text}"
        );
    }
}
