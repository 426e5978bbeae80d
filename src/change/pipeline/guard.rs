//! What a changing command holds while it runs: the node lock (`<run_dir>/lock`) and the journal
//! (`<lib_dir>/journal.jsonl`). Taking them warns about a lock left by a process that died and
//! about a previous run that never finished; the new run plans from the node as it is, so it
//! continues where that one stopped.

use crate::change::journal::{Event, Journal, LastRun};
use crate::change::lock::{NodeLock, Previous};
use crate::node::Context;
use crate::support::error::Result;
use crate::support::output::Output;
use crate::support::paths::Paths;
use std::path::PathBuf;
use std::time::Duration;

pub(crate) struct Guard {
    _lock: NodeLock,
    pub journal: Journal,
    finished: bool,
}

fn lock_path(paths: &Paths) -> PathBuf {
    paths.run_dir().join("lock")
}

impl Guard {
    /// Take the lock (waiting up to `timeout` for another command), then start the journal.
    pub(crate) fn take(ctx: &Context, command: &str, timeout: Duration) -> Result<Guard> {
        Guard::take_at(&ctx.paths, &ctx.out, command, timeout)
    }

    /// [`Guard::take`] for a long-running process without a command's context (the DRA plugin).
    pub(crate) fn take_at(
        paths: &Paths,
        out: &Output,
        command: &str,
        timeout: Duration,
    ) -> Result<Guard> {
        let (lock, previous) = NodeLock::acquire(&lock_path(paths), command, timeout)?;
        if let Previous::Stale { pid, command } = previous {
            out.warn(format!(
                "`gpushare {command}` (pid {pid}) died holding the node lock; taking it over"
            ));
        }
        let path = crate::change::journal::path(paths);
        if let LastRun::Interrupted {
            pid,
            command,
            last_step,
            in_flight,
        } = Journal::last_run(&path)
        {
            let at = if in_flight.len() > 1 {
                format!(" (steps in flight: {})", in_flight.join("; "))
            } else {
                in_flight
                    .into_iter()
                    .next()
                    .or(last_step)
                    .map_or(String::new(), |s| format!(" (last step: {s})"))
            };
            out.warn(format!(
                "the previous `gpushare {command}` (pid {pid}) stopped without finishing{at}; \
                 continuing from the node as it is now"
            ));
        }
        let journal = Journal::start(&path, command)?;
        Ok(Guard {
            _lock: lock,
            journal,
            finished: false,
        })
    }

    /// Record the end of the command unless it is recorded already (a command whose steps
    /// finish the journal themselves, and may fail before them).
    pub(crate) fn finish_once(&mut self, outcome: std::result::Result<(), &str>) -> Result<()> {
        if self.finished {
            return Ok(());
        }
        self.finish(outcome)
    }

    /// Record the end of the command: `Done`, or `Failed` with why.
    pub(crate) fn finish(&mut self, outcome: std::result::Result<(), &str>) -> Result<()> {
        self.finished = true;
        match outcome {
            Ok(()) => self.journal.record(Event::Done, None),
            Err(why) => self.journal.record(Event::Failed, Some(why)),
        }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        // An early return (an error before any step) still ends the run in the journal, so the
        // next run does not report it as interrupted.
        if !self.finished {
            let _ = self
                .journal
                .record(Event::Failed, Some("stopped before its end"));
        }
    }
}
