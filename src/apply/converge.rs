//! The one way a layout reaches the node: check it against the node, plan, ask (on a terminal),
//! and run until the node is as the layout says, under the caller's node lock and journal.
//! `apply`, `init` and the node agent all come through [`converge`].

use super::desired::{Desired, Source};
use super::guard::Guard;
use super::observe::Looker;
use super::run::{self, Applied};
use super::signals::Trap;
use super::{Options, planner};
use crate::Context;
use crate::error::{Error, Result};
use crate::mig::layout::ProfileBook;
use crate::output::Output;
use crate::plan::{Plan, executor};
use std::io::{BufRead, IsTerminal};
use std::path::Path;

/// How `converge` goes about it.
pub struct Converge<'a> {
    pub sysfs_root: &'a Path,
    pub options: Options,
    pub dry_run: bool,
    /// Go ahead without asking (it is never asked without a terminal).
    pub yes: bool,
}

pub enum Converged {
    /// The plan, nothing changed.
    DryRun(Plan),
    Applied(Applied),
}

/// The node lock and journal of a changing command, taken before it looks at the node so that
/// it plans from what the previous holder left (none for a dry run, which changes nothing).
pub fn take_guard(ctx: &Context, command: &str, dry_run: bool) -> Result<Option<Guard>> {
    if dry_run {
        return Ok(None);
    }
    Guard::take(ctx, command, ctx.lock_timeout).map(Some)
}

/// What to do once the plan is agreed, before the first change (`init` writes its file).
pub type BeforeRun<'a> = dyn FnMut(&Context) -> Result<()> + 'a;

/// Check the layout against the node, then either plan (a dry run, or no `guard`) or plan, ask,
/// and run until the node is as the layout says.
pub fn converge(
    ctx: &mut Context,
    source: Source,
    how: &Converge,
    guard: Option<&mut Guard>,
    before_run: &mut BeforeRun,
) -> Result<Converged> {
    let (desired, looker) = check(ctx, source, how.sysfs_root, !how.dry_run)?;
    let Some(guard) = guard.filter(|_| !how.dry_run) else {
        return Ok(Converged::DryRun(run::plan_now(
            ctx,
            &desired,
            &looker,
            how.options,
        )?));
    };
    let outcome = plan_and_run(ctx, &desired, &looker, how, guard, before_run);
    let end = match &outcome {
        Ok(applied) => applied.error.as_ref().map(|e| e.message.clone()),
        Err(e) => Some(e.message.clone()),
    };
    guard.finish(end.as_deref().map_or(Ok(()), Err))?;
    outcome.map(Converged::Applied)
}

fn plan_and_run(
    ctx: &mut Context,
    desired: &Desired,
    looker: &Looker,
    how: &Converge,
    guard: &mut Guard,
    before_run: &mut BeforeRun,
) -> Result<Applied> {
    let plan = run::plan_now(ctx, desired, looker, how.options)?;
    if !planner::changes_anything(&plan) && plan.blockers.is_empty() {
        before_run(ctx)?;
        return Ok(Applied {
            made: Plan {
                changes: Vec::new(),
                ..plan
            },
            error: None,
        });
    }
    if let Err(e) = executor::refuse(&plan) {
        ctx.out.data(&plan, |out| plan.render(out))?;
        return Err(e);
    }
    if !how.yes && !confirm(&ctx.out, &plan)? {
        return Err(Error::failed("nothing was changed: not confirmed")
            .with_hint("answer `y` to go ahead, or pass --yes"));
    }
    before_run(ctx)?;
    let trap = Trap::install();
    let applied = run::apply(ctx, desired, looker, plan, how.options, guard, &trap);
    if applied.changed_mig() {
        // The device nodes of MIG devices changed: an installed CDI spec must follow.
        match ctx
            .snapshot()
            .and_then(|node| crate::k8s::cdi::refresh_installed(&ctx.paths, &node))
        {
            Ok(Some(path)) => ctx
                .out
                .note(format!("refreshed the CDI spec {}", path.display())),
            Ok(None) => {}
            Err(e) => ctx
                .out
                .warn(format!("cannot refresh the CDI spec: {}", e.message)),
        }
    }
    Ok(applied)
}

/// The layout checked against the node, and how to look at the node.
pub fn check(
    ctx: &mut Context,
    source: Source,
    sysfs_root: &Path,
    learn: bool,
) -> Result<(Desired, Looker)> {
    let node = ctx.snapshot()?;
    let book = ProfileBook::load(ctx.backend()?, &node);
    let desired = Desired::check_source(source, &node, &book, &ctx.out)?;
    let looker = Looker::new(ctx, &desired, sysfs_root, learn)?;
    Ok((desired, looker))
}

/// On a terminal, show the plan and ask; without one, go ahead (scripts never hang on a prompt).
fn confirm(out: &Output, plan: &Plan) -> Result<bool> {
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return Ok(true);
    }
    let question = format!(
        "{}Make these {} change(s) on GPU(s) {}? [y/N] ",
        plan.render(out),
        plan.changes.len(),
        join(&plan.gpus())
    );
    out.prompt(&question)?;
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|e| Error::failed(format!("cannot read the answer: {e}")))?;
    Ok(matches!(
        answer.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    ))
}

/// `0, 2, 5`.
pub fn join(gpus: &[u32]) -> String {
    gpus.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
