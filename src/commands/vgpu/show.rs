//! `vgpu types` and `vgpu status`: read-only views of the host.

use super::{select, warn_in_use_unknown};
use crate::commands::cli::VgpuShowArgs;
use crate::node::Context;
use crate::sharing::vgpu::discover::attach_node;
use crate::sharing::vgpu::host::{Framework, Host, Sriov, VgpuGpu, VgpuType};
use crate::sharing::vgpu::session::Session;
use crate::sharing::vgpu::sysfs::SysfsRoot;
use crate::support::error::{Exit, Result};
use crate::support::output::{Output, Style, table};
use serde::Serialize;

/// Discover the host (before NVML: a host without vGPU support says so first), then name its
/// GPUs after the node's.
fn host(ctx: &mut Context, args: &VgpuShowArgs) -> Result<Host> {
    let out = ctx.out.clone();
    let paths = ctx.paths.clone();
    let mut session = Session::new(SysfsRoot::new(&args.sysfs.sysfs_root), &paths, &out);
    let mut host = session.discover()?;
    let node = ctx.snapshot()?;
    attach_node(&mut host, &node);
    select(host, &args.gpu, &node)
}

#[derive(Serialize)]
struct TypesView<'a> {
    sysfs_root: &'a str,
    gpus: Vec<GpuTypes<'a>>,
}

#[derive(Serialize)]
struct GpuTypes<'a> {
    index: Option<u32>,
    name: Option<&'a str>,
    pci_bus_id: &'a str,
    framework: Framework,
    #[serde(skip_serializing_if = "Option::is_none")]
    sriov: Option<Sriov>,
    types: &'a [VgpuType],
}

pub(super) fn types(ctx: &mut Context, args: &VgpuShowArgs) -> Result<Exit> {
    let host = host(ctx, args)?;
    let view = TypesView {
        sysfs_root: &host.sysfs_root,
        gpus: host
            .gpus
            .iter()
            .map(|g| GpuTypes {
                index: g.index,
                name: g.name.as_deref(),
                pci_bus_id: &g.pci_bus_id,
                framework: g.framework,
                sriov: g.sriov,
                types: &g.types,
            })
            .collect(),
    };
    ctx.out.data(&view, |out| render_types(out, &host))?;
    Ok(Exit::Ok)
}

pub(super) fn status(ctx: &mut Context, args: &VgpuShowArgs) -> Result<Exit> {
    let host = host(ctx, args)?;
    warn_in_use_unknown(ctx, &host);
    ctx.out.data(&host, |out| render_status(out, &host))?;
    Ok(Exit::Ok)
}

fn heading(out: &Output, g: &VgpuGpu) -> String {
    let sriov = match (g.framework, g.sriov) {
        (Framework::SriovDisabled, Some(s)) => format!(", SR-IOV off (0 of {} VFs)", s.total_vfs),
        (_, Some(s)) => format!(", SR-IOV {} of {} VFs", s.enabled_vfs, s.total_vfs),
        (_, None) => String::new(),
    };
    format!(
        "{}  {}  {}{sriov}\n",
        out.paint(Style::Bold, &g.label()),
        g.name.as_deref().unwrap_or("(not in the node)"),
        g.framework.as_str()
    )
}

fn optional<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "-".into(), |v| v.to_string())
}

fn render_types(out: &Output, host: &Host) -> String {
    let mut s = String::new();
    for g in &host.gpus {
        if !s.is_empty() {
            s.push('\n');
        }
        s.push_str(&heading(out, g));
        if g.framework == Framework::SriovDisabled {
            s.push_str("  types show once SR-IOV is enabled (`gpushare vgpu apply` does it)\n");
            continue;
        }
        if g.types.is_empty() {
            s.push_str("  no type is creatable now and the full list is not known yet\n");
            continue;
        }
        let rows = g
            .types
            .iter()
            .map(|t| {
                vec![
                    t.id.to_string(),
                    t.name.clone(),
                    optional(t.framebuffer_mib.map(|m| format!("{m} MiB"))),
                    optional(t.max_instances),
                    t.available_instances.to_string(),
                    if t.mig_backed { "mig" } else { "time-sliced" }.into(),
                ]
            })
            .collect();
        s.push_str(&table(
            &["ID", "TYPE", "FRAMEBUFFER", "MAX", "AVAILABLE", "KIND"],
            rows,
        ));
    }
    s
}

fn render_status(out: &Output, host: &Host) -> String {
    let mut rows = Vec::new();
    for g in &host.gpus {
        let gpu = optional(g.index);
        if g.devices.is_empty() {
            rows.push(vec![
                gpu,
                g.pci_bus_id.clone(),
                g.framework.as_str().into(),
                "-".into(),
                "-".into(),
                "-".into(),
                "-".into(),
            ]);
            continue;
        }
        for d in &g.devices {
            let users = if d.in_use_by.is_empty() {
                "-".to_string()
            } else {
                out.paint(
                    Style::Warn,
                    &d.in_use_by
                        .iter()
                        .map(|o| o.describe())
                        .collect::<Vec<_>>()
                        .join(", "),
                )
            };
            rows.push(vec![
                gpu.clone(),
                g.pci_bus_id.clone(),
                g.framework.as_str().into(),
                d.type_label(),
                d.label().to_string(),
                optional(d.driver.as_deref()),
                users,
            ]);
        }
    }
    let mut s = table(
        &[
            "GPU",
            "BUS ID",
            "FRAMEWORK",
            "TYPE",
            "DEVICE",
            "DRIVER",
            "USED BY",
        ],
        rows,
    );
    let totals: Vec<String> = host
        .gpus
        .iter()
        .filter(|g| !g.devices.is_empty())
        .map(|g| {
            let counts: Vec<String> = g
                .device_counts()
                .iter()
                .map(|(t, n)| format!("{n} × {t}"))
                .collect();
            format!("{}: {}", g.label(), counts.join(", "))
        })
        .collect();
    if !totals.is_empty() {
        s.push('\n');
        s.push_str(&totals.join("\n"));
        s.push('\n');
    }
    s
}
