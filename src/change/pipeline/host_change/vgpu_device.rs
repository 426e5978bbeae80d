//! Making one planned step on the host, and checking that it took: vGPU's change on the host.
//! The pipeline's executor runs the steps in order (with the journal, signals and progress of
//! every changing command).

use crate::change::pipeline::host_change::{HostChange, StepHost};
use crate::change::plan::phase::Phase;
use crate::sharing::vgpu::device_writes::Write;
use crate::sharing::vgpu::discover::virtual_functions;
use crate::sharing::vgpu::steps::Step;
use crate::sharing::vgpu::sysfs::MDEV_DEVICES;
use crate::sharing::vgpu::sysfs_writer::SysfsWriter;
use crate::sharing::vgpu::{mdev, mdevctl, sriov, vfio};
use crate::support::error::{Error, Result};

fn io(e: std::io::Error) -> Error {
    Error::failed(format!("the kernel said: {e}"))
}

impl HostChange for Step {
    fn action(&self) -> &'static str {
        match self {
            Step::EnableSriov { .. } => "enable_sriov",
            Step::RemoveMdev { .. } | Step::ClearVf { .. } => "remove_vgpu",
            Step::CreateMdev { .. } | Step::SetVfType { .. } => "create_vgpu",
        }
    }

    fn phase(&self) -> Phase {
        Phase::Vgpu
    }

    fn run(&self, host: &mut StepHost<'_>, gpu: u32) -> Result<()> {
        // The simulator's fault injection reaches these steps too (tests).
        let events = host.events()?;
        events.before_step(self.action())?;
        let uuid = run_step(self, host.sysfs_writer()?)?;
        let out = host.out();
        if let Some(uuid) = &uuid {
            out.note(format!("GPU {gpu}: {}", self.describe(true, Some(uuid))));
        }
        // Kept across reboots by mdevctl, when it is installed.
        let persisted = match (self, &uuid) {
            (Step::CreateMdev { .. }, Some(uuid)) => mdevctl::define(uuid)
                .map(|r| r.map_err(|e| format!("{e}: {uuid} is not kept across reboots"))),
            (Step::RemoveMdev { uuid, .. }, _) => mdevctl::undefine(uuid).map(|r| {
                r.map_err(|e| format!("{e}: its definition may bring {uuid} back at boot"))
            }),
            _ => None,
        };
        if let Some(Err(why)) = persisted {
            out.warn(why);
        }
        events.after_step(self.action());
        Ok(())
    }
}

/// Make one step and check that it took; returns the UUID of a created mdev device.
fn run_step(step: &Step, writer: &mut SysfsWriter) -> Result<Option<String>> {
    let root = writer.root().clone();
    match step {
        Step::EnableSriov { gpu } => {
            sriov::enable(gpu)?;
            let vfs = virtual_functions(&root.pci_device(gpu)).unwrap_or_default();
            if vfs.is_empty() {
                return Err(Error::failed(format!(
                    "sriov-manage -e {gpu} succeeded, but the GPU has no virtual functions"
                ))
                .with_hint("check `dmesg` and that SR-IOV is enabled in the BIOS"));
            }
            Ok(None)
        }
        Step::RemoveMdev { uuid, .. } => {
            writer
                .write(&Write::MdevRemove { uuid: uuid.clone() })
                .map_err(io)?;
            if root.path(MDEV_DEVICES).join(uuid).exists() {
                return Err(Error::failed("the device is still there after `remove`"));
            }
            Ok(None)
        }
        Step::ClearVf { vf, .. } => {
            writer
                .write(&Write::VfSetType {
                    vf: vf.clone(),
                    type_id: 0,
                })
                .map_err(io)?;
            expect_type(&root, vf, 0)?;
            Ok(None)
        }
        Step::CreateMdev {
            type_id, parent, ..
        } => {
            let uuid = mdev::new_uuid()
                .map_err(|e| Error::failed(format!("cannot get a UUID from the kernel: {e}")))?;
            writer
                .write(&Write::MdevCreate {
                    parent: parent.clone(),
                    type_id: *type_id,
                    uuid: uuid.clone(),
                })
                .map_err(io)?;
            if !root.path(MDEV_DEVICES).join(&uuid).exists() {
                return Err(Error::failed(format!(
                    "the kernel took the write, but no device {uuid} appeared"
                )));
            }
            Ok(Some(uuid))
        }
        Step::SetVfType { type_id, vf, .. } => {
            // The lists narrow as siblings fill up: ask the VF again right before writing.
            let dir = root.pci_device(vf);
            let creatable = vfio::creatable_types(&dir)
                .map_err(|e| Error::failed(format!("cannot read creatable_vgpu_types: {e}")))?;
            if !creatable.iter().any(|(id, _)| id == type_id) {
                let names: Vec<&str> = creatable.iter().map(|(_, n)| n.as_str()).collect();
                return Err(Error::failed(format!(
                    "the VF does not offer type {type_id} now (it offers: {})",
                    if names.is_empty() {
                        "nothing".to_string()
                    } else {
                        names.join(", ")
                    }
                )));
            }
            writer
                .write(&Write::VfSetType {
                    vf: vf.clone(),
                    type_id: *type_id,
                })
                .map_err(io)?;
            expect_type(&root, vf, *type_id)?;
            Ok(None)
        }
    }
}

fn expect_type(root: &crate::sharing::vgpu::sysfs::SysfsRoot, vf: &str, want: u32) -> Result<()> {
    let now = vfio::current_type(&root.pci_device(vf))
        .map_err(|e| Error::failed(format!("cannot read current_vgpu_type: {e}")))?;
    if now != Some(want) {
        return Err(Error::failed(format!(
            "current_vgpu_type reads {} after writing {want}",
            now.map_or_else(|| "nothing".into(), |n| n.to_string())
        )));
    }
    Ok(())
}
