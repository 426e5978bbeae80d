//! MIG mode and MIG device handles.

use super::{device_handle, gpu, live_ci, live_gi, mig_devices, whole_gpu};
use crate::call::*;
use crate::handles::Handle;
use crate::{node, profiles, switches};
use gpushare::node::backend::ModeChange;
use gpushare::node::model::MigMode;
use nvml_wrapper_sys::bindings::nvmlDevice_t;
use std::os::raw::c_uint;

fn raw(device: nvmlDevice_t) -> usize {
    device as usize
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetMigMode(
    device: nvmlDevice_t,
    current: *mut c_uint,
    pending: *mut c_uint,
) -> Ret {
    call(
        "nvmlDeviceGetMigMode",
        Record::default().handle(raw(device)),
        |rec| {
            let (c, p) = node::read(|s| {
                let g = gpu(s, whole_gpu(raw(device))?)?;
                profiles::table(g)?;
                Ok((g.mig_current.is_enabled(), g.mig_pending.is_enabled()))
            })?;
            rec.out("current", c);
            rec.out("pending", p);
            put(current, u32::from(c))?;
            put(pending, u32::from(p))
        },
    )
}

/// nvml.h: the call succeeds and `activationStatus` says whether the mode is active now
/// (SUCCESS), waits for a GPU reset (IN_USE: the GPU was busy) or for a reboot
/// (RESET_REQUIRED: no reset possible here).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceSetMigMode(
    device: nvmlDevice_t,
    mode: c_uint,
    activation_status: *mut Ret,
) -> Ret {
    call(
        "nvmlDeviceSetMigMode",
        Record::default().handle(raw(device)).arg("mode", mode),
        |rec| {
            require_root()?;
            let wanted = match mode {
                0 => MigMode::Disabled,
                1 => MigMode::Enabled,
                _ => return Err(Fail::new(INVALID_ARGUMENT, format!("mode {mode}"))),
            };
            if activation_status.is_null() {
                return Err(Fail::new(INVALID_ARGUMENT, "null activationStatus"));
            }
            let index = whole_gpu(raw(device))?;
            let outcome = node::change(|s| Ok(s.set_mig_mode(index, wanted)?))?;
            let status = match outcome {
                ModeChange::Applied => SUCCESS,
                ModeChange::PendingReset => IN_USE,
                ModeChange::PendingReboot => RESET_REQUIRED,
            };
            rec.out("activationStatus", code_name(status));
            put(activation_status, status)
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetMaxMigDeviceCount(
    device: nvmlDevice_t,
    count: *mut c_uint,
) -> Ret {
    call(
        "nvmlDeviceGetMaxMigDeviceCount",
        Record::default().handle(raw(device)),
        |_| {
            // nvml.h: zero when MIG is not supported or not enabled.
            let n = node::read(|s| {
                let g = gpu(s, whole_gpu(raw(device))?)?;
                Ok(match profiles::table(g) {
                    Ok(t) if g.mig_current.is_enabled() || switches::max_mig_devices_always() => {
                        t.compute_slices
                    }
                    _ => 0,
                })
            })?;
            put(count, n)
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetMigDeviceHandleByIndex(
    device: nvmlDevice_t,
    index: c_uint,
    mig_device: *mut nvmlDevice_t,
) -> Ret {
    call(
        "nvmlDeviceGetMigDeviceHandleByIndex",
        Record::default().handle(raw(device)).arg("index", index),
        |rec| {
            let h = node::read(|s| {
                let gpu_index = whole_gpu(raw(device))?;
                let g = gpu(s, gpu_index)?;
                let table = profiles::require_mig_enabled(g)?;
                if index >= table.compute_slices {
                    return Err(Fail::new(
                        INVALID_ARGUMENT,
                        format!("index {index} of {}", table.compute_slices),
                    ));
                }
                let (gi, ci) = *mig_devices(g)
                    .get(index as usize)
                    .ok_or_else(|| Fail::new(NOT_FOUND, format!("no MIG device {index}")))?;
                Ok(Handle::MigDevice {
                    gpu: gpu_index,
                    gi,
                    ci,
                })
            })?;
            rec.out_handle(h);
            put(mig_device, h.as_ptr())
        },
    )
}

/// The (GPU instance, compute instance) of a live MIG device handle.
fn mig_ids(raw: usize) -> Result<(u32, u32), Fail> {
    match device_handle(raw)? {
        Handle::MigDevice { gpu: g, gi, ci } => node::read(|s| {
            live_ci(live_gi(gpu(s, g)?, gi)?, ci)?;
            Ok((gi, ci))
        }),
        _ => Err(Fail::new(NOT_SUPPORTED, "not a MIG device handle")),
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetGpuInstanceId(device: nvmlDevice_t, id: *mut c_uint) -> Ret {
    call(
        "nvmlDeviceGetGpuInstanceId",
        Record::default().handle(raw(device)),
        |_| put(id, mig_ids(raw(device))?.0),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetComputeInstanceId(
    device: nvmlDevice_t,
    id: *mut c_uint,
) -> Ret {
    call(
        "nvmlDeviceGetComputeInstanceId",
        Record::default().handle(raw(device)),
        |_| put(id, mig_ids(raw(device))?.1),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceIsMigDeviceHandle(
    device: nvmlDevice_t,
    is_mig: *mut c_uint,
) -> Ret {
    call(
        "nvmlDeviceIsMigDeviceHandle",
        Record::default().handle(raw(device)),
        |_| {
            let mig = matches!(super::device_handle(raw(device))?, Handle::MigDevice { .. });
            put(is_mig, u32::from(mig))
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetDeviceHandleFromMigDeviceHandle(
    mig_device: nvmlDevice_t,
    device: *mut nvmlDevice_t,
) -> Ret {
    call(
        "nvmlDeviceGetDeviceHandleFromMigDeviceHandle",
        Record::default().handle(raw(mig_device)),
        |_| {
            mig_ids(raw(mig_device))?;
            let gpu = super::device_handle(raw(mig_device))?.gpu();
            put(device, Handle::Device { gpu }.as_ptr())
        },
    )
}

/// The engines and size of a MIG device; nvml.h: "only supports MIG device handles" (a whole
/// GPU is NOT_SUPPORTED).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetAttributes_v2(
    device: nvmlDevice_t,
    attributes: *mut nvml_wrapper_sys::bindings::nvmlDeviceAttributes_t,
) -> Ret {
    call(
        "nvmlDeviceGetAttributes_v2",
        Record::default().handle(raw(device)),
        |_| {
            let Handle::MigDevice { gpu: g, gi, ci } = device_handle(raw(device))? else {
                return Err(Fail::new(NOT_SUPPORTED, "not a MIG device handle"));
            };
            let found = node::read(|s| {
                let g = gpu(s, g)?;
                let table = profiles::table(g)?;
                let instance = live_gi(g, gi)?;
                let compute = live_ci(instance, ci)?;
                let gi_profile = profiles::gi_profile_of(table, instance)?;
                let ci_profile = profiles::ci_profile_by_id(table, gi_profile, compute.profile_id)?;
                Ok((gi_profile, ci_profile))
            })?;
            let (gi_profile, ci_profile) = found;
            put(
                attributes,
                nvml_wrapper_sys::bindings::nvmlDeviceAttributes_t {
                    multiprocessorCount: ci_profile.sm,
                    sharedCopyEngineCount: gi_profile.ce,
                    sharedDecoderCount: gi_profile.dec,
                    sharedEncoderCount: gi_profile.enc,
                    sharedJpegCount: gi_profile.jpeg,
                    sharedOfaCount: gi_profile.ofa,
                    gpuInstanceSliceCount: gi_profile.slices,
                    computeInstanceSliceCount: ci_profile.slices,
                    memorySizeMB: gi_profile.memory_mib,
                },
            )
        },
    )
}
