//! The verdict: did each target give what it was promised? (reference: "what sharing verified
//! means"). Bandwidth and latency are reported, never judged: they depend on the node, and a
//! fixed threshold would be a guess.

use super::report::{CheckFailure, TargetReport};
use super::targets::TargetKind;

/// At least this share of the promised memory (or of what was free, if less) must be allocatable:
/// the driver's own allocations and the last partial chunk take the rest.
const MEMORY_REACHABLE: f64 = 0.9;
/// A device may report this much less total memory than NVML says (the driver reserves some).
const TOTAL_BELOW: f64 = 0.9;
/// A MIG device must not report more memory than its GPU instance has (beyond rounding).
const TOTAL_ABOVE: f64 = 1.05;
/// SMs busy at once beyond those the context is given before it counts: MPS hands out SMs in
/// pairs (one TPC), so a share can run on one SM more than its count, and a block's start and
/// end times are only as fine as `%globaltimer`.
const SM_TOLERANCE: u32 = 2;

pub(crate) fn judge(targets: &[TargetReport]) -> Vec<CheckFailure> {
    targets.iter().flat_map(judge_target).collect()
}

fn failure(
    t: &TargetReport,
    check: &'static str,
    message: String,
    hint: Option<&str>,
) -> CheckFailure {
    CheckFailure {
        target: t.label.clone(),
        uuid: t.uuid.clone(),
        check,
        message,
        hint: hint.map(str::to_string),
    }
}

fn judge_target(t: &TargetReport) -> Vec<CheckFailure> {
    let mut out = Vec::new();
    let p = &t.promised;
    if p.mps_missing {
        out.push(failure(
            t,
            "mps",
            "gpushare.toml puts this device under MPS, but no MPS daemon serves it".into(),
            Some("start the MPS daemon, or point the probe at it with --mps-pipe-dir"),
        ));
    }
    if let Some(e) = &t.error {
        let message = match t.error_check {
            "probe" => format!("could not be measured: {e}"),
            _ => e.clone(),
        };
        out.push(failure(t, t.error_check, message, t.hint.as_deref()));
        return out;
    }
    let mut fail =
        |check: &'static str, message: String| out.push(failure(t, check, message, None));
    let failed: Vec<_> = t.per_client.iter().filter(|c| c.error.is_some()).collect();
    if let Some(first) = failed.first() {
        fail(
            "clients",
            format!(
                "{} of {} clients failed; client {}: {}",
                failed.len(),
                t.clients,
                first.client,
                first.error.as_deref().unwrap_or("")
            ),
        );
    }
    let m = &t.memory;
    if let (Some(false), Some(limit), Some(allocated)) =
        (m.limit_enforced, m.limit_mib, m.allocated_mib)
    {
        fail(
            "memory_limit",
            format!(
                "a client allocated {allocated} MiB, past its {limit} MiB limit: the limit is not enforced"
            ),
        );
    }
    if let (Some(limit), Some(allocated)) = (m.limit_mib, m.allocated_mib) {
        let reachable = m.free_mib.map_or(limit, |free| free.min(limit));
        if (allocated as f64) < MEMORY_REACHABLE * reachable as f64 {
            fail(
                "memory_available",
                format!(
                    "only {allocated} MiB could be allocated of the {reachable} MiB promised and free"
                ),
            );
        }
    }
    if t.kind != TargetKind::Mps
        && let Some(total) = m.total_mib
    {
        let promised = p.memory_mib as f64;
        if (total as f64) < TOTAL_BELOW * promised {
            fail(
                "memory_total",
                format!(
                    "reports {total} MiB of memory; {} MiB expected ({})",
                    p.memory_mib, p.memory_from
                ),
            );
        } else if t.kind == TargetKind::Mig && total as f64 > TOTAL_ABOVE * promised {
            fail(
                "memory_total",
                format!(
                    "reports {total} MiB of memory, more than its MIG instance's {} MiB: it is not isolated",
                    p.memory_mib
                ),
            );
        }
    }
    if let Some(given) = t.multiprocessors {
        if let Some(exact) = p.multiprocessors
            && given != exact
        {
            fail(
                "multiprocessors",
                format!("the context is given {given} SMs; the device has {exact}"),
            );
        }
        if let (Some(max), Some(pct)) = (p.max_multiprocessors, p.thread_percentage)
            && given > max
        {
            fail(
                "multiprocessors",
                format!(
                    "the client is given {given} SMs; a {pct}% thread share allows at most {max}: the share is not applied"
                ),
            );
        }
        if let Some(seen) = t.sms_observed
            && seen > given + SM_TOLERANCE
        {
            fail(
                "sms_observed",
                format!(
                    "kernels ran on {seen} SMs at once, more than the {given} the context is given"
                ),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::probe::report::{Bandwidth, ClientReport, Latency};

    fn good() -> TargetReport {
        let mut t = crate::observe::probe::report::sample_target("MIG-a");
        t.bandwidth_gbps = Bandwidth::default();
        t
    }

    fn checks(t: &TargetReport) -> Vec<&'static str> {
        judge(std::slice::from_ref(t))
            .iter()
            .map(|f| f.check)
            .collect()
    }

    #[test]
    fn a_target_that_keeps_its_promises_passes() {
        assert!(checks(&good()).is_empty());
    }

    #[test]
    fn an_unenforced_memory_limit_fails() {
        let mut t = good();
        t.memory.limit_enforced = Some(false);
        t.memory.allocated_mib = Some(5016);
        let f = judge(&[t]);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].check, "memory_limit");
        assert!(
            f[0].message.contains("5016 MiB, past its 4864 MiB limit"),
            "{}",
            f[0].message
        );
    }

    #[test]
    fn memory_that_cannot_be_reached_fails() {
        let mut t = good();
        t.memory.allocated_mib = Some(2000);
        assert_eq!(checks(&t), ["memory_available"]);
        // Judged against what was free when less than the limit: another process holds memory.
        t.memory.free_mib = Some(2100);
        assert!(checks(&t).is_empty());
    }

    #[test]
    fn mig_devices_must_report_their_own_memory_and_sms() {
        let mut t = good();
        t.memory.total_mib = Some(40960);
        t.memory.free_mib = Some(40000);
        assert_eq!(checks(&t), ["memory_total"]);
        let mut t = good();
        t.memory.total_mib = Some(3000);
        assert_eq!(checks(&t), ["memory_total"]);
        let mut t = good();
        t.multiprocessors = Some(108);
        assert_eq!(checks(&t), ["multiprocessors"]);
        let mut t = good();
        t.sms_observed = Some(20);
        assert_eq!(checks(&t), ["sms_observed"]);
        // One TPC more than given is how MPS rounds, not a leak.
        t.sms_observed = Some(16);
        assert!(checks(&t).is_empty());
        t.sms_observed = Some(17);
        assert_eq!(checks(&t), ["sms_observed"]);
    }

    #[test]
    fn mps_thread_shares_cap_the_sms() {
        let mut t = good();
        t.kind = TargetKind::Mps;
        t.promised.multiprocessors = None;
        t.promised.thread_percentage = Some(25);
        t.promised.max_multiprocessors = Some(10);
        t.memory.total_mib = Some(15360);
        t.multiprocessors = Some(10);
        t.sms_observed = Some(10);
        assert!(checks(&t).is_empty(), "{:?}", judge(&[t]));
        t.multiprocessors = Some(40);
        t.sms_observed = Some(40);
        assert_eq!(checks(&t), ["multiprocessors"]);
    }

    #[test]
    fn errors_failed_clients_and_missing_daemons_fail() {
        let mut t = good();
        t.error = Some("cuInit failed".into());
        t.promised.mps_missing = true;
        assert_eq!(checks(&t), ["mps", "probe"]);
        let mut t = good();
        t.error = Some("no MPS daemon answers in /p".into());
        t.error_check = "mps";
        let f = judge(&[t]);
        assert_eq!(
            (f[0].check, f[0].message.as_str()),
            ("mps", "no MPS daemon answers in /p")
        );
        let mut t = good();
        t.clients = 2;
        t.per_client = vec![
            ClientReport {
                client: 0,
                bandwidth_gbps: Bandwidth::default(),
                launch_latency_us: Latency::default(),
                roundtrip_us: Latency::default(),
                multiprocessors: Some(14),
                sms_observed: Some(14),
                error: None,
            },
            ClientReport {
                client: 1,
                bandwidth_gbps: Bandwidth::default(),
                launch_latency_us: Latency::default(),
                roundtrip_us: Latency::default(),
                multiprocessors: None,
                sms_observed: None,
                error: Some("MPS_MAX_CLIENTS_REACHED".into()),
            },
        ];
        let f = judge(&[t]);
        assert_eq!(f[0].check, "clients");
        assert!(
            f[0].message.starts_with("1 of 2 clients failed; client 1"),
            "{}",
            f[0].message
        );
    }
}
