//! Where a simulated node is kept between commands (`--sim-state FILE`): the state as JSON in
//! FILE, and beside it `FILE.ops`, the calls made since FILE was written, one JSON line each.
//!
//! Every changing call appends its line (written at once, not fsynced: what a process that dies
//! wrote stays in the page cache), so a crash after a call leaves the state the driver would
//! have. FILE itself is rewritten (atomically) once per command, and the log emptied. Loading
//! FILE replays the lines written for it: each line carries the `ops_id` of the state it follows,
//! and every write of FILE gets a new id, so a line left from before is never replayed twice.

use super::ops::SimOp;
use super::state::SimState;
use super::state_check;
use crate::backend::{DriverError, DriverErrorKind, DriverResult};
use crate::error::{Error, Result};
use crate::source_file::SourceFile;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

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
    /// Opened at the first call.
    log: Option<File>,
    /// This process logged calls that FILE does not hold yet.
    pending: bool,
}

fn failed(detail: String) -> DriverError {
    DriverError::new(DriverErrorKind::Unknown, detail)
}

impl Store {
    pub(super) fn new(path: &Path) -> Store {
        let mut log_path = path.as_os_str().to_owned();
        log_path.push(".ops");
        Store {
            path: path.to_path_buf(),
            log_path: PathBuf::from(log_path),
            log: None,
            pending: false,
        }
    }

    /// Whether calls were made that FILE does not hold yet.
    pub(super) fn pending(&self) -> bool {
        self.pending
    }

    /// The state in FILE with the calls logged after it.
    pub(super) fn load(&mut self) -> Result<SimState> {
        // A command that finishes rewrites FILE and empties the log while others may read them
        // (read-only commands take no lock): read until FILE stayed the same file throughout.
        for _ in 0..16 {
            let before = inode(&self.path);
            let mut state = load_state(&self.path)?;
            let log = self.read_log()?;
            if inode(&self.path) != before {
                continue;
            }
            // Replayed lines are not this process's to write out: a command that only reads
            // (and takes no lock) never writes; the next one that makes a call writes them too.
            self.replay(&mut state, &log)?;
            return Ok(state);
        }
        Err(Error::failed(format!(
            "{} keeps changing while it is read",
            self.path.display()
        )))
    }

    /// Bring `state`, read from FILE by a program that serves the same node without this
    /// backend, up to date with the calls logged after it.
    pub(super) fn catch_up(&self, state: &mut SimState) -> Result<()> {
        let log = self.read_log()?;
        self.replay(state, &log)
    }

    fn read_log(&self) -> Result<String> {
        crate::fsutil::own::refuse_link(&self.log_path).map_err(|e| {
            Error::failed(format!(
                "cannot use the simulator log {}: {e}",
                self.log_path.display()
            ))
        })?;
        crate::fsutil::read_own_text(&self.log_path, LOG_LIMIT)
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
            let file = crate::fsutil::open_own_file(
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
        Ok(())
    }

    /// Write all of `state` to FILE under a new id, then empty the log.
    pub(super) fn write(&mut self, state: &mut SimState) -> DriverResult<()> {
        let id = crate::fsutil::random::hex64()
            .map_err(|e| failed(format!("no random id for the simulator state: {e}")))?;
        let previous = state.ops_id.replace(id);
        if let Err(e) = save_state(&self.path, state) {
            state.ops_id = previous;
            return Err(e);
        }
        // Lines left in the log follow the previous id: replay skips them even if this fails.
        let emptied = match &self.log {
            Some(log) => log.set_len(0),
            None => match crate::fsutil::open_own_file(
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
        Ok(())
    }
}

fn inode(path: &Path) -> Option<(u64, u64)> {
    std::fs::symlink_metadata(path)
        .ok()
        .map(|m| (m.dev(), m.ino()))
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
        .and_then(|_| crate::fsutil::write_atomic_unsynced(path, json.as_bytes(), 0o644))
        .map_err(|e| {
            failed(format!(
                "cannot save the simulator state to {}: {e}",
                path.display()
            ))
        })
}

#[cfg(test)]
mod tests;
