//! The node model: what every backend produces and every command reads.
//!
//! The serde field names of these types are the `detect --format json` contract. A value the
//! driver would not give is `None` (JSON `null`, `?` in tables), never 0 or an empty list, and the
//! GPU's `notes` say which call refused it.

pub mod catalog;
pub(crate) mod minor;
pub mod owner;
pub(crate) mod pci;
pub(crate) mod selector;

use serde::{Deserialize, Serialize};

pub use owner::{Owner, PodContainer};
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
    /// The systemd unit the process runs in (from its cgroup), e.g. `nvidia-dcgm.service`:
    /// stopping that unit releases the GPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum HolderKind {
    #[default]
    Process,
    Module,
}

impl Holder {
    /// `nvidia-persistenced (pid 1234)`, `nv-hostengine (pid 88, nvidia-dcgm.service)` or
    /// `kernel module nvidia_drm`.
    pub fn describe(&self) -> String {
        let about: Vec<String> = self
            .pid
            .map(|p| format!("pid {p}"))
            .into_iter()
            .chain(self.unit.clone())
            .collect();
        match self.kind {
            HolderKind::Module => format!("kernel module {}", self.name),
            HolderKind::Process if about.is_empty() => self.name.clone(),
            HolderKind::Process => format!("{} ({})", self.name, about.join(", ")),
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
    /// SMs of the whole GPU; `None` when neither the driver nor the catalog can say.
    pub multiprocessors: Option<u32>,
    /// `ampere`, `hopper`, `blackwell`…; `None` when the driver does not say and the compute
    /// capability is one gpushare does not know.
    pub architecture: Option<String>,
    /// `None` when the driver does not answer (e.g. the parent GPU while MIG is on, where each
    /// MIG device has its own).
    pub compute_mode: Option<ComputeMode>,
    pub persistence_mode: Option<bool>,
    pub mig: MigState,
    /// The compute processes; `None` when the driver refuses the list (it needs privileges on
    /// some drivers).
    pub processes: Option<Vec<Process>>,
    /// Set when the GPU runs in vGPU host mode (the NVIDIA vGPU Manager drives it): whether its
    /// vGPUs sit on SR-IOV virtual functions. Absent on GPUs that are not vGPU hosts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vgpu_host_mode: Option<VgpuHostMode>,
    /// Percent of the last sample period a kernel ran (`nvmlDeviceGetUtilizationRates`);
    /// `None` (null) where the driver does not say (with MIG on it has no figure for the whole GPU).
    #[serde(default)]
    pub utilization_percent: Option<u32>,
    /// What the driver refused (the fields left `None`), and where the catalog disagreed with the
    /// driver; absent when there is nothing to say.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<GpuNote>,
}

/// A note about one GPU's data: which field, and why it is unknown or not from the catalog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GpuNote {
    /// The field it is about (`multiprocessors`, `mig.instances`, …), or `catalog`.
    pub field: String,
    /// What happened, naming the NVML call: `nvmlDeviceGetNumGpuCores: Not Supported`.
    pub message: String,
    /// The driver said "no permission": running as root may tell more.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub needs_root: bool,
}

impl GpuNote {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        GpuNote {
            field: field.into(),
            message: message.into(),
            needs_root: false,
        }
    }
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MigState {
    /// The driver answers the MIG-mode query and can hold MIG devices (its maximum MIG device
    /// count is above 0).
    pub capable: bool,
    pub current: MigMode,
    /// The mode after the next GPU reset; differs from `current` while a change is pending.
    pub pending: MigMode,
    /// The GPU instances; `None` when MIG is on and the driver would not list them (unknown is
    /// never "no instances": nothing is planned from it).
    pub instances: Option<Vec<GpuInstance>>,
}

impl Default for MigState {
    fn default() -> Self {
        MigState {
            capable: false,
            current: MigMode::Disabled,
            pending: MigMode::Disabled,
            instances: Some(Vec::new()),
        }
    }
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

/// Where a compute instance sits in its GPU instance, in compute slices. The start is `None`
/// where the driver does not say (drivers without `nvmlComputeInstanceGetInfo_v2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComputePlacement {
    pub start: Option<u32>,
    pub size: u32,
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
    /// Memory in use in the GPU instance, as the driver reports it for its MIG devices (their
    /// processes' and the driver's own); `None` when it does not say, or the instance has no
    /// compute instance and so no MIG device to ask.
    #[serde(default)]
    pub memory_used_mib: Option<u64>,
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
    pub placement: ComputePlacement,
    pub multiprocessors: u32,
    /// The MIG device UUID (`MIG-…`) that `CUDA_VISIBLE_DEVICES` accepts; `None` when the driver
    /// does not say (a note says why). Whatever addresses the MIG device by UUID (CDI, MPS, the
    /// probe) refuses or skips one without it.
    #[serde(default)]
    pub uuid: Option<String>,
    /// Compute mode of this MIG device (with MIG on, it is set per MIG device); `None` when the
    /// driver does not say.
    #[serde(default)]
    pub compute_mode: Option<ComputeMode>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Process {
    pub pid: u32,
    pub name: String,
    /// `None` when the driver does not say (another user's process, some MIG setups).
    pub used_memory_mib: Option<u64>,
    pub gpu_instance_id: Option<u32>,
    pub compute_instance_id: Option<u32>,
    /// How the driver lists it: a process with its own context, or an MPS client.
    #[serde(default)]
    pub kind: ProcessKind,
    /// Whose it is, from its cgroup on the host (see [`owner`]); `None` when that was not read
    /// or could not be (the GPU's notes say why). Never set by a backend.
    #[serde(default)]
    pub owner: Option<Owner>,
}

/// How the driver lists a GPU process (`nvidia-smi`'s `C` and `M+C`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProcessKind {
    /// A process with a context of its own (an MPS server is one).
    #[default]
    Compute,
    /// A client of an MPS server, which holds the context for it.
    MpsClient,
}

/// `8-4-4-4-12` lowercase hex, as NVML prints UUIDs after their `GPU-`/`MIG-` prefix.
pub(crate) fn format_uuid(bytes: &[u8; 16]) -> String {
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

    /// The GPUs' notes that `keep` picks, one line each, GPUs with the same note together:
    /// `GPU 0-7: multiprocessors unknown: …`.
    pub fn note_lines(&self, keep: impl Fn(&GpuNote) -> bool) -> Vec<String> {
        let mut grouped: Vec<(&GpuNote, Vec<u32>)> = Vec::new();
        for gpu in &self.gpus {
            for n in gpu.notes.iter().filter(|n| keep(n)) {
                match grouped
                    .iter_mut()
                    .find(|(g, _)| g.field == n.field && g.message == n.message)
                {
                    Some((_, gpus)) => gpus.push(gpu.index),
                    None => grouped.push((n, vec![gpu.index])),
                }
            }
        }
        grouped
            .into_iter()
            .map(|(n, gpus)| {
                let what = if n.field == "catalog" {
                    String::new()
                } else {
                    format!("{} unknown: ", n.field)
                };
                format!("GPU {}: {what}{}", index_ranges(&gpus), n.message)
            })
            .collect()
    }
}

/// `0-3, 5`.
pub(crate) fn index_ranges(list: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < list.len() {
        let mut j = i;
        while j + 1 < list.len() && list[j + 1] == list[j] + 1 {
            j += 1;
        }
        parts.push(if j > i {
            format!("{}-{}", list[i], list[j])
        } else {
            list[i].to_string()
        });
        i = j + 1;
    }
    parts.join(", ")
}

impl Gpu {
    pub fn instance(&self, gpu_instance_id: u32) -> Option<&GpuInstance> {
        self.mig
            .instances
            .as_deref()
            .unwrap_or_default()
            .iter()
            .find(|gi| gi.gpu_instance_id == gpu_instance_id)
    }

    /// The GPU instances as the driver listed them; an error naming the refused call when MIG is
    /// on and the driver would not list them. Anything that plans or exports a layout reads them
    /// through this.
    pub fn mig_instances(&self) -> crate::support::error::Result<&[GpuInstance]> {
        match &self.mig.instances {
            Some(list) => Ok(list),
            None => Err(self.unknown_error("mig.instances", "its MIG layout is unknown")),
        }
    }

    /// The compute processes; an error naming the refused call when the driver would not list
    /// them.
    pub fn known_processes(&self) -> crate::support::error::Result<&[Process]> {
        match &self.processes {
            Some(list) => Ok(list),
            None => Err(self.unknown_error("processes", "its processes are unknown")),
        }
    }

    /// The GPU and compute instance of the MIG device with `uuid`, when it is on this GPU.
    pub fn mig_device(&self, uuid: &str) -> Option<(&GpuInstance, &ComputeInstance)> {
        self.mig.instances.iter().flatten().find_map(|gi| {
            gi.compute_instances
                .iter()
                .find(|ci| ci.uuid.as_deref() == Some(uuid))
                .map(|ci| (gi, ci))
        })
    }

    /// The MIG device UUID of compute instance `ci` of `gi`, for what addresses the MIG device by
    /// it (CDI, MPS, the probe); an error naming the device and why the driver did not say.
    pub fn mig_uuid<'a>(
        &self,
        gi: &GpuInstance,
        ci: &'a ComputeInstance,
    ) -> crate::support::error::Result<&'a str> {
        if let Some(uuid) = ci.uuid.as_deref() {
            return Ok(uuid);
        }
        let at = format!("{}:{}", gi.gpu_instance_id, ci.compute_instance_id);
        let note = self.notes.iter().find(|n| {
            n.field == "mig.instances.uuid"
                && n.message.starts_with(&format!("compute instance {at}:"))
        });
        let why = note.map_or("the driver did not say", |n| n.message.as_str());
        let e = crate::support::error::Error::failed(format!(
            "GPU {} ({}): the UUID of MIG device {at} ({}) is unknown: {why}",
            self.index, self.name, ci.profile
        ));
        Err(if note.is_some_and(|n| n.needs_root) {
            e.with_hint("run the command as root: the driver tells this only to root")
        } else {
            e.with_hint(
                "check the MIG device with `nvidia-smi -L`; a MIG device is addressed by its UUID",
            )
        })
    }

    /// The note about `field`, if the backend left one.
    pub fn note(&self, field: &str) -> Option<&GpuNote> {
        self.notes.iter().find(|n| n.field == field)
    }

    /// `GPU 0 (NVIDIA A100-SXM4-40GB): <what>: <the refused call>`, exit 1, with a hint to run as
    /// root when the driver said "no permission".
    pub fn unknown_error(&self, field: &str, what: &str) -> crate::support::error::Error {
        let note = self.note(field);
        let why = note.map_or_else(
            || "the driver did not say".to_string(),
            |n| n.message.clone(),
        );
        let e = crate::support::error::Error::failed(format!(
            "GPU {} ({}): {what}: {why}",
            self.index, self.name
        ));
        if note.is_some_and(|n| n.needs_root) {
            e.with_hint("run the command as root: the driver lists this only to root")
        } else {
            e.with_hint(
                "nothing is planned from an unknown state; check the driver (`nvidia-smi -q`)",
            )
        }
    }

    /// Processes that run inside a GPU instance (all of them when it is `None`: the whole GPU);
    /// none when the list is unknown (check [`Gpu::known_processes`] first where it matters).
    pub fn processes_in(&self, gpu_instance_id: Option<u32>) -> impl Iterator<Item = &Process> {
        self.processes
            .as_deref()
            .unwrap_or_default()
            .iter()
            // A process whose GPU instance the driver does not say (the v1 process list) may be
            // in any of them.
            .filter(move |p| {
                gpu_instance_id.is_none()
                    || p.gpu_instance_id.is_none()
                    || p.gpu_instance_id == gpu_instance_id
            })
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
    fn notes_group_the_gpus_that_share_them() {
        assert_eq!(index_ranges(&[0, 1, 2, 3, 5, 7, 8]), "0-3, 5, 7-8");
        assert_eq!(index_ranges(&[4]), "4");
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
