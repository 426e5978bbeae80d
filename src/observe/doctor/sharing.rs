//! Sharing checks: what blocks a MIG change, NVSwitch fabric, the MPS control program, IOMMU.

use super::{Check, Inputs};

pub(super) fn reset_blockers(i: &Inputs) -> Check {
    const ID: &str = "reset-blockers";
    let Some(node) = i.node else {
        return Check::skip(ID, "no driver");
    };
    if !node.gpus.iter().any(|g| g.mig.capable) {
        return Check::skip(ID, "no MIG-capable GPU");
    }
    let mut blockers: Vec<String> = node.holders.iter().map(|h| h.describe()).collect();
    for g in node.gpus.iter().filter(|g| g.mig.capable) {
        match &g.processes {
            Some(list) => {
                for p in list {
                    blockers.push(format!("{} (pid {}) on GPU {}", p.name, p.pid, g.index));
                }
            }
            None => blockers.push(format!(
                "unknown processes on GPU {} (the driver would not list them)",
                g.index
            )),
        }
    }
    if blockers.is_empty() {
        return Check::pass(
            ID,
            "nothing holds the MIG-capable GPUs: MIG mode changes can apply",
        );
    }
    Check::warn(
        ID,
        format!(
            "a MIG mode change or GPU reset would wait for: {}",
            blockers.join(", ")
        ),
        "stop them before changing MIG modes (e.g. `systemctl stop nvidia-persistenced nvidia-dcgm`, `rmmod nvidia_drm`), or plan a reboot",
    )
}

pub(super) fn fabric_manager(i: &Inputs) -> Check {
    const ID: &str = "fabric-manager";
    if !i.host_checked {
        return Check::skip(ID, "simulated node");
    }
    let switches = i
        .host
        .list("/dev")
        .iter()
        .filter(|n| n.starts_with("nvidia-nvswitch"))
        .count();
    if switches == 0 {
        return Check::skip(ID, "no NVSwitch");
    }
    if i.host.processes_named("nv-fabricmanager").is_empty() {
        return Check::fail(
            ID,
            format!(
                "{switches} NVSwitch device(s) but nvidia-fabricmanager is not running: CUDA will not start"
            ),
            "`systemctl enable --now nvidia-fabricmanager` (its version must match the driver's)",
        );
    }
    Check::pass(
        ID,
        format!("nvidia-fabricmanager runs for {switches} NVSwitch device(s)"),
    )
}

pub(super) fn mps_control(_: &Inputs) -> Check {
    const ID: &str = "mps-control";
    match which::which("nvidia-cuda-mps-control") {
        Ok(path) => Check::pass(ID, format!("{}", path.display())),
        Err(_) => Check::warn(
            ID,
            "nvidia-cuda-mps-control is not on PATH",
            "it ships with the driver's compute utilities (e.g. nvidia-compute-utils); needed for mode = \"mps\"",
        ),
    }
}

pub(super) fn iommu(i: &Inputs) -> Check {
    const ID: &str = "iommu";
    if !i.host_checked {
        return Check::skip(ID, "simulated node");
    }
    let vgpu_host =
        !i.host.list("/sys/class/mdev_bus").is_empty() || i.host.module_loaded("nvidia_vgpu_vfio");
    if !vgpu_host {
        return Check::skip(ID, "not a vGPU host");
    }
    let groups = i.host.list("/sys/kernel/iommu_groups").len();
    if groups == 0 {
        return Check::fail(
            ID,
            "vGPU host without IOMMU groups: VMs cannot get vGPU devices",
            "enable the IOMMU in firmware and on the kernel command line: intel_iommu=on (or amd_iommu=on) iommu=pt",
        );
    }
    Check::pass(ID, format!("{groups} IOMMU group(s)"))
}
