//! `gpushare plan` and `gpushare apply`: the whole gpushare.toml through one planner and one
//! executor (see `crate::apply`), by way of [`converge`] as `init` and the agent do.

use crate::Context;
use crate::apply::converge::{self, Converge, Converged, converge, join, take_guard};
use crate::apply::desired::Source;
use crate::apply::run::{self, Applied};
use crate::apply::{Options, planner};
use crate::cli::{ApplyArgs, LayoutFileArgs, PlanArgs};
use crate::config::Config;
use crate::error::{Error, Exit, Result};
use crate::output::Output;
use crate::plan::Plan;
use std::path::PathBuf;

/// `-c FILE`, or gpushare.toml in the configuration directory.
pub fn config_path(ctx: &Context, file: &LayoutFileArgs) -> PathBuf {
    file.config
        .clone()
        .unwrap_or_else(|| ctx.paths.etc_dir().join("gpushare.toml"))
}

pub fn plan(ctx: &mut Context, args: &PlanArgs) -> Result<Exit> {
    let path = config_path(ctx, &args.file);
    let options = Options { force: args.force };
    let (desired, looker) = converge::check(
        ctx,
        Source::Gpushare(Config::load(&path)?),
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
    match converge(
        ctx,
        Source::Gpushare(config),
        &how,
        guard.as_mut(),
        &mut |_| Ok(()),
    )? {
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
