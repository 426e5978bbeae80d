//! What discovery finds on a vGPU host: the model `vgpu types` and `vgpu status` print and the
//! planner reads. The serde field names are the `--format json` contract.

use crate::node::model::PciId;
use serde::Serialize;

/// The vGPU host as sysfs shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Host {
    /// The directory sysfs was read under (`/` on a real host).
    pub sysfs_root: String,
    /// NVIDIA GPUs that can carry vGPUs, in PCI order.
    pub gpus: Vec<VgpuGpu>,
    /// NVIDIA GPUs that cannot (no vGPU Manager support), by PCI address.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub other_gpus: Vec<String>,
    /// False when some processes' open files could not be read (not root): a VM may then hold a
    /// device that `in_use_by` does not show.
    pub in_use_known: bool,
}

/// How a GPU's vGPUs are managed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Framework {
    /// Mediated devices: write a UUID to `mdev_supported_types/<type>/create` of a parent (the GPU,
    /// or one of its virtual functions on Ampere).
    Mdev,
    /// NVIDIA's vendor-specific VFIO (vGPU 17+, Ada/Hopper/Blackwell): write a type id to
    /// `nvidia/current_vgpu_type` of a virtual function.
    VendorVfio,
    /// An SR-IOV GPU of a vGPU Manager host whose virtual functions are not enabled yet
    /// (`sriov-manage -e`); its framework shows once they are.
    SriovDisabled,
}

impl Framework {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Framework::Mdev => "mdev",
            Framework::VendorVfio => "vendor_vfio",
            Framework::SriovDisabled => "sriov_disabled",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct VgpuGpu {
    /// The node's GPU index (NVML order); `None` when the node does not list this GPU.
    pub index: Option<u32>,
    /// Model name from the node.
    pub name: Option<String>,
    /// `0000:07:00.0`, as sysfs names it.
    pub pci_bus_id: String,
    pub pci_device_id: PciId,
    pub framework: Framework,
    /// Kernel driver of the GPU (`nvidia`).
    pub driver: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sriov: Option<Sriov>,
    /// Where vGPUs are created: the GPU itself (mdev without SR-IOV) or its virtual functions.
    pub parents: Vec<String>,
    /// The vGPU types this GPU supports.
    pub types: Vec<VgpuType>,
    /// The vGPU devices that exist.
    pub devices: Vec<VgpuDevice>,
    /// vendor-VFIO GPUs holding no vGPU: the complete type list (id → full name) the VFs show,
    /// for the type registry.
    #[serde(skip)]
    pub full_type_list: Option<std::collections::BTreeMap<u32, String>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) struct Sriov {
    pub total_vfs: u32,
    pub enabled_vfs: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct VgpuType {
    /// The type id: `N` of the mdev type directory `nvidia-N`, or the id `current_vgpu_type` takes.
    pub id: u32,
    /// The name configs use, e.g. `A100-4C`.
    pub name: String,
    /// The name sysfs prints, e.g. `NVIDIA A100-4C`.
    pub full_name: String,
    pub mig_backed: bool,
    pub framebuffer_mib: Option<u64>,
    /// The most devices of this type the GPU holds. mdev reports it; on vendor-VFIO hosts it is
    /// derived from the framebuffer sizes in the type names and the number of VFs, and `None`
    /// until gpushare has seen the GPU's full type list.
    pub max_instances: Option<u32>,
    /// How many more devices of this type could be created now.
    pub available_instances: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct VgpuDevice {
    pub type_id: u32,
    /// The type's short name; `None` when no list on the host names this id any more.
    pub type_name: Option<String>,
    /// mdev devices: the UUID (`/sys/bus/mdev/devices/<uuid>`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// vendor-VFIO devices: the virtual function carrying it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vf: Option<String>,
    /// The mdev parent or the VF.
    pub parent: String,
    /// The driver the device is bound to (`nvidia-vgpu-vfio`, `nvidia`, `vfio-pci`).
    pub driver: Option<String>,
    pub iommu_group: Option<String>,
    /// Processes (VMs) that hold the device open.
    pub in_use_by: Vec<Opener>,
}

/// A process that has a VFIO device node open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Opener {
    pub pid: u32,
    pub name: String,
}

impl Opener {
    pub(crate) fn describe(&self) -> String {
        format!("{} (pid {})", self.name, self.pid)
    }
}

impl VgpuDevice {
    /// The UUID or the VF: how people name the device.
    pub(crate) fn label(&self) -> &str {
        self.uuid.as_deref().or(self.vf.as_deref()).unwrap_or("?")
    }

    pub(crate) fn type_label(&self) -> String {
        self.type_name
            .clone()
            .unwrap_or_else(|| format!("type {}", self.type_id))
    }
}

impl VgpuGpu {
    /// `GPU 0 (0000:07:00.0)`, or the address alone when the node does not list it.
    pub(crate) fn label(&self) -> String {
        match self.index {
            Some(i) => format!("GPU {i} ({})", self.pci_bus_id),
            None => format!("GPU {}", self.pci_bus_id),
        }
    }

    pub(crate) fn type_by_name(&self, name: &str) -> Option<&VgpuType> {
        self.types.iter().find(|t| t.name == name)
    }

    /// Devices per type name (or `type N` when unnamed), for summaries.
    pub(crate) fn device_counts(&self) -> std::collections::BTreeMap<String, u32> {
        let mut counts = std::collections::BTreeMap::new();
        for d in &self.devices {
            *counts.entry(d.type_label()).or_insert(0) += 1;
        }
        counts
    }

    /// Whether vGPUs sit one per virtual function (SR-IOV) rather than many on the GPU.
    pub(crate) fn one_per_parent(&self) -> bool {
        self.framework != Framework::Mdev
            || self
                .parents
                .iter()
                .any(|p| !super::sysfs::same_pci_address(p, &self.pci_bus_id))
    }
}
