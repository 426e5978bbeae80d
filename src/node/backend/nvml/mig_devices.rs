//! MIG devices: the handles through which CUDA and the compute mode see compute instances.

use super::compute_mode::from_nvml_mode;
use super::error::{SUCCESS, driver_error, symbol};
use super::ffi::{MIB, memory_info};
use crate::node::backend::{DriverError, DriverErrorKind, DriverResult};
use crate::node::model::ComputeMode;
use nvml_wrapper::error::NvmlError;
use nvml_wrapper::{Device, Nvml};

/// A MIG device: which compute instance it is, its UUID, compute mode and the memory in use
/// in its GPU instance.
pub(super) struct MigDevice {
    pub index: u32,
    pub gpu_instance_id: u32,
    pub compute_instance_id: u32,
    /// `Err`: the driver refused it (the snapshot notes why it is unknown).
    pub uuid: DriverResult<String>,
    pub compute_mode: DriverResult<ComputeMode>,
    pub memory_used_mib: DriverResult<u64>,
}

/// The MIG devices of a GPU. NOT_FOUND for an index means no MIG device there (the driver
/// numbers them sparsely); other refusals are errors.
pub(super) fn mig_devices(nvml: &Nvml, device: &Device) -> DriverResult<Vec<MigDevice>> {
    let lib = nvml.lib();
    let gi_id = symbol(
        lib.nvmlDeviceGetGpuInstanceId.as_ref(),
        "nvmlDeviceGetGpuInstanceId",
    )?;
    let ci_id = symbol(
        lib.nvmlDeviceGetComputeInstanceId.as_ref(),
        "nvmlDeviceGetComputeInstanceId",
    )?;
    let max = device
        .mig_device_count()
        .map_err(|e| driver_error(e, "nvmlDeviceGetMaxMigDeviceCount"))?;
    let mut out = Vec::new();
    for index in 0..max {
        let mig = match device.mig_device_by_index(index) {
            Ok(mig) => mig,
            Err(NvmlError::NotFound) => continue,
            Err(e) => {
                return Err(driver_error(
                    e,
                    &format!("nvmlDeviceGetMigDeviceHandleByIndex ({index})"),
                ));
            }
        };
        let (mut gi, mut ci) = (0u32, 0u32);
        // SAFETY: a live MIG device handle and out pointers.
        let codes = unsafe { (gi_id(mig.handle(), &mut gi), ci_id(mig.handle(), &mut ci)) };
        if codes != (SUCCESS, SUCCESS) {
            let code = if codes.0 != SUCCESS { codes.0 } else { codes.1 };
            return Err(super::error::error(
                code,
                format!("nvmlDeviceGetGpuInstanceId/ComputeInstanceId of MIG device {index}"),
            ));
        }
        out.push(MigDevice {
            index,
            gpu_instance_id: gi,
            compute_instance_id: ci,
            uuid: mig
                .uuid()
                .map_err(|e| driver_error(e, &format!("nvmlDeviceGetUUID (MIG device {index})"))),
            compute_mode: mig.compute_mode().map(from_nvml_mode).map_err(|e| {
                driver_error(e, &format!("nvmlDeviceGetComputeMode (MIG device {index})"))
            }),
            memory_used_mib: memory_info(nvml, &mig).map(|m| m.used / MIB),
        });
    }
    Ok(out)
}

/// The MIG device handle of a compute instance (for its compute mode).
pub(super) fn mig_device<'n>(
    nvml: &'n Nvml,
    device: &Device<'n>,
    gpu_instance_id: u32,
    compute_instance_id: u32,
) -> DriverResult<Device<'n>> {
    let found = mig_devices(nvml, device)?
        .into_iter()
        .find(|m| {
            m.gpu_instance_id == gpu_instance_id && m.compute_instance_id == compute_instance_id
        })
        .ok_or_else(|| {
            DriverError::new(
                DriverErrorKind::NotFound,
                format!(
                    "no MIG device for compute instance {gpu_instance_id}:{compute_instance_id}"
                ),
            )
        })?;
    device
        .mig_device_by_index(found.index)
        .map_err(|e| driver_error(e, "nvmlDeviceGetMigDeviceHandleByIndex"))
}
