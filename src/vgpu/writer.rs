//! The three writes that change vGPU devices, made as plain writes to sysfs attributes.
//!
//! On a fake tree (a `--sysfs-root` other than `/` holding [`fake_kernel::MARKER`]) the fake
//! kernel checks each write as the driver would and then plays the driver's part (the new device
//! directory, the narrowed `available_instances` and `creatable_vgpu_types`), the way the
//! simulated backend stands in for NVML.

use super::fake_kernel::FakeKernel;
use super::sysfs::{SysfsRoot, write_attr};
use super::{mdev, vfio};
use crate::error::Result;
use std::io;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Write {
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
    pub fn path(&self, root: &SysfsRoot) -> PathBuf {
        match self {
            Write::MdevCreate {
                parent, type_id, ..
            } => mdev::create_path(root, parent, *type_id),
            Write::MdevRemove { uuid } => mdev::remove_path(root, uuid),
            Write::VfSetType { vf, .. } => vfio::current_type_path(root, vf),
        }
    }

    pub fn value(&self) -> String {
        match self {
            Write::MdevCreate { uuid, .. } => uuid.clone(),
            Write::MdevRemove { .. } => "1".into(),
            Write::VfSetType { type_id, .. } => type_id.to_string(),
        }
    }
}

pub struct SysfsWriter {
    root: SysfsRoot,
    kernel: Option<FakeKernel>,
}

impl SysfsWriter {
    pub fn new(root: &SysfsRoot) -> Result<SysfsWriter> {
        Ok(SysfsWriter {
            root: root.clone(),
            kernel: FakeKernel::load(root)?,
        })
    }

    pub fn root(&self) -> &SysfsRoot {
        &self.root
    }

    /// Make one write; the error is what the kernel answered.
    pub fn write(&mut self, w: &Write) -> io::Result<()> {
        if let Some(kernel) = &mut self.kernel {
            kernel.check(w)?;
        }
        write_attr(&w.path(&self.root), &w.value())?;
        if let Some(kernel) = &mut self.kernel {
            kernel.apply(w)?;
        }
        Ok(())
    }
}
