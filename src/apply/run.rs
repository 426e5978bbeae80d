//! Running a plan: the changes before the first `Later` one go through the executor, then the
//! node is observed and planned again, until nothing is left to change. Every step is journalled
//! before and after it runs; a signal stops the run between two steps.

use super::desired::Desired;
use super::guard::Guard;
use super::observe::Looker;
use super::signals::Trap;
use super::{Options, planner};
use crate::Context;
use crate::backend::Backend;
use crate::error::{Error, Exit, Result};
use crate::journal::{Event, Journal};
use crate::mps::MpsOptions;
use crate::mps::daemon::start_daemons;
use crate::mps::stop::stop_daemons;
use crate::plan::executor::{self, Runner};
use crate::plan::{Blocker, Change, Operation, Plan};
use crate::vgpu::sysfs::SysfsRoot;
use crate::vgpu::writer::SysfsWriter;

/// More passes than the phases there are (MPS stops + MIG, MPS, SR-IOV, vGPU devices) means the
/// node does not settle: something else changes it.
const MAX_PASSES: usize = 6;

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
    pub made: Plan,
    /// What stopped it (a failure, a signal, a node that does not settle).
    pub error: Option<Error>,
}

impl Applied {
    /// A MIG change was made (the CDI spec must follow).
    pub fn changed_mig(&self) -> bool {
        self.made.changes.iter().any(|c| {
            c.status == Some(crate::plan::Status::Done)
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
    let mut steps = Steps {
        ctx,
        looker,
        mps: MpsOptions {
            force: options.force,
            ..MpsOptions::default()
        },
        writer: None,
        journal: &mut guard.journal,
        trap,
    };
    for pass in 0.. {
        if !planner::changes_anything(&plan) {
            for gpu in &plan.reboot_gpus {
                made.mark_reboot(*gpu);
            }
            break;
        }
        let mut now = planner::runnable(&plan);
        if pass == MAX_PASSES || !now.changes.iter().any(|c| c.operation.changes_the_node()) {
            let what = plan
                .changes
                .iter()
                .find(|c| c.operation != Operation::AwaitReboot)
                .map(describe)
                .unwrap_or_default();
            error = Some(
                Error::new(
                    Exit::Differs,
                    format!(
                        "the node does not settle: after {pass} pass(es) it still needs {what}"
                    ),
                )
                .with_hint("something else changes the GPUs meanwhile; run the command again"),
            );
            break;
        }
        let result = executor::execute_with(&mut now, &mut steps, &out);
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
    Applied { made, error }
}

/// `GPU 0: create_gpu_instance (1g.5gb at 0:1)`, as the journal records a step.
pub fn describe(change: &Change) -> String {
    format!("GPU {}: {} ({})", change.gpu, change.action, change.detail)
}

/// The executor's runner for `apply`: the driver, MPS daemons, vGPU sysfs, the journal, the trap.
struct Steps<'a> {
    ctx: &'a mut Context,
    looker: &'a Looker,
    mps: MpsOptions,
    writer: Option<SysfsWriter>,
    journal: &'a mut Journal,
    trap: &'a Trap,
}

impl Runner for Steps<'_> {
    fn backend(&mut self) -> Result<&mut dyn Backend> {
        self.ctx.backend()
    }

    fn run_other(&mut self, change: &Change) -> Result<()> {
        match &change.operation {
            Operation::StopMpsDaemon(spec) => {
                let control = self.mps_control()?;
                stop_daemons(self.ctx, &control, vec![(**spec).clone()], self.mps).map(|_| ())
            }
            Operation::StartMpsDaemon(spec) => {
                let control = self.mps_control()?;
                start_daemons(self.ctx, &control, vec![(**spec).clone()], self.mps).map(|_| ())
            }
            Operation::Vgpu(step) => {
                if self.writer.is_none() {
                    let root = SysfsRoot::new(&self.looker.sysfs_root);
                    self.writer = Some(SysfsWriter::new(&root)?);
                }
                let Some(writer) = self.writer.as_mut() else {
                    return Err(Error::failed("no sysfs writer"));
                };
                let uuid = crate::vgpu::execute::run_step(step, writer)?;
                if let Some(uuid) = uuid {
                    self.ctx.out.note(format!(
                        "GPU {}: {}",
                        change.gpu,
                        step.describe(true, Some(&uuid))
                    ));
                }
                Ok(())
            }
            _ => Err(Error::failed(format!(
                "{} cannot run yet: plan again once the changes before it are made",
                describe(change)
            ))),
        }
    }

    fn before(&mut self, change: &Change) -> Result<()> {
        if let Some(signal) = self.trap.received() {
            return Err(Error::failed(format!(
                "stopped by {signal} before {}",
                describe(change)
            ))
            .with_hint(
                "the node is consistent; run `gpushare apply` (or the same command) again: it \
                 continues from the node as it is",
            ));
        }
        self.journal.record(Event::Step, Some(&describe(change)))
    }

    fn after(&mut self, change: &Change) {
        let status = change.status.map_or("", |s| s.as_str());
        let line = format!("{}: {status}", describe(change));
        if let Err(e) = self.journal.record(Event::StepDone, Some(&line)) {
            self.ctx.out.warn(e.message);
        }
    }
}

impl Steps<'_> {
    fn mps_control(&self) -> Result<crate::mps::control::MpsControl> {
        match &self.looker.control {
            Some(c) => Ok(c.clone()),
            None => crate::mps::control::MpsControl::find(self.mps.timeout),
        }
    }
}
