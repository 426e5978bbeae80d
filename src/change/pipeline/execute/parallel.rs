//! A phase on several GPUs at once: one worker thread per GPU (at most `--jobs`), each making
//! its GPU's changes in plan order through the shared backend.
//!
//! The executor's own thread stays the one writer: a worker asks it before each change (the
//! runner journals the step and checks for a signal there; the steps that start together are
//! synced to disk together) and tells it each outcome (status, journal, progress), so the journal
//! and the progress are one coherent sequence, each step tagged with its GPU. After the first
//! failure or signal no change starts anywhere; the changes in flight finish and are reported.

use super::gpu_run::GpuRun;
use super::{Progress, Runner, StepError, Stop};
use crate::change::plan::{Change, Phase, Plan, Status};
use crate::node::backend::{Backend, DriverError};
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Mutex;
use std::sync::mpsc::{Sender, channel};

/// Whether `changes` (one phase) run on several GPUs at once: the phase is one of per-GPU
/// changes, each of them a driver call of its own (not a reset), on more than one GPU, and more
/// than one job is allowed.
pub(super) fn suits(phase: Phase, changes: &[Change], jobs: usize) -> bool {
    jobs > 1
        && phase.per_gpu()
        && changes
            .iter()
            .all(|c| c.operation.is_driver_call() && !c.operation.is_reset())
        && changes.iter().any(|c| c.gpu != changes[0].gpu)
}

/// One GPU's changes of the phase, with their indexes in the plan.
struct Work {
    gpu: u32,
    changes: Vec<(usize, Change)>,
    run: GpuRun,
}

/// What a worker tells the executor's thread.
enum Ask {
    /// May change `.0` start? The answer goes back on `.1`.
    Start(usize, Sender<bool>),
    /// Change `.0` ended with this status (and why, when it failed).
    Ended(usize, Status, Option<DriverError>),
    /// A GPU's changes are over: what the run keeps about it.
    Over(u32, GpuRun),
}

/// Run the changes of `range` (one per-GPU phase, see [`suits`]) with up to `jobs` workers.
pub(super) fn run(
    plan: &mut Plan,
    range: Range<usize>,
    runs: &mut BTreeMap<u32, GpuRun>,
    runner: &mut dyn Runner,
    progress: &mut Progress,
    jobs: usize,
) -> Result<(), Stop> {
    let backend = runner.backend().map_err(|e| {
        plan.changes[range.start].status = Some(Status::Failed);
        Stop::Failed(range.start, StepError::Other(e))
    })?;
    let mut work: Vec<Work> = Vec::new();
    for k in range {
        let change = &plan.changes[k];
        let at = match work.iter().position(|w| w.gpu == change.gpu) {
            Some(at) => at,
            None => {
                work.push(Work {
                    gpu: change.gpu,
                    changes: Vec::new(),
                    run: runs.remove(&change.gpu).unwrap_or_default(),
                });
                work.len() - 1
            }
        };
        work[at].changes.push((k, change.clone()));
    }
    let workers = jobs.min(work.len());
    let queue = Mutex::new(work.into_iter());
    let (asks, answers) = channel::<Ask>();
    let mut stop = None;
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let asks = asks.clone();
            let (queue, backend) = (&queue, &*backend);
            scope.spawn(move || worker(queue, backend, &asks));
        }
        drop(asks);
        // Until every worker is done (each holds a sender). The asks that wait are taken
        // together: the steps they start are journalled, then synced once.
        while let Ok(first) = answers.recv() {
            let mut starting = Vec::new();
            for ask in std::iter::once(first).chain(answers.try_iter()) {
                match ask {
                    Ask::Start(k, answer) => {
                        let go = stop.is_none()
                            && runner
                                .before(&plan.changes[k])
                                .map_err(|e| stop = Some(Stop::Refused(e)))
                                .is_ok();
                        if go {
                            starting.push(answer);
                        } else {
                            // A worker that is gone has nothing left to start.
                            let _ = answer.send(false);
                        }
                    }
                    Ask::Ended(k, status, error) => {
                        plan.changes[k].status = Some(status);
                        runner.after(&plan.changes[k]);
                        progress.step(&plan.changes[k]);
                        if let Some(e) = error
                            && stop.is_none()
                        {
                            stop = Some(Stop::Failed(k, StepError::Driver(e)));
                        }
                    }
                    Ask::Over(gpu, run) => {
                        runs.insert(gpu, run);
                    }
                }
            }
            if starting.is_empty() {
                continue;
            }
            let go = runner
                .settle()
                .map_err(|e| {
                    stop.get_or_insert(Stop::Refused(e));
                })
                .is_ok();
            for answer in starting {
                let _ = answer.send(go);
            }
        }
    });
    stop.map_or(Ok(()), Err)
}

/// Take GPUs from the queue until it is empty; make each one's changes in order, asking before
/// each one.
fn worker(queue: &Mutex<std::vec::IntoIter<Work>>, backend: &dyn Backend, asks: &Sender<Ask>) {
    loop {
        let next = queue.lock().unwrap_or_else(|e| e.into_inner()).next();
        let Some(Work {
            gpu,
            changes,
            mut run,
        }) = next
        else {
            return;
        };
        for (k, change) in changes {
            // A channel of its own for each answer: if the executor's thread is gone (a panic
            // there), the answer never comes and the worker stops instead of waiting for it.
            let (answer, answers) = channel();
            if asks.send(Ask::Start(k, answer)).is_err() || answers.recv() != Ok(true) {
                break;
            }
            let outcome = if run.awaiting_reboot {
                Ok(Status::AwaitingReboot)
            } else {
                run.driver_call(&change, backend)
            };
            let failed = outcome.is_err();
            let ended = match outcome {
                Ok(status) => Ask::Ended(k, status, None),
                Err(e) => Ask::Ended(k, Status::Failed, Some(e)),
            };
            if asks.send(ended).is_err() || failed {
                break;
            }
        }
        let _ = asks.send(Ask::Over(gpu, run));
    }
}
