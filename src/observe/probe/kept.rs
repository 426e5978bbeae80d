//! The last report the probe made, kept for the metrics (`<lib_dir>/probe.json`): the report as
//! `probe --format json` prints it, with the time it was made. Written atomically, mode 0644; read
//! back as one of gpushare's own files (no link, nothing oversize).

use super::report::Report;
use crate::support::paths::Paths;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

const MODE: u32 = 0o644;
/// A report of every MIG device of a large node is a few hundred KiB.
const LIMIT: u64 = 16 * 1024 * 1024;

pub(crate) fn path(paths: &Paths) -> PathBuf {
    paths.lib_dir().join("probe.json")
}

#[derive(Serialize)]
struct Keeping<'a> {
    /// Seconds since the Unix epoch.
    time: f64,
    #[serde(flatten)]
    report: &'a Report,
}

/// Keep `report` as the last one; the path, or why it could not be written.
pub(crate) fn keep(paths: &Paths, report: &Report) -> Result<PathBuf, String> {
    let path = path(paths);
    let time = crate::support::clock::unix_now();
    let text = serde_json::to_vec_pretty(&Keeping { time, report }).map_err(|e| e.to_string())?;
    if let Some(dir) = path.parent() {
        crate::support::fsutil::own_dir(dir, crate::support::paths::LIB_DIR_MODE)
            .map_err(|e| e.message)?;
    }
    crate::support::fsutil::write_atomic(&path, &text, MODE).map_err(|e| e.to_string())?;
    Ok(path)
}

/// What the metrics read of a kept report.
#[derive(Debug, Deserialize)]
pub(crate) struct KeptReport {
    pub time: f64,
    pub verdict: String,
    pub targets: Vec<KeptTarget>,
    #[serde(default)]
    pub failures: Vec<KeptFailure>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct KeptTarget {
    pub kind: String,
    pub gpu: u32,
    pub uuid: String,
    pub label: String,
    #[serde(default)]
    pub memory: KeptMemory,
    #[serde(default)]
    pub bandwidth_gbps: KeptBandwidth,
    pub error: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct KeptMemory {
    pub limit_mib: Option<u64>,
    pub limit_enforced: Option<bool>,
    pub allocated_mib: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct KeptBandwidth {
    pub h2d: Option<f64>,
    pub d2h: Option<f64>,
    pub d2d: Option<f64>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct KeptFailure {
    pub target: String,
}

impl KeptReport {
    /// The target kept its promises: no failure names it and it was measured.
    pub(crate) fn passed(&self, target: &KeptTarget) -> bool {
        target.error.is_none() && !self.failures.iter().any(|f| f.target == target.label)
    }
}

/// The last kept report; None when the probe has not kept one.
pub(crate) fn read(paths: &Paths) -> Result<Option<KeptReport>, String> {
    let path = path(paths);
    let Some(text) = crate::support::fsutil::read_own_text(&path, LIMIT)
        .map_err(|e| format!("{}: {e}", path.display()))?
    else {
        return Ok(None);
    };
    let report: KeptReport =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    report
        .check()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Some(report))
}

/// The fastest bus or memory the probe could measure, with room to spare (GB/s).
const MAX_GBPS: f64 = 100_000.0;
/// More memory than any device has (MiB: 1 PiB).
const MAX_MIB: u64 = 1 << 30;
/// Targets of one report: every MIG device and MPS client of a large node.
const MAX_TARGETS: usize = 4096;
const MAX_TEXT: usize = 256;
/// 2100-01-01, seconds since the Unix epoch.
const LAST_TIME: f64 = 4_102_444_800.0;

impl KeptReport {
    /// Figures the probe could have measured: a report with others (a hand edit, a corrupt
    /// file) is not exported, rather than exported as `+Inf` or `1e308`.
    fn check(&self) -> Result<(), String> {
        if !(0.0..LAST_TIME).contains(&self.time) {
            return Err(format!("time {} is not a time the probe ran", self.time));
        }
        if self.targets.len() > MAX_TARGETS {
            return Err(format!(
                "{} targets: at most {MAX_TARGETS}",
                self.targets.len()
            ));
        }
        for t in &self.targets {
            let long = [&t.kind, &t.uuid, &t.label, &self.verdict]
                .iter()
                .any(|s| s.len() > MAX_TEXT);
            if long {
                return Err(format!(
                    "target {:?}: a name past {MAX_TEXT} bytes",
                    t.label.chars().take(40).collect::<String>()
                ));
            }
            let b = &t.bandwidth_gbps;
            for (direction, gbps) in [("h2d", b.h2d), ("d2h", b.d2h), ("d2d", b.d2d)] {
                if let Some(gbps) = gbps
                    && !(0.0..=MAX_GBPS).contains(&gbps)
                {
                    return Err(format!(
                        "target {}: {direction} bandwidth {gbps} GB/s is not one a bus carries",
                        t.label
                    ));
                }
            }
            for (what, mib) in [
                ("limit_mib", t.memory.limit_mib),
                ("allocated_mib", t.memory.allocated_mib),
            ] {
                if mib.is_some_and(|m| m > MAX_MIB) {
                    return Err(format!(
                        "target {}: {what} is more than any device holds",
                        t.label
                    ));
                }
            }
        }
        Ok(())
    }
}
