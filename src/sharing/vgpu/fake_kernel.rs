//! The kernel's side of a fake sysfs tree, for tests and for trying a layout without a vGPU host.
//!
//! A tree opts in with a file [`MARKER`] at its root (never honoured under `/`) that lists each
//! GPU's vGPU types with their framebuffer and maximum count:
//!
//! ```toml
//! [[gpus]]
//! pci_bus_id = "0000:41:00.0"
//! heterogeneous = false                  # optional: mixed-size mode (`nvidia-smi vgpu -shm 1`)
//! types = [{ id = 1155, name = "NVIDIA L40S-12Q", framebuffer_mib = 12288, max_instances = 4 }]
//! ```
//!
//! It answers writes as the driver does (the nvidia-vgpu-vfio `current_vgpu_type_store` rules:
//! EBUSY while a VM holds the VF, ENODEV for an unknown id, EINVAL for a second type in
//! homogeneous mode, ENOSPC when full) and then updates the tree: mdev device directories and
//! links, `available_instances`, `creatable_vgpu_types`, `current_vgpu_type`. Removing an mdev
//! device a VM holds succeeds: the kernel asks the VM to release it. `GPUSHARE_SYSFS_FAIL=N[,M]`
//! makes the N-th write of a run fail with EIO, for tests of a change that stops half-way.

use super::device_writes::Write;
use super::discover::virtual_functions;
use super::in_use::OpenVfioNodes;
use super::sysfs::{MDEV_DEVICES, SysfsRoot, link_name, list_dir, same_pci_address};
use super::type_name::{TypeName, short_name};
use super::{mdev, vfio};
use crate::support::error::{Error, Result};
use crate::support::source_file::SourceFile;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

pub(crate) const MARKER: &str = "gpushare-fake-kernel.toml";
pub(crate) const FAIL_ENV: &str = "GPUSHARE_SYSFS_FAIL";

const EIO: i32 = 5;
const ENOENT: i32 = 2;
const EBUSY: i32 = 16;
const EEXIST: i32 = 17;
const ENODEV: i32 = 19;
const EINVAL: i32 = 22;
const ENOSPC: i32 = 28;

fn errno(code: i32) -> io::Error {
    io::Error::from_raw_os_error(code)
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FakeKernelFile {
    #[serde(default)]
    pub gpus: Vec<FakeGpu>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FakeGpu {
    pub pci_bus_id: String,
    #[serde(default)]
    pub heterogeneous: bool,
    pub types: Vec<FakeType>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FakeType {
    pub id: u32,
    /// The full name sysfs prints, e.g. `NVIDIA L40S-12Q`.
    pub name: String,
    pub framebuffer_mib: u64,
    pub max_instances: u32,
}

impl FakeType {
    fn slices(&self) -> Option<u32> {
        TypeName::parse(short_name(&self.name)).ok()?.gpu_slices
    }
}

pub(crate) struct FakeKernel {
    root: SysfsRoot,
    file: FakeKernelFile,
    fail_at: Vec<u32>,
    writes: u32,
}

/// Where vGPUs of a GPU go and what is there now.
struct GpuState {
    /// mdev: parents; vendor VFIO: VFs.
    slots: Vec<String>,
    /// One vGPU per slot (VFs) rather than many on the GPU.
    one_per_slot: bool,
    mdev: bool,
    /// slot → type ids of its devices.
    devices: BTreeMap<String, Vec<u32>>,
}

impl GpuState {
    fn counts(&self) -> BTreeMap<u32, u32> {
        let mut counts = BTreeMap::new();
        for id in self.devices.values().flatten() {
            *counts.entry(*id).or_insert(0) += 1;
        }
        counts
    }
}

impl FakeKernel {
    /// The fake kernel of a tree, when it has one.
    pub(crate) fn load(root: &SysfsRoot) -> Result<Option<FakeKernel>> {
        let marker = root.path(MARKER);
        if root.is_system() || !marker.exists() {
            return Ok(None);
        }
        let file: FakeKernelFile = SourceFile::read(&marker)?.parse_toml()?;
        let fail_at = match std::env::var(FAIL_ENV) {
            Ok(v) if !v.trim().is_empty() => v
                .split(',')
                .map(|n| n.trim().parse::<u32>())
                .collect::<std::result::Result<Vec<_>, _>>()
                .map_err(|_| {
                    Error::usage(format!(
                        "{FAIL_ENV}={v}: expected write numbers like 3 or 2,5"
                    ))
                })?,
            _ => Vec::new(),
        };
        Ok(Some(FakeKernel {
            root: root.clone(),
            file,
            fail_at,
            writes: 0,
        }))
    }

    fn gpu(&self, pf: &str) -> io::Result<&FakeGpu> {
        self.file
            .gpus
            .iter()
            .find(|g| same_pci_address(&g.pci_bus_id, pf))
            .ok_or_else(|| errno(ENODEV))
    }

    /// The GPU (PF) a parent or VF belongs to.
    fn pf_of(&self, device: &str) -> String {
        link_name(&self.root.pci_device(device).join("physfn"))
            .unwrap_or_else(|| device.to_string())
    }

    fn state(&self, pf: &str) -> io::Result<GpuState> {
        let pf_dir = self.root.pci_device(pf);
        let vfs = virtual_functions(&pf_dir)?;
        let has_types = |bdf: &str| {
            self.root
                .pci_device(bdf)
                .join("mdev_supported_types")
                .is_dir()
        };
        let (slots, mdev, one_per_slot) = if has_types(pf) {
            (vec![pf.to_string()], true, false)
        } else if vfs.iter().any(|vf| has_types(vf)) {
            (
                vfs.into_iter().filter(|vf| has_types(vf)).collect(),
                true,
                true,
            )
        } else {
            (vfs, false, true)
        };
        let mut devices = BTreeMap::new();
        for slot in &slots {
            let dir = self.root.pci_device(slot);
            let ids: Vec<u32> = if mdev {
                mdev::read_devices(&dir)?
                    .into_iter()
                    .map(|d| d.type_id)
                    .collect()
            } else {
                vfio::current_type(&dir)?
                    .filter(|id| *id != 0)
                    .into_iter()
                    .collect()
            };
            devices.insert(slot.clone(), ids);
        }
        Ok(GpuState {
            slots,
            one_per_slot,
            mdev,
            devices,
        })
    }

    /// How many more of `t` the GPU takes, by the driver's rules.
    fn gpu_available(gpu: &FakeGpu, counts: &BTreeMap<u32, u32>, t: &FakeType) -> u32 {
        let own = counts.get(&t.id).copied().unwrap_or(0);
        let left = t.max_instances.saturating_sub(own);
        let others: Vec<(&FakeType, u32)> = counts
            .iter()
            .filter(|(id, n)| **id != t.id && **n > 0)
            .filter_map(|(id, n)| Some((gpu.types.iter().find(|x| x.id == *id)?, *n)))
            .collect();
        if others.is_empty() {
            return left;
        }
        if !gpu.heterogeneous
            || others
                .iter()
                .any(|(o, _)| o.slices().is_some() != t.slices().is_some())
        {
            return 0;
        }
        match t.slices() {
            Some(g) => {
                let total = gpu
                    .types
                    .iter()
                    .filter_map(FakeType::slices)
                    .max()
                    .unwrap_or(0);
                let used: u32 = gpu
                    .types
                    .iter()
                    .map(|x| x.slices().unwrap_or(0) * counts.get(&x.id).copied().unwrap_or(0))
                    .sum();
                left.min(total.saturating_sub(used) / g)
            }
            None => {
                let total = gpu
                    .types
                    .iter()
                    .filter(|x| x.slices().is_none())
                    .map(|x| x.framebuffer_mib * u64::from(x.max_instances))
                    .max()
                    .unwrap_or(0);
                let used: u64 = gpu
                    .types
                    .iter()
                    .map(|x| x.framebuffer_mib * u64::from(counts.get(&x.id).copied().unwrap_or(0)))
                    .sum();
                left.min((total.saturating_sub(used) / t.framebuffer_mib.max(1)) as u32)
            }
        }
    }

    fn slot_available(gpu: &FakeGpu, state: &GpuState, slot: &str, t: &FakeType) -> u32 {
        let all = Self::gpu_available(gpu, &state.counts(), t);
        if !state.one_per_slot {
            return all;
        }
        let occupied = state.devices.get(slot).is_some_and(|d| !d.is_empty());
        if occupied { 0 } else { all.min(1) }
    }

    /// Refuse a write the driver would refuse; counts writes for fault injection.
    pub(crate) fn check(&mut self, w: &Write) -> io::Result<()> {
        self.writes += 1;
        if self.fail_at.contains(&self.writes) {
            return Err(errno(EIO));
        }
        match w {
            Write::MdevCreate {
                parent,
                type_id,
                uuid,
            } => {
                let pf = self.pf_of(parent);
                let gpu = self.gpu(&pf)?;
                let state = self.state(&pf)?;
                let t = gpu
                    .types
                    .iter()
                    .find(|t| t.id == *type_id)
                    .ok_or_else(|| errno(EINVAL))?;
                if self.root.path(MDEV_DEVICES).join(uuid).exists() {
                    return Err(errno(EEXIST));
                }
                if Self::slot_available(gpu, &state, parent, t) == 0 {
                    return Err(errno(ENOSPC));
                }
                Ok(())
            }
            Write::MdevRemove { uuid } => {
                if self.root.path(MDEV_DEVICES).join(uuid).exists() {
                    Ok(())
                } else {
                    Err(errno(ENOENT))
                }
            }
            Write::VfSetType { vf, type_id } => {
                let dir = self.root.pci_device(vf);
                if !OpenVfioNodes::scan(&self.root).openers_of(&dir).is_empty() {
                    return Err(errno(EBUSY));
                }
                if *type_id == 0 {
                    return Ok(());
                }
                let pf = self.pf_of(vf);
                let gpu = self.gpu(&pf)?;
                let state = self.state(&pf)?;
                let t = gpu
                    .types
                    .iter()
                    .find(|t| t.id == *type_id)
                    .ok_or_else(|| errno(ENODEV))?;
                if state
                    .devices
                    .get(vf.as_str())
                    .is_some_and(|d| !d.is_empty())
                {
                    return Err(errno(EBUSY));
                }
                if Self::slot_available(gpu, &state, vf, t) == 0 {
                    let other = state.counts().keys().any(|id| id != type_id);
                    return Err(errno(if other && !gpu.heterogeneous {
                        EINVAL
                    } else {
                        ENOSPC
                    }));
                }
                Ok(())
            }
        }
    }

    /// The driver's side of an accepted write.
    pub(crate) fn apply(&mut self, w: &Write) -> io::Result<()> {
        let pf = match w {
            Write::MdevCreate {
                parent,
                type_id,
                uuid,
            } => {
                self.create_mdev(parent, *type_id, uuid)?;
                self.pf_of(parent)
            }
            Write::MdevRemove { uuid } => {
                let parent = self.remove_mdev(uuid)?;
                self.pf_of(&parent)
            }
            Write::VfSetType { vf, type_id } => {
                std::fs::write(
                    vfio::current_type_path(&self.root, vf),
                    format!("{type_id}\n"),
                )?;
                self.pf_of(vf)
            }
        };
        self.refresh(&pf)
    }

    fn create_mdev(&self, parent: &str, type_id: u32, uuid: &str) -> io::Result<()> {
        let parent_dir = self.root.pci_device(parent);
        let dir = parent_dir.join(uuid);
        std::fs::create_dir(&dir)?;
        symlink(
            Path::new("../mdev_supported_types").join(mdev::type_dir_name(type_id)),
            dir.join("mdev_type"),
        )?;
        std::fs::write(dir.join("remove"), "")?;
        let groups = self.root.path("/sys/kernel/iommu_groups");
        std::fs::create_dir_all(&groups)?;
        let next = list_dir(&groups)?
            .iter()
            .filter_map(|g| g.parse::<u32>().ok())
            .max()
            .map_or(1, |g| g + 1);
        std::fs::create_dir(groups.join(next.to_string()))?;
        symlink(groups.join(next.to_string()), dir.join("iommu_group"))?;
        let driver = self.root.path("/sys/bus/mdev/drivers/nvidia-vgpu-vfio");
        std::fs::create_dir_all(&driver)?;
        symlink(&driver, dir.join("driver"))?;
        let bus = self.root.path(MDEV_DEVICES);
        std::fs::create_dir_all(&bus)?;
        symlink(&dir, bus.join(uuid))?;
        let type_devices = parent_dir
            .join("mdev_supported_types")
            .join(mdev::type_dir_name(type_id))
            .join("devices");
        std::fs::create_dir_all(&type_devices)?;
        symlink(&dir, type_devices.join(uuid))
    }

    /// Remove a device and its links; returns its parent.
    fn remove_mdev(&self, uuid: &str) -> io::Result<String> {
        let link = self.root.path(MDEV_DEVICES).join(uuid);
        let dir: PathBuf = std::fs::read_link(&link)?;
        let parent = dir
            .parent()
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| errno(ENOENT))?;
        if let Some(t) = link_name(&dir.join("mdev_type")) {
            let _ = std::fs::remove_file(
                self.root
                    .pci_device(&parent)
                    .join("mdev_supported_types")
                    .join(t)
                    .join("devices")
                    .join(uuid),
            );
        }
        if let Some(group) = link_name(&dir.join("iommu_group")) {
            let _ = std::fs::remove_dir(self.root.path("/sys/kernel/iommu_groups").join(group));
        }
        std::fs::remove_dir_all(&dir)?;
        std::fs::remove_file(&link)?;
        Ok(parent)
    }

    /// Rewrite what the driver derives from the devices: availabilities and creatable lists.
    fn refresh(&self, pf: &str) -> io::Result<()> {
        let gpu = self.gpu(pf)?;
        let state = self.state(pf)?;
        for slot in &state.slots {
            let dir = self.root.pci_device(slot);
            if state.mdev {
                for t in &gpu.types {
                    let type_dir = dir
                        .join("mdev_supported_types")
                        .join(mdev::type_dir_name(t.id));
                    if type_dir.is_dir() {
                        let n = Self::slot_available(gpu, &state, slot, t);
                        write_if_changed(&type_dir.join("available_instances"), &format!("{n}\n"))?;
                    }
                }
            } else {
                let occupied = state.devices.get(slot).is_some_and(|d| !d.is_empty());
                let mut text = String::new();
                if !occupied {
                    let lines: Vec<String> = gpu
                        .types
                        .iter()
                        .filter(|t| Self::slot_available(gpu, &state, slot, t) > 0)
                        .map(|t| format!("{:<5} : {}\n", t.id, t.name))
                        .collect();
                    // The driver prints the header only while no vGPU exists on the GPU.
                    if state.counts().is_empty() {
                        text.push_str("ID    : vGPU Name\n");
                    }
                    text.extend(lines);
                }
                write_if_changed(&vfio::creatable_path(&self.root, slot), &text)?;
            }
        }
        Ok(())
    }
}

/// Rewrite a derived file only when its content changes (a tree has many and most stay put).
fn write_if_changed(path: &Path, text: &str) -> io::Result<()> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    std::fs::write(path, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpu(heterogeneous: bool) -> FakeGpu {
        let t = |id, name: &str, fb, max| FakeType {
            id,
            name: name.into(),
            framebuffer_mib: fb,
            max_instances: max,
        };
        FakeGpu {
            pci_bus_id: "0000:41:00.0".into(),
            heterogeneous,
            types: vec![
                t(1, "NVIDIA L40S-12Q", 12288, 4),
                t(2, "NVIDIA L40S-24Q", 24576, 2),
                t(3, "NVIDIA L40S-48Q", 49152, 1),
            ],
        }
    }

    #[test]
    fn homogeneous_gpus_take_one_type() {
        let g = gpu(false);
        let counts: BTreeMap<u32, u32> = [(1, 3)].into();
        assert_eq!(FakeKernel::gpu_available(&g, &counts, &g.types[0]), 1);
        assert_eq!(FakeKernel::gpu_available(&g, &counts, &g.types[1]), 0);
        assert_eq!(
            FakeKernel::gpu_available(&g, &BTreeMap::new(), &g.types[1]),
            2
        );
    }

    #[test]
    fn heterogeneous_gpus_share_the_framebuffer() {
        let g = gpu(true);
        let counts: BTreeMap<u32, u32> = [(1, 2)].into();
        assert_eq!(FakeKernel::gpu_available(&g, &counts, &g.types[1]), 1);
        assert_eq!(FakeKernel::gpu_available(&g, &counts, &g.types[2]), 0);
    }
}
