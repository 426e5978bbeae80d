//! `gpushare sim presets|models`: what the simulator can build.

use crate::Context;
use crate::backend::sim::SimBackend;
use crate::backend::sim::node_file::preset_summaries;
use crate::cli::SimCommand;
use crate::error::{Exit, Result};
use crate::node::catalog::catalog;
use crate::output::table;
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
    }
    Ok(Exit::Ok)
}

/// A reboot only means something for a node kept in a state file.
fn reboot(ctx: &mut Context) -> Result<()> {
    let options = &ctx.backend_options;
    let Some(state) = options.sim_state.as_deref() else {
        return Err(crate::error::Error::usage(
            "sim reboot needs --sim-state FILE: without it nothing of the simulated node is kept",
        )
        .with_hint("e.g. gpushare --sim dgx-a100 --sim-state node.json sim reboot"));
    };
    let sim = SimBackend::open(options.sim.as_deref(), Some(state))?;
    sim.reboot()?;
    ctx.out.note(format!(
        "rebooted the simulated node `{}`: pending MIG modes applied, instances and processes gone",
        sim.state().name
    ));
    Ok(())
}
