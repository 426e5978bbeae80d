//! `vgpu apply` and `vgpu clear` through the one pipeline (`crate::change::pipeline`) with a
//! vGPU-only desired state; `vgpu assert`: plan from the file and say whether anything differs.

use super::super::changing::{self, Changing};
use crate::change::pipeline::desired::DesiredSource;
use crate::change::plan::PlanOptions;
use crate::commands::cli::{VgpuApplyArgs, VgpuAssertArgs, VgpuClearArgs, VgpuFileArgs};
use crate::node::Context;
use crate::node::model::Node;
use crate::node::model::selector::GpuSelector;
use crate::sharing::vgpu::discover::attach_node;
use crate::sharing::vgpu::from_config::VgpuLayout;
use crate::sharing::vgpu::host::Framework;
use crate::sharing::vgpu::input::{self, LayoutFile};
use crate::sharing::vgpu::session::Session;
use crate::sharing::vgpu::steps::{GpuPlan, Plan, VgpuPlanOptions, plan};
use crate::sharing::vgpu::sysfs::SysfsRoot;
use crate::support::error::{Exit, Result};
use crate::support::output::table;
use serde::Serialize;
use std::collections::BTreeMap;

/// The layout file, read and checked before anything else.
fn layout_file(ctx: &Context, args: &VgpuFileArgs) -> Result<LayoutFile> {
    LayoutFile {
        file: args.file.clone(),
        config: args.config.clone(),
        read: None,
    }
    .read_now(&ctx.paths)
}

/// Restrict a desired layout to the GPUs `--gpu` selects.
fn restrict(desired: &mut VgpuLayout, selector: &GpuSelector, node: &Node) -> Result<()> {
    if *selector != GpuSelector::All {
        desired.retain(&selector.resolve(node)?);
    }
    Ok(())
}

pub(super) fn apply(ctx: &mut Context, args: &VgpuApplyArgs) -> Result<Exit> {
    changing::run(
        ctx,
        DesiredSource::Vgpu {
            layout: Some(layout_file(ctx, &args.input)?),
            gpus: args.gpu.clone(),
            heterogeneous: args.heterogeneous,
        },
        &Changing {
            command: "vgpu apply",
            sysfs_root: &args.sysfs.sysfs_root,
            options: PlanOptions {
                force: args.force,
                ..PlanOptions::default()
            },
            dry_run: args.dry_run,
            clients_and_hooks: Default::default(),
        },
    )
}

pub(super) fn clear(ctx: &mut Context, args: &VgpuClearArgs) -> Result<Exit> {
    changing::run(
        ctx,
        DesiredSource::Vgpu {
            layout: None,
            gpus: args.gpu.clone(),
            heterogeneous: false,
        },
        &Changing {
            command: "vgpu clear",
            sysfs_root: &args.sysfs.sysfs_root,
            options: PlanOptions {
                force: args.force,
                ..PlanOptions::default()
            },
            dry_run: args.dry_run,
            clients_and_hooks: Default::default(),
        },
    )
}

pub(super) fn assert(ctx: &mut Context, args: &VgpuAssertArgs) -> Result<Exit> {
    let layout = layout_file(ctx, &args.input)?;
    let (out, paths) = (ctx.out.clone(), ctx.paths.clone());
    let mut session = Session::new(SysfsRoot::new(&args.sysfs.sysfs_root), &paths, &out);
    let mut host = session.discover()?;
    let node = ctx.snapshot()?;
    attach_node(&mut host, &node);
    let mut desired = input::desired(&layout, &node, &paths)?;
    restrict(&mut desired, &args.gpu, &node)?;
    // Only the difference matters here, not whether apply may remove what VMs use; but a
    // layout `vgpu apply` refuses (exit 2) is refused here too, not reported as a difference.
    let options = VgpuPlanOptions {
        force: true,
        heterogeneous: args.heterogeneous,
    };
    let plan = plan(&desired, &host, options)?;
    let differing: Vec<&GpuPlan> = plan.gpus.iter().filter(|g| !g.steps.is_empty()).collect();
    let view = AssertReport {
        matches: differing.is_empty(),
        gpus: plan.gpus.iter().map(summary).collect(),
    };
    out.data(&view, |_| render_summaries(&plan))?;
    if differing.is_empty() {
        out.note("the vGPU devices match");
        Ok(Exit::Ok)
    } else {
        out.note(format!(
            "the vGPU devices differ on {} GPU(s): {} change(s) needed (`gpushare vgpu apply` makes them)",
            differing.len(),
            plan.step_count()
        ));
        Ok(Exit::Differs)
    }
}

#[derive(Serialize)]
struct GpuSummary<'a> {
    index: Option<u32>,
    pci_bus_id: &'a str,
    framework: Framework,
    desired: &'a BTreeMap<String, u32>,
    before: &'a BTreeMap<String, u32>,
    changes: usize,
}

fn summary(g: &GpuPlan) -> GpuSummary<'_> {
    GpuSummary {
        index: g.index,
        pci_bus_id: &g.pci_bus_id,
        framework: g.framework,
        desired: &g.desired,
        before: &g.current,
        changes: g.steps.len(),
    }
}

#[derive(Serialize)]
struct AssertReport<'a> {
    matches: bool,
    gpus: Vec<GpuSummary<'a>>,
}

fn counts(map: &BTreeMap<String, u32>) -> String {
    if map.is_empty() {
        return "none".into();
    }
    map.iter()
        .map(|(t, n)| format!("{n} × {t}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn render_summaries(plan: &Plan) -> String {
    let rows = plan
        .gpus
        .iter()
        .map(|g| {
            vec![
                g.index.map_or_else(|| "-".into(), |i| i.to_string()),
                g.pci_bus_id.clone(),
                counts(&g.desired),
                counts(&g.current),
                g.steps.len().to_string(),
            ]
        })
        .collect();
    table(&["GPU", "BUS ID", "DESIRED", "BEFORE", "CHANGES"], rows)
}
