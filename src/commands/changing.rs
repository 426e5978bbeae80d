//! What every changing command does once it has said what it wants: take the node lock and
//! journal, run the pipeline, print the plan (a dry run) or the changes made, and say how it
//! ended. The output is the same plan for every command (table, or the JSON contract of
//! `crate::change::plan`), and so are the exit codes.

use crate::change::hooks::{FlagValues, Hooks};
use crate::change::pipeline::converge::{Converge, Converged, converge, take_guard};
use crate::change::pipeline::desired::{ClientsAndHooks, DesiredSource};
use crate::change::pipeline::planner;
use crate::change::pipeline::run::Applied;
use crate::change::plan::PlanOptions;
use crate::change::plan::{Plan, join};
use crate::commands::cli::ClientsAndHooksArgs;
use crate::node::Context;
use crate::node::clients::GpuClients;
use crate::support::error::{Exit, Result};
use crate::support::output::Output;
use std::path::Path;

/// How a changing command was asked to go about it.
pub(super) struct Changing<'a> {
    /// Its name in the lock and the journal: `mig apply`.
    pub command: &'static str,
    pub sysfs_root: &'a Path,
    pub options: PlanOptions,
    pub dry_run: bool,
    /// GPU clients and hooks from its options.
    pub clients_and_hooks: ClientsAndHooks,
}

/// The GPU clients and hooks of `--gpu-clients-file` and `--hooks-file`; `flags`: the values
/// mig-parted's hooks see.
pub(super) fn clients_and_hooks(
    out: &Output,
    args: &ClientsAndHooksArgs,
    flags: FlagValues,
) -> Result<ClientsAndHooks> {
    let clients = match &args.gpu_clients_file {
        Some(path) => GpuClients::load_mig_parted(path)?,
        None => GpuClients::default(),
    };
    let hooks = match &args.hooks_file {
        Some(path) => {
            let mut hooks = Hooks::load(path, flags, out)?;
            hooks.timeout = std::time::Duration::from_secs(args.hooks_timeout);
            Some(hooks)
        }
        None => None,
    };
    Ok(ClientsAndHooks { clients, hooks })
}

/// Run `source` through the pipeline and report (see the module doc).
pub(super) fn run(ctx: &mut Context, source: DesiredSource, change: &Changing) -> Result<Exit> {
    let mut guard = take_guard(ctx, change.command, change.dry_run)?;
    let what = source.describe();
    let how = Converge {
        sysfs_root: change.sysfs_root,
        options: change.options,
        dry_run: change.dry_run,
        // Only `apply` and `init` ask on a terminal: the other commands never did.
        yes: true,
        clients_and_hooks: change.clients_and_hooks.clone(),
    };
    match converge(ctx, source, &how, guard.as_mut(), &mut |_| Ok(()))? {
        Converged::DryRun(plan) => dry_run(&ctx.out, &plan, &what),
        Converged::Applied(applied) => {
            ctx.out
                .data(&applied.made, |out| applied.made.render(out))?;
            report(&ctx.out, &applied)
        }
    }
}

/// Print the plan of a dry run and what it amounts to.
pub(super) fn dry_run(out: &Output, plan: &Plan, what: &str) -> Result<Exit> {
    out.data(plan, |o| plan.render(o))?;
    out.note(format!(
        "dry run: {}; nothing was changed",
        summary(plan, what)
    ));
    Ok(Exit::Ok)
}

/// Say how a run ended; its exit status (the error that stopped it, 5 when a reboot is
/// missing).
pub(super) fn report(out: &Output, applied: &Applied) -> Result<Exit> {
    if let Some(e) = &applied.error {
        return Err(e.clone());
    }
    let made = &applied.made;
    let done = applied.done();
    if made.reboot_required {
        out.warn(format!(
            "reboot required: the MIG mode of GPU(s) {} changes at the next reboot; run the same command again after it",
            join(&made.reboot_gpus)
        ));
    } else if done == 0 {
        out.note(format!(
            "nothing to change: the node already has {}",
            applied.what
        ));
    } else {
        out.note(format!(
            "applied {}: {done} change(s) on {}; the node has it",
            applied.what,
            made.scope()
        ));
    }
    Ok(applied.exit())
}

/// `3 change(s) planned on GPU(s) 0, 1`, and blockers and reboots when there are.
pub(super) fn summary(plan: &Plan, what: &str) -> String {
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
        "{} change(s) planned on {}",
        plan.changes.len(),
        plan.scope()
    );
    if !plan.blockers.is_empty() {
        s.push_str(&format!(
            "; {} blocker(s) would stop it",
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
