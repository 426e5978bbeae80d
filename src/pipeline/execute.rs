//! Run a plan through the backend, in order, with progress on stderr.
//!
//! The executor stops at the first failure and says what was done. Because every planner works
//! from the node as it is, running the same command again continues from there: a re-run
//! converges. A GPU that must wait for a reboot (the driver cannot reset it, or the plan says so)
//! is skipped for the rest of the plan and reported; the exit code is then 5.
//!
//! Driver calls go to the [`Backend`]; the other steps (MPS daemons, vGPU devices) and what
//! happens around each step (a journal, a stop on a signal) belong to a [`Runner`]
//! ([`steps`](super::steps) is the changing commands' one), so every sharing mode runs through
//! this one loop.

use crate::backend::{Backend, DriverError, DriverErrorKind, ModeChange};
use crate::error::{Error, Exit, Result};
use crate::output::Output;
use crate::plan::{Change, GpuInstanceRef, Operation, Plan, Status};
use std::collections::{BTreeMap, BTreeSet};
use std::io::IsTerminal;

/// What the executor runs changes with.
pub trait Runner {
    /// The driver, for MIG, reset and compute-mode changes.
    fn backend(&mut self) -> Result<&mut dyn Backend>;

    /// Make a change that is not a driver call (MPS daemons, vGPU devices).
    fn run_other(&mut self, change: &Change) -> Result<()> {
        Err(Error::failed(format!(
            "this command cannot {}",
            change.operation.action()
        )))
    }

    /// Called right before a change runs; an error stops the run there (e.g. on a signal), with
    /// the changes before it made and reported.
    fn before(&mut self, _change: &Change) -> Result<()> {
        Ok(())
    }

    /// Called once a change ran, with its status set.
    fn after(&mut self, _change: &Change) {}
}

/// A runner with only the driver: MIG and compute-mode plans.
struct DriverOnly<'b>(&'b mut dyn Backend);

impl Runner for DriverOnly<'_> {
    fn backend(&mut self) -> Result<&mut dyn Backend> {
        Ok(&mut *self.0)
    }
}

/// Why a change failed.
enum StepError {
    Driver(DriverError),
    Other(Error),
}

/// Refuse a plan with blockers: nothing is changed. The error lists every blocker and its hint.
pub fn refuse(plan: &Plan) -> Result<()> {
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
pub fn execute(plan: &mut Plan, backend: &mut dyn Backend, out: &Output) -> Result<Exit> {
    execute_with(plan, &mut DriverOnly(backend), out)
}

/// [`execute`] with a [`Runner`] for the steps that are not driver calls.
pub fn execute_with(plan: &mut Plan, runner: &mut dyn Runner, out: &Output) -> Result<Exit> {
    refuse(plan)?;
    let mut progress = Progress::new(out, plan.changes.len());
    let mut run = Run {
        created: BTreeMap::new(),
        // Filled by AwaitReboot changes and by the driver, in plan order: a GPU's earlier changes
        // (e.g. the mode change that will apply at the reboot) still run.
        awaiting_reboot: BTreeSet::new(),
    };
    let mut i = 0;
    while i < plan.changes.len() {
        // Consecutive resets go to the driver as one call, as nvidia-smi -r does them together.
        let end = if plan.changes[i].operation == Operation::ResetIfPending {
            (i..plan.changes.len())
                .find(|&k| plan.changes[k].operation != Operation::ResetIfPending)
                .unwrap_or(plan.changes.len())
        } else {
            i + 1
        };
        let stop = (i..end).find_map(|k| runner.before(&plan.changes[k]).err());
        if let Some(e) = stop {
            progress.finish();
            for c in &mut plan.changes[i..] {
                c.status = Some(Status::NotRun);
            }
            let (done, total) = (done_count(plan), plan.changes.len());
            let hint = match &e.hint {
                Some(h) => format!("{done} of {total} change(s) were made; {h}"),
                None => format!(
                    "{done} of {total} change(s) were made; run the same command again to continue from there"
                ),
            };
            return Err(e.with_hint(hint));
        }
        let result = if end - i > 1 {
            run.resets(plan, i..end, runner)
        } else {
            run.one(plan, i, runner)
        };
        for k in i..end {
            runner.after(&plan.changes[k]);
            progress.step(&plan.changes[k]);
        }
        if let Err((at, e)) = result {
            progress.finish();
            for c in &mut plan.changes[end..] {
                c.status = Some(Status::NotRun);
            }
            return Err(failure(plan, at, e));
        }
        i = end;
    }
    progress.finish();
    for gpu in run.awaiting_reboot {
        plan.mark_reboot(gpu);
    }
    Ok(if plan.reboot_required {
        Exit::RebootRequired
    } else {
        Exit::Ok
    })
}

fn done_count(plan: &Plan) -> usize {
    plan.changes
        .iter()
        .filter(|c| c.status == Some(Status::Done))
        .count()
}

/// The error for a failed change: which one, why, what was done, and that a re-run continues.
fn failure(plan: &Plan, at: usize, e: StepError) -> Error {
    let (done, total) = (done_count(plan), plan.changes.len());
    let change = &plan.changes[at];
    let (mut err, cause_hint) = match e {
        StepError::Driver(e) => {
            let hint = (e.kind == DriverErrorKind::InUse).then(|| {
                "stop what uses the GPU (see `gpushare detect`; services such as nvidia-persistenced \
                 or DCGM, or the nvidia_drm module, can hold it too) or reboot, then run the same \
                 command again"
                    .to_string()
            });
            (Error::from(e), hint)
        }
        StepError::Other(e) => {
            let hint = e.hint.clone();
            (e, hint)
        }
    };
    // Driver errors name their GPU already; the change says which one first.
    let own = format!("GPU {}: ", change.gpu);
    let cause = err.message.strip_prefix(&own).unwrap_or(&err.message);
    err.message = format!(
        "{}: {} ({}) failed: {cause}",
        change.target(),
        change.action,
        change.detail
    );
    let hint = match cause_hint {
        Some(h) => {
            format!("{h}; {done} of {total} change(s) were made and a re-run continues from there")
        }
        None => format!(
            "{done} of {total} change(s) were made; run the same command again to continue from there"
        ),
    };
    err.with_hint(hint)
}

struct Run {
    /// GPU instances this run created: (gpu, start) → id.
    created: BTreeMap<(u32, u32), u32>,
    awaiting_reboot: BTreeSet<u32>,
}

/// A failure: the index of the change and why.
type StepResult = std::result::Result<(), (usize, StepError)>;

impl Run {
    fn one(&mut self, plan: &mut Plan, i: usize, runner: &mut dyn Runner) -> StepResult {
        if plan.changes[i].operation == Operation::ResetIfPending {
            return self.resets(plan, i..i + 1, runner);
        }
        let gpu = plan.changes[i].gpu;
        if self.awaiting_reboot.contains(&gpu) {
            plan.changes[i].status = Some(Status::AwaitingReboot);
            return Ok(());
        }
        let result = match plan.changes[i].operation.is_driver_call() {
            false => runner.run_other(&plan.changes[i]).map_err(StepError::Other),
            true => match runner.backend() {
                Ok(backend) => self
                    .driver_call(&plan.changes[i], backend)
                    .map_err(StepError::Driver),
                Err(e) => Err(StepError::Other(e)),
            },
        };
        let change = &mut plan.changes[i];
        match result {
            Ok(()) => {
                change.status = Some(if self.awaiting_reboot.contains(&gpu) {
                    Status::AwaitingReboot
                } else {
                    Status::Done
                });
                Ok(())
            }
            Err(e) => {
                change.status = Some(Status::Failed);
                Err((i, e))
            }
        }
    }

    /// A change the driver makes.
    fn driver_call(
        &mut self,
        change: &Change,
        backend: &mut dyn Backend,
    ) -> std::result::Result<(), DriverError> {
        let gpu = change.gpu;
        match change.operation {
            Operation::SetMigMode(mode) => {
                backend
                    .set_mig_mode(gpu, mode)
                    .map(|outcome| match outcome {
                        ModeChange::Applied | ModeChange::PendingReset => {}
                        ModeChange::PendingReboot => {
                            self.awaiting_reboot.insert(gpu);
                        }
                    })
            }
            Operation::DestroyComputeInstance {
                gpu_instance_id,
                compute_instance_id,
            } => backend.destroy_compute_instance(gpu, gpu_instance_id, compute_instance_id),
            Operation::DestroyGpuInstance { gpu_instance_id } => {
                backend.destroy_gpu_instance(gpu, gpu_instance_id)
            }
            Operation::CreateGpuInstance {
                profile_id,
                placement,
            } => backend
                .create_gpu_instance(gpu, profile_id, placement)
                .map(|id| {
                    self.created.insert((gpu, placement.start), id);
                }),
            Operation::CreateComputeInstance {
                gpu_instance,
                profile_id,
            } => {
                let id = match gpu_instance {
                    GpuInstanceRef::Id(id) => Some(id),
                    GpuInstanceRef::CreatedAt(p) => self.created.get(&(gpu, p.start)).copied(),
                };
                match id {
                    Some(id) => backend
                        .create_compute_instance(gpu, id, profile_id)
                        .map(|_| ()),
                    None => Err(DriverError::new(
                        DriverErrorKind::NotFound,
                        "the GPU instance it belongs in was not created",
                    )),
                }
            }
            Operation::SetComputeMode { device, mode } => backend.set_compute_mode(device, mode),
            Operation::AwaitReboot => {
                self.awaiting_reboot.insert(gpu);
                Ok(())
            }
            // Handled by the caller.
            Operation::ResetIfPending
            | Operation::StopMpsDaemon(_)
            | Operation::StartMpsDaemon(_)
            | Operation::Vgpu(_)
            | Operation::StopClient(_)
            | Operation::StartClient(_)
            | Operation::Hook(_)
            | Operation::Later(_) => Ok(()),
        }
    }

    /// Reset the GPUs of `range` whose MIG mode is pending now, in one call. A driver that cannot
    /// reset them (a VM with passthrough) turns into "reboot required".
    fn resets(
        &mut self,
        plan: &mut Plan,
        range: std::ops::Range<usize>,
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
            let pending = node
                .gpu(change.gpu)
                .is_some_and(|g| g.mig.current != g.mig.pending);
            change.status = Some(if self.awaiting_reboot.contains(&change.gpu) {
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
            Ok(()) => Ok(()),
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
                        self.awaiting_reboot.insert(change.gpu);
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
}

/// A bar on a terminal; one line per change otherwise (logs, CI); nothing with --quiet.
struct Progress<'o> {
    out: &'o Output,
    bar: Option<crate::output::Progress>,
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
