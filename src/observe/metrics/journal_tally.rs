//! The changes the journal records, counted as a scrape reads it: each scrape reads only what
//! was appended since the last one, so counting stays cheap however long the journal is. When
//! the journal is moved aside (rotation) the counts go on from where they were; a process that
//! starts counts both generations first. The counts are of the journal, not of this process: a
//! `gpushare metrics` beside `gpushare apply` sees that command's changes.
//!
//! Every read is bounded: at most [`READ_PER_SCRAPE`] of the journal per scrape and
//! [`OLDER_LIMIT`] of the generation before it, lines longer than [`MAX_LINE`] skipped (and
//! counted, with entries no gpushare writes), so a huge or corrupt file costs a scrape no more
//! than a normal one and the counting carries on after it.

use crate::change::journal::{Entry, Event};
use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;

/// Read at most this much per scrape: a scrape after a long gap catches up over several.
const READ_PER_SCRAPE: u64 = 8 * 1024 * 1024;
/// Of the generation before the current one, read at most this (it was rotated at 4 MiB).
const OLDER_LIMIT: u64 = 8 * 1024 * 1024;
/// A journal line is a few hundred bytes (an error message quoting a file a few KiB); one
/// longer than this is not gpushare's.
const MAX_LINE: usize = 1024 * 1024;
/// Operations counted apart; more (only a journal gpushare did not write has them) are skipped.
const MAX_OPERATIONS: usize = 64;

/// How a finished run went.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Run {
    pub command: String,
    pub seconds: f64,
    /// When it ended (seconds since the Unix epoch).
    pub ended: f64,
    pub succeeded: bool,
}

#[derive(Debug, Default)]
pub(crate) struct Tally {
    path: PathBuf,
    /// (device, inode) of the file being followed, and how far it was read.
    followed: Option<(u64, u64)>,
    offset: u64,
    /// The line at `offset` is too long: skip to its end.
    skipping: bool,
    /// Operation → (applied, failed).
    pub changes: BTreeMap<String, (u64, u64)>,
    pub last_run: Option<Run>,
    /// Lines skipped: too long, not an entry, or with values no gpushare writes.
    pub skipped: u64,
    started: Option<(String, f64)>,
}

impl Tally {
    pub(crate) fn new(path: PathBuf) -> Self {
        Tally {
            path,
            ..Tally::default()
        }
    }

    /// Read what was appended since the last call.
    pub(crate) fn update(&mut self) -> std::io::Result<()> {
        let file = match crate::support::fsutil::open_own_file(
            &self.path,
            OpenOptions::new().read(true),
        ) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        };
        let meta = file.metadata()?;
        let id = (meta.dev(), meta.ino());
        if self.followed.is_none() {
            // The generation before the current one, once: its counts are part of the history.
            let older = self.path.with_extension("jsonl.1");
            if let Ok(f) =
                crate::support::fsutil::open_own_file(&older, OpenOptions::new().read(true))
            {
                let size = f.metadata().map_or(0, |m| m.len());
                let read = self.read_from(f, 0, OLDER_LIMIT)?;
                if size > read {
                    // What is past the limit (or a last line never ended) is not counted.
                    self.skipped += 1;
                }
                self.skipping = false;
            }
        }
        if self.followed != Some(id) || meta.len() < self.offset {
            self.followed = Some(id);
            self.offset = 0;
            self.skipping = false;
        }
        let offset = self.offset;
        self.offset = offset + self.read_from(file, offset, READ_PER_SCRAPE)?;
        Ok(())
    }

    /// Count the whole lines from `offset` (up to `limit` bytes); the bytes consumed.
    fn read_from(
        &mut self,
        mut file: std::fs::File,
        offset: u64,
        limit: u64,
    ) -> std::io::Result<u64> {
        file.seek(SeekFrom::Start(offset))?;
        let mut bytes = Vec::new();
        file.take(limit).read_to_end(&mut bytes)?;
        let mut at = 0;
        if self.skipping {
            match bytes.iter().position(|b| *b == b'\n') {
                Some(end) => {
                    at = end + 1;
                    self.skipping = false;
                }
                None => return Ok(bytes.len() as u64),
            }
        }
        while let Some(end) = bytes[at..].iter().position(|b| *b == b'\n') {
            let line = &bytes[at..at + end];
            if line.len() > MAX_LINE {
                self.skipped += 1;
            } else {
                self.count_line(line);
            }
            at += end + 1;
        }
        // A line still being written is read next time, unless it is already too long to be one.
        if bytes.len() - at > MAX_LINE {
            self.skipped += 1;
            self.skipping = true;
            at = bytes.len();
        }
        Ok(at as u64)
    }

    fn count_line(&mut self, line: &[u8]) {
        if line.is_empty() {
            return;
        }
        match serde_json::from_slice::<Entry>(line) {
            Ok(entry) if plausible(&entry) => self.count(entry),
            _ => self.skipped += 1,
        }
    }

    fn count(&mut self, entry: Entry) {
        match entry.event {
            Event::Start => self.started = Some((entry.command, entry.time)),
            Event::StepDone => {
                let (Some(action), Some(status)) = (entry.action, entry.status) else {
                    return;
                };
                if !self.changes.contains_key(&action) && self.changes.len() >= MAX_OPERATIONS {
                    self.skipped += 1;
                    return;
                }
                let counts = self.changes.entry(action).or_default();
                match status.as_str() {
                    "done" => counts.0 += 1,
                    "FAILED" => counts.1 += 1,
                    _ => {}
                }
            }
            Event::Done | Event::Failed => {
                if let Some((command, start)) = self.started.take() {
                    self.last_run = Some(Run {
                        command,
                        seconds: (entry.time - start).max(0.0),
                        ended: entry.time,
                        succeeded: entry.event == Event::Done,
                    });
                }
            }
            Event::Step => {}
        }
    }
}

/// An entry gpushare could have written: a time in this century, short names.
fn plausible(entry: &Entry) -> bool {
    let short = |s: &str| s.len() <= 64;
    (0.0..4_102_444_800.0).contains(&entry.time)
        && short(&entry.command)
        && entry.action.as_deref().is_none_or(short)
        && entry.status.as_deref().is_none_or(short)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::change::journal::Journal;

    #[test]
    fn counts_what_was_appended_and_goes_on_across_a_rotation() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let mut tally = Tally::new(path.clone());
        tally.update().unwrap();
        assert!(tally.changes.is_empty() && tally.last_run.is_none());

        let mut j = Journal::start(&path, "apply").unwrap();
        j.step_done("GPU 0: create", "create_gpu_instance", "done")
            .unwrap();
        j.step_done("GPU 1: create", "create_gpu_instance", "FAILED")
            .unwrap();
        j.step_done("GPU 1: ci", "create_compute_instance", "not run")
            .unwrap();
        j.record(Event::Failed, Some("GPU 1 failed")).unwrap();
        tally.update().unwrap();
        assert_eq!(tally.changes["create_gpu_instance"], (1, 1));
        assert_eq!(tally.changes["create_compute_instance"], (0, 0));
        let run = tally.last_run.clone().unwrap();
        assert_eq!((run.command.as_str(), run.succeeded), ("apply", false));

        // A half-written line waits; the rest is not read twice.
        use std::io::Write;
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"time\":1,\"pid\":1,\"comm").unwrap();
        tally.update().unwrap();
        assert_eq!(tally.changes["create_gpu_instance"], (1, 1));

        // Moved aside, a new journal: the counts go on.
        std::fs::rename(&path, path.with_extension("jsonl.1")).unwrap();
        let mut j = Journal::start(&path, "agent").unwrap();
        j.step_done("GPU 0: create", "create_gpu_instance", "done")
            .unwrap();
        j.record(Event::Done, None).unwrap();
        tally.update().unwrap();
        assert_eq!(tally.changes["create_gpu_instance"], (2, 1));
        assert!(tally.last_run.as_ref().unwrap().succeeded);

        // A new process counts both generations.
        let mut fresh = Tally::new(path);
        fresh.update().unwrap();
        assert_eq!(fresh.changes["create_gpu_instance"], (2, 1));
    }

    #[test]
    fn huge_or_corrupt_journals_cost_a_bounded_read_and_counting_carries_on() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        // A 3 GB rotated journal (sparse: zeros, one endless line) is read up to its limit.
        let older = std::fs::File::create(path.with_extension("jsonl.1")).unwrap();
        older.set_len(3 * 1024 * 1024 * 1024).unwrap();
        let mut j = Journal::start(&path, "apply").unwrap();
        j.step_done("GPU 0: create", "create_gpu_instance", "done")
            .unwrap();
        let mut tally = Tally::new(path.clone());
        tally.update().unwrap();
        assert_eq!(tally.changes["create_gpu_instance"], (1, 0));
        assert!(
            tally.skipped >= 1,
            "the rest of the old journal is counted as skipped"
        );

        // A line longer than any entry, over several scrapes: skipped once, then the next
        // entries count.
        use std::io::Write;
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        let long = vec![b'x'; READ_PER_SCRAPE as usize + MAX_LINE];
        f.write_all(&long).unwrap();
        f.write_all(b"\n").unwrap();
        let skipped = tally.skipped;
        for _ in 0..3 {
            tally.update().unwrap();
        }
        assert_eq!(tally.skipped, skipped + 1);
        j.step_done("GPU 1: create", "create_gpu_instance", "FAILED")
            .unwrap();
        // Entries no gpushare writes: not JSON, a time of 1e308, a thousand operations.
        f.write_all(b"not json\n{\"time\":1e308,\"pid\":1,\"command\":\"x\",\"event\":\"done\"}\n")
            .unwrap();
        for n in 0..1000 {
            writeln!(
                f,
                "{{\"time\":1,\"pid\":1,\"command\":\"x\",\"event\":\"step_done\",\"action\":\"op{n}\",\"status\":\"done\"}}"
            )
            .unwrap();
        }
        tally.update().unwrap();
        assert_eq!(tally.changes["create_gpu_instance"], (1, 1));
        assert!(tally.changes.len() <= MAX_OPERATIONS);
        assert!(tally.skipped >= skipped + 1 + 2 + (1000 - MAX_OPERATIONS as u64));
    }
}
