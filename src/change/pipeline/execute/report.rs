//! The error of a run that stopped: what stopped it, what each GPU got, and that running the
//! same command again continues from there.

use super::{StepError, Stop};
use crate::change::plan::{NODE, Plan, Status};
use crate::node::backend::DriverErrorKind;
use crate::support::error::Error;

fn done_count(plan: &Plan) -> usize {
    plan.changes
        .iter()
        .filter(|c| c.status == Some(Status::Done))
        .count()
}

/// The error of a stopped run, every change's status set.
pub(super) fn stopped(plan: &Plan, stop: Stop) -> Error {
    let (done, total) = (done_count(plan), plan.changes.len());
    let made = format!("{done} of {total} change(s) were made");
    let again = "run the same command again to continue from there";
    let mut err = match stop {
        Stop::Refused(mut e) => {
            e.hint = Some(format!("{made}; {}", e.hint.as_deref().unwrap_or(again)));
            e
        }
        Stop::Failed(at, e) => {
            let change = &plan.changes[at];
            let (mut err, hint) = match e {
                StepError::Driver(e) => {
                    let hint = (e.kind == DriverErrorKind::InUse).then(|| {
                        "stop what uses the GPU (see `gpushare detect`; services such as \
                         nvidia-persistenced or DCGM, or the nvidia_drm module, can hold it too) \
                         or reboot, then run the same command again"
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
            err.hint = Some(match hint {
                Some(h) => format!("{h}; {made} and a re-run continues from there"),
                None => format!("{made}; {again}"),
            });
            err
        }
    };
    if plan.gpus().len() > 1 {
        err.message.push_str(&by_gpu(plan));
    }
    err
}

/// What each GPU got, a line each: `  GPU 3: 2 done, create_gpu_instance FAILED, 11 not run`;
/// then the node-wide steps (`  node: …`), if any.
pub(super) fn by_gpu(plan: &Plan) -> String {
    let mut text = String::new();
    let mut targets = plan.gpus();
    if plan.changes.iter().any(|c| c.is_node_wide()) {
        targets.push(NODE);
    }
    for gpu in targets {
        let changes: Vec<_> = plan.changes.iter().filter(|c| c.gpu == gpu).collect();
        let count = |status: Status| changes.iter().filter(|c| c.status == Some(status)).count();
        let mut parts = Vec::new();
        for status in [Status::Done, Status::NotNeeded, Status::AwaitingReboot] {
            let n = count(status);
            if n > 0 {
                parts.push(format!("{n} {}", status.as_str()));
            }
        }
        for failed in changes.iter().filter(|c| c.status == Some(Status::Failed)) {
            parts.push(format!("{} FAILED", failed.action));
        }
        let not_run = count(Status::NotRun);
        if not_run > 0 {
            parts.push(format!("{not_run} not run"));
        }
        text.push_str(&format!(
            "\n  {}: {}",
            changes[0].target(),
            parts.join(", ")
        ));
    }
    text
}
