//! `gpushare recover`: reset the GPUs a fatal fault left unhealthy, through the pipeline (see
//! `crate::change::pipeline::planner` and `crate::node::gpu_health`).

use super::changing::{self, Changing};
use crate::change::pipeline::desired::DesiredSource;
use crate::change::plan::PlanOptions;
use crate::commands::cli::RecoverArgs;
use crate::node::Context;
use crate::node::config::Config;
use crate::node::gpu_health::policy::Policy;
use crate::support::error::{Error, Exit, Result};
use std::path::Path;

pub(super) fn run(ctx: &mut Context, args: &RecoverArgs) -> Result<Exit> {
    let policy = match &args.config {
        Some(path) => Policy::of(Config::load(path)?.file.health.as_deref()),
        None => {
            let (policy, note) = crate::node::gpu_health::node_policy(&ctx.paths);
            if let Some(note) = note {
                ctx.out.warn(note);
            }
            policy
        }
    };
    match crate::node::gpu_health::record::HealthRecord::load(&ctx.paths)? {
        None => ctx.out.note(
            "no health record on this node: no watch has heard a fault here (gpushare agent or gpushare metrics --listen)",
        ),
        Some(record) => {
            let now = crate::support::clock::unix_now();
            match record.watch.as_ref().filter(|w| now - w.alive_at < crate::node::gpu_health::STALE_AFTER_SECONDS) {
                None => ctx.out.warn(
                    "the GPUs' health is unknown (no health watch listens: gpushare agent or gpushare metrics --listen): what the record holds is not acted on",
                ),
                Some(w) => {
                    for (gpu, why) in &w.unwatched {
                        ctx.out.warn(format!("GPU {gpu}: health unknown ({why}): not reset"));
                    }
                }
            }
        }
    }
    let exit = changing::run(
        ctx,
        DesiredSource::Recover {
            gpus: args.gpu.clone(),
            policy,
        },
        &Changing {
            command: "recover",
            sysfs_root: Path::new("/"),
            options: PlanOptions::default(),
            dry_run: args.dry_run,
            clients_and_hooks: Default::default(),
        },
    )?;
    if args.dry_run || exit != Exit::Ok {
        return Ok(exit);
    }
    layout_in_force(ctx, args)
}

/// A reset takes a GPU's MIG instances (and its compute mode) with it: where a layout is in
/// force, the node then differs from it until `apply` brings it back, and recover says so
/// (exit 3) rather than that the node has what it should.
fn layout_in_force(ctx: &mut Context, args: &RecoverArgs) -> Result<Exit> {
    let path = args
        .config
        .clone()
        .unwrap_or_else(|| ctx.paths.etc_dir().join("gpushare.toml"));
    if !path.exists() {
        return Ok(Exit::Ok);
    }
    let (_, plan) = crate::change::pipeline::converge::plan_only(
        ctx,
        DesiredSource::Gpushare(Config::load(&path)?),
        Path::new("/"),
        PlanOptions::default(),
    )?;
    if !crate::change::pipeline::planner::changes_anything(&plan) {
        return Ok(Exit::Ok);
    }
    Err(Error::new(
        Exit::Differs,
        format!(
            "the node differs from the layout in force ({}) after the reset: {} change(s) on {} bring it back",
            path.display(),
            plan.changes.len(),
            plan.scope()
        ),
    )
    .with_hint(format!(
        "run `gpushare apply -c {}` (the agent does it by itself)",
        path.display()
    )))
}
