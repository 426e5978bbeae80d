//! `gpushare recover`: reset the GPUs a fatal fault left unhealthy, through the pipeline (see
//! `crate::pipeline::planner` and `crate::gpu_health`).

use super::changing::{self, Changing};
use crate::Context;
use crate::cli::RecoverArgs;
use crate::config::Config;
use crate::error::{Exit, Result};
use crate::gpu_health::policy::Policy;
use crate::pipeline::desired::DesiredSource;
use crate::plan::PlanOptions;
use std::path::Path;

pub(super) fn run(ctx: &mut Context, args: &RecoverArgs) -> Result<Exit> {
    let policy = match &args.config {
        Some(path) => Policy::of(Config::load(path)?.file.health.as_deref()),
        None => {
            let (policy, note) = crate::gpu_health::node_policy(&ctx.paths);
            if let Some(note) = note {
                ctx.out.warn(note);
            }
            policy
        }
    };
    if crate::gpu_health::record::HealthRecord::load(&ctx.paths)?.is_none() {
        ctx.out.note(
            "no health record on this node: no watch has heard a fault here (gpushare agent or gpushare metrics --listen)",
        );
    }
    changing::run(
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
    )
}
