//! One MPS change at a time: an advisory lock on `<run_dir>/mps/.lock`, held while daemons are
//! started or stopped (a systemd unit and a person at the shell may run at once).

use crate::error::{Error, Result};
use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Released when dropped (closing the file releases the lock).
pub struct MpsLock {
    _file: File,
}

pub fn acquire(mps_dir: &Path) -> Result<MpsLock> {
    super::dirs::make_dirs(mps_dir, 0o755)
        .map_err(|e| Error::failed(format!("cannot create {}: {e}", mps_dir.display())))?;
    let path = mps_dir.join(".lock");
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(&path)
        .map_err(|e| Error::failed(format!("cannot open {}: {e}", path.display())))?;
    // SAFETY: flock on a file descriptor this function owns; no memory is shared.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if rc != 0 {
        return Err(Error::failed(format!(
            "another gpushare command is starting or stopping MPS daemons (lock {})",
            path.display()
        ))
        .with_hint("wait for it to finish and try again"));
    }
    Ok(MpsLock { _file: file })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_second_holder_is_refused_until_the_first_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let first = super::acquire(dir.path()).unwrap();
        let e = super::acquire(dir.path()).err().unwrap();
        assert!(
            e.message.contains("another gpushare command"),
            "{}",
            e.message
        );
        drop(first);
        assert!(super::acquire(dir.path()).is_ok());
    }
}
