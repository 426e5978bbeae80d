//! The node model: what every backend produces and every command reads.
//!
//! The serde field names of these types are the `detect --format json` contract.

pub mod catalog;
pub mod pci;
pub mod selector;

use serde::{Deserialize, Serialize};

pub use pci::PciId;

/// A whole node as a backend sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// `nvml` or `sim:<name>`.
    pub source: String,
    pub driver_version: String,
    /// CUDA version the driver supports, e.g. `12.4`.
    pub cuda_driver_version: String,
    pub gpus: Vec<Gpu>,
    /// Services and kernel modules that hold the GPUs open; they block GPU resets.
    #[serde(default)]
    pub holders: Vec<Holder>,
}

/// Something other than a compute process that keeps the GPUs open (nvidia-persistenced,
/// nvidia-fabricmanager, DCGM, the nvidia_drm module). A GPU reset fails while one is there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Holder {
    pub name: String,
    #[serde(default)]
    pub kind: HolderKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum HolderKind {
    #[default]
    Process,
    Module,
}

impl Holder {
    /// `nvidia-persistenced (pid 1234)` or `kernel module nvidia_drm`.
    pub fn describe(&self) -> String {
        match (self.kind, self.pid) {
            (HolderKind::Module, _) => format!("kernel module {}", self.name),
            (HolderKind::Process, Some(pid)) => format!("{} (pid {pid})", self.name),
            (HolderKind::Process, None) => self.name.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Gpu {
    pub index: u32,
    pub uuid: String,
    pub name: String,
    /// `00000000:07:00.0`, as NVML and nvidia-smi print it.
    pub pci_bus_id: String,
    pub pci_device_id: PciId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pci_subsystem_id: Option<PciId>,
    pub memory_total_mib: u64,
    pub memory_used_mib: u64,
    /// `major.minor`, e.g. `8.0`.
    pub compute_capability: String,
    pub multiprocessors: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub architecture: Option<String>,
    pub compute_mode: ComputeMode,
    pub persistence_mode: bool,
    pub mig: MigState,
    pub processes: Vec<Process>,
    /// Set when the GPU runs in vGPU host mode (the NVIDIA vGPU Manager drives it): whether its
    /// vGPUs sit on SR-IOV virtual functions. Absent on GPUs that are not vGPU hosts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vgpu_host_mode: Option<VgpuHostMode>,
}

/// How a GPU in vGPU host mode exposes its vGPUs (NVML `nvmlHostVgpuMode_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VgpuHostMode {
    /// Each vGPU is an SR-IOV virtual function (Ampere and newer).
    Sriov,
    /// vGPUs are mediated devices on the GPU itself (Maxwell to Turing).
    NonSriov,
}

impl VgpuHostMode {
    pub fn as_str(self) -> &'static str {
        match self {
            VgpuHostMode::Sriov => "sriov",
            VgpuHostMode::NonSriov => "non_sriov",
        }
    }
}

/// NVML compute modes (EXCLUSIVE_THREAD was removed from the driver).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ComputeMode {
    #[default]
    Default,
    ExclusiveProcess,
    Prohibited,
}

impl ComputeMode {
    pub fn as_str(self) -> &'static str {
        match self {
            ComputeMode::Default => "default",
            ComputeMode::ExclusiveProcess => "exclusive_process",
            ComputeMode::Prohibited => "prohibited",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum MigMode {
    Enabled,
    #[default]
    Disabled,
}

impl MigMode {
    pub fn from_enabled(enabled: bool) -> Self {
        if enabled {
            MigMode::Enabled
        } else {
            MigMode::Disabled
        }
    }

    pub fn is_enabled(self) -> bool {
        self == MigMode::Enabled
    }

    pub fn as_str(self) -> &'static str {
        match self {
            MigMode::Enabled => "enabled",
            MigMode::Disabled => "disabled",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct MigState {
    pub capable: bool,
    pub current: MigMode,
    /// The mode after the next GPU reset; differs from `current` while a change is pending.
    pub pending: MigMode,
    pub instances: Vec<GpuInstance>,
}

/// A slice range of a GPU, in memory-slice units (NVML `nvmlGpuInstancePlacement_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Placement {
    pub start: u32,
    pub size: u32,
}

impl Placement {
    pub fn end(self) -> u32 {
        self.start + self.size
    }

    pub fn overlaps(self, other: Placement) -> bool {
        self.start < other.end() && other.start < self.end()
    }
}

impl std::fmt::Display for Placement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.start, self.size)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpuInstance {
    pub gpu_instance_id: u32,
    /// Name as nvidia-smi prints it, e.g. `3g.20gb`.
    pub profile: String,
    /// Profile id as nvidia-smi shows it (`nvmlGpuInstanceProfileInfo_t.id`).
    pub profile_id: u32,
    pub placement: Placement,
    pub memory_mib: u64,
    pub multiprocessors: u32,
    pub compute_instances: Vec<ComputeInstance>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComputeInstance {
    pub compute_instance_id: u32,
    /// Name as nvidia-smi prints it, e.g. `1c.3g.20gb`, or the GI profile for a full-size CI.
    pub profile: String,
    /// `NVML_COMPUTE_INSTANCE_PROFILE_*` index of its profile (see `ComputeInstanceProfile::id`).
    pub profile_id: u32,
    /// Start and size in compute slices of the parent GPU instance.
    pub placement: Placement,
    pub multiprocessors: u32,
    /// The MIG device UUID (`MIG-…`) that `CUDA_VISIBLE_DEVICES` accepts.
    pub uuid: String,
    /// Compute mode of this MIG device (with MIG on, it is set per MIG device).
    #[serde(default)]
    pub compute_mode: ComputeMode,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Process {
    pub pid: u32,
    pub name: String,
    pub used_memory_mib: u64,
    pub gpu_instance_id: Option<u32>,
    pub compute_instance_id: Option<u32>,
}

/// `8-4-4-4-12` lowercase hex, as NVML prints UUIDs after their `GPU-`/`MIG-` prefix.
pub fn format_uuid(bytes: &[u8; 16]) -> String {
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

impl Node {
    pub fn gpu(&self, index: u32) -> Option<&Gpu> {
        self.gpus.iter().find(|g| g.index == index)
    }
}

impl Gpu {
    pub fn instance(&self, gpu_instance_id: u32) -> Option<&GpuInstance> {
        self.mig
            .instances
            .iter()
            .find(|gi| gi.gpu_instance_id == gpu_instance_id)
    }

    /// Processes that run inside a GPU instance (all of them when it is `None`: the whole GPU).
    pub fn processes_in(&self, gpu_instance_id: Option<u32>) -> impl Iterator<Item = &Process> {
        self.processes
            .iter()
            .filter(move |p| gpu_instance_id.is_none() || p.gpu_instance_id == gpu_instance_id)
    }

    /// `major, minor` of the compute capability (0, 0 when unparsable).
    pub fn compute_capability_pair(&self) -> (u32, u32) {
        let mut parts = self.compute_capability.split('.');
        let major = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        let minor = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        (major, minor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placements_overlap_only_when_slices_are_shared() {
        let a = Placement { start: 0, size: 4 };
        assert!(a.overlaps(Placement { start: 3, size: 1 }));
        assert!(!a.overlaps(Placement { start: 4, size: 4 }));
        assert!(Placement { start: 4, size: 4 }.overlaps(Placement { start: 6, size: 2 }));
    }

    #[test]
    fn modes_serialize_as_the_json_contract_says() {
        assert_eq!(
            serde_json::to_string(&ComputeMode::ExclusiveProcess).unwrap(),
            "\"exclusive_process\""
        );
        assert_eq!(
            serde_json::to_string(&MigMode::Enabled).unwrap(),
            "\"enabled\""
        );
    }
}
