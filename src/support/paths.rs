//! Where gpushare keeps state on the node. `--state-root DIR` (env `GPUSHARE_ROOT`) moves every
//! path under DIR, for tests and unprivileged runs.

use std::path::{Path, PathBuf};

/// `<run_dir>` (`/run/gpushare`): others may traverse it to reach MPS pipe directories.
pub(crate) const RUN_DIR_MODE: u32 = 0o755;
/// `<lib_dir>` (`/var/lib/gpushare`).
pub(crate) const LIB_DIR_MODE: u32 = 0o755;

#[derive(Debug, Clone, Default)]
pub struct Paths {
    root: Option<PathBuf>,
}

impl Paths {
    pub fn new(root: Option<PathBuf>) -> Self {
        Paths { root }
    }

    /// A system path, moved under the state root when there is one.
    pub fn system(&self, path: &str) -> PathBuf {
        match &self.root {
            Some(root) => root.join(path.trim_start_matches('/')),
            None => PathBuf::from(path),
        }
    }

    /// Runtime state that does not survive a reboot: lock, MPS pipe and log dirs.
    pub fn run_dir(&self) -> PathBuf {
        self.system("/run/gpushare")
    }

    /// State that survives a reboot: the journal of changes.
    pub fn lib_dir(&self) -> PathBuf {
        self.system("/var/lib/gpushare")
    }

    /// Configuration: gpushare.toml.
    pub fn etc_dir(&self) -> PathBuf {
        self.system("/etc/gpushare")
    }

    /// systemd units.
    pub fn systemd_dir(&self) -> PathBuf {
        self.system("/etc/systemd/system")
    }

    /// CDI specs.
    pub fn cdi_dir(&self) -> PathBuf {
        self.system("/etc/cdi")
    }

    pub fn root(&self) -> Option<&Path> {
        self.root.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_root_moves_every_path() {
        let p = Paths::new(Some(PathBuf::from("/tmp/x")));
        assert_eq!(p.run_dir(), PathBuf::from("/tmp/x/run/gpushare"));
        assert_eq!(p.cdi_dir(), PathBuf::from("/tmp/x/etc/cdi"));
        assert_eq!(
            Paths::default().lib_dir(),
            PathBuf::from("/var/lib/gpushare")
        );
    }
}
