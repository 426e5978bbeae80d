//! The end of `init`: what the node now offers, per GPU, and where things were written.
//!
//! `--format json`: `{"config": {"path", "written"}, "changes": <plan with statuses>,
//! "manifests": {"dir", "files"} | null, "probe": {"status", "detail"}, "gpus": [{"gpu", "name",
//! "mode", "offers": [..]}]}`.

use crate::change::plan::{Plan, Status};
use crate::node::Context;
use crate::node::config::AssignedConfig;
use crate::node::config::Config;
use crate::sharing::mps::settings::{self, DaemonSpec};
use crate::support::error::Result;
use crate::support::output::{Output, Style, table};
use serde::Serialize;
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
                let daemons: Vec<&DaemonSpec> =
                    records.iter().filter(|r| r.serves_gpu(gpu.index)).collect();
                let offers = crate::sharing::mode::of(mode).describe(gpu, e, &daemons);
                (mode.as_str().to_string(), offers)
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
