//! One GPU's driver calls, and what the run keeps about the GPU between them. A GPU's changes
//! are made by one thread at a time, in order, so this needs no lock.

use crate::change::plan::{Change, GpuInstanceRef, Operation, Status};
use crate::node::backend::{Backend, DriverError, DriverErrorKind, ModeChange};
use std::collections::BTreeMap;

#[derive(Debug, Default)]
pub(super) struct GpuRun {
    /// GPU instances this run created on the GPU: placement start → id.
    created: BTreeMap<u32, u32>,
    /// Set by an `AwaitReboot` change and by the driver: the GPU's later changes are not made.
    pub awaiting_reboot: bool,
}

impl GpuRun {
    /// Make a change the driver makes; its status once made.
    pub(super) fn driver_call(
        &mut self,
        change: &Change,
        backend: &dyn Backend,
    ) -> Result<Status, DriverError> {
        let gpu = change.gpu;
        match change.operation {
            Operation::SetMigMode(mode) => {
                if backend.set_mig_mode(gpu, mode)? == ModeChange::PendingReboot {
                    self.awaiting_reboot = true;
                }
            }
            Operation::DestroyComputeInstance {
                gpu_instance_id,
                compute_instance_id,
            } => backend.destroy_compute_instance(gpu, gpu_instance_id, compute_instance_id)?,
            Operation::DestroyGpuInstance { gpu_instance_id } => {
                backend.destroy_gpu_instance(gpu, gpu_instance_id)?
            }
            Operation::CreateGpuInstance {
                profile_id,
                placement,
            } => {
                let id = backend.create_gpu_instance(gpu, profile_id, placement)?;
                self.created.insert(placement.start, id);
            }
            Operation::CreateComputeInstance {
                gpu_instance,
                profile_id,
            } => {
                let id = match gpu_instance {
                    GpuInstanceRef::Id(id) => Some(id),
                    GpuInstanceRef::CreatedAt(p) => self.created.get(&p.start).copied(),
                };
                let Some(id) = id else {
                    return Err(DriverError::new(
                        DriverErrorKind::NotFound,
                        "the GPU instance it belongs in was not created",
                    ));
                };
                backend.create_compute_instance(gpu, id, profile_id)?;
            }
            Operation::SetComputeMode { device, mode } => backend.set_compute_mode(device, mode)?,
            Operation::AwaitReboot => self.awaiting_reboot = true,
            // Resets go to the driver together; the other steps go to the runner.
            Operation::ResetIfPending
            | Operation::ResetUnhealthy
            | Operation::Host(_)
            | Operation::StopClient(_)
            | Operation::StartClient(_)
            | Operation::Hook(_)
            | Operation::Later(_) => {}
        }
        Ok(if self.awaiting_reboot {
            Status::AwaitingReboot
        } else {
            Status::Done
        })
    }
}
