//! `gpushare mig clear`: no GPU or compute instances left, MIG mode unchanged.

use super::{observe, plan_and_run};
use crate::Context;
use crate::cli::MigClearArgs;
use crate::error::{Exit, Result};
use crate::mig::layout::{GpuDesire, MigLayout};
use crate::mig::planner::PlanOptions;

pub fn run(ctx: &mut Context, args: &MigClearArgs) -> Result<Exit> {
    let (node, book) = observe(ctx)?;
    let selected = args.gpu.resolve(&node)?;
    let mut desires = Vec::new();
    for gpu in node.gpus.iter().filter(|g| selected.contains(&g.index)) {
        if !gpu.mig.capable || !gpu.mig.current.is_enabled() {
            continue;
        }
        // An unknown layout is an error, never "already clear".
        gpu.mig_instances()?;
        let profiles = book.known(gpu)?.unwrap_or_default().to_vec();
        desires.push(GpuDesire {
            gpu: gpu.index,
            layout: MigLayout::Enabled(Vec::new()),
            profiles,
            origin: "mig clear".into(),
            reason: None,
        });
    }
    if desires.is_empty() {
        ctx.out
            .note("no selected GPU has MIG enabled: there are no instances to clear");
    }
    // Clearing plans no instance, so nothing waits for a second pass.
    let mut again = |_: &mut Context,
                     _: &crate::node::Node,
                     _: &crate::mig::layout::ProfileBook| { Ok(Vec::new()) };
    plan_and_run(
        ctx,
        &node,
        &desires,
        PlanOptions::default(),
        args.dry_run,
        "no MIG instances",
        &mut again,
    )
}
