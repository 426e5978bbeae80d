//! Making the writes of [`write`](super::device_writes) as plain writes to sysfs attributes.
//!
//! On a fake tree (a `--sysfs-root` other than `/` holding [`fake_kernel::MARKER`](super::fake_kernel::MARKER)) the fake
//! kernel checks each write as the driver would and then plays the driver's part (the new device
//! directory, the narrowed `available_instances` and `creatable_vgpu_types`), the way the
//! simulated backend stands in for NVML.

use super::device_writes::Write;
use super::fake_kernel::FakeKernel;
use super::sysfs::{SysfsRoot, write_attr};
use crate::support::error::Result;
use std::io;

pub(crate) struct SysfsWriter {
    root: SysfsRoot,
    kernel: Option<FakeKernel>,
}

impl SysfsWriter {
    pub(crate) fn new(root: &SysfsRoot) -> Result<SysfsWriter> {
        Ok(SysfsWriter {
            root: root.clone(),
            kernel: FakeKernel::load(root)?,
        })
    }

    pub(crate) fn root(&self) -> &SysfsRoot {
        &self.root
    }

    /// Make one write; the error is what the kernel answered.
    pub(crate) fn write(&mut self, w: &Write) -> io::Result<()> {
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
