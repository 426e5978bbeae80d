//! Which processes hold the stand-in NVML initialised: one pid file each in `<state>.holders/`,
//! written by the first `nvmlInit` of a process and removed by its last `nvmlShutdown`. A file left
//! by a process that died without shutting down is ignored (the driver drops a dead client too).

use std::path::{Path, PathBuf};

pub fn dir(state: &Path) -> PathBuf {
    let mut name = state.as_os_str().to_owned();
    name.push(".holders");
    PathBuf::from(name)
}

fn own_file(state: &Path) -> PathBuf {
    dir(state).join(std::process::id().to_string())
}

pub fn hold(state: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir(state))?;
    std::fs::write(own_file(state), b"")
}

pub fn release(state: &Path) {
    let _ = std::fs::remove_file(own_file(state));
}

fn alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// Live processes other than this one that hold NVML initialised.
pub fn others(state: &Path) -> Vec<u32> {
    let me = std::process::id();
    let mut pids: Vec<u32> = std::fs::read_dir(dir(state))
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse().ok()))
                .filter(|pid| *pid != me && alive(*pid))
                .collect()
        })
        .unwrap_or_default();
    pids.sort_unstable();
    pids
}
