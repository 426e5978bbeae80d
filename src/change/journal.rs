//! The journal of changes (`<lib_dir>/journal.jsonl`): one JSON line per event, appended before
//! and after each step, and on disk before the step runs (steps that start together, on several
//! GPUs, share one sync; the end of a step reaches the disk with the next sync). After an
//! interrupted run it tells the next run what was in flight; the node's own state is always what
//! the next plan starts from.
//!
//! The journal is one of gpushare's own files (mode 0600, in the lib dir, mode 0755): a link or a
//! special file planted there is refused, never appended to or moved.

use crate::support::error::{Error, Result};
use crate::support::fsutil;
use crate::support::paths::LIB_DIR_MODE;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Event {
    /// A changing command began.
    Start,
    /// A step is about to run.
    Step,
    /// The step finished.
    StepDone,
    /// The command finished successfully.
    Done,
    /// The command stopped on an error or a signal.
    Failed,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Entry {
    /// Seconds since the Unix epoch, to the millisecond (whole seconds in older journals).
    pub time: f64,
    pub pid: u32,
    pub command: String,
    pub event: Event,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// A finished step: its operation (`create_gpu_instance`) and how it ended (`done`,
    /// `FAILED`…), for the changes the metrics count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

/// A journal larger than this is moved aside (`journal.jsonl.1`) when a run starts.
const ROTATE_BYTES: u64 = 4 * 1024 * 1024;
/// Only root reads what gpushare did.
const JOURNAL_MODE: u32 = 0o600;

pub(crate) struct Journal {
    path: PathBuf,
    file: File,
    command: String,
}

/// How the previous run recorded in the journal ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LastRun {
    None,
    Finished,
    /// It started and never wrote Done or Failed: it was killed or crashed.
    Interrupted {
        pid: u32,
        command: String,
        last_step: Option<String>,
        /// The steps that started and never ended (several when GPUs were changed at once).
        in_flight: Vec<String>,
    },
}

/// `<lib_dir>/journal.jsonl`.
pub(crate) fn path(paths: &crate::support::paths::Paths) -> PathBuf {
    paths.lib_dir().join("journal.jsonl")
}

impl Journal {
    /// Open (create) the journal for appending and record the start of `command`.
    pub(crate) fn start(path: &Path, command: &str) -> Result<Journal> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fsutil::own_dir(dir, LIB_DIR_MODE)?;
        }
        let cannot_open = |e: std::io::Error| {
            Error::failed(format!("cannot open the journal {}: {e}", path.display()))
        };
        let file = fsutil::open_own_file(
            path,
            OpenOptions::new()
                .create(true)
                .append(true)
                .mode(JOURNAL_MODE),
        )
        .map_err(cannot_open)?;
        // Keep one previous generation: the journal only has to explain the last runs. What is
        // moved is the file just opened (checked to be a regular file, not a link).
        let file = if file.metadata().is_ok_and(|m| m.len() > ROTATE_BYTES) {
            let _ = std::fs::rename(path, path.with_extension("jsonl.1"));
            fsutil::open_own_file(
                path,
                OpenOptions::new()
                    .create(true)
                    .append(true)
                    .mode(JOURNAL_MODE),
            )
            .map_err(cannot_open)?
        } else {
            file
        };
        let mut journal = Journal {
            path: path.to_path_buf(),
            file,
            command: command.to_string(),
        };
        journal.record(Event::Start, None)?;
        Ok(journal)
    }

    /// Append an entry and make the journal durable (fdatasync), with everything before it.
    pub(crate) fn record(&mut self, event: Event, detail: Option<&str>) -> Result<()> {
        self.append(event, detail)?;
        self.sync()
    }

    /// Append an entry without waiting for the disk: a process that dies keeps it (it is in the
    /// page cache); the next [`Journal::sync`] or [`Journal::record`] makes it durable. Steps
    /// started together are synced together.
    pub(crate) fn append(&mut self, event: Event, detail: Option<&str>) -> Result<()> {
        self.write(Entry {
            time: crate::support::clock::unix_now(),
            pid: std::process::id(),
            command: self.command.clone(),
            event,
            detail: detail.map(str::to_string),
            action: None,
            status: None,
        })
    }

    /// Append the end of a step: what it was, its operation and how it ended (not synced, as
    /// [`Journal::append`]).
    pub(crate) fn step_done(&mut self, detail: &str, action: &str, status: &str) -> Result<()> {
        self.write(Entry {
            time: crate::support::clock::unix_now(),
            pid: std::process::id(),
            command: self.command.clone(),
            event: Event::StepDone,
            detail: Some(detail.to_string()),
            action: Some(action.to_string()),
            status: Some(status.to_string()),
        })
    }

    fn write(&mut self, entry: Entry) -> Result<()> {
        let mut line = serde_json::to_string(&entry)
            .map_err(|e| Error::failed(format!("cannot encode a journal entry: {e}")))?;
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .map_err(|e| self.cannot_write(e))
    }

    /// Make what was appended durable.
    pub(crate) fn sync(&mut self) -> Result<()> {
        self.file.sync_data().map_err(|e| self.cannot_write(e))
    }

    fn cannot_write(&self, e: std::io::Error) -> Error {
        Error::failed(format!(
            "cannot write the journal {}: {e}",
            self.path.display()
        ))
    }

    /// How the last run in the journal at `path` ended. Unreadable lines are skipped: a crash
    /// can leave a partial last line.
    pub(crate) fn last_run(path: &Path) -> LastRun {
        let Ok(file) = fsutil::open_own_file(path, OpenOptions::new().read(true)) else {
            return LastRun::None;
        };
        let mut last = LastRun::None;
        // Rotated at 4 MiB when a run starts: more than four times that is not a journal.
        for entry in BufReader::new(file.take(4 * ROTATE_BYTES))
            .lines()
            .map_while(std::result::Result::ok)
            .filter_map(|l| serde_json::from_str::<Entry>(&l).ok())
        {
            last = match (entry.event, last) {
                (Event::Start, _) => LastRun::Interrupted {
                    pid: entry.pid,
                    command: entry.command,
                    last_step: None,
                    in_flight: Vec::new(),
                },
                (
                    Event::Step,
                    LastRun::Interrupted {
                        pid,
                        command,
                        mut in_flight,
                        ..
                    },
                ) => {
                    in_flight.extend(entry.detail.clone());
                    LastRun::Interrupted {
                        pid,
                        command,
                        last_step: entry.detail,
                        in_flight,
                    }
                }
                (
                    Event::StepDone,
                    LastRun::Interrupted {
                        pid,
                        command,
                        last_step,
                        mut in_flight,
                    },
                ) => {
                    // `<step>: <status>` ends that step; without a detail, the oldest one.
                    let ended = match &entry.detail {
                        Some(done) => in_flight.iter().position(|s| {
                            done.strip_prefix(s.as_str())
                                .is_some_and(|rest| rest.starts_with(": "))
                        }),
                        None => (!in_flight.is_empty()).then_some(0),
                    };
                    if let Some(i) = ended {
                        in_flight.remove(i);
                    }
                    LastRun::Interrupted {
                        pid,
                        command,
                        last_step,
                        in_flight,
                    }
                }
                (Event::Done | Event::Failed, _) => LastRun::Finished,
                (_, other) => other,
            };
        }
        last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unfinished_run_is_reported_with_its_last_step() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lib/journal.jsonl");
        assert_eq!(Journal::last_run(&path), LastRun::None);
        let mut j = Journal::start(&path, "apply").unwrap();
        j.record(Event::Step, Some("GPU 0: create 3g.20gb at 4:4"))
            .unwrap();
        j.record(Event::StepDone, None).unwrap();
        j.record(Event::Step, Some("GPU 1: create 1g.5gb at 0:1"))
            .unwrap();
        drop(j);
        // A crash can leave half a line.
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"{\"ti")
            .unwrap();
        match Journal::last_run(&path) {
            LastRun::Interrupted {
                command, last_step, ..
            } => {
                assert_eq!(command, "apply");
                assert_eq!(last_step.as_deref(), Some("GPU 1: create 1g.5gb at 0:1"));
            }
            other => panic!("{other:?}"),
        }
        let mut j = Journal::start(&path, "apply").unwrap();
        j.record(Event::Done, None).unwrap();
        assert_eq!(Journal::last_run(&path), LastRun::Finished);
    }

    #[test]
    fn steps_of_gpus_changed_at_once_are_in_flight_until_each_ends() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let mut j = Journal::start(&path, "apply").unwrap();
        for (event, detail) in [
            (Event::Step, "GPU 0: create_gpu_instance (1g.5gb at 0:1)"),
            (Event::Step, "GPU 1: create_gpu_instance (1g.5gb at 0:1)"),
            (Event::Step, "GPU 2: create_gpu_instance (1g.5gb at 0:1)"),
            (
                Event::StepDone,
                "GPU 1: create_gpu_instance (1g.5gb at 0:1): done",
            ),
            (
                Event::Step,
                "GPU 1: create_compute_instance (1g.5gb at 0:1)",
            ),
            (
                Event::StepDone,
                "GPU 0: create_gpu_instance (1g.5gb at 0:1): done",
            ),
        ] {
            j.record(event, Some(detail)).unwrap();
        }
        drop(j);
        match Journal::last_run(&path) {
            LastRun::Interrupted {
                last_step,
                in_flight,
                ..
            } => {
                assert_eq!(
                    last_step.as_deref(),
                    Some("GPU 1: create_compute_instance (1g.5gb at 0:1)")
                );
                assert_eq!(
                    in_flight,
                    [
                        "GPU 2: create_gpu_instance (1g.5gb at 0:1)",
                        "GPU 1: create_compute_instance (1g.5gb at 0:1)"
                    ]
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_large_journal_is_moved_aside_when_a_run_starts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        std::fs::write(&path, vec![b'\n'; ROTATE_BYTES as usize + 1]).unwrap();
        Journal::start(&path, "apply").unwrap();
        assert!(std::fs::metadata(&path).unwrap().len() < 1000);
        assert!(dir.path().join("journal.jsonl.1").exists());
    }

    #[test]
    fn a_linked_journal_is_refused_and_neither_written_nor_moved() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("authorized_keys");
        std::fs::write(&victim, vec![b'k'; ROTATE_BYTES as usize + 1]).unwrap();
        let path = dir.path().join("journal.jsonl");
        std::os::unix::fs::symlink(&victim, &path).unwrap();
        let e = Journal::start(&path, "apply").err().unwrap();
        assert_eq!(e.exit, crate::support::error::Exit::Failed);
        assert!(
            e.message.contains(&path.display().to_string()),
            "{}",
            e.message
        );
        assert!(e.message.contains("symbolic link"), "{}", e.message);
        assert!(
            std::fs::symlink_metadata(&path)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert!(!dir.path().join("journal.jsonl.1").exists());
        assert_eq!(std::fs::metadata(&victim).unwrap().len(), ROTATE_BYTES + 1);
        assert_eq!(Journal::last_run(&path), LastRun::None);
    }
}
