//! What a GPU offers the cluster: its MIG devices and how it and they are shared. Each sharing
//! mode fills it in ([`super::SharingMode::offer`]); the manifests, `init`'s summary and the
//! examples read it.

use crate::node::config::MpsSection;

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GpuOffer {
    pub index: u32,
    pub uuid: String,
    /// Model name as NVML reports it.
    pub name: String,
    pub memory_mib: u64,
    /// MIG devices when MIG is (to be) enabled; `None` for a whole GPU.
    pub mig: Option<Vec<MigSlice>>,
    pub sharing: Sharing,
    /// How each MIG device of this GPU is shared (`mig.mps`, `mig.time_slicing`); exclusive
    /// for a whole GPU.
    pub mig_sharing: Sharing,
    /// Where this GPU's layout comes from: `gpushare.toml:LINE` or `the node`.
    pub origin: String,
}

/// One MIG device: a compute instance, named by its profile.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MigSlice {
    /// `1g.5gb`, or `2c.3g.20gb` for a compute instance smaller than its GPU instance.
    pub profile: String,
    /// Memory of the GPU instance.
    pub memory_mib: u64,
}

impl MigSlice {
    /// Whether the compute instance spans its whole GPU instance (profile `<G>g.<GB>gb…`).
    pub(crate) fn is_full_instance(&self) -> bool {
        !self.profile.contains("c.")
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Sharing {
    /// One workload at a time.
    Exclusive,
    TimeSlicing {
        replicas: u32,
    },
    Mps(MpsShare),
    /// Shared by claims of gpushare's DRA driver (`shares`): each an MPS client with the memory
    /// and compute it was given. No device plugin serves it.
    Claims,
    /// vGPU devices for virtual machines.
    Vgpu,
}

/// MPS clients per device and the limits each gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MpsShare {
    pub replicas: u32,
    pub thread_percentage: u32,
    /// Pinned device memory per client, MiB.
    pub memory_limit_mib: u64,
}

impl MpsShare {
    /// Limits from an `mps` section for a device of `total_mib`: missing values follow from the
    /// others as equal shares (what k8s-device-plugin and the DRA driver assume).
    pub(crate) fn from_section(section: &MpsSection, total_mib: u64) -> MpsShare {
        let clients = section.clients.as_ref().map(|c| *c.get_ref());
        let percentage = section.thread_percentage.as_ref().map(|t| *t.get_ref());
        let memory = section.memory_limit.as_ref().map(|m| m.get_ref().0);
        let replicas = clients
            .or_else(|| percentage.map(|t| 100 / t.max(1)))
            .or_else(|| memory.map(|m| (total_mib / m.max(1)) as u32))
            .unwrap_or(1)
            .max(1);
        MpsShare {
            replicas,
            thread_percentage: percentage.unwrap_or(100 / replicas).max(1),
            memory_limit_mib: memory.unwrap_or(total_mib / u64::from(replicas)),
        }
    }

    /// Whether the limits are the equal shares `replicas` implies.
    pub(crate) fn is_equal_share(&self, total_mib: u64) -> bool {
        self.thread_percentage == 100 / self.replicas.max(1)
            && self.memory_limit_mib == total_mib / u64::from(self.replicas.max(1))
    }
}

/// Order MIG profiles by size (slices), then memory, so `1g.5gb` comes before `2g.10gb`.
pub(crate) fn profile_order(profile: &str) -> (u32, u32, u64) {
    let gi = profile.rsplit_once("c.").map_or(profile, |(_, gi)| gi);
    let slices = gi
        .split('g')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let compute = profile
        .split_once("c.")
        .and_then(|(c, _)| c.parse().ok())
        .unwrap_or(slices);
    let gb = gi
        .split_once('.')
        .and_then(|(_, rest)| rest.split("gb").next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    (slices, compute, gb)
}
