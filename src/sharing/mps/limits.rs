//! How many MPS clients a device takes, and the limits each client gets.
//!
//! Client caps (MPS docs): 16 per device before Volta, 48 from Volta (compute capability 7.0 — V100
//! is Volta, although k8s-device-plugin tests `>= 7.5`), 60 with a CUDA 13.1+ driver. On MIG the
//! cap shrinks with the compute instance's share of the GPU's compute slices.

use crate::node::config::MpsSection;
use crate::node::model::catalog::catalog;
use crate::node::model::{ComputeInstance, Gpu, GpuInstance, Node};
use std::fmt;

pub(crate) const PRE_VOLTA_CLIENTS: u32 = 16;
pub(crate) const VOLTA_CLIENTS: u32 = 48;
pub(crate) const CUDA_13_1_CLIENTS: u32 = 60;

/// What was asked for, by flags or an `mps` section; each device's limits derive from it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct MpsRequest {
    /// An equal share for N clients: 100/N percent of the threads, 1/N of the memory.
    pub clients: Option<u32>,
    /// Overrides the share of `clients`.
    pub thread_percentage: Option<u32>,
    /// Overrides the share of `clients`.
    pub memory_limit_mib: Option<u64>,
}

impl MpsRequest {
    pub(crate) fn from_section(section: &MpsSection) -> Self {
        MpsRequest {
            clients: section.clients.as_ref().map(|c| *c.get_ref()),
            thread_percentage: section.thread_percentage.as_ref().map(|t| *t.get_ref()),
            memory_limit_mib: section.memory_limit.as_ref().map(|m| m.get_ref().0),
        }
    }

    /// The daemon's default active thread percentage (integer division, as the device plugin).
    pub(crate) fn thread_percentage(&self) -> Option<u32> {
        self.thread_percentage
            .or_else(|| self.clients.map(|n| (100 / n.max(1)).max(1)))
    }

    /// The pinned-memory limit per client on a device with `memory_mib` of memory.
    pub(crate) fn memory_limit_mib(&self, memory_mib: u64) -> Option<u64> {
        self.memory_limit_mib.or_else(|| {
            self.clients
                .map(|n| (memory_mib / u64::from(n.max(1))).max(1))
        })
    }
}

/// A device a daemon can serve (a whole GPU or a MIG device) and what bounds its limits.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MpsTarget {
    pub gpu: u32,
    /// `GPU 2 (Tesla T4)`, `MIG device 0:1:0 (3g.20gb on NVIDIA A100-SXM4-40GB)`.
    pub label: String,
    pub memory_mib: u64,
    pub client_cap: u32,
    /// Why the cap is what it is: `compute capability 7.5, CUDA 13.0 driver`.
    pub cap_reason: String,
    /// Volta or newer: needed for `-multiuser-server`, and pre-Volta GPUs cannot share a daemon
    /// with newer ones (the server drops them).
    pub volta_or_newer: bool,
}

/// A limit a target cannot take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LimitProblem {
    TooManyClients { clients: u32 },
    MemoryTooLarge { limit_mib: u64 },
}

impl LimitProblem {
    /// The message, naming the target.
    pub(crate) fn describe(&self, target: &MpsTarget) -> String {
        match *self {
            LimitProblem::TooManyClients { clients } => format!(
                "{clients} MPS clients is more than {} takes: at most {} ({})",
                target.label, target.client_cap, target.cap_reason
            ),
            LimitProblem::MemoryTooLarge { limit_mib } => format!(
                "a memory limit of {limit_mib} MiB is more than the {} MiB of {}",
                target.memory_mib, target.label
            ),
        }
    }

    pub(crate) fn hint(&self, target: &MpsTarget) -> String {
        match *self {
            LimitProblem::TooManyClients { .. } => format!(
                "use at most {} clients{}",
                target.client_cap,
                if target.client_cap == VOLTA_CLIENTS {
                    " (a CUDA 13.1 or newer driver takes 60)"
                } else {
                    ""
                }
            ),
            LimitProblem::MemoryTooLarge { .. } => format!(
                "give at most {} MiB, or use clients = N for an equal share",
                target.memory_mib
            ),
        }
    }
}

impl fmt::Display for MpsTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label)
    }
}

/// Check a request against a target. Thread percentages are range-checked where they are read.
pub(crate) fn check(request: &MpsRequest, target: &MpsTarget) -> Result<(), LimitProblem> {
    if let Some(clients) = request.clients
        && clients > target.client_cap
    {
        return Err(LimitProblem::TooManyClients { clients });
    }
    if let Some(limit_mib) = request.memory_limit_mib(target.memory_mib)
        && limit_mib > target.memory_mib
    {
        return Err(LimitProblem::MemoryTooLarge { limit_mib });
    }
    Ok(())
}

/// Whether these devices can share one daemon: its server drops pre-Volta GPUs when a newer one
/// is visible, and `-multiuser-server` needs Volta or newer.
pub(crate) fn check_shared(targets: &[&MpsTarget], multiuser: bool) -> Result<(), String> {
    let old = targets.iter().find(|t| !t.volta_or_newer);
    let new = targets.iter().find(|t| t.volta_or_newer);
    if let Some(old) = old {
        if multiuser {
            return Err(format!(
                "--multiuser needs Volta or newer GPUs, and {} is older",
                old.label
            ));
        }
        if let Some(new) = new {
            return Err(format!(
                "{} is older than Volta and {} is not: one MPS daemon cannot serve both \
                 (its server drops the older GPU)",
                old.label, new.label
            ));
        }
    }
    Ok(())
}

/// `13.1` → (13, 1); unparsable parts are 0.
fn cuda_version(text: &str) -> (u32, u32) {
    let mut parts = text.trim().split('.');
    let mut next = || parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    (next(), next())
}

/// The client cap of a whole GPU, and why.
pub(crate) fn gpu_client_cap(gpu: &Gpu, cuda_driver_version: &str) -> (u32, String) {
    let (major, minor) = gpu.compute_capability_pair();
    let reason = format!("compute capability {major}.{minor}, CUDA {cuda_driver_version} driver");
    let cap = if major < 7 {
        PRE_VOLTA_CLIENTS
    } else if cuda_version(cuda_driver_version) >= (13, 1) {
        CUDA_13_1_CLIENTS
    } else {
        VOLTA_CLIENTS
    };
    (cap, reason)
}

/// A GPU's cap scaled to a compute instance of `ci_slices` of its `gpu_slices` compute slices.
pub(crate) fn mig_client_cap(full_cap: u32, ci_slices: u32, gpu_slices: u32) -> u32 {
    if gpu_slices == 0 {
        return full_cap;
    }
    (full_cap * ci_slices.min(gpu_slices) / gpu_slices).max(1)
}

/// Compute slices of a MIG GPU (7 on A100/H100), from the catalog.
fn gpu_compute_slices(gpu: &Gpu) -> Option<u32> {
    let c = catalog();
    let model = c.model_of(gpu)?;
    c.mig_table(model).map(|t| t.compute_slices)
}

pub(crate) fn gpu_target(node: &Node, gpu: &Gpu) -> MpsTarget {
    let (client_cap, cap_reason) = gpu_client_cap(gpu, &node.cuda_driver_version);
    MpsTarget {
        gpu: gpu.index,
        label: format!("GPU {} ({})", gpu.index, gpu.name),
        memory_mib: gpu.memory_total_mib,
        client_cap,
        cap_reason,
        volta_or_newer: gpu.compute_capability_pair().0 >= 7,
    }
}

/// A MIG device (a compute instance) as it exists on the node.
pub(crate) fn mig_target(
    node: &Node,
    gpu: &Gpu,
    gi: &GpuInstance,
    ci: &ComputeInstance,
) -> MpsTarget {
    let mut target = profile_target(node, gpu, &ci.profile, gi.memory_mib, ci.placement.size);
    if gpu_compute_slices(gpu).is_none()
        && let Some(sms) = gpu.multiprocessors.filter(|n| *n > 0)
    {
        // A GPU the catalog does not know: scale by multiprocessors instead of slices.
        target.client_cap = mig_client_cap(full_cap(node, gpu), ci.multiprocessors, sms);
    }
    target.label = format!(
        "MIG device {}:{}:{} ({} on {})",
        gpu.index, gi.gpu_instance_id, ci.compute_instance_id, ci.profile, gpu.name
    );
    target
}

fn full_cap(node: &Node, gpu: &Gpu) -> u32 {
    gpu_client_cap(gpu, &node.cuda_driver_version).0
}

/// A MIG device of a profile (existing or planned): `profile` names it in messages.
pub(crate) fn profile_target(
    node: &Node,
    gpu: &Gpu,
    profile: &str,
    memory_mib: u64,
    ci_slices: u32,
) -> MpsTarget {
    let (full, reason) = gpu_client_cap(gpu, &node.cuda_driver_version);
    let slices = gpu_compute_slices(gpu).unwrap_or(ci_slices.max(1));
    MpsTarget {
        gpu: gpu.index,
        label: format!("a {profile} MIG device of GPU {} ({})", gpu.index, gpu.name),
        memory_mib,
        client_cap: mig_client_cap(full, ci_slices, slices),
        cap_reason: format!(
            "{full} for the whole GPU ({reason}), scaled to {ci_slices} of {slices} compute slices"
        ),
        volta_or_newer: gpu.compute_capability_pair().0 >= 7,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::backend::Backend;
    use crate::node::backend::sim::SimBackend;

    fn node(preset: &str) -> Node {
        SimBackend::from_preset(preset).unwrap().snapshot().unwrap()
    }

    fn with_cc(cc: &str) -> Gpu {
        let mut g = node("t4x4").gpus[0].clone();
        g.compute_capability = cc.into();
        g
    }

    #[test]
    fn caps_follow_the_architecture_and_the_driver() {
        assert_eq!(gpu_client_cap(&with_cc("6.0"), "13.1").0, 16);
        // Volta is 7.0: a V100 takes 48, not 16.
        assert_eq!(gpu_client_cap(&with_cc("7.0"), "12.4").0, 48);
        assert_eq!(gpu_client_cap(&with_cc("7.5"), "13.0").0, 48);
        assert_eq!(gpu_client_cap(&with_cc("9.0"), "13.1").0, 60);
        assert_eq!(gpu_client_cap(&with_cc("9.0"), "13.10").0, 60);
        assert_eq!(gpu_client_cap(&with_cc("12.0"), "14.0").0, 60);
        assert_eq!(gpu_client_cap(&with_cc("8.0"), "garbage").0, 48);
    }

    #[test]
    fn mig_caps_shrink_with_the_compute_instance() {
        assert_eq!(mig_client_cap(48, 7, 7), 48);
        assert_eq!(mig_client_cap(48, 3, 7), 20);
        assert_eq!(mig_client_cap(48, 1, 7), 6);
        assert_eq!(mig_client_cap(60, 1, 8), 7);
        assert_eq!(mig_client_cap(16, 1, 100), 1, "never below one client");
    }

    #[test]
    fn clients_give_an_equal_share_and_explicit_values_override() {
        let r = MpsRequest {
            clients: Some(4),
            ..Default::default()
        };
        assert_eq!(r.thread_percentage(), Some(25));
        assert_eq!(r.memory_limit_mib(15360), Some(3840));
        let r = MpsRequest {
            clients: Some(3),
            thread_percentage: Some(50),
            memory_limit_mib: None,
        };
        assert_eq!(r.thread_percentage(), Some(50));
        assert_eq!(r.memory_limit_mib(15360), Some(5120));
        let r = MpsRequest {
            clients: Some(3),
            thread_percentage: None,
            memory_limit_mib: Some(2048),
        };
        assert_eq!(r.thread_percentage(), Some(33));
        assert_eq!(r.memory_limit_mib(15360), Some(2048));
        assert_eq!(MpsRequest::default().thread_percentage(), None);
        assert_eq!(MpsRequest::default().memory_limit_mib(100), None);
    }

    #[test]
    fn checks_name_the_device_and_the_cap() {
        let n = node("t4x4");
        let t = gpu_target(&n, &n.gpus[1]);
        let too_many = MpsRequest {
            clients: Some(49),
            ..Default::default()
        };
        let p = check(&too_many, &t).unwrap_err();
        assert_eq!(
            p.describe(&t),
            "49 MPS clients is more than GPU 1 (Tesla T4) takes: at most 48 \
             (compute capability 7.5, CUDA 13.0 driver)"
        );
        let too_big = MpsRequest {
            memory_limit_mib: Some(15361),
            ..Default::default()
        };
        assert_eq!(
            check(&too_big, &t),
            Err(LimitProblem::MemoryTooLarge { limit_mib: 15361 })
        );
        assert!(
            check(
                &MpsRequest {
                    clients: Some(48),
                    ..Default::default()
                },
                &t
            )
            .is_ok()
        );
    }

    #[test]
    fn pre_volta_gpus_share_a_daemon_only_among_themselves() {
        let n = node("t4x4");
        let new = gpu_target(&n, &n.gpus[0]);
        let old = gpu_target(&n, &with_cc("6.1"));
        assert!(!old.volta_or_newer && new.volta_or_newer);
        assert!(check_shared(&[&new, &new], true).is_ok());
        assert!(check_shared(&[&old, &old], false).is_ok());
        let e = check_shared(&[&old, &new], false).unwrap_err();
        assert!(e.contains("cannot serve both"), "{e}");
        let e = check_shared(&[&old], true).unwrap_err();
        assert!(e.starts_with("--multiuser needs Volta"), "{e}");
    }

    #[test]
    fn a_mig_target_has_the_instance_memory_and_a_scaled_cap() {
        let n = node("dgx-a100");
        let t = profile_target(&n, &n.gpus[0], "1g.5gb", 4864, 1);
        assert_eq!(t.client_cap, 6);
        assert_eq!(t.memory_mib, 4864);
        assert!(t.label.contains("1g.5gb"), "{}", t.label);
    }
}
