//! The MPS daemons gpushare started, as the probe finds them: one JSON settings file per daemon at
//! `<run dir>/mps/<name>/settings.json` (`/run/gpushare/mps/…`, moved by `--state-root`).
//!
//! ```json
//! {
//!   "pipe_dir": "/run/gpushare/mps/gpu0/pipe",
//!   "devices": ["GPU-1d3e5a0c-…", "MIG-…"],
//!   "clients": 4,
//!   "thread_percentage": 25,
//!   "memory_limit_mib": 10240
//! }
//! ```
//!
//! `pipe_dir` (the daemon's `CUDA_MPS_PIPE_DIRECTORY`) and `devices` (UUIDs of the devices it
//! serves) are required; the limits are optional and apply to each client on each device. Other
//! fields are ignored, so the daemon side may record more.

use crate::error::{Error, Result};
use serde::Deserialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct MpsSettings {
    pub pipe_dir: PathBuf,
    pub devices: Vec<String>,
    #[serde(default)]
    pub clients: Option<u32>,
    #[serde(default)]
    pub thread_percentage: Option<u32>,
    #[serde(default)]
    pub memory_limit_mib: Option<u64>,
}

/// A daemon: its name (the directory) and settings.
#[derive(Debug, Clone, PartialEq)]
pub struct MpsDaemon {
    pub name: String,
    pub settings: MpsSettings,
}

impl MpsDaemon {
    /// Whether the daemon serves the device with this UUID.
    pub fn serves(&self, uuid: &str) -> bool {
        self.settings
            .devices
            .iter()
            .any(|d| d.eq_ignore_ascii_case(uuid))
    }
}

/// Every daemon under `mps_dir`, in name order; none when the directory does not exist. A
/// settings file that cannot be read or parsed is bad input.
pub fn load_all(mps_dir: &Path) -> Result<Vec<MpsDaemon>> {
    let Ok(entries) = std::fs::read_dir(mps_dir) else {
        return Ok(Vec::new());
    };
    let mut daemons = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path().join("settings.json");
        if !path.is_file() {
            continue;
        }
        let settings = load(&path)?;
        daemons.push(MpsDaemon {
            name: entry.file_name().to_string_lossy().into_owned(),
            settings,
        });
    }
    daemons.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(daemons)
}

fn load(path: &Path) -> Result<MpsSettings> {
    let source = crate::source_file::SourceFile::read(path)?;
    let settings: MpsSettings = serde_json::from_str(&source.text).map_err(|e| {
        Error::in_file(path, Some((e.line(), e.column())), e.to_string()).with_hint(
            "it is written when gpushare starts an MPS daemon; restart the daemon to rewrite it",
        )
    })?;
    let problem = if settings.devices.is_empty() {
        Some("`devices` is empty: name the UUIDs the daemon serves".to_string())
    } else if let Some(p) = settings
        .thread_percentage
        .filter(|p| !(1..=100).contains(p))
    {
        Some(format!("thread_percentage = {p}: must be 1 to 100"))
    } else if settings.clients == Some(0) {
        Some("clients = 0: a daemon serves at least one client".to_string())
    } else {
        None
    };
    match problem {
        Some(p) => Err(Error::in_file(path, None, p)),
        None => Ok(settings),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn daemons_are_read_in_name_order_and_a_missing_dir_is_none() {
        let dir = tempfile::tempdir().unwrap();
        assert!(load_all(&dir.path().join("nothing")).unwrap().is_empty());
        for (name, uuid) in [("gpu1", "GPU-b"), ("gpu0", "GPU-a")] {
            std::fs::create_dir_all(dir.path().join(name)).unwrap();
            std::fs::write(
                dir.path().join(name).join("settings.json"),
                format!(
                    r#"{{"pipe_dir": "/run/x/{name}", "devices": ["{uuid}"], "memory_limit_mib": 4096, "log_dir": "/var/log/x"}}"#
                ),
            )
            .unwrap();
        }
        std::fs::create_dir_all(dir.path().join("stale")).unwrap();
        let daemons = load_all(dir.path()).unwrap();
        assert_eq!(daemons.len(), 2);
        assert_eq!(daemons[0].name, "gpu0");
        assert!(daemons[0].serves("gpu-A"));
        assert!(!daemons[0].serves("GPU-b"));
        assert_eq!(daemons[1].settings.memory_limit_mib, Some(4096));
        assert_eq!(daemons[1].settings.pipe_dir, PathBuf::from("/run/x/gpu1"));
    }

    #[test]
    fn bad_settings_name_the_file_and_position() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("d")).unwrap();
        let file = dir.path().join("d/settings.json");
        std::fs::write(&file, "{\n  \"pipe_dir\": 7\n}").unwrap();
        let e = load_all(dir.path()).unwrap_err();
        assert_eq!(e.exit, crate::error::Exit::Usage);
        assert!(e.message.contains("settings.json:2:"), "{}", e.message);
        std::fs::write(&file, r#"{"pipe_dir": "/p", "devices": [], "clients": 2}"#).unwrap();
        let e = load_all(dir.path()).unwrap_err();
        assert!(e.message.contains("`devices` is empty"), "{}", e.message);
        std::fs::write(
            &file,
            r#"{"pipe_dir": "/p", "devices": ["GPU-a"], "thread_percentage": 0}"#,
        )
        .unwrap();
        let e = load_all(dir.path()).unwrap_err();
        assert!(e.message.contains("thread_percentage = 0"), "{}", e.message);
    }
}
