//! The last report the probe made, kept for the metrics (`<lib_dir>/probe.json`): the report as
//! `probe --format json` prints it, with the time it was made. Written atomically, mode 0644; read
//! back as one of gpushare's own files (no link, nothing oversize).

use super::report::Report;
use crate::paths::Paths;
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
    let time = crate::clock::unix_now();
    let text = serde_json::to_vec_pretty(&Keeping { time, report }).map_err(|e| e.to_string())?;
    if let Some(dir) = path.parent() {
        crate::fsutil::own_dir(dir, crate::journal::LIB_DIR_MODE).map_err(|e| e.message)?;
    }
    crate::fsutil::write_atomic(&path, &text, MODE).map_err(|e| e.to_string())?;
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
    let Some(text) = crate::fsutil::read_own_text(&path, LIMIT)
        .map_err(|e| format!("{}: {e}", path.display()))?
    else {
        return Ok(None);
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| format!("{}: {e}", path.display()))
}
