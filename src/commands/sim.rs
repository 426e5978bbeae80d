//! `gpushare sim presets|models`: what the simulator can build.

use crate::commands::cli::{SimCommand, SimEventTarget, SimProcessArgs, SimProcessCommand};
use crate::node::Context;
use crate::node::backend::sim::SimBackend;
use crate::node::backend::sim::events::EventKind;
use crate::node::backend::sim::node_file::preset_summaries;
use crate::node::backend::sim::processes::NewProcess;
use crate::node::model::ProcessKind;
use crate::node::model::catalog::catalog;
use crate::support::error::{Exit, Result};
use crate::support::output::table;
use serde::Serialize;

#[derive(Serialize)]
struct PresetRow {
    name: String,
    description: String,
    gpus: Vec<PresetGpus>,
}

#[derive(Serialize)]
struct PresetGpus {
    model: String,
    count: u32,
}

#[derive(Serialize)]
struct ModelRow<'a> {
    name: &'a str,
    pci_device_id: String,
    memory_mib: u64,
    multiprocessors: u32,
    compute_capability: &'a str,
    architecture: &'a str,
    mig: bool,
}

pub(super) fn run(ctx: &mut Context, cmd: &SimCommand) -> Result<Exit> {
    match cmd {
        SimCommand::Presets => {
            let rows: Vec<PresetRow> = preset_summaries()
                .into_iter()
                .map(|(name, description, models)| PresetRow {
                    name,
                    description,
                    gpus: models
                        .into_iter()
                        .map(|(model, count)| PresetGpus { model, count })
                        .collect(),
                })
                .collect();
            ctx.out.data(&rows, |_| {
                table(
                    &["PRESET", "GPUS", "DESCRIPTION"],
                    rows.iter()
                        .map(|r| {
                            let gpus = r
                                .gpus
                                .iter()
                                .map(|g| format!("{}x {}", g.count, g.model))
                                .collect::<Vec<_>>()
                                .join(" + ");
                            vec![r.name.clone(), gpus, r.description.clone()]
                        })
                        .collect(),
                )
            })?;
        }
        SimCommand::Models => {
            let c = catalog();
            let rows: Vec<ModelRow> = c
                .models
                .iter()
                .map(|m| ModelRow {
                    name: &m.name,
                    pci_device_id: m.pci_device_ids[0].to_string(),
                    memory_mib: m.memory_mib,
                    multiprocessors: m.multiprocessors,
                    compute_capability: &m.compute_capability,
                    architecture: &m.architecture,
                    mig: m.mig.is_some(),
                })
                .collect();
            ctx.out.data(&rows, |_| {
                table(
                    &["MODEL", "PCI ID", "MEMORY", "SMS", "CC", "ARCH", "MIG"],
                    rows.iter()
                        .map(|r| {
                            vec![
                                r.name.to_string(),
                                r.pci_device_id.clone(),
                                format!("{} MiB", r.memory_mib),
                                r.multiprocessors.to_string(),
                                r.compute_capability.to_string(),
                                r.architecture.to_string(),
                                if r.mig { "yes" } else { "no" }.to_string(),
                            ]
                        })
                        .collect(),
                )
            })?;
        }
        SimCommand::Reboot => reboot(ctx)?,
        SimCommand::Xid(a) => raise(ctx, &a.on, EventKind::Xid, a.xid)?,
        SimCommand::Ecc { on, double_bit } => {
            let kind = if *double_bit {
                EventKind::EccDoubleBit
            } else {
                EventKind::EccSingleBit
            };
            raise(ctx, on, kind, 0)?
        }
        SimCommand::Process(SimProcessCommand::Start(a)) => start_process(ctx, a)?,
        SimCommand::Process(SimProcessCommand::End { pid }) => {
            let sim = kept_node(ctx, "process end")?;
            sim.end_process(*pid).map_err(|e| {
                crate::support::error::Error::usage(format!("no process ended: {}", e.detail))
            })?;
            ctx.out.note(format!("process {pid} ended"));
        }
    }
    Ok(Exit::Ok)
}

/// List a process on the kept node.
fn start_process(ctx: &mut Context, a: &SimProcessArgs) -> Result<()> {
    let sim = kept_node(ctx, "process start")?;
    let name = match &a.name {
        Some(name) => name.clone(),
        None => crate::support::fsutil::read_host(std::path::Path::new(&format!(
            "/proc/{}/comm",
            a.pid
        )))
        .ok()
        .flatten()
        .map(|n| n.trim().to_string())
        .ok_or_else(|| {
            crate::support::error::Error::usage(format!("no process {} runs here to name", a.pid))
                .with_hint("give its name with --name")
        })?,
    };
    let p = NewProcess {
        gpu: a.on.gpu,
        pid: a.pid,
        name,
        used_memory_mib: a.memory_mib,
        mig_device: a.on.mig_device,
        kind: if a.mps_client {
            ProcessKind::MpsClient
        } else {
            ProcessKind::Compute
        },
    };
    sim.start_process(p).map_err(|e| {
        crate::support::error::Error::usage(format!("no process started: {}", e.detail))
    })?;
    ctx.out.note(format!(
        "GPU {} lists process {} ({} MiB)",
        a.on.gpu, a.pid, a.memory_mib
    ));
    Ok(())
}

/// The simulated node kept in --sim-state: a reboot or an event only means something there.
fn kept_node(ctx: &Context, verb: &str) -> Result<SimBackend> {
    let options = &ctx.backend_options;
    let Some(state) = options.sim_state.as_deref() else {
        return Err(crate::support::error::Error::usage(format!(
            "sim {verb} needs --sim-state FILE: without it nothing of the simulated node is kept"
        ))
        .with_hint(format!(
            "e.g. gpushare --sim dgx-a100 --sim-state node.json sim {verb}"
        )));
    };
    SimBackend::open(options.sim.as_deref(), Some(state))
}

/// Raise an event for the NVML clients of the kept node.
fn raise(ctx: &mut Context, on: &SimEventTarget, kind: EventKind, xid: u64) -> Result<()> {
    let verb = if kind == EventKind::Xid { "xid" } else { "ecc" };
    let sim = kept_node(ctx, verb)?;
    sim.raise_event(on.gpu, kind, xid, on.mig_device)
        .map_err(|e| {
            crate::support::error::Error::usage(format!("no event raised: {}", e.detail))
        })?;
    let place = match on.mig_device {
        Some((gi, ci)) => format!("GPU {} (MIG device {gi}:{ci})", on.gpu),
        None => format!("GPU {}", on.gpu),
    };
    let what = match kind {
        EventKind::Xid => format!("Xid {xid}"),
        EventKind::EccSingleBit => "a single-bit ECC error".into(),
        EventKind::EccDoubleBit => "a double-bit ECC error".into(),
    };
    ctx.out.note(format!("raised {what} on {place}"));
    Ok(())
}

/// A reboot only means something for a node kept in a state file.
fn reboot(ctx: &mut Context) -> Result<()> {
    let sim = kept_node(ctx, "reboot")?;
    sim.reboot()?;
    ctx.out.note(format!(
        "rebooted the simulated node `{}`: pending MIG modes applied, instances and processes gone",
        sim.state().name
    ));
    Ok(())
}
