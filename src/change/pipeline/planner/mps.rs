//! MPS's part of the one plan (see [`planner`](crate::change::pipeline::planner) for the order): MPS
//! daemons and compute modes, for each scope a command has ([`MpsDesire`]).

use crate::change::pipeline::desired::{Desired, MpsDesire};
use crate::change::pipeline::host_change::mps_daemon::DaemonChange;
use crate::change::pipeline::observe::Observed;
use crate::change::pipeline::planner::gpu_states::{GpuState, GpuStates};
use crate::change::plan::{Blocker, Change, Operation, Phase, Plan};
use crate::node::backend::DeviceRef;
use crate::node::config::{
    AssignedConfig, Assignment, EntryGpus, GpuEntry, Mode, MpsSection, by_entry,
};
use crate::node::model::ComputeMode;
use crate::sharing::mig::layout::MigLayout;
use crate::sharing::mps::daemon::{gpu_list, settings_summary};
use crate::sharing::mps::from_config;
use crate::sharing::mps::limits::MpsRequest;
use crate::sharing::mps::settings::{DaemonSpec, DirChoice, compute_mode_of};
use crate::support::error::Result;
use crate::support::paths::Paths;
use std::collections::BTreeMap;
use toml::Spanned;

#[derive(Debug, Default)]
pub(crate) struct MpsSteps {
    pub changes: Vec<Change>,
    pub blockers: Vec<Blocker>,
}

pub(crate) fn plan(
    desired: &Desired,
    seen: &Observed,
    mig: &Plan,
    states: &GpuStates,
    paths: &Paths,
) -> Result<MpsSteps> {
    let mut out = MpsSteps::default();
    // Whatever the scope, a daemon whose devices the MIG changes take away goes first.
    let (touched, records): (Vec<&DaemonSpec>, Vec<&DaemonSpec>) =
        seen.mps_records.iter().partition(|r| taken_away(r, mig));
    out.changes.extend(
        touched
            .into_iter()
            .map(|r| stop(r).in_phase(Phase::StopDaemons)),
    );
    let records: Vec<DaemonSpec> = records.into_iter().cloned().collect();
    if desired.mps.touched() {
        // A start that never finished left directories, maybe a daemon: cleared first, so the
        // daemon can start again in them.
        out.changes.extend(
            seen.mps_orphans
                .iter()
                .map(|o| orphan(o, seen).in_phase(Phase::StopDaemons)),
        );
    }
    match &desired.mps {
        MpsDesire::Untouched => {}
        MpsDesire::File(config) => {
            from_file(&mut out, desired, config, seen, &records, states, paths)?
        }
        MpsDesire::Start(daemons) => {
            let steps = start(daemons, &records, &|r| seen.mps_answering.contains(&r.name));
            out.changes.extend(steps.changes);
            out.blockers.extend(steps.blockers);
        }
        MpsDesire::Stop(gpus) => out.changes.extend(
            records
                .iter()
                .filter(|r| gpus.iter().any(|g| r.serves_gpu(*g)))
                .map(stop),
        ),
    }
    Ok(out)
}

/// What a gpushare.toml asks of MPS and compute modes on the GPUs it covers.
fn from_file(
    out: &mut MpsSteps,
    desired: &Desired,
    config: &AssignedConfig,
    seen: &Observed,
    records: &[DaemonSpec],
    states: &GpuStates,
    paths: &Paths,
) -> Result<()> {
    let node = &seen.node;
    let assignments = config.assignments();
    let mut settled: Vec<Assignment> = Vec::new();
    for EntryGpus { entry, gpus } in by_entry(&assignments) {
        let worst = gpus
            .iter()
            .map(|g| states.get(*g))
            .max()
            .unwrap_or(GpuState::Settled);
        match worst {
            GpuState::Settled => settled.extend(gpus.iter().map(|&gpu| Assignment { gpu, entry })),
            GpuState::Changing => out
                .changes
                .extend(later(desired, seen, entry, &gpus, states)),
            // Nothing can be said before the reboot; the plan says the reboot is required.
            GpuState::AwaitingReboot => {}
        }
    }
    let dirs = DirChoice {
        paths,
        pipe_dir: None,
        log_dir: None,
    };
    let wanted = from_config::wanted(config, &settled, node, dirs, false)?;
    let steps = from_config::plan(&wanted, records, &seen.mps_answering, node);
    out.changes.extend(steps.stop.iter().map(stop));
    out.changes.extend(steps.start.iter().map(start_change));
    for device in &steps.set_default {
        out.changes.push(compute_mode(
            *device,
            ComputeMode::Default,
            format!("{device} to default compute mode"),
        ));
    }
    // A kept daemon whose devices someone set back to DEFAULT no longer isolates its clients.
    for kept in &steps.keep {
        for d in &kept.devices {
            let device = d.device_ref();
            if compute_mode_of(node, device).is_some_and(|m| m != ComputeMode::ExclusiveProcess) {
                out.changes.push(compute_mode(
                    device,
                    ComputeMode::ExclusiveProcess,
                    format!(
                        "{device} back to exclusive_process for the MPS daemon `{}`",
                        kept.name
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// `mps start`: each daemon asked for runs; one running already with the same settings is kept.
/// A daemon recorded under the same name that does not answer is cleared and started again.
/// Refused (blockers): a running daemon with other settings, a daemon serving the same devices.
pub(crate) fn start(
    daemons: &[DaemonSpec],
    records: &[DaemonSpec],
    answers: &dyn Fn(&DaemonSpec) -> bool,
) -> MpsSteps {
    let mut out = MpsSteps::default();
    for spec in daemons {
        let gpu = first_gpu(spec);
        let mut spec = spec.clone();
        let mut keep = false;
        let mut blocked = false;
        let mut stale = Vec::new();
        for record in records {
            let same_name = record.name == spec.name;
            let overlap = spec.overlap(record);
            if !same_name && overlap.is_empty() {
                continue;
            }
            let is = if overlap.len() == 1 { "is" } else { "are" };
            let blocker = |message: String, hint: String| Blocker {
                gpu,
                message,
                hint: Some(hint),
            };
            if same_name && !answers(record) {
                stale.push(record.clone());
            } else if !answers(record) {
                // Its devices were left in EXCLUSIVE_PROCESS: `stop` is what cleans up.
                blocked = true;
                out.blockers.push(blocker(
                    format!(
                        "{} {is} recorded for the MPS daemon `{}`, which does not answer",
                        overlap.join(", "),
                        record.name
                    ),
                    format!(
                        "`gpushare mps stop --gpu {}` clears its record and restores the compute mode",
                        gpu_list(record)
                    ),
                ));
            } else if same_name && record.same_settings(&spec) {
                keep = true;
            } else if same_name {
                blocked = true;
                out.blockers.push(blocker(
                    format!(
                        "the MPS daemon `{}` already runs with other settings ({})",
                        record.name,
                        settings_summary(record)
                    ),
                    format!(
                        "stop it first with `gpushare mps stop --gpu {}`, then start it again",
                        gpu_list(record)
                    ),
                ));
            } else {
                blocked = true;
                out.blockers.push(blocker(
                    format!(
                        "{} {is} already served by the MPS daemon `{}` (pipe dir {})",
                        overlap.join(", "),
                        record.name,
                        record.pipe_dir.display()
                    ),
                    format!(
                        "stop it with `gpushare mps stop --gpu {}`, or select other GPUs",
                        gpu_list(record)
                    ),
                ));
            }
        }
        if keep || blocked {
            continue;
        }
        for record in &stale {
            // Its devices were left in EXCLUSIVE_PROCESS by it: the mode to go back to is the
            // one it saved.
            inherit_previous_modes(&mut spec, record);
            out.changes.push(stop(record));
        }
        out.changes.push(start_change(&spec));
    }
    out
}

fn inherit_previous_modes(spec: &mut DaemonSpec, stale: &DaemonSpec) {
    for device in &mut spec.devices {
        let saved = stale
            .devices
            .iter()
            .find(|d| d.uuid == device.uuid)
            .and_then(|d| d.previous_compute_mode);
        if saved.is_some() {
            device.previous_compute_mode = saved;
        }
    }
}

fn start_change(spec: &DaemonSpec) -> Change {
    Change::new(
        first_gpu(spec),
        Operation::host(DaemonChange::Start(spec.clone())),
        format!(
            "MPS daemon `{}` for {}: {}",
            spec.name,
            spec.describe_devices(),
            settings_summary(spec)
        ),
    )
}

/// A daemon directory without a record: the daemon listening there (if any) is stopped and the
/// directory removed.
fn orphan(spec: &DaemonSpec, seen: &Observed) -> Change {
    let devices = if spec.devices.is_empty() {
        String::new()
    } else {
        format!("{}; ", spec.describe_devices())
    };
    let detail = if seen.mps_answering.contains(&spec.name) {
        format!(
            "MPS daemon `{}` whose record was lost ({devices}it answers in {})",
            spec.name,
            spec.pipe_dir.display()
        )
    } else {
        format!(
            "what a start of the MPS daemon `{}` that did not finish left ({devices}{})",
            spec.name,
            spec.pipe_dir.parent().unwrap_or(&spec.pipe_dir).display()
        )
    };
    // Without its `starting.json` its devices are not known; its name says which GPU it was
    // for (`gpu2-gi1-ci0`, `gpu0-3`).
    let gpu = spec.devices.first().map(|d| d.gpu).unwrap_or_else(|| {
        spec.name
            .strip_prefix("gpu")
            .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    });
    Change::new(
        gpu,
        Operation::host(DaemonChange::Stop(spec.clone())),
        detail,
    )
}

fn first_gpu(spec: &DaemonSpec) -> u32 {
    spec.devices.first().map_or(0, |d| d.gpu)
}

pub(crate) fn stop(spec: &DaemonSpec) -> Change {
    Change::new(
        first_gpu(spec),
        Operation::host(DaemonChange::Stop(spec.clone())),
        format!("MPS daemon `{}` ({})", spec.name, spec.describe_devices()),
    )
}

fn compute_mode(device: DeviceRef, mode: ComputeMode, detail: String) -> Change {
    Change::new(
        device.gpu(),
        Operation::SetComputeMode { device, mode },
        detail,
    )
}

/// Whether the MIG changes take a device of this daemon away: its GPU's MIG mode changes, or its
/// MIG device is destroyed.
fn taken_away(record: &DaemonSpec, mig: &Plan) -> bool {
    record.devices.iter().any(|d| {
        mig.changes
            .iter()
            .filter(|c| c.gpu == d.gpu)
            .any(|c| match (&c.operation, d.mig) {
                (Operation::SetMigMode(_), _) => true,
                (Operation::DestroyGpuInstance { gpu_instance_id }, Some(m)) => {
                    *gpu_instance_id == m.gpu_instance_id
                }
                (
                    Operation::DestroyComputeInstance {
                        gpu_instance_id,
                        compute_instance_id,
                    },
                    Some(m),
                ) => {
                    *gpu_instance_id == m.gpu_instance_id
                        && *compute_instance_id == m.compute_instance_id
                }
                _ => false,
            })
    })
}

/// What an entry whose GPUs are changing their MIG layout will get, once they have.
fn later(
    desired: &Desired,
    seen: &Observed,
    entry: &Spanned<GpuEntry>,
    gpus: &[u32],
    states: &GpuStates,
) -> Vec<Change> {
    let e = entry.get_ref();
    let changing = || {
        gpus.iter()
            .copied()
            .filter(|g| states.get(*g) == GpuState::Changing)
    };
    match *e.mode.get_ref() {
        Mode::Mps => {
            let Some(section) = &e.mps else {
                return Vec::new();
            };
            let list: Vec<String> = gpus.iter().map(|g| format!("GPU {g}")).collect();
            vec![Change::new(
                gpus.first().copied().unwrap_or(0),
                Operation::Later("start_mps_daemon"),
                format!(
                    "once MIG is off: an MPS daemon for {} ({})",
                    list.join(", "),
                    describe_request(section.get_ref())
                ),
            )]
        }
        Mode::Mig => {
            let Some(section) = e.mig.as_ref().and_then(|m| m.get_ref().mps.as_ref()) else {
                return Vec::new();
            };
            changing()
                .map(|gpu| {
                    Change::new(
                        gpu,
                        Operation::Later("start_mps_daemon"),
                        format!(
                            "once the MIG devices exist: an MPS daemon on each ({}), {}",
                            devices_of(desired, gpu),
                            describe_request(section.get_ref())
                        ),
                    )
                })
                .collect()
        }
        Mode::TimeSlicing | Mode::None => changing()
            .filter(|g| {
                seen.node
                    .gpu(*g)
                    .is_some_and(|gpu| gpu.compute_mode != Some(ComputeMode::Default))
            })
            .map(|gpu| {
                Change::new(
                    gpu,
                    Operation::Later("set_compute_mode"),
                    format!("once MIG is off: GPU {gpu} to default compute mode"),
                )
            })
            .collect(),
        Mode::Vgpu => Vec::new(),
    }
}

/// `1g.5gb ×7`, the MIG devices a GPU's layout asks for.
fn devices_of(desired: &Desired, gpu: u32) -> String {
    let mut counts: BTreeMap<&str, u32> = BTreeMap::new();
    match desired.mig.iter().find(|d| d.gpu == gpu).map(|d| &d.layout) {
        Some(MigLayout::Enabled(list)) => {
            for w in list {
                *counts.entry(w.compute.name.as_str()).or_default() += 1;
            }
        }
        Some(MigLayout::EnabledLater { wanted, .. }) => {
            for name in wanted {
                *counts.entry(name.as_str()).or_default() += 1;
            }
        }
        _ => return "no MIG devices".into(),
    }
    let parts: Vec<String> = counts.iter().map(|(n, c)| format!("{n} ×{c}")).collect();
    if parts.is_empty() {
        "no MIG devices".into()
    } else {
        parts.join(", ")
    }
}

/// `4 clients, threads 25% each, 1/4 of the memory each`.
pub(crate) fn describe_request(section: &MpsSection) -> String {
    let r = MpsRequest::from_section(section);
    let mut parts = Vec::new();
    if let Some(n) = r.clients {
        parts.push(format!("{n} clients"));
    }
    if let Some(p) = r.thread_percentage() {
        parts.push(format!("threads {p}% each"));
    }
    match (r.memory_limit_mib, r.clients) {
        (Some(m), _) => parts.push(format!("{m} MiB each")),
        (None, Some(n)) => parts.push(format!("1/{n} of the memory each")),
        (None, None) => {}
    }
    parts.join(", ")
}
