//! Kernel modules that hold the GPUs: loaded is what `/proc/modules` lists (under the sysfs root
//! of the command, so tests use a fake tree), unloaded and loaded with `modprobe`.

use crate::support::error::{Error, Result};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub(crate) const PROGRAM: &str = "modprobe";

/// The modules `<root>/proc/modules` lists. A file that cannot be read lists none.
pub(crate) fn loaded(root: &Path) -> BTreeSet<String> {
    // /proc/modules is a few kB; a fake tree is not trusted to be small, or a file.
    let text = crate::support::fsutil::read_host(&root.join("proc/modules"))
        .ok()
        .flatten()
        .unwrap_or_default();
    text.lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

/// `modprobe` on PATH, else where distributions put it (root's PATH has it; sudo's may not).
fn program() -> Result<PathBuf> {
    which::which(PROGRAM)
        .ok()
        .or_else(|| {
            ["/usr/sbin/modprobe", "/sbin/modprobe"]
                .iter()
                .map(PathBuf::from)
                .find(|p| p.is_file())
        })
        .ok_or_else(|| {
            Error::failed(format!("{PROGRAM} is not on PATH"))
                .with_hint("install kmod, or unload the module yourself")
        })
}

/// `modprobe -r NAME`: fails while something uses the module.
pub(crate) fn unload(name: &str) -> Result<()> {
    run(&["-r", name])
}

/// `modprobe NAME`.
pub(crate) fn load(name: &str) -> Result<()> {
    run(&[name])
}

fn run(args: &[&str]) -> Result<()> {
    crate::support::program::run(&program()?, args).map_err(Error::failed)
}
