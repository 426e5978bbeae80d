//! The node lock: one changing command at a time (`<run_dir>/lock`).
//!
//! It is an flock(2) on the file, so the kernel releases it when the holder dies; the file also
//! holds the holder's pid and command so a waiting command can name it, and a lock left by a
//! process that is gone is recognised and taken over with a warning.
//!
//! The lock is one of gpushare's own files (mode 0644, in the run dir, mode 0755): a link or a
//! special file planted there is refused, never followed or truncated.

use crate::support::error::{Error, Result};
use crate::support::fsutil;
use crate::support::paths::RUN_DIR_MODE;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

/// Held while the guard lives; released on drop (and by the kernel if the process dies).
#[derive(Debug)]
pub struct NodeLock {
    file: File,
}

/// What a lock acquisition found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Previous {
    /// The lock was free and clean.
    Clean,
    /// It was free but named a process that is gone: an earlier run died holding it.
    Stale { pid: u32, command: String },
}

/// The lock names its holder; anyone may read who that is.
const LOCK_MODE: u32 = 0o644;

fn holder(file: &mut File) -> Option<(u32, String)> {
    let mut text = String::new();
    file.seek(SeekFrom::Start(0)).ok()?;
    // A record is one short line; never read more than a page of whatever is there.
    Read::take(&mut *file, 4096)
        .read_to_string(&mut text)
        .ok()?;
    let (pid, command) = text.trim().split_once(' ').unwrap_or((text.trim(), ""));
    Some((pid.parse().ok()?, command.to_string()))
}

fn alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

impl NodeLock {
    /// Take the lock, waiting up to `timeout` for another command to finish.
    pub fn acquire(path: &Path, command: &str, timeout: Duration) -> Result<(NodeLock, Previous)> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fsutil::own_dir(dir, RUN_DIR_MODE)?;
        }
        let mut file = fsutil::open_own_file(
            path,
            OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .mode(LOCK_MODE),
        )
        .map_err(|e| {
            let error = Error::failed(format!("cannot open the lock {}: {e}", path.display()));
            // Root is refused a link or a FIFO there too: what helps is removing it.
            if e.kind() == std::io::ErrorKind::PermissionDenied {
                error.with_hint("run as root, or move state paths with --state-root DIR")
            } else {
                error.with_hint(format!(
                    "remove {} (gpushare makes the lock itself), or move state paths with --state-root DIR",
                    path.display()
                ))
            }
        })?;
        let start = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) => {
                    if start.elapsed() >= timeout {
                        let who = holder(&mut file)
                            .map(|(pid, cmd)| format!("pid {pid} ({cmd})"))
                            .unwrap_or_else(|| "another gpushare command".into());
                        return Err(Error::failed(format!(
                            "another gpushare command holds {}: {who}",
                            path.display()
                        ))
                        .with_hint("wait for it to finish, or raise --lock-timeout"));
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
                Err(TryLockError::Error(e)) => {
                    return Err(Error::failed(format!(
                        "cannot lock {}: {e}",
                        path.display()
                    )));
                }
            }
        }
        let previous = match holder(&mut file) {
            Some((pid, command)) if pid != std::process::id() && !alive(pid) => {
                Previous::Stale { pid, command }
            }
            _ => Previous::Clean,
        };
        let record = format!("{} {command}\n", std::process::id());
        file.set_len(0)
            .and_then(|_| file.seek(SeekFrom::Start(0)))
            .and_then(|_| file.write_all(record.as_bytes()))
            .and_then(|_| file.flush())
            .map_err(|e| Error::failed(format!("cannot write {}: {e}", path.display())))?;
        Ok((NodeLock { file }, previous))
    }
}

impl Drop for NodeLock {
    fn drop(&mut self) {
        // Clear the holder so the next command does not see a stale record.
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_waits_then_names_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run/lock");
        let (first, prev) = NodeLock::acquire(&path, "apply", Duration::from_secs(1)).unwrap();
        assert_eq!(prev, Previous::Clean);
        let e = NodeLock::acquire(&path, "apply", Duration::from_millis(200)).unwrap_err();
        assert!(
            e.message
                .contains(&format!("pid {} (apply)", std::process::id())),
            "{}",
            e.message
        );
        drop(first);
        NodeLock::acquire(&path, "apply", Duration::from_millis(200)).unwrap();
    }

    #[test]
    fn a_linked_lock_is_refused_and_its_target_kept() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("passwd");
        std::fs::write(&victim, "root:x:0:0\n").unwrap();
        let run = dir.path().join("run");
        std::fs::create_dir(&run).unwrap();
        std::os::unix::fs::symlink(&victim, run.join("lock")).unwrap();
        let e = NodeLock::acquire(&run.join("lock"), "apply", Duration::from_secs(1)).unwrap_err();
        assert_eq!(e.exit, crate::support::error::Exit::Failed);
        assert!(e.message.contains(&run.join("lock").display().to_string()));
        assert!(e.message.contains("symbolic link"), "{}", e.message);
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "root:x:0:0\n");
    }

    #[test]
    fn a_record_left_by_a_dead_process_is_stale() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        // No process has pid 0x7fff_fff0 on Linux (pid_max is at most 2^22).
        std::fs::write(&path, "2147483632 mig apply\n").unwrap();
        let (_lock, prev) = NodeLock::acquire(&path, "apply", Duration::from_secs(1)).unwrap();
        assert_eq!(
            prev,
            Previous::Stale {
                pid: 2147483632,
                command: "mig apply".into()
            }
        );
    }
}
