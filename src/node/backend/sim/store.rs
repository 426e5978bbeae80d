//! Where a simulated node is kept between commands (`--sim-state FILE`): the state as JSON in
//! FILE, and beside it `FILE.ops`, the calls made since FILE was written, one JSON line each.
//!
//! Every changing call appends its line (written at once, not fsynced: what a process that dies
//! wrote stays in the page cache), so a crash after a call leaves the state the driver would
//! have. FILE itself is rewritten (atomically) once per command, and the log emptied. Loading
//! FILE replays the lines written for it: each line carries the `ops_id` of the state it follows,
//! and every write of FILE gets a new id, so a line left from before is never replayed twice.
//!
//! Several processes may serve one FILE at once (commands with different `--state-root`s, the
//! NVML stand-in), as several callers share one driver, and the driver serialises them: so does
//! the simulator, with an flock on `FILE.lock` held for each call, each read of the node and each
//! write of FILE. Under it the process first catches up with what the others did (FILE or its log
//! changed since it last looked), so every call applies to the node as it is.

use super::ops::SimOp;
use super::state::SimState;
use super::state_check;
use crate::node::backend::{DriverError, DriverErrorKind, DriverResult};
use crate::support::error::{Error, Result};
use crate::support::source_file::SourceFile;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// More than this is not an operation log the simulator wrote.
const LOG_LIMIT: u64 = 256 * 1024 * 1024;

/// One line of the log.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    /// The `ops_id` of the state this call follows.
    id: String,
    call: SimOp,
}

pub(super) struct Store {
    path: PathBuf,
    log_path: PathBuf,
    lock_path: PathBuf,
    /// Opened at the first call.
    log: Option<File>,
    /// This process logged calls that FILE does not hold yet.
    pending: bool,
    /// FILE and its log as this process last read or wrote them.
    seen: Option<Seen>,
}

/// Which FILE (its inode: every write replaces it) and how long its log was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Seen {
    file: Option<(u64, u64, i64, i64)>,
    log_len: u64,
}

/// A call holds the simulator's lock for microseconds; one held this long is a stopped process.
const LOCK_TIMEOUT: Duration = Duration::from_secs(30);

/// The simulator's lock, held while it lives (the kernel releases it when the holder dies).
pub(super) struct Held {
    _file: File,
}

fn failed(detail: String) -> DriverError {
    DriverError::new(DriverErrorKind::Unknown, detail)
}

impl Store {
    pub(super) fn new(path: &Path) -> Store {
        let beside = |suffix: &str| {
            let mut p = path.as_os_str().to_owned();
            p.push(suffix);
            PathBuf::from(p)
        };
        Store {
            path: path.to_path_buf(),
            log_path: beside(".ops"),
            lock_path: beside(".lock"),
            log: None,
            pending: false,
            seen: None,
        }
    }

    /// Take the simulator's lock (see the module doc). A reader that may not create the lock
    /// file (another user's state) opens it read-only; flock needs no more.
    pub(super) fn hold(&self) -> Result<Held> {
        let cannot = |e: &dyn std::fmt::Display| {
            Error::failed(format!(
                "cannot take the simulator lock {}: {e}",
                self.lock_path.display()
            ))
        };
        let file = crate::support::fsutil::open_own_file(
            &self.lock_path,
            OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o644),
        )
        .or_else(|e| match e.kind() {
            std::io::ErrorKind::PermissionDenied => crate::support::fsutil::open_own_file(
                &self.lock_path,
                OpenOptions::new().read(true),
            ),
            _ => Err(e),
        })
        .map_err(|e| cannot(&e))?;
        let start = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(Held { _file: file }),
                Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < LOCK_TIMEOUT => {
                    std::thread::sleep(Duration::from_millis(1));
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(cannot(&format!(
                        "another process has held it for {}s",
                        LOCK_TIMEOUT.as_secs()
                    ))
                    .with_hint("a stopped gpushare or NVML stand-in holds it: end that process"));
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(cannot(&e)),
            }
        }
    }

    fn now(&self) -> Seen {
        Seen {
            file: inode(&self.path),
            log_len: std::fs::symlink_metadata(&self.log_path).map_or(0, |m| m.len()),
        }
    }

    /// Under the lock: when another process changed FILE or its log since this one last looked,
    /// `state` becomes the node as it is now. A store that never read FILE (a new one, or a
    /// program's own state handed to [`Store::write`]) keeps `state`.
    pub(super) fn refresh(&mut self, state: &mut SimState) -> Result<()> {
        let now = self.now();
        if now.file.is_none() || self.seen.is_none_or(|seen| seen == now) {
            return Ok(());
        }
        *state = self.read()?;
        Ok(())
    }

    /// Whether calls were made that FILE does not hold yet.
    pub(super) fn pending(&self) -> bool {
        self.pending
    }

    /// The state in FILE with the calls logged after it.
    pub(super) fn load(&mut self) -> Result<SimState> {
        let _held = self.hold()?;
        self.read()
    }

    /// Under the lock: FILE and the calls logged after it. Replayed lines are not this
    /// process's to write out: a command that only reads never writes; the next one that makes
    /// a call writes them too.
    fn read(&mut self) -> Result<SimState> {
        let seen = self.now();
        let mut state = load_state(&self.path)?;
        let log = self.read_log()?;
        self.replay(&mut state, &log)?;
        self.seen = Some(seen);
        Ok(state)
    }

    /// Bring `state`, read from FILE by a program that serves the same node without this
    /// backend, up to date with the calls logged after it.
    pub(super) fn catch_up(&self, state: &mut SimState) -> Result<()> {
        let log = self.read_log()?;
        self.replay(state, &log)
    }

    fn read_log(&self) -> Result<String> {
        crate::support::fsutil::own::refuse_link(&self.log_path).map_err(|e| {
            Error::failed(format!(
                "cannot use the simulator log {}: {e}",
                self.log_path.display()
            ))
        })?;
        crate::support::fsutil::read_own_text(&self.log_path, LOG_LIMIT)
            .map(Option::unwrap_or_default)
            .map_err(|e| {
                Error::failed(format!(
                    "cannot read the simulator log {}: {e}",
                    self.log_path.display()
                ))
                .with_hint("delete it and the state file beside it to start over")
            })
    }

    /// Run the calls of `log` written for `state`.
    fn replay(&self, state: &mut SimState, log: &str) -> Result<()> {
        let Some(id) = state.ops_id.clone() else {
            return Ok(());
        };
        let lines: Vec<&str> = log.split_inclusive('\n').collect();
        for (i, text) in lines.iter().enumerate() {
            let at = |message: String| {
                Error::in_file(&self.log_path, Some((i + 1, 1)), message).with_hint(format!(
                    "it is written by --sim-state; delete it and {} to start over",
                    self.path.display()
                ))
            };
            let line: Line = match serde_json::from_str(text) {
                Ok(line) => line,
                // A process killed while writing can leave the last line cut short.
                Err(_) if i + 1 == lines.len() && !text.ends_with('\n') => break,
                Err(e) => return Err(at(format!("not a simulator call: {e}"))),
            };
            if line.id != id {
                continue;
            }
            line.call.apply(state).map_err(|e| {
                at(format!(
                    "{} does not apply to the state it follows: {e}",
                    line.call.name()
                ))
            })?;
        }
        Ok(())
    }

    /// Record a call made on `state` (which holds its effect).
    pub(super) fn append(&mut self, state: &SimState, call: &SimOp) -> DriverResult<()> {
        let Some(id) = state.ops_id.clone() else {
            return Err(failed("the simulator state was never written".into()));
        };
        let cannot = |e: std::io::Error| {
            failed(format!(
                "cannot record the call in the simulator log {}: {e}",
                self.log_path.display()
            ))
        };
        let line = Line {
            id,
            call: call.clone(),
        };
        let mut text = serde_json::to_string(&line).map_err(|e| failed(e.to_string()))?;
        text.push('\n');
        if self.log.is_none() {
            let file = crate::support::fsutil::open_own_file(
                &self.log_path,
                OpenOptions::new().create(true).append(true).mode(0o644),
            )
            .map_err(cannot)?;
            self.log = Some(file);
        }
        let Some(log) = self.log.as_mut() else {
            return Err(failed("the simulator log is not open".into()));
        };
        // One write: a reader sees the whole line or none of it (or, after a kill, a cut line
        // that replay skips).
        log.write_all(text.as_bytes()).map_err(cannot)?;
        self.pending = true;
        self.seen = Some(self.now());
        Ok(())
    }

    /// Write all of `state` to FILE under a new id, then empty the log; under the lock, after
    /// catching up with the calls of others, so that none is lost.
    pub(super) fn write(&mut self, state: &mut SimState) -> DriverResult<()> {
        let _held = self.hold().map_err(|e| failed(e.message))?;
        self.refresh(state).map_err(|e| failed(e.message))?;
        let id = crate::support::fsutil::random::hex64()
            .map_err(|e| failed(format!("no random id for the simulator state: {e}")))?;
        let previous = state.ops_id.replace(id);
        if let Err(e) = save_state(&self.path, state) {
            state.ops_id = previous;
            return Err(e);
        }
        // Lines left in the log follow the previous id: replay skips them even if this fails.
        let emptied = match &self.log {
            Some(log) => log.set_len(0),
            None => match crate::support::fsutil::open_own_file(
                &self.log_path,
                OpenOptions::new().write(true).truncate(true),
            ) {
                Ok(_) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(e),
            },
        };
        emptied.map_err(|e| {
            failed(format!(
                "cannot empty the simulator log {}: {e}",
                self.log_path.display()
            ))
        })?;
        self.pending = false;
        self.seen = Some(self.now());
        Ok(())
    }
}

/// Which file is at `path`: its inode, and its change time, since a file written after another
/// was renamed away can get the same inode number.
fn inode(path: &Path) -> Option<(u64, u64, i64, i64)> {
    std::fs::symlink_metadata(path)
        .ok()
        .map(|m| (m.dev(), m.ino(), m.ctime(), m.ctime_nsec()))
}

fn load_state(path: &Path) -> Result<SimState> {
    let source = SourceFile::read(path)?;
    let state: SimState = serde_json::from_str(&source.text).map_err(|e| {
        Error::in_file(
            path,
            Some((e.line(), e.column())),
            format!("not a simulator state file: {e}"),
        )
        .with_hint("it is written by --sim-state; delete it to start over")
    })?;
    // A hand-edited file can say anything: check what the simulator relies on now, not on
    // first use.
    state_check::check(&state).map_err(|p| {
        Error::in_file(path, state_check::locate(&source.text, p.at), p.message)
            .with_hint("it is written by --sim-state; delete it to start over")
    })?;
    state
        .snapshot()
        .map_err(|e| Error::in_file(path, None, e.detail).with_hint("delete it to start over"))?;
    Ok(state)
}

fn save_state(path: &Path, state: &SimState) -> DriverResult<()> {
    let mut json = serde_json::to_string_pretty(state).map_err(|e| failed(e.to_string()))?;
    json.push('\n');
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    // Atomic (never half written), not fsynced: a simulator's state is cheap to lose in a power
    // cut, and the log covers a process that dies.
    dir.map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|_| crate::support::fsutil::write_atomic_unsynced(path, json.as_bytes(), 0o644))
        .map_err(|e| {
            failed(format!(
                "cannot save the simulator state to {}: {e}",
                path.display()
            ))
        })
}

#[cfg(test)]
mod tests;
