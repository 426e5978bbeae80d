//! The end of `init`: what the node now offers, per GPU, and where things were written.
//!
//! `--format json`: `{"config": {"path", "written"}, "changes": <plan with statuses>,
//! "manifests": {"dir", "files"} | null, "probe": {"status", "detail"}, "gpus": [{"gpu", "name",
//! "mode", "offers": [..]}]}`.

use crate::Context;
use crate::config::AssignedConfig;
use crate::config::{Config, Mode};
use crate::error::Result;
use crate::mps::settings::{self, DaemonSpec};
use crate::node::Gpu;
use crate::output::{Output, Style, table};
use crate::plan::{Plan, Status};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Debug, Serialize)]
pub(super) struct InitReport {
    pub config: ConfigReport,
    /// Every change made, with its status.
    pub changes: Plan,
    pub manifests: Option<ManifestsReport>,
    pub probe: ProbeReport,
    pub gpus: Vec<Offer>,
}

#[derive(Debug, Serialize)]
pub(super) struct ConfigReport {
    pub path: PathBuf,
    /// False when it already said this.
    pub written: bool,
}

#[derive(Debug, Serialize)]
pub(super) struct ManifestsReport {
    pub dir: PathBuf,
    pub files: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum ProbeStatus {
    Passed,
    Failed,
    Skipped,
}

#[derive(Debug, Serialize)]
pub(super) struct ProbeReport {
    pub status: ProbeStatus,
    pub detail: String,
}

impl ProbeReport {
    pub(super) fn passed(targets: usize) -> Self {
        ProbeReport {
            status: ProbeStatus::Passed,
            detail: format!("{targets} target(s) keep their promise"),
        }
    }

    pub(super) fn failed(failures: usize) -> Self {
        ProbeReport {
            status: ProbeStatus::Failed,
            detail: format!("{failures} promise(s) not kept"),
        }
    }

    pub(super) fn skipped(why: &str) -> Self {
        ProbeReport {
            status: ProbeStatus::Skipped,
            detail: why.to_string(),
        }
    }
}

/// What one GPU offers now.
#[derive(Debug, Serialize)]
pub(super) struct Offer {
    pub gpu: u32,
    pub name: String,
    /// The mode of its entry, or `untouched` when the file does not cover it.
    pub mode: String,
    pub offers: Vec<String>,
}

/// Read the node, the file and the MPS records, and say what each GPU offers.
pub(super) fn offers(ctx: &mut Context, config: &Path) -> Result<Vec<Offer>> {
    let config = Config::load(config)?;
    let node = ctx.snapshot()?;
    let records = settings::load_all(&ctx.paths)?;
    let config = AssignedConfig::new(config, &node)?;
    let assignments = config.assignments();
    let mut out = Vec::new();
    for gpu in &node.gpus {
        let entry = assignments
            .iter()
            .find(|a| a.gpu == gpu.index)
            .map(|a| a.entry.get_ref());
        let (mode, offers) = match entry {
            None => ("untouched".to_string(), vec!["left as it was".to_string()]),
            Some(e) => {
                let mode = *e.mode.get_ref();
                (mode.as_str().to_string(), offer(gpu, mode, e, &records))
            }
        };
        out.push(Offer {
            gpu: gpu.index,
            name: gpu.name.clone(),
            mode,
            offers,
        });
    }
    Ok(out)
}

fn offer(
    gpu: &Gpu,
    mode: Mode,
    entry: &crate::config::GpuEntry,
    records: &[DaemonSpec],
) -> Vec<String> {
    let daemons: Vec<&DaemonSpec> = records.iter().filter(|r| r.serves_gpu(gpu.index)).collect();
    match mode {
        Mode::Mig => {
            let Some(instances) = &gpu.mig.instances else {
                return vec!["MIG layout unknown (the driver would not list it)".into()];
            };
            let mut counts: BTreeMap<&str, u32> = BTreeMap::new();
            for gi in instances {
                for ci in &gi.compute_instances {
                    *counts.entry(ci.profile.as_str()).or_default() += 1;
                }
            }
            let mut v: Vec<String> = counts
                .iter()
                .map(|(p, n)| format!("{n}x MIG {p}"))
                .collect();
            if v.is_empty() {
                v.push("MIG enabled, no devices".into());
            }
            if !daemons.is_empty() {
                let first = daemons[0];
                v.push(format!(
                    "MPS on {} MIG device(s): {} per client",
                    daemons.len(),
                    threads_and_clients(first)
                ));
            }
            v
        }
        Mode::Mps => match daemons.first() {
            Some(d) => {
                let memory = d
                    .devices
                    .iter()
                    .find(|x| x.gpu == gpu.index && x.mig.is_none())
                    .and_then(|x| x.memory_limit_mib)
                    .map_or(String::new(), |m| format!(", {m} MiB"));
                vec![format!(
                    "MPS daemon `{}`: {}{memory} per client",
                    d.name,
                    threads_and_clients(d)
                )]
            }
            None => vec!["MPS: no daemon runs".into()],
        },
        Mode::TimeSlicing => {
            let replicas = entry
                .time_slicing
                .as_ref()
                .map_or(0, |t| *t.get_ref().replicas.get_ref());
            vec![format!(
                "time-slicing: {replicas} replicas through the device plugin ({} compute mode)",
                gpu.compute_mode.map_or("unknown", |m| m.as_str())
            )]
        }
        Mode::Vgpu => {
            let types: Vec<String> = entry
                .vgpu
                .as_ref()
                .map(|v| {
                    v.get_ref()
                        .devices
                        .iter()
                        .map(|(t, n)| format!("{}x {}", n.get_ref(), t.get_ref()))
                        .collect()
                })
                .unwrap_or_default();
            vec![format!("vGPU: {}", types.join(", "))]
        }
        Mode::None => vec!["not shared".into()],
    }
}

/// `4 clients, threads 25%` for a daemon.
fn threads_and_clients(d: &DaemonSpec) -> String {
    let clients = d
        .clients
        .map_or(String::new(), |n| format!("{n} clients, "));
    let threads = d
        .thread_percentage
        .map_or("threads 100%".to_string(), |p| format!("threads {p}%"));
    format!("{clients}{threads}")
}

pub(super) fn render(out: &Output, r: &InitReport) -> String {
    let rows = r
        .gpus
        .iter()
        .map(|g| {
            vec![
                g.gpu.to_string(),
                g.name.clone(),
                g.mode.clone(),
                g.offers.join("; "),
            ]
        })
        .collect();
    let mut s = table(&["GPU", "NAME", "MODE", "OFFERS"], rows);
    let done = r
        .changes
        .changes
        .iter()
        .filter(|c| c.status == Some(Status::Done))
        .count();
    s.push('\n');
    s.push_str(&format!(
        "config     {} ({})\n",
        r.config.path.display(),
        if r.config.written {
            "written"
        } else {
            "unchanged"
        }
    ));
    s.push_str(&format!("changes    {done} made\n"));
    match &r.manifests {
        Some(m) => s.push_str(&format!(
            "manifests  {} ({} file(s))\n",
            m.dir.display(),
            m.files.len()
        )),
        None => s.push_str("manifests  none (no [kubernetes] targets)\n"),
    }
    let status = match r.probe.status {
        ProbeStatus::Passed => out.paint(Style::Good, "passed"),
        ProbeStatus::Failed => out.paint(Style::Bad, "FAILED"),
        ProbeStatus::Skipped => out.paint(Style::Warn, "skipped"),
    };
    s.push_str(&format!("probe      {status}: {}\n", r.probe.detail));
    s
}
