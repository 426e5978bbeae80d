//! `gpushare plan` and `gpushare apply`: the whole gpushare.toml through one planner and one
//! executor (see `crate::apply`). `init` runs the same [`converge`].

use crate::Context;
use crate::apply::desired::Desired;
use crate::apply::guard::Guard;
use crate::apply::observe::Looker;
use crate::apply::run::{self, Applied};
use crate::apply::signals::Trap;
use crate::apply::{Options, planner};
use crate::cli::{ApplyArgs, LayoutFileArgs, PlanArgs};
use crate::config::Config;
use crate::error::{Error, Exit, Result};
use crate::mig::layout::ProfileBook;
use crate::output::Output;
use crate::plan::{Plan, executor};
use std::io::{BufRead, IsTerminal};
use std::path::{Path, PathBuf};

/// `-c FILE`, or gpushare.toml in the configuration directory.
pub fn config_path(ctx: &Context, file: &LayoutFileArgs) -> PathBuf {
    file.config
        .clone()
        .unwrap_or_else(|| ctx.paths.etc_dir().join("gpushare.toml"))
}

pub fn plan(ctx: &mut Context, args: &PlanArgs) -> Result<Exit> {
    let path = config_path(ctx, &args.file);
    let options = Options { force: args.force };
    let (desired, looker) = check(
        ctx,
        Config::load(&path)?,
        &args.file.sysfs.sysfs_root,
        false,
    )?;
    let plan = run::plan_now(ctx, &desired, &looker, options)?;
    ctx.out.data(&plan, |out| plan.render(out))?;
    let what = path.display().to_string();
    let changes = plan
        .changes
        .iter()
        .filter(|c| c.operation != crate::plan::Operation::AwaitReboot)
        .count();
    if !args.check {
        ctx.out.note(summary(&plan, &what));
        return Ok(Exit::Ok);
    }
    if changes > 0 || !plan.blockers.is_empty() {
        return Err(Error::new(
            Exit::Differs,
            format!(
                "the node differs from {what}: {changes} change(s) on GPU(s) {}{}",
                gpu_list(&plan),
                if plan.blockers.is_empty() {
                    String::new()
                } else {
                    format!(", {} blocker(s)", plan.blockers.len())
                }
            ),
        )
        .with_hint(format!("apply it with `gpushare apply -c {what}`")));
    }
    if plan.reboot_required {
        return Err(Error::new(
            Exit::RebootRequired,
            format!(
                "the node has {what} once it reboots: the MIG mode of GPU(s) {} is pending",
                join(&plan.reboot_gpus)
            ),
        )
        .with_hint("reboot, then run `gpushare apply` again"));
    }
    ctx.out.note(format!("the node has {what}"));
    Ok(Exit::Ok)
}

pub fn apply(ctx: &mut Context, args: &ApplyArgs) -> Result<Exit> {
    let mut guard = take_guard(ctx, "apply", args.dry_run)?;
    let path = config_path(ctx, &args.file);
    let what = path.display().to_string();
    let config = Config::load(&path)?;
    let how = Converge {
        sysfs_root: &args.file.sysfs.sysfs_root,
        options: Options { force: args.force },
        dry_run: args.dry_run,
        yes: args.yes,
    };
    match converge(ctx, config, &how, guard.as_mut(), &mut |_| Ok(()))? {
        Converged::DryRun(plan) => {
            ctx.out.data(&plan, |out| plan.render(out))?;
            ctx.out.note(format!(
                "dry run: {}; nothing was changed",
                summary(&plan, &what)
            ));
            Ok(Exit::Ok)
        }
        Converged::Applied(applied) => {
            ctx.out
                .data(&applied.made, |out| applied.made.render(out))?;
            report(&ctx.out, &applied, &what)
        }
    }
}

/// Print how a run ended; its exit status.
pub fn report(out: &Output, applied: &Applied, what: &str) -> Result<Exit> {
    if let Some(e) = &applied.error {
        return Err(e.clone());
    }
    let made = &applied.made;
    let done = made
        .changes
        .iter()
        .filter(|c| c.status == Some(crate::plan::Status::Done))
        .count();
    if made.reboot_required {
        out.warn(format!(
            "reboot required: the MIG mode of GPU(s) {} changes at the next reboot; run `gpushare apply` again after it",
            join(&made.reboot_gpus)
        ));
    } else if done == 0 {
        out.note(format!("nothing to change: the node already has {what}"));
    } else {
        out.note(format!(
            "applied {what}: {done} change(s) on {} GPU(s); the node has it",
            made.gpus().len()
        ));
    }
    Ok(applied.exit())
}

/// How `converge` goes about it.
pub struct Converge<'a> {
    pub sysfs_root: &'a Path,
    pub options: Options,
    pub dry_run: bool,
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

/// Check the file against the node, then either plan (a dry run, or no `guard`) or plan, ask,
/// and run until the node is as the file says.
pub fn converge(
    ctx: &mut Context,
    config: Config,
    how: &Converge,
    guard: Option<&mut Guard>,
    before_run: &mut BeforeRun,
) -> Result<Converged> {
    let (desired, looker) = check(ctx, config, how.sysfs_root, !how.dry_run)?;
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

/// The file checked against the node, and how to look at the node.
fn check(
    ctx: &mut Context,
    config: Config,
    sysfs_root: &Path,
    learn: bool,
) -> Result<(Desired, Looker)> {
    let node = ctx.snapshot()?;
    let book = ProfileBook::load(ctx.backend()?, &node);
    let desired = Desired::check(config, &node, &book, &ctx.out)?;
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
        gpu_list(plan)
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

/// `3 change(s) on 2 GPU(s)`, and blockers and reboots when there are.
fn summary(plan: &Plan, what: &str) -> String {
    if !planner::changes_anything(plan) && plan.blockers.is_empty() {
        return if plan.reboot_required {
            format!(
                "nothing to change until the reboot GPU(s) {} wait for",
                join(&plan.reboot_gpus)
            )
        } else {
            format!("no changes: the node has {what}")
        };
    }
    let mut s = format!(
        "{} change(s) planned on {} GPU(s)",
        plan.changes.len(),
        plan.gpus().len()
    );
    if !plan.blockers.is_empty() {
        s.push_str(&format!(
            "; {} blocker(s) would stop apply",
            plan.blockers.len()
        ));
    }
    if plan.reboot_required {
        s.push_str(&format!(
            "; GPU(s) {} need a reboot",
            join(&plan.reboot_gpus)
        ));
    }
    s
}

fn gpu_list(plan: &Plan) -> String {
    join(&plan.gpus())
}

fn join(gpus: &[u32]) -> String {
    gpus.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
