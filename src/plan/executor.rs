//! Run a plan through the backend, in order, with progress on stderr.
//!
//! The executor stops at the first failure and says what was done. Because every planner works
//! from the node as it is, running the same command again continues from there: a re-run
//! converges. A GPU that must wait for a reboot (the driver cannot reset it, or the plan says so)
//! is skipped for the rest of the plan and reported; the exit code is then 5.

use super::{GpuInstanceRef, Operation, Plan, Status};
use crate::backend::{Backend, DriverError, DriverErrorKind, ModeChange};
use crate::error::{Error, Exit, Result};
use crate::output::Output;
use std::collections::{BTreeMap, BTreeSet};
use std::io::IsTerminal;

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
        let result = if end - i > 1 {
            run.resets(plan, i..end, backend)
        } else {
            run.one(plan, i, backend)
        };
        for k in i..end {
            progress.step(&plan.changes[k]);
        }
        if let Err((at, e)) = result {
            progress.finish();
            for c in &mut plan.changes[end..] {
                c.status = Some(Status::NotRun);
            }
            let done = plan
                .changes
                .iter()
                .filter(|c| c.status == Some(Status::Done))
                .count();
            let change = &plan.changes[at];
            let hint = match e.kind {
                DriverErrorKind::InUse => format!(
                    "stop what uses the GPU (see `gpushare detect`; services such as nvidia-persistenced \
                     or DCGM, or the nvidia_drm module, can hold it too) or reboot, then run the same \
                     command again; {done} of {} change(s) were made and a re-run continues from there",
                    plan.changes.len()
                ),
                _ => format!(
                    "{done} of {} change(s) were made; run the same command again to continue from there",
                    plan.changes.len()
                ),
            };
            let mut err = Error::from(e.clone());
            err.message = format!(
                "GPU {}: {} ({}) failed: {}",
                change.gpu, change.action, change.detail, err.message
            );
            return Err(err.with_hint(hint));
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

struct Run {
    /// GPU instances this run created: (gpu, start) → id.
    created: BTreeMap<(u32, u32), u32>,
    awaiting_reboot: BTreeSet<u32>,
}

/// A failure: the index of the change and the driver's error.
type StepResult = std::result::Result<(), (usize, DriverError)>;

impl Run {
    fn one(&mut self, plan: &mut Plan, i: usize, backend: &mut dyn Backend) -> StepResult {
        if plan.changes[i].operation == Operation::ResetIfPending {
            return self.resets(plan, i..i + 1, backend);
        }
        let change = &mut plan.changes[i];
        let gpu = change.gpu;
        if self.awaiting_reboot.contains(&gpu) {
            change.status = Some(Status::AwaitingReboot);
            return Ok(());
        }
        let result = match change.operation {
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
            // Handled above, before the change is borrowed.
            Operation::ResetIfPending => Ok(()),
        };
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

    /// Reset the GPUs of `range` whose MIG mode is pending now, in one call. A driver that cannot
    /// reset them (a VM with passthrough) turns into "reboot required".
    fn resets(
        &mut self,
        plan: &mut Plan,
        range: std::ops::Range<usize>,
        backend: &mut dyn Backend,
    ) -> StepResult {
        let node = backend.snapshot().map_err(|e| (range.start, e))?;
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
                Err((first.unwrap_or(0), e))
            }
        }
    }
}

/// A bar on a terminal; one line per change otherwise (logs, CI); nothing with --quiet.
struct Progress<'o> {
    out: &'o Output,
    bar: Option<indicatif::ProgressBar>,
    total: usize,
    seen: usize,
}

impl<'o> Progress<'o> {
    fn new(out: &'o Output, total: usize) -> Self {
        let bar = (!out.quiet && total > 0 && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::new(total as u64);
            if let Ok(style) =
                indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {wide_msg}")
            {
                bar.set_style(style);
            }
            bar
        });
        Progress {
            out,
            bar,
            total,
            seen: 0,
        }
    }

    fn step(&mut self, change: &super::Change) {
        self.seen += 1;
        let status = change.status.map_or("", Status::as_str);
        let line = format!(
            "[{}/{}] GPU {}: {} {}: {status}",
            self.seen, self.total, change.gpu, change.action, change.detail
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
