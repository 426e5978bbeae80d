//! `gpushare mig …`: profiles, apply, assert, export, clear.

mod apply;
mod clear;
mod export;
mod profiles;

use crate::Context;
use crate::apply::guard::guarded;
use crate::cli::MigCommand;
use crate::error::{Error, Exit, Result};
use crate::mig::layout::{GpuDesire, ProfileBook};
use crate::mig::planner::{self, PlanOptions};
use crate::node::Node;
use crate::plan::{Plan, executor};

pub fn run(ctx: &mut Context, cmd: &MigCommand) -> Result<Exit> {
    match cmd {
        MigCommand::Profiles(args) => profiles::run(ctx, args),
        MigCommand::Apply(args) => guarded(ctx, "mig apply", args.dry_run, |ctx| {
            apply::apply(ctx, args)
        }),
        MigCommand::Assert(args) => apply::assert(ctx, args),
        MigCommand::Export(args) => export::run(ctx, args),
        MigCommand::Clear(args) => {
            guarded(ctx, "mig clear", args.dry_run, |ctx| clear::run(ctx, args))
        }
    }
}

/// The node and the profiles of its MIG-capable GPUs.
fn observe(ctx: &mut Context) -> Result<(Node, ProfileBook)> {
    let node = ctx.snapshot()?;
    let book = ProfileBook::load(ctx.backend()?, &node);
    Ok((node, book))
}

/// How a MIG command finds its desires again, from the node as it is (after MIG was turned on
/// on GPUs whose instances wait for the driver's profiles).
pub type Desires<'a> = dyn FnMut(&mut Context, &Node, &ProfileBook) -> Result<Vec<GpuDesire>> + 'a;

/// Plan, then print the plan (`--dry-run`) or run it and check the node afterwards. Instances
/// that wait for MIG to be on (`later` changes) are planned again once the changes before them
/// are made, from `desires_again`.
fn plan_and_run(
    ctx: &mut Context,
    node: &Node,
    desires: &[GpuDesire],
    options: PlanOptions,
    dry_run: bool,
    what: &str,
    desires_again: &mut Desires,
) -> Result<Exit> {
    let plan = planner::plan(node, desires, options);
    let now = crate::apply::planner::runnable(&plan);
    if dry_run || now.changes.len() == plan.changes.len() {
        return run_once(ctx, plan, desires, options, dry_run, what);
    }
    let exit = run_once(ctx, now, desires, options, dry_run, what)?;
    if exit != Exit::Ok {
        return Ok(exit);
    }
    let (node, book) = observe(ctx)?;
    let desires = desires_again(ctx, &node, &book)?;
    let plan = planner::plan(&node, &desires, options);
    if plan.changes.iter().any(|c| c.later) {
        return Err(Error::failed(format!(
            "the MIG instances of {what} still cannot be planned after MIG was turned on"
        ))
        .with_hint("check `gpushare mig profiles`: the driver should list the profiles now"));
    }
    run_once(ctx, plan, &desires, options, false, what)
}

fn run_once(
    ctx: &mut Context,
    mut plan: Plan,
    desires: &[GpuDesire],
    options: PlanOptions,
    dry_run: bool,
    what: &str,
) -> Result<Exit> {
    let later = plan.changes.iter().any(|c| c.later);
    if dry_run {
        ctx.out.data(&plan, |out| plan.render(out))?;
        let blocked = if plan.blockers.is_empty() {
            String::new()
        } else {
            format!("; {} blocker(s) would stop it", plan.blockers.len())
        };
        ctx.out.note(format!(
            "dry run: {} change(s) planned on {} GPU(s){blocked}; nothing was changed",
            plan.changes.len(),
            plan.gpus().len()
        ));
        return Ok(Exit::Ok);
    }
    if plan.changes.is_empty() && plan.blockers.is_empty() {
        ctx.out.data(&plan, |out| plan.render(out))?;
        ctx.out
            .note(format!("nothing to change: the node already has {what}"));
        return Ok(if plan.reboot_required {
            Exit::RebootRequired
        } else {
            Exit::Ok
        });
    }
    if let Err(e) = executor::refuse(&plan) {
        ctx.out.data(&plan, |out| plan.render(out))?;
        return Err(e);
    }
    let out = ctx.out.clone();
    let result = executor::execute(&mut plan, ctx.backend()?, &out);
    ctx.out.data(&plan, |out| plan.render(out))?;
    let exit = result?;
    if exit == Exit::RebootRequired {
        let gpus: Vec<String> = plan.reboot_gpus.iter().map(u32::to_string).collect();
        ctx.out.warn(format!(
            "reboot required: the MIG mode of GPU(s) {} changes at the next reboot; run the same command again after it",
            gpus.join(", ")
        ));
        return Ok(exit);
    }
    if later {
        // The changes before the `later` ones are made; the caller plans the rest.
        return Ok(Exit::Ok);
    }
    verify(ctx, desires, options, what)?;
    ctx.out.note(format!(
        "applied {what}: {} change(s) on {} GPU(s)",
        plan.changes.len(),
        plan.gpus().len()
    ));
    Ok(Exit::Ok)
}

/// After a run, the node must be as desired: planning again finds nothing to do.
fn verify(
    ctx: &mut Context,
    desires: &[GpuDesire],
    options: PlanOptions,
    what: &str,
) -> Result<()> {
    let node = ctx.snapshot()?;
    let again: Plan = planner::plan(&node, desires, options);
    if again.changes.is_empty() {
        return Ok(());
    }
    let first = &again.changes[0];
    Err(Error::new(
        Exit::Differs,
        format!(
            "the node differs from {what} after applying it: GPU {} still needs {} ({})",
            first.gpu, first.action, first.detail
        ),
    )
    .with_hint("something else changed the GPUs meanwhile; run the command again"))
}
