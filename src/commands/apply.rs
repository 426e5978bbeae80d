//! `gpushare plan` and `gpushare apply`: the whole gpushare.toml through the one pipeline (see
//! `crate::change::pipeline`), by way of [`converge`](fn@converge) as `init` and the agent do.

use super::changing::{clients_and_hooks, dry_run, report, summary};
use crate::change::hooks::FlagValues;
use crate::change::pipeline::converge::{self, Converge, Converged, converge, take_guard};
use crate::change::pipeline::desired::DesiredSource;
use crate::change::plan::PlanOptions;
use crate::change::plan::join;
use crate::commands::cli::{ApplyArgs, LayoutFileArgs, PlanArgs};
use crate::node::Context;
use crate::node::config::Config;
use crate::support::error::{Error, Exit, Result};
use std::path::PathBuf;

/// `-c FILE`, or gpushare.toml in the configuration directory.
pub(super) fn config_path(ctx: &Context, file: &LayoutFileArgs) -> PathBuf {
    file.config
        .clone()
        .unwrap_or_else(|| ctx.paths.etc_dir().join("gpushare.toml"))
}

pub(super) fn plan(ctx: &mut Context, args: &PlanArgs) -> Result<Exit> {
    let path = config_path(ctx, &args.file);
    let options = PlanOptions {
        force: args.force,
        ..PlanOptions::default()
    };
    let (_, plan) = converge::plan_only(
        ctx,
        DesiredSource::Gpushare(Config::load_input(&path)?),
        &args.file.sysfs.sysfs_root,
        options,
    )?;
    ctx.out.data(&plan, |out| plan.render(out))?;
    let what = path.display().to_string();
    let changes = plan
        .changes
        .iter()
        .filter(|c| {
            !matches!(
                c.operation,
                crate::change::plan::Operation::AwaitReboot
                    | crate::change::plan::Operation::Hook(_)
            )
        })
        .count();
    if !args.check {
        ctx.out.note(summary(&plan, &what));
        return Ok(Exit::Ok);
    }
    if changes > 0 || !plan.blockers.is_empty() {
        return Err(Error::new(
            Exit::Differs,
            format!(
                "the node differs from {what}: {changes} change(s) on {}{}",
                plan.scope(),
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

pub(super) fn apply(ctx: &mut Context, args: &ApplyArgs) -> Result<Exit> {
    let mut guard = take_guard(ctx, "apply", args.dry_run)?;
    let path = config_path(ctx, &args.file);
    let what = path.display().to_string();
    let config = Config::load_input(&path)?;
    let flags = FlagValues {
        config_file: what.clone(),
        ..FlagValues::default()
    };
    let how = Converge {
        sysfs_root: &args.file.sysfs.sysfs_root,
        options: PlanOptions {
            force: args.force,
            ..PlanOptions::default()
        },
        dry_run: args.dry_run,
        yes: args.yes,
        clients_and_hooks: clients_and_hooks(&ctx.out, &args.clients_and_hooks, flags)?,
    };
    match converge(
        ctx,
        DesiredSource::Gpushare(config),
        &how,
        guard.as_mut(),
        &mut |_| Ok(()),
    )? {
        Converged::DryRun(plan) => dry_run(&ctx.out, &plan, &what),
        Converged::Applied(applied) => {
            ctx.out
                .data(&applied.made, |out| applied.made.render(out))?;
            report(&ctx.out, &applied)
        }
    }
}
