//! The steps to a vGPU layout: desired layout + discovered host → the steps that reach it. Pure
//! (no I/O), so `--dry-run` shows exactly what `apply` does, and every check runs before the
//! first write: GPUs carry vGPUs, types exist, the layout fits, no forbidden mix, nothing in use
//! is removed.
//!
//! Devices that match are kept, extra ones removed, missing ones created; removals come first on
//! each GPU, since the driver lets a GPU hold one time-sliced type at a time. A GPU whose SR-IOV
//! virtual functions are not enabled gets only the enabling step: its types show once the VFs
//! exist, so the caller enables, discovers again and plans again.

use super::from_config::{DesiredGpu, DesiredType, VgpuLayout, error_at};
use super::host::{Framework, Host, Opener, VgpuDevice, VgpuGpu, VgpuType};
use super::type_name::TypeName;
use crate::support::error::{Error, Result};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct VgpuPlanOptions {
    /// Remove devices that a VM holds open.
    pub force: bool,
    /// The GPUs run in heterogeneous (mixed-size) vGPU mode, so one GPU may hold several
    /// time-sliced types.
    pub heterogeneous: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Plan {
    pub gpus: Vec<GpuPlan>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct GpuPlan {
    pub index: Option<u32>,
    pub pci_bus_id: String,
    pub framework: Framework,
    /// Type → count wanted.
    pub desired: BTreeMap<String, u32>,
    /// Type → count there now.
    pub current: BTreeMap<String, u32>,
    pub steps: Vec<Step>,
}

/// One change, in the order the executor makes them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub(crate) enum Step {
    /// Run `sriov-manage -e <gpu>` to create the GPU's virtual functions.
    EnableSriov { gpu: String },
    /// Remove an mdev device (`echo 1 > /sys/bus/mdev/devices/<uuid>/remove`).
    RemoveMdev {
        type_name: String,
        uuid: String,
        parent: String,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        in_use_by: Vec<Opener>,
    },
    /// Remove the vGPU of a VF (`echo 0 > <vf>/nvidia/current_vgpu_type`).
    ClearVf {
        type_name: String,
        vf: String,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        in_use_by: Vec<Opener>,
    },
    /// Create an mdev device: a fresh UUID into `<parent>/mdev_supported_types/nvidia-<id>/create`.
    CreateMdev {
        type_name: String,
        type_id: u32,
        parent: String,
    },
    /// Give a VF a vGPU (`echo <id> > <vf>/nvidia/current_vgpu_type`).
    SetVfType {
        type_name: String,
        type_id: u32,
        vf: String,
    },
}

impl Step {
    pub(crate) fn type_name(&self) -> &str {
        match self {
            Step::EnableSriov { .. } => "",
            Step::RemoveMdev { type_name, .. }
            | Step::ClearVf { type_name, .. }
            | Step::CreateMdev { type_name, .. }
            | Step::SetVfType { type_name, .. } => type_name,
        }
    }

    /// `create A100-4C on 0000:07:00.4`, or in the past tense `created …`; `uuid` names a
    /// device just created.
    pub(crate) fn describe(&self, past: bool, uuid: Option<&str>) -> String {
        let (create, remove) = if past {
            ("created", "removed")
        } else {
            ("create", "remove")
        };
        match self {
            Step::EnableSriov { gpu } if past => format!("enabled SR-IOV on {gpu}"),
            Step::EnableSriov { gpu } => format!("enable SR-IOV on {gpu}"),
            Step::RemoveMdev {
                type_name, uuid, ..
            } => format!("{remove} {type_name} {uuid}"),
            Step::ClearVf { type_name, vf, .. } => format!("{remove} {type_name} from {vf}"),
            Step::CreateMdev {
                type_name, parent, ..
            } => match uuid {
                Some(u) => format!("{create} {type_name} {u} on {parent}"),
                None => format!("{create} {type_name} on {parent}"),
            },
            Step::SetVfType { type_name, vf, .. } => format!("{create} {type_name} on {vf}"),
        }
    }

    /// Where the change happens: the device, parent or VF.
    pub(crate) fn place(&self) -> String {
        match self {
            Step::EnableSriov { gpu } => gpu.clone(),
            Step::RemoveMdev { uuid, .. } => uuid.clone(),
            Step::ClearVf { vf, .. } | Step::SetVfType { vf, .. } => vf.clone(),
            Step::CreateMdev { parent, .. } => format!("on {parent}"),
        }
    }
}

impl Plan {
    pub(crate) fn step_count(&self) -> usize {
        self.gpus.iter().map(|g| g.steps.len()).sum()
    }
}

/// Plan the changes from `host` to `desired`. Errors name the input position of the offending
/// value: bad input exits 2, a refusal to remove a device in use exits 1.
pub(crate) fn plan(desired: &VgpuLayout, host: &Host, options: VgpuPlanOptions) -> Result<Plan> {
    let mut gpus = Vec::new();
    let mut busy = Vec::new();
    for want in &desired.gpus {
        let Some(gpu) = host.gpus.iter().find(|g| g.index == Some(want.index)) else {
            return Err(error_at(
                want.at.as_ref(),
                format!("GPU {} cannot carry vGPUs on this host", want.index),
            )
            .with_hint(vgpu_gpus_hint(host)));
        };
        let (gpu_plan, in_use) = plan_gpu(want, gpu, options)?;
        busy.extend(in_use);
        gpus.push(gpu_plan);
    }
    if !busy.is_empty() {
        return Err(Error::failed(format!(
            "refusing to remove vGPU devices that VMs use: {}",
            busy.join("; ")
        ))
        .with_hint(
            "shut the VMs down first, or pass --force (the kernel may still refuse while a VM holds the device)",
        ));
    }
    Ok(Plan { gpus })
}

fn vgpu_gpus_hint(host: &Host) -> String {
    let listed: Vec<String> = host.gpus.iter().map(VgpuGpu::label).collect();
    if listed.is_empty() {
        "no GPU of this host carries vGPUs (see `gpushare vgpu types`)".into()
    } else {
        format!(
            "GPUs with vGPU support: {} (see `gpushare vgpu types`)",
            listed.join(", ")
        )
    }
}

/// A desired type resolved to the host's type.
struct Wanted<'a> {
    want: &'a DesiredType,
    parsed: TypeName,
    host: Option<&'a VgpuType>,
}

fn plan_gpu(
    want: &DesiredGpu,
    gpu: &VgpuGpu,
    options: VgpuPlanOptions,
) -> Result<(GpuPlan, Vec<String>)> {
    let label = gpu.label();
    let mut wanted = Vec::new();
    for t in &want.types {
        let parsed = TypeName::parse(&t.name).map_err(|e| error_at(t.name_at.as_ref(), e))?;
        wanted.push(Wanted {
            want: t,
            parsed,
            host: None,
        });
    }
    check_mix(&label, gpu, &wanted, options)?;
    let mut gpu_plan = GpuPlan {
        index: gpu.index,
        pci_bus_id: gpu.pci_bus_id.clone(),
        framework: gpu.framework,
        desired: want
            .types
            .iter()
            .map(|t| (t.name.clone(), t.count))
            .collect(),
        current: gpu.device_counts(),
        steps: Vec::new(),
    };
    if gpu.framework == Framework::SriovDisabled {
        if !want.types.is_empty() {
            gpu_plan.steps.push(Step::EnableSriov {
                gpu: gpu.pci_bus_id.clone(),
            });
        }
        return Ok((gpu_plan, Vec::new()));
    }
    for w in &mut wanted {
        w.host = Some(resolve(&label, gpu, w)?);
    }
    check_fit(&label, gpu, &wanted)?;

    // Keep devices of wanted types up to the count, those VMs use first; remove the rest.
    let mut devices: Vec<&VgpuDevice> = gpu.devices.iter().collect();
    devices.sort_by_key(|d| d.in_use_by.is_empty());
    let mut kept: BTreeMap<u32, u32> = BTreeMap::new();
    let mut kept_parents = Vec::new();
    let mut busy = Vec::new();
    for d in devices {
        let limit = wanted
            .iter()
            .find(|w| w.host.is_some_and(|h| h.id == d.type_id))
            .map_or(0, |w| w.want.count);
        let n = kept.entry(d.type_id).or_insert(0);
        if *n < limit {
            *n += 1;
            kept_parents.push(d.parent.clone());
            continue;
        }
        if !d.in_use_by.is_empty() && !options.force {
            let users: Vec<String> = d.in_use_by.iter().map(Opener::describe).collect();
            busy.push(format!(
                "{label}: {} {} (used by {})",
                d.type_label(),
                d.label(),
                users.join(", ")
            ));
        }
        gpu_plan.steps.push(match &d.uuid {
            Some(uuid) => Step::RemoveMdev {
                type_name: d.type_label(),
                uuid: uuid.clone(),
                parent: d.parent.clone(),
                in_use_by: d.in_use_by.clone(),
            },
            None => Step::ClearVf {
                type_name: d.type_label(),
                vf: d.parent.clone(),
                in_use_by: d.in_use_by.clone(),
            },
        });
    }

    // Create what is missing: on the GPU itself, or one per free VF.
    let mut free = gpu
        .parents
        .iter()
        .filter(|p| !kept_parents.contains(p))
        .cloned();
    for w in &wanted {
        let Some(t) = w.host else { continue };
        let missing = w.want.count - kept.get(&t.id).copied().unwrap_or(0).min(w.want.count);
        for _ in 0..missing {
            let step = if gpu.one_per_parent() {
                // check_fit made sure there are enough VFs.
                let Some(parent) = free.next() else { break };
                match gpu.framework {
                    Framework::Mdev => Step::CreateMdev {
                        type_name: t.name.clone(),
                        type_id: t.id,
                        parent,
                    },
                    _ => Step::SetVfType {
                        type_name: t.name.clone(),
                        type_id: t.id,
                        vf: parent,
                    },
                }
            } else {
                Step::CreateMdev {
                    type_name: t.name.clone(),
                    type_id: t.id,
                    parent: gpu.pci_bus_id.clone(),
                }
            };
            gpu_plan.steps.push(step);
        }
    }
    Ok((gpu_plan, busy))
}

/// The host's type for a desired name; a MIG-backed name with a suffix the host does not list
/// falls back to the name without it, as vgpu-device-manager does.
fn resolve<'g>(label: &str, gpu: &'g VgpuGpu, w: &Wanted) -> Result<&'g VgpuType> {
    if let Some(t) = gpu.type_by_name(&w.want.name) {
        return Ok(t);
    }
    if let Some(t) = w.parsed.without_suffix().and_then(|n| gpu.type_by_name(&n)) {
        return Ok(t);
    }
    let hint = if gpu.types.is_empty() {
        "this GPU's type list is not known: its VFs are all in use and gpushare has not seen it \
         empty; `gpushare vgpu clear` on it shows the list again"
            .to_string()
    } else {
        let creatable: Vec<&str> = gpu
            .types
            .iter()
            .filter(|t| t.available_instances > 0)
            .map(|t| t.name.as_str())
            .collect();
        let all: Vec<&str> = gpu.types.iter().map(|t| t.name.as_str()).collect();
        if creatable.is_empty() || creatable.len() == all.len() {
            format!("types of this GPU: {}", all.join(", "))
        } else {
            format!(
                "creatable now: {}; all types of this GPU: {}",
                creatable.join(", "),
                all.join(", ")
            )
        }
    };
    Err(error_at(
        w.want.name_at.as_ref(),
        format!("{label} has no vGPU type `{}`", w.want.name),
    )
    .with_hint(hint))
}

/// Mixes the driver forbids, checked from the names alone.
fn check_mix(
    label: &str,
    gpu: &VgpuGpu,
    wanted: &[Wanted],
    options: VgpuPlanOptions,
) -> Result<()> {
    let Some(first) = wanted.first() else {
        return Ok(());
    };
    if let Some(other) = wanted
        .iter()
        .find(|w| w.parsed.is_mig_backed() != first.parsed.is_mig_backed())
    {
        return Err(error_at(
            other.want.name_at.as_ref(),
            format!(
                "{label}: `{}` and `{}` cannot share a GPU: time-sliced and MIG-backed vGPUs do not mix",
                first.want.name, other.want.name
            ),
        )
        .with_hint("give each GPU time-sliced types only, or MIG-backed types only"));
    }
    let time_sliced: Vec<&Wanted> = wanted
        .iter()
        .filter(|w| !w.parsed.is_mig_backed())
        .collect();
    if time_sliced.len() > 1 && !options.heterogeneous && !holds_mixed_sizes(gpu) {
        let second = time_sliced[1];
        return Err(error_at(
            second.want.name_at.as_ref(),
            format!(
                "{label}: `{}` and `{}` on one GPU: the driver runs one time-sliced vGPU type per GPU",
                time_sliced[0].want.name, second.want.name
            ),
        )
        .with_hint(format!(
            "use one type per GPU; or turn on heterogeneous mode (`nvidia-smi vgpu -i {} -shm 1`, \
             after SR-IOV is enabled) and pass --heterogeneous",
            gpu.index.map_or_else(|| gpu.pci_bus_id.clone(), |i| i.to_string())
        )));
    }
    Ok(())
}

/// A GPU that already holds several time-sliced types runs in heterogeneous mode.
fn holds_mixed_sizes(gpu: &VgpuGpu) -> bool {
    let mut ids: Vec<u32> = gpu
        .devices
        .iter()
        .filter(|d| {
            d.type_name
                .as_deref()
                .and_then(|n| TypeName::parse(n).ok())
                .is_some_and(|t| !t.is_mig_backed())
        })
        .map(|d| d.type_id)
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids.len() > 1
}

/// The layout fits the GPU: per-type maximums, one device per VF, and the GPU's framebuffer or
/// MIG slices when several types share it.
fn check_fit(label: &str, gpu: &VgpuGpu, wanted: &[Wanted]) -> Result<()> {
    for w in wanted {
        let Some(t) = w.host else { continue };
        if let Some(max) = t.max_instances
            && w.want.count > max
        {
            return Err(error_at(
                w.want.count_at.as_ref(),
                format!(
                    "{label}: {} × {} do not fit: the GPU holds at most {max}",
                    w.want.count, t.name
                ),
            ));
        }
    }
    let total: u32 = wanted.iter().map(|w| w.want.count).sum();
    if gpu.one_per_parent() && total as usize > gpu.parents.len() {
        let last = wanted.last().and_then(|w| w.want.count_at.as_ref());
        return Err(error_at(
            last,
            format!(
                "{label}: {total} vGPUs do not fit: each takes a virtual function and the GPU has {}",
                gpu.parents.len()
            ),
        ));
    }
    if wanted.len() > 1 {
        check_shared_capacity(label, gpu, wanted)?;
    }
    Ok(())
}

/// Several types on one GPU: their framebuffers (time-sliced) or slices (MIG-backed) add up.
fn check_shared_capacity(label: &str, gpu: &VgpuGpu, wanted: &[Wanted]) -> Result<()> {
    let mig = wanted.iter().all(|w| w.parsed.is_mig_backed());
    let (capacity, unit) = if mig {
        let slices = gpu
            .types
            .iter()
            .filter_map(|t| TypeName::parse(&t.name).ok()?.gpu_slices)
            .max();
        (slices.map(u64::from), "MIG slices")
    } else {
        // A time-sliced type of the whole GPU, times one, is the GPU's framebuffer.
        let fb = gpu
            .types
            .iter()
            .filter(|t| !t.mig_backed)
            .filter_map(|t| Some(t.framebuffer_mib? * u64::from(t.max_instances?)))
            .max();
        (fb, "MiB of framebuffer")
    };
    let Some(capacity) = capacity else {
        return Ok(());
    };
    let need: u64 = wanted
        .iter()
        .map(|w| {
            let each = if mig {
                u64::from(w.parsed.gpu_slices.unwrap_or(0))
            } else {
                w.host
                    .and_then(|t| t.framebuffer_mib)
                    .unwrap_or_else(|| w.parsed.framebuffer_mib())
            };
            each * u64::from(w.want.count)
        })
        .sum();
    if need > capacity {
        let last = wanted.last().and_then(|w| w.want.count_at.as_ref());
        return Err(error_at(
            last,
            format!("{label}: these vGPUs need {need} {unit}; the GPU has {capacity}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
