//! The MPS and compute-mode part of the plan (see [`planner`](super::planner) for the order).

use super::desired::Desired;
use super::observe::Observed;
use super::planner::{GpuState, GpuStates};
use crate::backend::DeviceRef;
use crate::config::{Assignment, GpuEntry, Mode, MpsSection};
use crate::error::Result;
use crate::mig::layout::MigLayout;
use crate::mps::daemon::settings_summary;
use crate::mps::desired as mps_desired;
use crate::mps::limits::MpsRequest;
use crate::mps::settings::{DaemonSpec, DirChoice, compute_mode_of};
use crate::node::ComputeMode;
use crate::paths::Paths;
use crate::plan::{Change, Operation, Plan};
use std::collections::BTreeMap;
use toml::Spanned;

#[derive(Debug, Default)]
pub struct MpsSteps {
    /// Daemons whose devices the MIG changes take away.
    pub before_mig: Vec<Change>,
    /// Exact changes on GPUs the MIG changes leave alone.
    pub after_mig: Vec<Change>,
    /// What happens on the other GPUs once their MIG devices exist.
    pub later: Vec<Change>,
}

pub fn plan(
    desired: &Desired,
    seen: &Observed,
    mig: &Plan,
    states: &GpuStates,
    paths: &Paths,
) -> Result<MpsSteps> {
    let node = &seen.node;
    let mut out = MpsSteps::default();
    let (touched, records): (Vec<&DaemonSpec>, Vec<&DaemonSpec>) =
        seen.mps_records.iter().partition(|r| taken_away(r, mig));
    out.before_mig = touched.into_iter().map(stop).collect();

    let assignments = desired.assignments(node)?;
    let mut settled: Vec<Assignment> = Vec::new();
    for (entry, gpus) in groups(&assignments) {
        let worst = gpus
            .iter()
            .map(|g| states.get(*g))
            .max_by_key(|s| match s {
                GpuState::Settled => 0,
                GpuState::Changing => 1,
                GpuState::AwaitingReboot => 2,
            })
            .unwrap_or(GpuState::Settled);
        match worst {
            GpuState::Settled => settled.extend(gpus.iter().map(|&gpu| Assignment { gpu, entry })),
            GpuState::Changing => out.later.extend(later(desired, seen, entry, &gpus, states)),
            // Nothing can be said before the reboot; the plan says the reboot is required.
            GpuState::AwaitingReboot => {}
        }
    }
    let dirs = DirChoice {
        paths,
        pipe_dir: None,
        log_dir: None,
    };
    let wanted = mps_desired::desired(&desired.config, &settled, node, dirs, false)?;
    let records: Vec<DaemonSpec> = records.into_iter().cloned().collect();
    let steps = mps_desired::plan(&wanted, &records, &seen.mps_answering, node);
    out.after_mig.extend(steps.stop.iter().map(stop));
    out.after_mig.extend(steps.start.iter().map(|spec| {
        Change::new(
            first_gpu(spec),
            Operation::StartMpsDaemon(Box::new(spec.clone())),
            format!(
                "MPS daemon `{}` for {}: {}",
                spec.name,
                spec.describe_devices(),
                settings_summary(spec)
            ),
        )
    }));
    for device in &steps.set_default {
        out.after_mig.push(compute_mode(
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
                out.after_mig.push(compute_mode(
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
    Ok(out)
}

fn first_gpu(spec: &DaemonSpec) -> u32 {
    spec.devices.first().map_or(0, |d| d.gpu)
}

fn stop(spec: &DaemonSpec) -> Change {
    Change::new(
        first_gpu(spec),
        Operation::StopMpsDaemon(Box::new(spec.clone())),
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

/// The GPUs of each entry, in file order.
fn groups<'c>(assignments: &[Assignment<'c>]) -> Vec<(&'c Spanned<GpuEntry>, Vec<u32>)> {
    let mut out: Vec<(&'c Spanned<GpuEntry>, Vec<u32>)> = Vec::new();
    for a in assignments {
        match out.iter_mut().find(|(e, _)| std::ptr::eq(*e, a.entry)) {
            Some((_, gpus)) => gpus.push(a.gpu),
            None => out.push((a.entry, vec![a.gpu])),
        }
    }
    out.sort_by_key(|(e, _)| e.span().start);
    out
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
pub fn describe_request(section: &MpsSection) -> String {
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
