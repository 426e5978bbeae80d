//! Read-only access to the host's files under a root directory (`--host-root`), so the checks can
//! be tested on a fake tree.

use std::cell::RefCell;
use std::path::PathBuf;

#[derive(Debug, Clone)]
pub(crate) struct Host {
    root: PathBuf,
    /// Files that are there but were refused (a FIFO, a device, an oversize file), with why:
    /// a check reads them as absent, and the report says so.
    refused: RefCell<Vec<String>>,
}

impl Host {
    pub(crate) fn new(root: impl Into<PathBuf>) -> Self {
        Host {
            root: root.into(),
            refused: RefCell::default(),
        }
    }

    /// What [`Host::read`] refused so far: `PATH: why`.
    pub(crate) fn refused(&self) -> Vec<String> {
        self.refused.borrow().clone()
    }

    /// A host path under the root.
    pub(crate) fn path(&self, path: &str) -> PathBuf {
        self.root.join(path.trim_start_matches('/'))
    }

    pub(crate) fn exists(&self, path: &str) -> bool {
        self.path(path).exists()
    }

    /// A host file's text; `None` when it is missing, unreadable or refused (then recorded).
    pub(crate) fn read(&self, path: &str) -> Option<String> {
        let full = self.path(path);
        match crate::support::fsutil::read_host(&full) {
            Ok(text) => text,
            // Not root: the checks that need it say so themselves.
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => None,
            Err(e) => {
                self.refused
                    .borrow_mut()
                    .push(format!("{}: {e}", full.display()));
                None
            }
        }
    }

    /// Names of the entries of a directory, sorted; empty when it cannot be read.
    pub(crate) fn list(&self, dir: &str) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.path(dir))
            .map(|entries| {
                entries
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }

    /// Whether a loaded kernel module is listed in /proc/modules.
    pub(crate) fn module_loaded(&self, name: &str) -> bool {
        self.read("/proc/modules")
            .is_some_and(|m| m.lines().any(|l| l.split_whitespace().next() == Some(name)))
            || self.exists(&format!("/sys/module/{name}/refcnt"))
    }

    /// Pids of running processes whose command name is `comm`.
    pub(crate) fn processes_named(&self, comm: &str) -> Vec<u32> {
        self.list("/proc")
            .iter()
            .filter_map(|p| p.parse::<u32>().ok())
            .filter(|pid| {
                self.read(&format!("/proc/{pid}/comm"))
                    .is_some_and(|c| c.trim() == comm)
            })
            .collect()
    }
}
