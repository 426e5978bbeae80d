//! The three writes that change vGPU devices: where each goes and what it writes.

use super::sysfs::SysfsRoot;
use super::{mdev, vfio};
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Write {
    /// `echo <uuid> > <parent>/mdev_supported_types/nvidia-<type_id>/create`
    MdevCreate {
        parent: String,
        type_id: u32,
        uuid: String,
    },
    /// `echo 1 > /sys/bus/mdev/devices/<uuid>/remove`
    MdevRemove { uuid: String },
    /// `echo <type_id> > <vf>/nvidia/current_vgpu_type` (0 removes the vGPU)
    VfSetType { vf: String, type_id: u32 },
}

impl Write {
    pub(crate) fn path(&self, root: &SysfsRoot) -> PathBuf {
        match self {
            Write::MdevCreate {
                parent, type_id, ..
            } => mdev::create_path(root, parent, *type_id),
            Write::MdevRemove { uuid } => mdev::remove_path(root, uuid),
            Write::VfSetType { vf, .. } => vfio::current_type_path(root, vf),
        }
    }

    pub(crate) fn value(&self) -> String {
        match self {
            Write::MdevCreate { uuid, .. } => uuid.clone(),
            Write::MdevRemove { .. } => "1".into(),
            Write::VfSetType { type_id, .. } => type_id.to_string(),
        }
    }
}
