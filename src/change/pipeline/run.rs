//! Running a plan in passes: the changes before the first `Later` one go through the executor,
//! then the node is observed and planned again, until [`super::verify`] finds nothing
//! left to change (or a node that does not settle).

use super::desired::Desired;
use super::execute;
use super::guard::Guard;
use super::observe::HostTools;
use super::planner;
use super::runner::StepRunner;
use super::signals::Trap;
use super::verify::{self, Verdict};
use crate::change::hooks::HookPoint;
use crate::change::pipeline::host_change::mps_daemon::DaemonChange;
use crate::change::plan::PlanOptions;
use crate::change::plan::{Blocker, Change, Operation, Plan, Status};
use crate::node::Context;
use crate::node::clients::Client;
use crate::node::clients::record::Stopped;
use crate::sharing::mps::MpsOptions;
use crate::support::error::{Error, Exit, Result};

/// Observe the node and plan; MPS daemons to stop that have clients connected are blockers
/// (unless --force). `first`: the first plan of a run (see [`planner::plan`]).
pub(crate) fn plan_now(
    ctx: &mut Context,
    desired: &Desired,
    tools: &HostTools,
    options: PlanOptions,
    first: bool,
) -> Result<Plan> {
    let seen = tools.observe(ctx, desired)?;
    let refreshed = desired.resolve_later(ctx, &seen.node)?;
    let desired = refreshed.as_ref().unwrap_or(desired);
    let mut plan = planner::plan(desired, &seen, &ctx.paths, options, first)?;
    if !options.force {
        for change in &plan.changes {
            let Some(DaemonChange::Stop(spec)) = change.operation.host_change() else {
                continue;
            };
            let clients = tools.clients(spec);
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
pub(crate) struct Applied {
    /// What the run brought the node to, in words (`gpushare.toml`, `label X of FILE`).
    pub what: String,
    pub made: Plan,
    /// What stopped it (a failure, a signal, a node that does not settle).
    pub error: Option<Error>,
}

impl Applied {
    /// A MIG change was made (the CDI spec must follow).
    pub(crate) fn changed_mig(&self) -> bool {
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
                        | Operation::ResetUnhealthy
                )
        })
    }

    /// The changes made (hooks that ran are not changes).
    pub(crate) fn done(&self) -> usize {
        self.made
            .changes
            .iter()
            .filter(|c| c.status == Some(Status::Done) && c.operation.changes_the_node())
            .count()
    }

    pub(crate) fn exit(&self) -> Exit {
        if self.made.reboot_required {
            Exit::RebootRequired
        } else {
            Exit::Ok
        }
    }
}

/// Run `first` (planned and shown already), then plan and run again until the node is as
/// desired. Takes the lock's journal and the signal trap of the caller. Whatever stops the run,
/// the GPU clients it stopped are started again and the `apply-exit` hook runs (`finish`).
pub(crate) fn apply(
    ctx: &mut Context,
    desired: &Desired,
    tools: &HostTools,
    first: Plan,
    options: PlanOptions,
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
    let mut steps = StepRunner::new(ctx, tools, mps, &mut guard.journal, trap);
    for pass in 0.. {
        match verify::check(&plan, pass) {
            // A run with nothing to change still runs its hooks, once.
            Verdict::Done if pass == 0 && has_hooks(&plan) => {}
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
        plan = match plan_now(steps.host.ctx, desired, tools, options, false) {
            Ok(p) => p,
            Err(e) => {
                error = Some(e);
                break;
            }
        };
    }
    if error.is_some() {
        finish(&mut steps, desired, &mut made, &out);
    }
    Applied {
        what: desired.what.clone(),
        made,
        error,
    }
}

fn has_hooks(plan: &Plan) -> bool {
    plan.changes
        .iter()
        .any(|c| matches!(c.operation, Operation::Hook(_)))
}

/// After a run that stopped early (a failure, a signal): start again the GPU clients gpushare
/// stopped (the record knows them, also those of an earlier run) and run `apply-exit`, as
/// mig-parted defers it — unless `apply-start` failed, or `apply-exit` ran already. Each step
/// runs on its own, past a signal; what fails is said, and the run's own error stands.
fn finish(
    steps: &mut StepRunner,
    desired: &Desired,
    made: &mut Plan,
    out: &crate::support::output::Output,
) {
    let ran = |point: HookPoint, statuses: &[Status]| {
        made.changes.iter().any(|c| match &c.operation {
            Operation::Hook(h) => {
                h.point == point && c.status.is_some_and(|s| statuses.contains(&s))
            }
            _ => false,
        })
    };
    let failed_starts: Vec<Client> = made
        .changes
        .iter()
        .filter(|c| c.status == Some(Status::Failed))
        .filter_map(|c| match &c.operation {
            Operation::StartClient(client) => Some(client.clone()),
            _ => None,
        })
        .collect();
    let mut changes: Vec<Change> = match Stopped::load(&steps.host.ctx.paths) {
        Ok(record) => record
            .services
            .iter()
            .map(|s| Client::Service(s.clone()))
            .chain(record.modules.iter().map(|m| Client::Module(m.clone())))
            .rev()
            .filter(|c| !failed_starts.contains(c))
            .map(|c| {
                let detail = format!("{c} again (the run stopped early)");
                Change::node_wide(Operation::StartClient(c), detail)
            })
            .collect(),
        Err(e) => {
            out.warn(e.message);
            Vec::new()
        }
    };
    let start_failed = ran(HookPoint::ApplyStart, &[Status::Failed]);
    // Not when it ran (`not run` after the failure before it is not having run).
    let exit_ran = ran(HookPoint::ApplyExit, &[Status::Done, Status::Failed]);
    if !start_failed
        && !exit_ran
        && let Some(hook) = desired
            .clients_and_hooks
            .hooks
            .as_ref()
            .and_then(|h| h.at(HookPoint::ApplyExit))
    {
        let detail = hook.describe();
        changes.push(Change::node_wide(Operation::Hook(Box::new(hook)), detail));
    }
    if changes.is_empty() {
        return;
    }
    steps.finishing = true;
    for change in changes {
        let mut one = Plan {
            changes: vec![change],
            ..Plan::default()
        };
        if let Err(e) = execute::execute_with(&mut one, steps, out) {
            out.warn(e.message);
        }
        made.changes.extend(one.changes);
    }
}
