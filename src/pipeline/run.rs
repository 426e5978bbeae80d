//! Running a plan in passes: the changes before the first `Later` one go through the executor,
//! then the node is observed and planned again, until [`super::verify`] finds nothing
//! left to change (or a node that does not settle).

use super::desired::Desired;
use super::execute;
use super::guard::Guard;
use super::observe::Looker;
use super::signals::Trap;
use super::steps::Steps;
use super::verify::{self, Verdict};
use super::{Options, planner};
use crate::Context;
use crate::error::{Error, Exit, Result};
use crate::mps::MpsOptions;
use crate::plan::{Blocker, Operation, Plan, Status};

/// Observe the node and plan; MPS daemons to stop that have clients connected are blockers
/// (unless --force).
pub fn plan_now(
    ctx: &mut Context,
    desired: &Desired,
    looker: &Looker,
    options: Options,
) -> Result<Plan> {
    let seen = looker.observe(ctx, desired)?;
    let refreshed = desired.resolve_later(ctx, &seen.node)?;
    let desired = refreshed.as_ref().unwrap_or(desired);
    let mut plan = planner::plan(desired, &seen, &ctx.paths, options)?;
    if !options.force {
        for change in &plan.changes {
            let Operation::StopMpsDaemon(spec) = &change.operation else {
                continue;
            };
            let clients = looker.clients(spec);
            if clients.is_empty() {
                continue;
            }
            let list: Vec<String> = clients.iter().map(|c| c.describe()).collect();
            plan.blockers.push(Blocker {
                gpu: change.gpu,
                message: format!(
                    "the MPS daemon `{}` has clients connected: {}",
                    spec.name,
                    list.join(", ")
                ),
                hint: Some(
                    "stop them first, or pass --force to end them (terminate_client) and stop it"
                        .into(),
                ),
            });
        }
    }
    Ok(plan)
}

/// What a run did: every change it made, in order, with its status.
#[derive(Debug)]
pub struct Applied {
    /// What the run brought the node to, in words (`gpushare.toml`, `label X of FILE`).
    pub what: String,
    pub made: Plan,
    /// What stopped it (a failure, a signal, a node that does not settle).
    pub error: Option<Error>,
}

impl Applied {
    /// A MIG change was made (the CDI spec must follow).
    pub fn changed_mig(&self) -> bool {
        self.made.changes.iter().any(|c| {
            c.status == Some(Status::Done)
                && matches!(
                    c.operation,
                    Operation::CreateGpuInstance { .. }
                        | Operation::CreateComputeInstance { .. }
                        | Operation::DestroyGpuInstance { .. }
                        | Operation::DestroyComputeInstance { .. }
                        | Operation::SetMigMode(_)
                        | Operation::ResetIfPending
                )
        })
    }

    /// The changes made.
    pub fn done(&self) -> usize {
        self.made
            .changes
            .iter()
            .filter(|c| c.status == Some(Status::Done))
            .count()
    }

    pub fn exit(&self) -> Exit {
        if self.made.reboot_required {
            Exit::RebootRequired
        } else {
            Exit::Ok
        }
    }
}

/// Run `first` (planned and shown already), then plan and run again until the node is as
/// desired. Takes the lock's journal and the signal trap of the caller.
pub fn apply(
    ctx: &mut Context,
    desired: &Desired,
    looker: &Looker,
    first: Plan,
    options: Options,
    guard: &mut Guard,
    trap: &Trap,
) -> Applied {
    let out = ctx.out.clone();
    let mut made = Plan::default();
    let mut plan = first;
    let mut error = None;
    let mps = MpsOptions {
        force: options.force,
        timeout: desired.mps_timeout,
    };
    let mut steps = Steps::new(ctx, looker, mps, &mut guard.journal, trap);
    for pass in 0.. {
        match verify::check(&plan, pass) {
            Verdict::Done => {
                for gpu in &plan.reboot_gpus {
                    made.mark_reboot(*gpu);
                }
                break;
            }
            Verdict::Differs(e) => {
                error = Some(e);
                break;
            }
            Verdict::Continue => {}
        }
        let mut now = planner::runnable(&plan);
        let result = execute::execute_with(&mut now, &mut steps, &out);
        made.changes.extend(now.changes);
        for gpu in &now.reboot_gpus {
            made.mark_reboot(*gpu);
        }
        if let Err(e) = result {
            error = Some(e);
            break;
        }
        plan = match plan_now(steps.ctx, desired, looker, options) {
            Ok(p) => p,
            Err(e) => {
                error = Some(e);
                break;
            }
        };
    }
    Applied {
        what: desired.what.clone(),
        made,
        error,
    }
}
