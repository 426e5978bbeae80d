//! Run a plan through the backend, with progress on stderr.
//!
//! The executor stops at the first failure and says what was done. Because every planner works
//! from the node as it is, running the same command again continues from there: a re-run
//! converges. A GPU that must wait for a reboot (the driver cannot reset it, or the plan says so)
//! is skipped for the rest of the plan and reported; the exit code is then 5.
//!
//! Driver calls go to the [`Backend`](crate::node::backend::Backend); the other steps (MPS daemons,
//! vGPU devices, GPU clients, hooks) and what happens around each step (a journal, a stop on a
//! signal) belong to a [`Runner`] ([`runner`](super::runner) is the changing commands' one), so
//! every sharing mode runs through this one loop.
//!
//! Phases are barriers. A phase whose changes each concern one GPU
//! ([`Phase::per_gpu`](crate::change::plan::Phase::per_gpu): the MIG changes) runs on several GPUs at
//! once, one worker per GPU, each GPU's changes in order ([`parallel`]); the other phases — the
//! node-wide ones (GPU clients, hooks) and the resets among
//! them — and every phase with `--jobs 1`, run one change after another in plan order on this
//! thread, consecutive resets as one call. So no worker is making a driver call while the GPU
//! clients stop or start, or while GPUs reset.

mod gpu_run;
mod parallel;
mod report;

use crate::change::plan::{Change, Operation, Plan, Status};
use crate::node::backend::{DriverError, DriverErrorKind, SharedBackend};
use crate::support::error::{Error, Exit, Result};
use crate::support::output::Output;
use gpu_run::GpuRun;
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::num::NonZeroUsize;

/// What the executor runs changes with.
pub(crate) trait Runner {
    /// The driver, for MIG, reset and compute-mode changes; shared with the workers that change
    /// several GPUs at once.
    fn backend(&mut self) -> Result<SharedBackend>;

    /// Make a change that is not a driver call (MPS daemons, vGPU devices).
    fn run_other(&mut self, change: &Change) -> Result<()> {
        Err(Error::failed(format!(
            "this command cannot {}",
            change.operation.action()
        )))
    }

    /// Called right before a change runs; an error stops the run there (e.g. on a signal), with
    /// the changes before it made and reported. Always called on the executor's own thread, one
    /// change at a time, so it can journal.
    fn before(&mut self, _change: &Change) -> Result<()> {
        Ok(())
    }

    /// Called after `before` of one or more changes and before any of them runs: make what
    /// `before` recorded durable (once for the changes that start together on several GPUs).
    /// An error stops the run there too.
    fn settle(&mut self) -> Result<()> {
        Ok(())
    }

    /// Called once a change ran, with its status set (on the executor's own thread).
    fn after(&mut self, _change: &Change) {}

    /// These GPUs (by UUID) were reset: what the health watch heard before is over.
    fn gpus_reset(&mut self, _uuids: &[String]) {}

    /// How many GPUs a phase changes at once: `None` for every GPU it changes, 1 for one change
    /// after another in plan order.
    fn jobs(&self) -> Option<NonZeroUsize> {
        None
    }
}

/// A runner with only the driver: MIG and compute-mode plans.
struct DriverOnly(SharedBackend);

impl Runner for DriverOnly {
    fn backend(&mut self) -> Result<SharedBackend> {
        Ok(self.0.clone())
    }
}

/// Why a change failed.
enum StepError {
    Driver(DriverError),
    Other(Error),
}

/// What stopped a run.
enum Stop {
    /// The runner refused to start a change (a signal).
    Refused(Error),
    /// A change failed: its index and why.
    Failed(usize, StepError),
}

/// Refuse a plan with blockers: nothing is changed. The error lists every blocker and its hint.
pub(crate) fn refuse(plan: &Plan) -> Result<()> {
    let [first, rest @ ..] = plan.blockers.as_slice() else {
        return Ok(());
    };
    if rest.is_empty() {
        let err = Error::failed(format!(
            "nothing was changed: GPU {}: {}",
            first.gpu, first.message
        ));
        return Err(match &first.hint {
            Some(h) => err.with_hint(h.clone()),
            None => err,
        });
    }
    let lines: Vec<String> = plan
        .blockers
        .iter()
        .map(|b| format!("  GPU {}: {}", b.gpu, b.message))
        .collect();
    let mut hints: Vec<String> = Vec::new();
    for b in &plan.blockers {
        if let Some(h) = &b.hint {
            let line = format!("GPU {}: {h}", b.gpu);
            if !hints.iter().any(|x| x.ends_with(h.as_str())) {
                hints.push(line);
            }
        }
    }
    let err = Error::failed(format!(
        "nothing was changed: {} blockers\n{}",
        plan.blockers.len(),
        lines.join("\n")
    ));
    Err(if hints.is_empty() {
        err
    } else {
        err.with_hint(hints.join("\n      "))
    })
}

/// Run every change of `plan`, setting each one's status. Returns `Exit::Ok`, or
/// `Exit::RebootRequired` when some GPU waits for a reboot; an error after the first failure.
pub fn execute(plan: &mut Plan, backend: SharedBackend, out: &Output) -> Result<Exit> {
    execute_with(plan, &mut DriverOnly(backend), out)
}

/// [`execute`] with a [`Runner`] for the steps that are not driver calls.
pub(crate) fn execute_with(plan: &mut Plan, runner: &mut dyn Runner, out: &Output) -> Result<Exit> {
    refuse(plan)?;
    let mut progress = Progress::new(out, plan.changes.len());
    // What each GPU's changes so far left: instances created, a reboot awaited (then its later
    // changes, e.g. after the mode change that will apply at the reboot, are not made).
    let mut runs: BTreeMap<u32, GpuRun> = BTreeMap::new();
    let jobs = runner.jobs().map_or(usize::MAX, NonZeroUsize::get);
    let mut outcome = Ok(());
    let mut i = 0;
    while i < plan.changes.len() && outcome.is_ok() {
        let phase = plan.changes[i].phase;
        let end = (i..plan.changes.len())
            .find(|&k| plan.changes[k].phase != phase)
            .unwrap_or(plan.changes.len());
        outcome = if parallel::suits(phase, &plan.changes[i..end], jobs) {
            parallel::run(plan, i..end, &mut runs, runner, &mut progress, jobs)
        } else {
            serial(plan, i..end, &mut runs, runner, &mut progress)
        };
        i = end;
    }
    progress.finish();
    if let Err(stop) = outcome {
        for c in &mut plan.changes {
            c.status.get_or_insert(Status::NotRun);
        }
        return Err(report::stopped(plan, stop));
    }
    for (gpu, run) in runs {
        if run.awaiting_reboot {
            plan.mark_reboot(gpu);
        }
    }
    Ok(if plan.reboot_required {
        Exit::RebootRequired
    } else {
        Exit::Ok
    })
}

/// The changes of `range`, one after another; consecutive resets go to the driver as one call,
/// as nvidia-smi -r does them together.
fn serial(
    plan: &mut Plan,
    range: std::ops::Range<usize>,
    runs: &mut BTreeMap<u32, GpuRun>,
    runner: &mut dyn Runner,
    progress: &mut Progress,
) -> std::result::Result<(), Stop> {
    let mut i = range.start;
    while i < range.end {
        let end = if plan.changes[i].operation.is_reset() {
            (i..range.end)
                .find(|&k| !plan.changes[k].operation.is_reset())
                .unwrap_or(range.end)
        } else {
            i + 1
        };
        if let Some(e) = (i..end).find_map(|k| runner.before(&plan.changes[k]).err()) {
            return Err(Stop::Refused(e));
        }
        runner.settle().map_err(Stop::Refused)?;
        let result = if plan.changes[i].operation.is_reset() {
            resets(plan, i..end, runs, runner)
        } else {
            one(plan, i, runs, runner)
        };
        for k in i..end {
            runner.after(&plan.changes[k]);
            progress.step(&plan.changes[k]);
        }
        result.map_err(|(at, e)| Stop::Failed(at, e))?;
        i = end;
    }
    Ok(())
}

/// A failure: the index of the change and why.
type StepResult = std::result::Result<(), (usize, StepError)>;

/// One change that is not a reset.
fn one(
    plan: &mut Plan,
    i: usize,
    runs: &mut BTreeMap<u32, GpuRun>,
    runner: &mut dyn Runner,
) -> StepResult {
    let change = &plan.changes[i];
    let awaiting = runs.get(&change.gpu).is_some_and(|r| r.awaiting_reboot);
    let result = if awaiting {
        Ok(Status::AwaitingReboot)
    } else if change.operation.is_driver_call() {
        match runner.backend() {
            Ok(backend) => runs
                .entry(change.gpu)
                .or_default()
                .driver_call(change, &*backend)
                .map_err(StepError::Driver),
            Err(e) => Err(StepError::Other(e)),
        }
    } else {
        runner
            .run_other(change)
            .map(|()| Status::Done)
            .map_err(StepError::Other)
    };
    let change = &mut plan.changes[i];
    match result {
        Ok(status) => {
            change.status = Some(status);
            Ok(())
        }
        Err(e) => {
            change.status = Some(Status::Failed);
            Err((i, e))
        }
    }
}

/// Reset the GPUs of `range` whose MIG mode is pending now, or that a fatal fault left
/// unhealthy, in one call. A driver that cannot reset them (a VM with passthrough) turns into
/// "reboot required".
fn resets(
    plan: &mut Plan,
    range: std::ops::Range<usize>,
    runs: &mut BTreeMap<u32, GpuRun>,
    runner: &mut dyn Runner,
) -> StepResult {
    let range_start = range.start;
    let backend = runner
        .backend()
        .map_err(|e| (range_start, StepError::Other(e)))?;
    let node = backend
        .snapshot()
        .map_err(|e| (range_start, StepError::Driver(e)))?;
    let mut wanted = Vec::new();
    for k in range.clone() {
        let change = &mut plan.changes[k];
        let pending = change.operation == Operation::ResetUnhealthy
            || node
                .gpu(change.gpu)
                .is_some_and(|g| g.mig.current != g.mig.pending);
        let awaiting = runs.get(&change.gpu).is_some_and(|r| r.awaiting_reboot);
        change.status = Some(if awaiting {
            Status::AwaitingReboot
        } else if pending {
            wanted.push(change.gpu);
            Status::Done
        } else {
            Status::NotNeeded
        });
    }
    if wanted.is_empty() {
        return Ok(());
    }
    match backend.reset_gpus(&wanted) {
        Ok(()) => {
            let uuids: Vec<String> = node
                .gpus
                .iter()
                .filter(|g| wanted.contains(&g.index))
                .map(|g| g.uuid.clone())
                .collect();
            runner.gpus_reset(&uuids);
            Ok(())
        }
        Err(e)
            if matches!(
                e.kind,
                DriverErrorKind::ResetRequired | DriverErrorKind::NotSupported
            ) =>
        {
            for k in range {
                let change = &mut plan.changes[k];
                if wanted.contains(&change.gpu) {
                    change.status = Some(Status::AwaitingReboot);
                    runs.entry(change.gpu).or_default().awaiting_reboot = true;
                }
            }
            Ok(())
        }
        Err(e) => {
            let mut first = None;
            for k in range {
                let change = &mut plan.changes[k];
                if wanted.contains(&change.gpu) {
                    change.status = Some(Status::Failed);
                    first.get_or_insert(k);
                }
            }
            Err((first.unwrap_or(range_start), StepError::Driver(e)))
        }
    }
}

/// A bar on a terminal; one line per change otherwise (logs, CI); nothing with --quiet.
struct Progress<'o> {
    out: &'o Output,
    bar: Option<crate::support::output::Progress>,
    total: usize,
    seen: usize,
}

impl<'o> Progress<'o> {
    fn new(out: &'o Output, total: usize) -> Self {
        let bar = (!out.quiet && total > 0 && std::io::stderr().is_terminal())
            .then(|| out.progress_with(total as u64, "{bar:30} {pos}/{len} {wide_msg}"));
        Progress {
            out,
            bar,
            total,
            seen: 0,
        }
    }

    fn step(&mut self, change: &Change) {
        self.seen += 1;
        let status = change.status.map_or("", Status::as_str);
        let line = format!(
            "[{}/{}] {}: {} {}: {status}",
            self.seen,
            self.total,
            change.target(),
            change.action,
            change.detail
        );
        match &self.bar {
            Some(bar) => {
                bar.set_message(line);
                bar.inc(1);
            }
            None => self.out.note(line),
        }
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests;
