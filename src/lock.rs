//! The node lock: one changing command at a time (`<run_dir>/lock`).
//!
//! It is an flock(2) on the file, so the kernel releases it when the holder dies; the file also
//! holds the holder's pid and command so a waiting command can name it, and a lock left by a
//! process that is gone is recognised and taken over with a warning.

use crate::error::{Error, Result};
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Held while the guard lives; released on drop (and by the kernel if the process dies).
#[derive(Debug)]
pub struct NodeLock {
    file: File,
    path: PathBuf,
}

/// What a lock acquisition found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Previous {
    /// The lock was free and clean.
    Clean,
    /// It was free but named a process that is gone: an earlier run died holding it.
    Stale { pid: u32, command: String },
}

fn holder(file: &mut File) -> Option<(u32, String)> {
    let mut text = String::new();
    file.seek(SeekFrom::Start(0)).ok()?;
    file.read_to_string(&mut text).ok()?;
    let (pid, command) = text.trim().split_once(' ').unwrap_or((text.trim(), ""));
    Some((pid.parse().ok()?, command.to_string()))
}

fn alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

impl NodeLock {
    /// Take the lock, waiting up to `timeout` for another command to finish.
    pub fn acquire(path: &Path, command: &str, timeout: Duration) -> Result<(NodeLock, Previous)> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| {
                Error::failed(format!("cannot create {}: {e}", dir.display()))
                    .with_hint("run as root, or move state paths with --state-root DIR")
            })?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| {
                Error::failed(format!("cannot open the lock {}: {e}", path.display()))
                    .with_hint("run as root, or move state paths with --state-root DIR")
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
        Ok((
            NodeLock {
                file,
                path: path.to_path_buf(),
            },
            previous,
        ))
    }

    pub fn path(&self) -> &Path {
        &self.path
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
