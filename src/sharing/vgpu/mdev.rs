//! The mediated-device (mdev) layout, Maxwell to Ampere (go-nvlib `nvmdev`, kernel mdev docs):
//!
//! ```text
//! /sys/class/mdev_bus/<parent>                        parents: the GPU, or its VFs on Ampere
//! <parent>/mdev_supported_types/nvidia-<id>/name      "NVIDIA A100-4C"
//!                                  .../description    "num_heads=1, frl_config=60, framebuffer=4096M, ..., max_instance=10"
//!                                  .../available_instances
//!                                  .../create         write a UUID to create a device
//! <parent>/<uuid>/mdev_type -> ../mdev_supported_types/nvidia-<id>
//! /sys/bus/mdev/devices/<uuid>/remove                 write 1 to remove it
//! ```

use super::sysfs::{MDEV_DEVICES, SysfsRoot, link_name, list_dir, read_attr, read_number};
use crate::support::output::parse_size_mib;
use std::io;
use std::path::{Path, PathBuf};

/// One `mdev_supported_types/nvidia-<id>` directory of a parent.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MdevType {
    pub id: u32,
    pub full_name: String,
    pub framebuffer_mib: Option<u64>,
    pub max_instance: Option<u32>,
    pub available_instances: u32,
}

/// One mdev device under a parent.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MdevDevice {
    pub uuid: String,
    pub type_id: u32,
    pub dir: PathBuf,
    pub driver: Option<String>,
    pub iommu_group: Option<String>,
}

/// `nvidia-474` → 474.
pub(crate) fn type_id(dir_name: &str) -> Option<u32> {
    dir_name.strip_prefix("nvidia-")?.parse().ok()
}

pub(crate) fn type_dir_name(id: u32) -> String {
    format!("nvidia-{id}")
}

/// `framebuffer` and `max_instance` from a type's description.
pub(crate) fn parse_description(text: &str) -> (Option<u64>, Option<u32>) {
    let mut framebuffer = None;
    let mut max_instance = None;
    for item in text.split(',') {
        let Some((key, value)) = item.split_once('=') else {
            continue;
        };
        match key.trim() {
            "framebuffer" => framebuffer = parse_size_mib(value.trim()).ok(),
            "max_instance" => max_instance = value.trim().parse().ok(),
            _ => {}
        }
    }
    (framebuffer, max_instance)
}

/// 8-4-4-4-12 hex digits.
pub(crate) fn is_uuid(s: &str) -> bool {
    let groups: Vec<&str> = s.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.chars().all(|c| c.is_ascii_hexdigit()))
}

fn types_dir(parent_dir: &Path) -> PathBuf {
    parent_dir.join("mdev_supported_types")
}

/// The types a parent offers.
pub(crate) fn read_types(parent_dir: &Path) -> io::Result<Vec<MdevType>> {
    let dir = types_dir(parent_dir);
    let mut types = Vec::new();
    for name in list_dir(&dir)? {
        let Some(id) = type_id(&name) else { continue };
        let type_dir = dir.join(&name);
        let full_name = read_attr(&type_dir.join("name"))?.unwrap_or_else(|| name.clone());
        let (framebuffer_mib, max_instance) =
            parse_description(&read_attr(&type_dir.join("description"))?.unwrap_or_default());
        let available_instances = read_number(&type_dir.join("available_instances"))?
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(0);
        types.push(MdevType {
            id,
            full_name,
            framebuffer_mib,
            max_instance,
            available_instances,
        });
    }
    types.sort_by_key(|t| t.id);
    Ok(types)
}

/// The mdev devices of a parent: its UUID-named children with an `mdev_type` link.
pub(crate) fn read_devices(parent_dir: &Path) -> io::Result<Vec<MdevDevice>> {
    let mut devices = Vec::new();
    for name in list_dir(parent_dir)?.into_iter().filter(|n| is_uuid(n)) {
        let dir = parent_dir.join(&name);
        let Some(type_id) = link_name(&dir.join("mdev_type")).and_then(|t| type_id(&t)) else {
            continue;
        };
        devices.push(MdevDevice {
            uuid: name,
            type_id,
            driver: link_name(&dir.join("driver")),
            iommu_group: link_name(&dir.join("iommu_group")),
            dir,
        });
    }
    Ok(devices)
}

/// The `create` attribute of a parent's type.
pub(crate) fn create_path(root: &SysfsRoot, parent: &str, type_id: u32) -> PathBuf {
    types_dir(&root.pci_device(parent))
        .join(type_dir_name(type_id))
        .join("create")
}

/// The `remove` attribute of a device.
pub(crate) fn remove_path(root: &SysfsRoot, uuid: &str) -> PathBuf {
    root.path(MDEV_DEVICES).join(uuid).join("remove")
}

/// A fresh random UUID from the kernel (`/proc/sys/kernel/random/uuid`, on the real system even
/// under a fake sysfs root: it is a source of randomness, not part of the host being managed).
pub(crate) fn new_uuid() -> io::Result<String> {
    let text =
        crate::support::fsutil::read_host_text(Path::new("/proc/sys/kernel/random/uuid"), 64)?
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no kernel UUID source"))?;
    let uuid = text.trim().to_ascii_lowercase();
    if is_uuid(&uuid) {
        Ok(uuid)
    } else {
        Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("the kernel gave `{uuid}` as a UUID"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_give_framebuffer_and_max_instances() {
        let (fb, max) = parse_description(
            "num_heads=4, frl_config=60, framebuffer=2048M, max_resolution=7680x4320, max_instance=4",
        );
        assert_eq!((fb, max), (Some(2048), Some(4)));
        assert_eq!(parse_description("garbage"), (None, None));
    }

    #[test]
    fn type_ids_and_uuids() {
        assert_eq!(type_id("nvidia-474"), Some(474));
        assert_eq!(type_id("i915-GVTg_V5_4"), None);
        assert!(is_uuid("aa618089-8b16-4d01-a136-25a0f3c73123"));
        assert!(!is_uuid("mdev_supported_types"));
        assert!(is_uuid(&new_uuid().unwrap()));
        assert_ne!(new_uuid().unwrap(), new_uuid().unwrap());
    }
}
