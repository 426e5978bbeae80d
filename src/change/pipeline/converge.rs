//! The one way a desired state reaches the node: check it against the node, plan, ask (on a
//! terminal), and run until the node is as desired, under the caller's node lock and journal.
//! Every changing command (`apply`, `init`, `mig apply|clear`, `mps start|stop`,
//! `vgpu apply|clear`) and the node agent come through [`converge`].

use super::desired::{ClientsAndHooks, Desired, DesiredSource};
use super::execute;
use super::guard::Guard;
use super::observe::HostTools;
use super::planner;
use super::run::{self, Applied};
use super::signals::Trap;
use crate::change::plan::PlanOptions;
use crate::change::plan::{Operation, Plan};
use crate::node::Context;
use crate::sharing::mig::layout::ProfileBook;
use crate::support::error::{Error, Result};
use crate::support::output::Output;
use std::io::{BufRead, IsTerminal};
use std::path::Path;

/// How `converge` goes about it.
pub(crate) struct Converge<'a> {
    pub sysfs_root: &'a Path,
    pub options: PlanOptions,
    pub dry_run: bool,
    /// Go ahead without asking (it is never asked without a terminal).
    pub yes: bool,
    /// GPU clients and hooks from the command's options, added to what the source lists.
    pub clients_and_hooks: ClientsAndHooks,
}

pub(crate) enum Converged {
    /// The plan, nothing changed.
    DryRun(Plan),
    Applied(Applied),
}

/// The node lock and journal of a changing command, taken before it looks at the node so that
/// it plans from what the previous holder left (none for a dry run, which changes nothing).
pub(crate) fn take_guard(ctx: &Context, command: &str, dry_run: bool) -> Result<Option<Guard>> {
    if dry_run {
        return Ok(None);
    }
    Guard::take(ctx, command, ctx.lock_timeout).map(Some)
}

/// What to do once the plan is agreed, before the first change (`init` writes its file).
pub(crate) type BeforeRun<'a> = dyn FnMut(&Context) -> Result<()> + 'a;

/// Check what `source` asks for against the node, then either plan (a dry run, or no `guard`)
/// or plan, ask, and run until the node is as desired.
pub(crate) fn converge(
    ctx: &mut Context,
    source: DesiredSource,
    how: &Converge,
    guard: Option<&mut Guard>,
    before_run: &mut BeforeRun,
) -> Result<Converged> {
    let (desired, tools) = check(
        ctx,
        source,
        &how.clients_and_hooks,
        how.sysfs_root,
        !how.dry_run,
    )?;
    let Some(guard) = guard.filter(|_| !how.dry_run) else {
        return Ok(Converged::DryRun(run::plan_now(
            ctx,
            &desired,
            &tools,
            how.options,
            true,
        )?));
    };
    let mut outcome = plan_and_run(ctx, &desired, &tools, how, guard, before_run);
    // What the run changed is kept for the next command before the lock is let go (the
    // simulator's state file; the driver keeps its own).
    if let Err(e) = ctx
        .host_events()
        .and_then(|h| h.keep().map_err(Error::from))
        && let Ok(applied) = &mut outcome
    {
        applied.error.get_or_insert(e);
    }
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
    tools: &HostTools,
    how: &Converge,
    guard: &mut Guard,
    before_run: &mut BeforeRun,
) -> Result<Applied> {
    let plan = run::plan_now(ctx, desired, tools, how.options, true)?;
    let changes = planner::changes_anything(&plan);
    let hooks = plan
        .changes
        .iter()
        .any(|c| matches!(c.operation, Operation::Hook(_)));
    if !changes && !hooks && plan.blockers.is_empty() {
        before_run(ctx)?;
        return Ok(Applied {
            what: desired.what.clone(),
            made: Plan {
                changes: Vec::new(),
                ..plan
            },
            error: None,
        });
    }
    if let Err(e) = execute::refuse(&plan) {
        ctx.out.data(&plan, |out| plan.render(out))?;
        return Err(e);
    }
    if changes && !how.yes && !confirm(&ctx.out, &plan)? {
        return Err(Error::failed("nothing was changed: not confirmed")
            .with_hint("answer `y` to go ahead, or pass --yes"));
    }
    before_run(ctx)?;
    let trap = Trap::install();
    let applied = run::apply(ctx, desired, tools, plan, how.options, guard, &trap);
    if applied.changed_mig() {
        // The device nodes of MIG devices changed: an installed CDI spec must follow.
        match ctx
            .snapshot()
            .and_then(|node| crate::change::cdi::refresh_installed(&ctx.paths, &node))
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

/// What `source` asks for (with the GPU clients and hooks of `clients_and_hooks`), checked against the
/// node, and how to look at the node.
pub(crate) fn check(
    ctx: &mut Context,
    source: DesiredSource,
    clients_and_hooks: &ClientsAndHooks,
    sysfs_root: &Path,
    learn: bool,
) -> Result<(Desired, HostTools)> {
    let node = ctx.snapshot()?;
    let book = ProfileBook::load(ctx.backend()?, &node);
    let mut desired = Desired::check_source(ctx, source, &node, &book, sysfs_root)?;
    desired.clients_and_hooks.merge(clients_and_hooks.clone());
    let tools = HostTools::new(ctx, &desired, sysfs_root, learn)?;
    Ok((desired, tools))
}

/// What running `source` would change now (`plan`, `mig assert`): nothing is changed, no lock
/// is taken.
pub(crate) fn plan_only(
    ctx: &mut Context,
    source: DesiredSource,
    sysfs_root: &Path,
    options: PlanOptions,
) -> Result<(Desired, Plan)> {
    let (desired, tools) = check(ctx, source, &ClientsAndHooks::default(), sysfs_root, false)?;
    let plan = run::plan_now(ctx, &desired, &tools, options, true)?;
    Ok((desired, plan))
}

/// On a terminal, show the plan and ask; without one, go ahead (scripts never hang on a prompt).
fn confirm(out: &Output, plan: &Plan) -> Result<bool> {
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return Ok(true);
    }
    let question = format!(
        "{}Make these {} change(s) on {}? [y/N] ",
        plan.render(out),
        plan.changes.len(),
        plan.scope()
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
