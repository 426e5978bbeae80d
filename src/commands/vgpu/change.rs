//! `vgpu apply`, `vgpu assert` and `vgpu clear`: plan from the file (or from nothing), show the
//! plan or make it, and report every step.

use super::{input, select, warn_in_use_unknown};
use crate::Context;
use crate::cli::{VgpuApplyArgs, VgpuAssertArgs, VgpuClearArgs};
use crate::error::{Exit, Result};
use crate::node::Node;
use crate::node::selector::GpuSelector;
use crate::output::{Output, Style, table};
use crate::vgpu::apply::{self, Applied, ApplyOptions, Session};
use crate::vgpu::desired::Desired;
use crate::vgpu::discover::attach_node;
use crate::vgpu::execute::{StepReport, StepStatus};
use crate::vgpu::host::Framework;
use crate::vgpu::plan::{GpuPlan, Plan, PlanOptions, plan};
use crate::vgpu::sysfs::SysfsRoot;
use serde::Serialize;
use std::collections::BTreeMap;

/// Restrict a desired layout to the GPUs `--gpu` selects.
fn restrict(desired: &mut Desired, selector: &GpuSelector, node: &Node) -> Result<()> {
    if *selector != GpuSelector::All {
        desired.retain(&selector.resolve(node)?);
    }
    Ok(())
}

pub fn apply(ctx: &mut Context, args: &VgpuApplyArgs) -> Result<Exit> {
    let (out, paths) = (ctx.out.clone(), ctx.paths.clone());
    let mut session = Session::new(SysfsRoot::new(&args.sysfs.sysfs_root), &paths, &out);
    let host = session.discover()?;
    warn_in_use_unknown(ctx, &host);
    let node = ctx.snapshot()?;
    let mut desired = input::desired(&args.input, &node, &paths)?;
    restrict(&mut desired, &args.gpu, &node)?;
    if desired.gpus.is_empty() {
        out.note("nothing to do: the file gives no vGPU layout for the selected GPUs of this node");
    }
    let options = ApplyOptions {
        plan: PlanOptions {
            force: args.force,
            heterogeneous: args.heterogeneous,
        },
        dry_run: args.dry_run,
    };
    finish(&out, &mut session, &node, &desired, options)
}

pub fn clear(ctx: &mut Context, args: &VgpuClearArgs) -> Result<Exit> {
    let (out, paths) = (ctx.out.clone(), ctx.paths.clone());
    let mut session = Session::new(SysfsRoot::new(&args.sysfs.sysfs_root), &paths, &out);
    let mut host = session.discover()?;
    warn_in_use_unknown(ctx, &host);
    let node = ctx.snapshot()?;
    attach_node(&mut host, &node);
    let host = select(host, &args.gpu, &node)?;
    for g in host.gpus.iter().filter(|g| g.index.is_none()) {
        out.warn(format!(
            "{} is not one of the node's GPUs; left alone",
            g.pci_bus_id
        ));
    }
    let indexes: Vec<u32> = host.gpus.iter().filter_map(|g| g.index).collect();
    let options = ApplyOptions {
        plan: PlanOptions {
            force: args.force,
            heterogeneous: false,
        },
        dry_run: args.dry_run,
    };
    finish(
        &out,
        &mut session,
        &node,
        &Desired::empty(&indexes),
        options,
    )
}

pub fn assert(ctx: &mut Context, args: &VgpuAssertArgs) -> Result<Exit> {
    let (out, paths) = (ctx.out.clone(), ctx.paths.clone());
    let mut session = Session::new(SysfsRoot::new(&args.sysfs.sysfs_root), &paths, &out);
    let mut host = session.discover()?;
    let node = ctx.snapshot()?;
    attach_node(&mut host, &node);
    let mut desired = input::desired(&args.input, &node, &paths)?;
    restrict(&mut desired, &args.gpu, &node)?;
    // Only the difference matters here, not whether apply may remove what VMs use.
    let options = PlanOptions {
        force: true,
        heterogeneous: true,
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

/// Plan, make (or show) the changes, keep what was learned, and report.
fn finish(
    out: &Output,
    session: &mut Session,
    node: &Node,
    desired: &Desired,
    options: ApplyOptions,
) -> Result<Exit> {
    let applied = apply::apply(session, node, desired, options)?;
    let saved = if options.dry_run {
        Ok(())
    } else {
        session.save()
    };
    report(out, &applied, options.dry_run)?;
    if let Some(e) = applied.error {
        if let Err(s) = saved {
            out.warn(s.message);
        }
        return Err(e);
    }
    saved?;
    let done = applied
        .steps
        .iter()
        .filter(|s| s.status == StepStatus::Done)
        .count();
    if options.dry_run {
        out.note(format!(
            "dry run: {} change(s) planned, none made",
            applied.steps.len()
        ));
    } else if done == 0 {
        out.note("nothing to change: the vGPU devices already match");
    } else {
        out.note(format!("made {done} change(s)"));
    }
    Ok(Exit::Ok)
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
struct ApplyReport<'a> {
    dry_run: bool,
    changed: usize,
    gpus: Vec<GpuSummary<'a>>,
    steps: &'a [StepReport],
}

#[derive(Serialize)]
struct AssertReport<'a> {
    matches: bool,
    gpus: Vec<GpuSummary<'a>>,
}

fn report(out: &Output, applied: &Applied, dry_run: bool) -> Result<()> {
    let view = ApplyReport {
        dry_run,
        changed: applied
            .steps
            .iter()
            .filter(|s| s.status == StepStatus::Done)
            .count(),
        gpus: applied.plan.gpus.iter().map(summary).collect(),
        steps: &applied.steps,
    };
    out.data(&view, |o| {
        let mut s = render_summaries(&applied.plan);
        if !applied.steps.is_empty() {
            s.push('\n');
            s.push_str(&render_steps(o, &applied.steps, dry_run));
        }
        s
    })
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

fn render_steps(out: &Output, steps: &[StepReport], dry_run: bool) -> String {
    let rows = steps
        .iter()
        .map(|r| {
            let status = match r.status {
                StepStatus::Done => out.paint(Style::Good, "done"),
                StepStatus::Failed => out.paint(Style::Bad, "failed"),
                StepStatus::NotRun if dry_run => "planned".into(),
                StepStatus::NotRun => out.paint(Style::Dim, "not run"),
            };
            let place = match &r.uuid {
                Some(u) => format!("{u} {}", r.step.place()),
                None => r.step.place(),
            };
            vec![
                r.index.map_or_else(|| "-".into(), |i| i.to_string()),
                r.step.verb().to_string(),
                r.step.type_name().to_string(),
                place,
                status,
            ]
        })
        .collect();
    table(&["GPU", "ACTION", "TYPE", "DEVICE", "STATUS"], rows)
}
