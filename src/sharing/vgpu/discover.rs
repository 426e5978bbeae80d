//! Discovery: read the vGPU state of every NVIDIA GPU under a sysfs root.
//!
//! Framework per GPU (after vgpu-device-manager `pkg/vgpu/framework.go`): a GPU or its VFs listed
//! under `/sys/class/mdev_bus` use mdev; VFs with an `nvidia/` directory use vendor-specific VFIO;
//! an SR-IOV GPU bound to `nvidia` with no VFs yet, on a host where the vGPU Manager's
//! `nvidia_vgpu_vfio` module is loaded, waits for `sriov-manage -e`. Any other GPU is not a vGPU
//! GPU (for example one driven by the ordinary datacenter driver).

use super::host::{Framework, Host, Sriov, VgpuDevice, VgpuGpu, VgpuType};
use super::in_use::OpenVfioNodes;
use super::registry::TypeRegistry;
use super::sysfs::{
    MDEV_BUS, PCI_DEVICES, PciAddress, SysfsRoot, link_name, list_dir, read_number,
};
use super::type_name::{TypeName, short_name};
use super::{mdev, vfio};
use crate::node::model::{Node, PciId, pci::NVIDIA_VENDOR};
use crate::support::error::{Error, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The vGPU Manager's kernel module; its presence tells a vGPU host from one with the ordinary
/// driver when no VF exists yet.
pub(crate) const VGPU_MODULE: &str = "/sys/module/nvidia_vgpu_vfio";

/// PCI classes of GPUs: VGA controller and 3D controller.
const GPU_CLASSES: [u64; 2] = [0x0300, 0x0302];

fn io_error(path: &Path, e: std::io::Error) -> Error {
    Error::failed(format!("cannot read {}: {e}", path.display()))
}

/// Read the vGPU state of the host under `root`.
pub(crate) fn discover(root: &SysfsRoot, registry: &TypeRegistry) -> Result<Host> {
    if !root.root().is_dir() {
        return Err(Error::usage(format!(
            "--sysfs-root {}: no such directory",
            root.root().display()
        ))
        .with_hint("give the directory that holds sys/ (default /)"));
    }
    let pci_dir = root.path(PCI_DEVICES);
    let names = list_dir(&pci_dir).map_err(|e| io_error(&pci_dir, e))?;
    let mdev_bus = root.path(MDEV_BUS);
    let mdev_parents: BTreeSet<PciAddress> = list_dir(&mdev_bus)
        .map_err(|e| io_error(&mdev_bus, e))?
        .iter()
        .filter_map(|n| PciAddress::parse(n))
        .collect();
    let vgpu_module = root.path(VGPU_MODULE).is_dir();
    let open = OpenVfioNodes::scan(root);

    let mut gpus = Vec::new();
    let mut other_gpus = Vec::new();
    for name in names {
        let dir = pci_dir.join(&name);
        if !is_nvidia_gpu(&dir)? || dir.join("physfn").symlink_metadata().is_ok() {
            continue;
        }
        let reader = GpuReader {
            root,
            registry,
            open: &open,
            mdev_parents: &mdev_parents,
            vgpu_module,
        };
        match reader.read(&name, &dir)? {
            Some(gpu) => gpus.push(gpu),
            None => other_gpus.push(name),
        }
    }
    gpus.sort_by_key(|g| PciAddress::parse(&g.pci_bus_id));
    Ok(Host {
        sysfs_root: root.root().display().to_string(),
        gpus,
        other_gpus,
        in_use_known: open.complete,
    })
}

/// Name each GPU after the node's GPU at the same PCI address.
pub(crate) fn attach_node(host: &mut Host, node: &Node) {
    for gpu in &mut host.gpus {
        if let Some(n) = node
            .gpus
            .iter()
            .find(|n| super::sysfs::same_pci_address(&n.pci_bus_id, &gpu.pci_bus_id))
        {
            gpu.index = Some(n.index);
            gpu.name = Some(n.name.clone());
        }
    }
}

fn is_nvidia_gpu(dir: &Path) -> Result<bool> {
    let number =
        |name: &str| read_number(&dir.join(name)).map_err(|e| io_error(&dir.join(name), e));
    Ok(number("vendor")? == Some(u64::from(NVIDIA_VENDOR))
        && number("class")?.is_some_and(|c| GPU_CLASSES.contains(&(c >> 8))))
}

struct GpuReader<'a> {
    root: &'a SysfsRoot,
    registry: &'a TypeRegistry,
    open: &'a OpenVfioNodes,
    mdev_parents: &'a BTreeSet<PciAddress>,
    vgpu_module: bool,
}

impl GpuReader<'_> {
    fn read(&self, name: &str, dir: &Path) -> Result<Option<VgpuGpu>> {
        let driver = link_name(&dir.join("driver"));
        let number =
            |name: &str| read_number(&dir.join(name)).map_err(|e| io_error(&dir.join(name), e));
        let vendor = number("vendor")?.unwrap_or(0) as u32;
        let device = number("device")?.unwrap_or(0) as u32;
        let vfs = virtual_functions(dir).map_err(|e| io_error(dir, e))?;
        let enabled_vfs = number("sriov_numvfs")?.map_or(vfs.len() as u32, |n| n as u32);
        let total_vfs = number("sriov_totalvfs")?.map(|n| n as u32);
        let sriov = total_vfs.map(|total| Sriov {
            total_vfs: total,
            enabled_vfs,
        });
        let in_mdev =
            |bdf: &str| PciAddress::parse(bdf).is_some_and(|a| self.mdev_parents.contains(&a));
        let vendor_vfs: Vec<String> = vfs
            .iter()
            .filter(|vf| vfio::vendor_dir(&self.root.pci_device(vf)).is_dir())
            .cloned()
            .collect();
        let (framework, parents) = if in_mdev(name) {
            (Framework::Mdev, vec![name.to_string()])
        } else if vfs.iter().any(|vf| in_mdev(vf)) {
            (
                Framework::Mdev,
                vfs.iter().filter(|vf| in_mdev(vf)).cloned().collect(),
            )
        } else if !vendor_vfs.is_empty() {
            (Framework::VendorVfio, vendor_vfs)
        } else if total_vfs.unwrap_or(0) > 0
            && vfs.is_empty()
            && driver.as_deref() == Some("nvidia")
            && self.vgpu_module
        {
            (Framework::SriovDisabled, Vec::new())
        } else {
            return Ok(None);
        };
        let mut gpu = VgpuGpu {
            index: None,
            name: None,
            pci_bus_id: name.to_string(),
            pci_device_id: PciId((device << 16) | (vendor & 0xFFFF)),
            framework,
            driver,
            sriov,
            parents,
            types: Vec::new(),
            devices: Vec::new(),
            full_type_list: None,
        };
        match framework {
            Framework::Mdev => self.read_mdev(&mut gpu)?,
            Framework::VendorVfio => self.read_vendor_vfio(&mut gpu)?,
            Framework::SriovDisabled => {}
        }
        Ok(Some(gpu))
    }

    fn read_mdev(&self, gpu: &mut VgpuGpu) -> Result<()> {
        let mut types: BTreeMap<u32, VgpuType> = BTreeMap::new();
        for parent in &gpu.parents {
            let dir = self.root.pci_device(parent);
            for t in mdev::read_types(&dir).map_err(|e| io_error(&dir, e))? {
                let entry = types.entry(t.id).or_insert_with(|| {
                    let name = short_name(&t.full_name).to_string();
                    let parsed = TypeName::parse(&name).ok();
                    VgpuType {
                        id: t.id,
                        mig_backed: parsed.as_ref().is_some_and(TypeName::is_mig_backed),
                        framebuffer_mib: t
                            .framebuffer_mib
                            .or(parsed.as_ref().map(TypeName::framebuffer_mib)),
                        max_instances: t.max_instance,
                        full_name: t.full_name.clone(),
                        name,
                        available_instances: 0,
                    }
                });
                entry.available_instances += t.available_instances;
            }
            for d in mdev::read_devices(&dir).map_err(|e| io_error(&dir, e))? {
                gpu.devices.push(VgpuDevice {
                    type_id: d.type_id,
                    type_name: types.get(&d.type_id).map(|t| t.name.clone()),
                    uuid: Some(d.uuid.clone()),
                    vf: None,
                    parent: parent.clone(),
                    driver: d.driver.clone(),
                    iommu_group: d.iommu_group.clone(),
                    in_use_by: self.open.openers_of(&d.dir),
                });
            }
        }
        gpu.types = types.into_values().collect();
        cap_available(gpu);
        Ok(())
    }

    fn read_vendor_vfio(&self, gpu: &mut VgpuGpu) -> Result<()> {
        let mut listed: BTreeMap<u32, String> = BTreeMap::new();
        let mut available: BTreeMap<u32, u32> = BTreeMap::new();
        for vf in &gpu.parents {
            let dir = self.root.pci_device(vf);
            let current = vfio::current_type(&dir)
                .map_err(|e| io_error(&dir, e))?
                .unwrap_or(0);
            if current != 0 {
                gpu.devices.push(VgpuDevice {
                    type_id: current,
                    type_name: None,
                    uuid: None,
                    vf: Some(vf.clone()),
                    parent: vf.clone(),
                    driver: link_name(&dir.join("driver")),
                    iommu_group: link_name(&dir.join("iommu_group")),
                    in_use_by: self.open.openers_of(&dir),
                });
                continue;
            }
            for (id, full) in vfio::creatable_types(&dir).map_err(|e| io_error(&dir, e))? {
                *available.entry(id).or_insert(0) += 1;
                listed.insert(id, full);
            }
        }
        // With no vGPU on the GPU, every free VF lists every type: the list is complete.
        let complete = if gpu.devices.is_empty() && !listed.is_empty() {
            gpu.full_type_list = Some(listed.clone());
            Some(listed.clone())
        } else {
            self.registry.full_list(&gpu.pci_bus_id).cloned()
        };
        let mut names = complete.clone().unwrap_or_default();
        names.extend(listed);
        let limits = complete.as_ref().map(|c| Limits::from_names(c.values()));
        let vfs = gpu.parents.len() as u32;
        gpu.types = names
            .into_iter()
            .map(|(id, full_name)| {
                let name = short_name(&full_name).to_string();
                let parsed = TypeName::parse(&name).ok();
                VgpuType {
                    id,
                    mig_backed: parsed.as_ref().is_some_and(TypeName::is_mig_backed),
                    framebuffer_mib: parsed.as_ref().map(TypeName::framebuffer_mib),
                    max_instances: limits
                        .as_ref()
                        .zip(parsed.as_ref())
                        .and_then(|(l, p)| l.max_instances(p))
                        .map(|m| m.min(vfs)),
                    full_name,
                    name,
                    available_instances: available.get(&id).copied().unwrap_or(0),
                }
            })
            .collect();
        for d in &mut gpu.devices {
            d.type_name = gpu
                .types
                .iter()
                .find(|t| t.id == d.type_id)
                .map(|t| t.name.clone());
        }
        cap_available(gpu);
        Ok(())
    }
}

/// Per-VF (or per-parent) availabilities add up to more than the GPU holds: cap each type at its
/// maximum less the devices of that type.
fn cap_available(gpu: &mut VgpuGpu) {
    if !gpu.one_per_parent() {
        return;
    }
    let counts: BTreeMap<u32, u32> = gpu.devices.iter().fold(BTreeMap::new(), |mut m, d| {
        *m.entry(d.type_id).or_insert(0) += 1;
        m
    });
    for t in &mut gpu.types {
        if let Some(max) = t.max_instances {
            let left = max.saturating_sub(counts.get(&t.id).copied().unwrap_or(0));
            t.available_instances = t.available_instances.min(left);
        }
    }
}

/// What a GPU's full type list says about its size: the largest time-sliced framebuffer (a
/// time-sliced type of the whole GPU always exists) and the most MIG slices a type takes.
struct Limits {
    framebuffer_mib: Option<u64>,
    mig_slices: Option<u32>,
}

impl Limits {
    fn from_names<'a>(full_names: impl Iterator<Item = &'a String>) -> Limits {
        let parsed: Vec<TypeName> = full_names
            .filter_map(|n| TypeName::parse(short_name(n)).ok())
            .collect();
        Limits {
            framebuffer_mib: parsed
                .iter()
                .filter(|t| !t.is_mig_backed())
                .map(TypeName::framebuffer_mib)
                .max(),
            mig_slices: parsed.iter().filter_map(|t| t.gpu_slices).max(),
        }
    }

    /// How many of a type fit the GPU by its size (the VF count caps it further).
    fn max_instances(&self, t: &TypeName) -> Option<u32> {
        match t.gpu_slices {
            Some(g) => self.mig_slices.map(|total| total / g),
            None => self
                .framebuffer_mib
                .map(|total| (total / t.framebuffer_mib().max(1)) as u32),
        }
    }
}

/// A PF's VFs in `virtfn<N>` order.
pub(crate) fn virtual_functions(dir: &Path) -> std::io::Result<Vec<String>> {
    let mut vfs: Vec<(u32, String)> = list_dir(dir)?
        .into_iter()
        .filter_map(|n| {
            let index = n.strip_prefix("virtfn")?.parse().ok()?;
            Some((index, link_name(&dir.join(&n))?))
        })
        .collect();
    vfs.sort();
    Ok(vfs.into_iter().map(|(_, vf)| vf).collect())
}

/// The error for a host where no GPU carries vGPUs.
pub(crate) fn not_a_vgpu_host(host: &Host) -> Error {
    let what = if host.other_gpus.is_empty() {
        format!("no NVIDIA GPU under {}", host.sysfs_root)
    } else {
        format!(
            "NVIDIA GPU(s) {} have no vGPU support: no mdev types and no SR-IOV VFs with nvidia/current_vgpu_type",
            host.other_gpus.join(", ")
        )
    };
    Error::no_driver(format!("not a vGPU host: {what}")).with_hint(
        "install and load the NVIDIA vGPU Manager (the host driver, module nvidia_vgpu_vfio); \
         then /sys/class/mdev_bus (Maxwell to Ampere) or /sys/bus/pci/devices/<vf>/nvidia \
         (Ada, Hopper, Blackwell, after sriov-manage -e) appears",
    )
}
