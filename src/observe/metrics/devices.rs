//! The series of the GPUs and MIG devices, from one snapshot of the driver: memory, processes,
//! utilisation, MIG mode and instances, and which pod holds each device (pod-resources).

use super::sheet::{Labels, Sheet, Spec};
use crate::node::model::{ComputeInstance, Gpu, GpuInstance, Node};
use crate::observe::pod_resources::PodDevice;
use std::collections::BTreeMap;

const MIB: f64 = 1024.0 * 1024.0;

pub(crate) static GPU_MEMORY_TOTAL: Spec = Spec::gauge(
    "gpu_memory_total",
    "Memory of the GPU, as the driver reports it",
)
.unit("bytes");
pub(crate) static GPU_MEMORY_USED: Spec = Spec::gauge(
    "gpu_memory_used",
    "Memory in use on the GPU, as the driver reports it",
)
.unit("bytes");
pub(crate) static GPU_PROCESSES: Spec = Spec::gauge(
    "gpu_processes",
    "Compute processes on the GPU (absent when the driver does not list them)",
);
pub(crate) static GPU_UTILIZATION: Spec = Spec::gauge(
    "gpu_utilization",
    "Fraction of the last sample period a kernel ran on the GPU (absent where the driver does not say, e.g. with MIG on)",
)
.unit("ratio");
pub(crate) static GPU_HELD: Spec = Spec::gauge(
    "gpu_held",
    "A whole GPU's holder from the kubelet's pod-resources: 1 with the pod's labels, 0 (no pod labels) when no pod holds it",
);
pub(crate) static GPU_MIG_ENABLED: Spec = Spec::gauge(
    "gpu_mig_enabled",
    "MIG mode of a MIG-capable GPU (mode=current, or pending: after the next GPU reset): 1 enabled, 0 disabled",
);
pub(crate) static GPU_MIG_INSTANCES: Spec =
    Spec::gauge("gpu_mig_instances", "GPU instances of a profile on the GPU");
pub(crate) static REBOOT_REQUIRED: Spec = Spec::gauge(
    "reboot_required_gpus",
    "GPUs whose MIG mode changes only at their next reset or the machine's reboot",
);
pub(crate) static MIG_MEMORY_TOTAL: Spec = Spec::gauge(
    "mig_device_memory_total",
    "Memory of the MIG device (its GPU instance's)",
)
.unit("bytes");
pub(crate) static MIG_MEMORY_USED: Spec = Spec::gauge(
    "mig_device_memory_used",
    "Memory in use in the MIG device's GPU instance, as the driver reports it for the MIG device (absent when it does not say)",
)
.unit("bytes");
pub(crate) static MIG_PROCESSES: Spec = Spec::gauge(
    "mig_device_processes",
    "Compute processes on the MIG device",
);
pub(crate) static MIG_HELD: Spec = Spec::gauge(
    "mig_device_held",
    "A MIG device's holder from the kubelet's pod-resources: 1 with the pod's labels, 0 (no pod labels) when no pod holds it",
);

/// Every series of the node's devices; `holders` is None when pod-resources was not read.
pub(crate) fn add(sheet: &mut Sheet, node: &Node, holders: Option<&[PodDevice]>) {
    let mut waiting = 0;
    for gpu in &node.gpus {
        let base = gpu_labels(gpu);
        sheet.set(
            &GPU_MEMORY_TOTAL,
            base.clone(),
            gpu.memory_total_mib as f64 * MIB,
        );
        sheet.set(
            &GPU_MEMORY_USED,
            base.clone(),
            gpu.memory_used_mib as f64 * MIB,
        );
        if let Some(p) = &gpu.processes {
            sheet.set(&GPU_PROCESSES, base.clone(), p.len() as f64);
        }
        if let Some(u) = gpu.utilization_percent {
            sheet.set(&GPU_UTILIZATION, base.clone(), f64::from(u) / 100.0);
        }
        if gpu.mig.capable {
            for (mode, on) in [("current", gpu.mig.current), ("pending", gpu.mig.pending)] {
                let mut l = base.clone();
                l.push(("mode", mode.into()));
                sheet.set(&GPU_MIG_ENABLED, l, f64::from(u8::from(on.is_enabled())));
            }
            waiting += usize::from(gpu.mig.current != gpu.mig.pending);
        }
        if !gpu.mig.current.is_enabled() {
            if let Some(holders) = holders {
                held(sheet, &GPU_HELD, &base, holders, |h| {
                    h.gpu == Some(gpu.index) && h.mig_device.is_none()
                });
            }
            continue;
        }
        let Some(instances) = &gpu.mig.instances else {
            continue;
        };
        let mut per_profile: BTreeMap<&str, usize> = BTreeMap::new();
        for gi in instances {
            *per_profile.entry(&gi.profile).or_default() += 1;
            for ci in &gi.compute_instances {
                mig_device(sheet, gpu, gi, ci, &base, holders);
            }
        }
        for (profile, n) in per_profile {
            let mut l = base.clone();
            l.push(("profile", profile.into()));
            sheet.set(&GPU_MIG_INSTANCES, l, n as f64);
        }
    }
    sheet.set(&REBOOT_REQUIRED, Vec::new(), waiting as f64);
}

pub(crate) fn gpu_labels(gpu: &Gpu) -> Labels {
    vec![
        ("gpu", gpu.index.to_string()),
        ("uuid", gpu.uuid.clone()),
        ("model", gpu.name.clone()),
    ]
}

fn mig_device(
    sheet: &mut Sheet,
    gpu: &Gpu,
    gi: &GpuInstance,
    ci: &ComputeInstance,
    base: &Labels,
    holders: Option<&[PodDevice]>,
) {
    // A MIG device is named by its UUID; one the driver gives none is left out (its note says
    // why in `detect`).
    let Some(uuid) = &ci.uuid else {
        return;
    };
    let mut l = base.clone();
    l.push(("profile", ci.profile.clone()));
    l.push(("mig_uuid", uuid.clone()));
    sheet.set(&MIG_MEMORY_TOTAL, l.clone(), gi.memory_mib as f64 * MIB);
    if let Some(all) = &gpu.processes {
        let on: Vec<_> = all
            .iter()
            .filter(|p| {
                p.gpu_instance_id == Some(gi.gpu_instance_id)
                    && p.compute_instance_id == Some(ci.compute_instance_id)
            })
            .collect();
        sheet.set(&MIG_PROCESSES, l.clone(), on.len() as f64);
    }
    if let Some(used) = gi.memory_used_mib {
        sheet.set(&MIG_MEMORY_USED, l.clone(), used as f64 * MIB);
    }
    if let Some(holders) = holders {
        held(sheet, &MIG_HELD, &l, holders, |h| {
            h.mig_device.as_deref() == Some(uuid.as_str())
        });
    }
}

/// One series per container that holds the device (several when it is shared), or one 0.
fn held(
    sheet: &mut Sheet,
    spec: &'static Spec,
    base: &Labels,
    holders: &[PodDevice],
    holds: impl Fn(&PodDevice) -> bool,
) {
    let mut any = false;
    for h in holders.iter().filter(|h| holds(h)) {
        let mut l = base.clone();
        l.push(("namespace", h.namespace.clone()));
        l.push(("pod", h.pod.clone()));
        l.push(("container", h.container.clone().unwrap_or_default()));
        // A container given two replicas of one device is one holder.
        if sheet.contains(spec, &l) {
            continue;
        }
        sheet.set(spec, l, 1.0);
        any = true;
    }
    if !any {
        sheet.set(spec, base.clone(), 0.0);
    }
}
