//! Driver checks: kernel module, NVML, device nodes, MIG capability nodes, persistence.

use super::{Check, Inputs};
use crate::node::model::Node;
use crate::support::error::Error;

const SIMULATED: &str = "simulated node (give --host-root to check a host tree)";

pub(super) fn kernel_module(i: &Inputs) -> Check {
    const ID: &str = "kernel-module";
    if !i.host_checked {
        return Check::skip(ID, SIMULATED);
    }
    if !i.host.module_loaded("nvidia") {
        return Check::fail(
            ID,
            "the nvidia kernel module is not loaded",
            "install the NVIDIA driver, then `modprobe nvidia`; `dmesg | grep -i nvrm` shows why it failed",
        );
    }
    let version = i
        .host
        .read("/proc/driver/nvidia/version")
        .and_then(|v| {
            v.lines()
                .next()
                .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        })
        .unwrap_or_else(|| "version unknown".into());
    Check::pass(ID, format!("nvidia loaded ({version})"))
}

pub(super) fn nvml(driver: Result<&Node, &Error>) -> Check {
    const ID: &str = "nvml";
    match driver {
        Ok(node) => Check::pass(
            ID,
            format!(
                "{}: driver {}, CUDA {}, {} GPU(s)",
                node.source,
                node.driver_version,
                node.cuda_driver_version,
                node.gpus.len()
            ),
        ),
        Err(e) => Check::fail(
            ID,
            e.message.clone(),
            e.hint
                .clone()
                .unwrap_or_else(|| "check the driver installation with `nvidia-smi`".into()),
        ),
    }
}

pub(super) fn device_nodes(i: &Inputs) -> Check {
    const ID: &str = "device-nodes";
    if !i.host_checked {
        return Check::skip(ID, SIMULATED);
    }
    let mut missing: Vec<String> = ["/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools"]
        .iter()
        .filter(|p| !i.host.exists(p))
        .map(|p| p.to_string())
        .collect();
    let gpu_nodes = i
        .host
        .list("/dev")
        .iter()
        .filter(|n| {
            n.strip_prefix("nvidia")
                .is_some_and(|r| !r.is_empty() && r.chars().all(|c| c.is_ascii_digit()))
        })
        .count();
    let gpus = i.node.map_or(0, |n| n.gpus.len());
    if gpu_nodes < gpus.max(1) {
        missing.push(format!(
            "/dev/nvidiaN ({gpu_nodes} of {} GPU node(s))",
            gpus.max(1)
        ));
    }
    if missing.is_empty() {
        Check::pass(
            ID,
            format!("nvidiactl, nvidia-uvm and {gpu_nodes} GPU node(s)"),
        )
    } else {
        Check::fail(
            ID,
            format!("missing {}", missing.join(", ")),
            "create them with `nvidia-ctk system create-device-nodes --control-devices --load-kernel-modules` (or `nvidia-modprobe -u -c=0`)",
        )
    }
}

pub(super) fn mig_caps(i: &Inputs) -> Check {
    const ID: &str = "mig-caps";
    let Some(node) = i.node else {
        return Check::skip(ID, "no driver");
    };
    if !node.gpus.iter().any(|g| g.mig.capable) {
        return Check::skip(ID, "no MIG-capable GPU");
    }
    if !i.host_checked {
        return Check::skip(ID, SIMULATED);
    }
    let enabled = node.gpus.iter().any(|g| g.mig.current.is_enabled());
    let minors = i.host.read("/proc/driver/nvidia-caps/mig-minors");
    let caps = i.host.list("/dev/nvidia-caps");
    let has_control =
        caps.iter().any(|c| c == "nvidia-cap1") && caps.iter().any(|c| c == "nvidia-cap2");
    match (minors.is_some(), has_control, enabled) {
        (true, true, _) => Check::pass(
            ID,
            format!("mig-minors readable, {} cap node(s)", caps.len()),
        ),
        (_, _, true) => Check::fail(
            ID,
            "MIG is enabled but /proc/driver/nvidia-caps/mig-minors or /dev/nvidia-caps/nvidia-cap{1,2} is missing",
            "create them with `nvidia-ctk system create-device-nodes --control-devices`; containers need them to use MIG devices",
        ),
        _ => Check::warn(
            ID,
            "MIG capability nodes are missing (MIG is not enabled yet)",
            "they appear with the driver's nvidia-caps support; check again after enabling MIG",
        ),
    }
}

pub(super) fn persistence(i: &Inputs) -> Check {
    const ID: &str = "persistence";
    let Some(node) = i.node else {
        return Check::skip(ID, "no driver");
    };
    let off: Vec<String> = node
        .gpus
        .iter()
        .filter(|g| g.persistence_mode == Some(false))
        .map(|g| g.index.to_string())
        .collect();
    let unknown: Vec<String> = node
        .gpus
        .iter()
        .filter(|g| g.persistence_mode.is_none())
        .map(|g| g.index.to_string())
        .collect();
    if off.is_empty() && unknown.is_empty() {
        return Check::pass(ID, "persistence mode is on for every GPU");
    }
    if i.host_checked && !i.host.processes_named("nvidia-persistenced").is_empty() {
        return Check::pass(ID, "nvidia-persistenced is running");
    }
    if off.is_empty() {
        return Check::warn(
            ID,
            format!(
                "the driver does not say whether persistence mode is on for GPU {}",
                unknown.join(", ")
            ),
            "check with `nvidia-smi -q -d PERFORMANCE`; enable it with `systemctl enable --now nvidia-persistenced`",
        );
    }
    Check::warn(
        ID,
        format!("persistence mode is off on GPU {}", off.join(", ")),
        "enable the daemon: `systemctl enable --now nvidia-persistenced` (`nvidia-smi -pm 1` does not survive a reboot)",
    )
}
