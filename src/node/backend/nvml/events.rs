//! The health watch on NVML: an event set on every GPU for the Xid and ECC events it supports,
//! waited on with `nvmlEventSetWait_v2`, whose data names the MIG device (GPU and compute
//! instance ids) that nvml-wrapper's wait leaves out. The watch has its own NVML session.

use super::error::{self as code, SUCCESS, symbol};
use crate::node::backend::events::{Cause, DeviceEvent, EventWatch};
use crate::node::backend::{DriverError, DriverErrorKind, DriverResult};
use nvml_wrapper::Nvml;
use nvml_wrapper_sys::bindings::*;
use std::time::Duration;

const SINGLE_BIT_ECC: u64 = 0x1;
const DOUBLE_BIT_ECC: u64 = 0x2;
const XID_CRITICAL: u64 = 0x8;
const HEALTH_EVENTS: u64 = SINGLE_BIT_ECC | DOUBLE_BIT_ECC | XID_CRITICAL;
const TIMEOUT: nvmlReturn_t = 10;
/// The instance id of an event that is not on a MIG device.
const NO_INSTANCE: u32 = u32::MAX;

pub(crate) struct NvmlWatch {
    nvml: Nvml,
    set: nvmlEventSet_t,
    /// The GPUs registered: their handle, index and UUID.
    gpus: Vec<(usize, u32, String)>,
    unwatched: Vec<(u32, String)>,
}

// SAFETY: NVML is thread-safe; the set and the handles are the driver's, used from the one
// thread that owns the watch.
unsafe impl Send for NvmlWatch {}

impl NvmlWatch {
    /// A watch on its own NVML session `nvml`.
    pub(super) fn new(nvml: Nvml) -> DriverResult<Self> {
        let lib = nvml.lib();
        let create = *symbol(lib.nvmlEventSetCreate.as_ref(), "nvmlEventSetCreate")?;
        let mut set: nvmlEventSet_t = std::ptr::null_mut();
        // SAFETY: an out pointer for the new set, freed in Drop.
        code::check(unsafe { create(&mut set) }, "nvmlEventSetCreate")?;
        let mut watch = NvmlWatch {
            nvml,
            set,
            gpus: Vec::new(),
            unwatched: Vec::new(),
        };
        watch.register_all()?;
        Ok(watch)
    }

    /// Register every GPU for the health events it supports; a GPU that supports none, or
    /// refuses, is unwatched with the driver's reason.
    fn register_all(&mut self) -> DriverResult<()> {
        let nvml = &self.nvml;
        let lib = nvml.lib();
        let supported = *symbol(
            lib.nvmlDeviceGetSupportedEventTypes.as_ref(),
            "nvmlDeviceGetSupportedEventTypes",
        )?;
        let register = *symbol(
            lib.nvmlDeviceRegisterEvents.as_ref(),
            "nvmlDeviceRegisterEvents",
        )?;
        let count = nvml
            .device_count()
            .map_err(|e| super::error::driver_error(e, "nvmlDeviceGetCount"))?;
        for index in 0..count {
            let device = nvml
                .device_by_index(index)
                .map_err(|e| super::error::driver_error(e, "nvmlDeviceGetHandleByIndex"))?;
            let uuid = device
                .uuid()
                .map_err(|e| super::error::driver_error(e, "nvmlDeviceGetUUID"))?;
            // SAFETY: the handle is the driver's, valid while this session is open.
            let handle = unsafe { device.handle() };
            let mut types: u64 = 0;
            // SAFETY: a live device handle and an out pointer.
            let answer = unsafe { supported(handle, &mut types) };
            let wanted = types & HEALTH_EVENTS;
            let refused = if answer != SUCCESS {
                Some(code::error(answer, "nvmlDeviceGetSupportedEventTypes").to_string())
            } else if wanted == 0 {
                Some("the driver raises no Xid or ECC events for it".to_string())
            } else {
                // SAFETY: a live device handle and the set this watch owns.
                match unsafe { register(handle, wanted, self.set) } {
                    SUCCESS => None,
                    code => Some(code::error(code, "nvmlDeviceRegisterEvents").to_string()),
                }
            };
            match refused {
                Some(why) => self.unwatched.push((index, why)),
                None => self.gpus.push((handle as usize, index, uuid)),
            }
        }
        Ok(())
    }

    /// Which GPU a handle is, by the handles registered or, failing that, the driver's index.
    fn gpu_of(&self, handle: nvmlDevice_t) -> DriverResult<(u32, String)> {
        if let Some((_, index, uuid)) = self.gpus.iter().find(|(h, _, _)| *h == handle as usize) {
            return Ok((*index, uuid.clone()));
        }
        let lib = self.nvml.lib();
        let get_index = *symbol(lib.nvmlDeviceGetIndex.as_ref(), "nvmlDeviceGetIndex")?;
        let mut index = 0u32;
        code::check(
            // SAFETY: the handle the driver handed out with the event, and an out pointer.
            unsafe { get_index(handle, &mut index) },
            "nvmlDeviceGetIndex",
        )?;
        let uuid = self
            .gpus
            .iter()
            .find(|(_, i, _)| *i == index)
            .map(|(_, _, u)| u.clone())
            .ok_or_else(|| {
                DriverError::new(
                    DriverErrorKind::Unknown,
                    format!("an event for GPU {index}, which was not registered"),
                )
            })?;
        Ok((index, uuid))
    }
}

/// The cause an event's type and data name; None for a type the watch did not ask for.
fn cause_of(event_type: u64, data: u64) -> Option<Cause> {
    if event_type & XID_CRITICAL != 0 {
        Some(Cause::Xid(data))
    } else if event_type & DOUBLE_BIT_ECC != 0 {
        Some(Cause::EccDoubleBit)
    } else if event_type & SINGLE_BIT_ECC != 0 {
        Some(Cause::EccSingleBit)
    } else {
        None
    }
}

impl EventWatch for NvmlWatch {
    fn next(&mut self, timeout: Duration) -> DriverResult<Option<DeviceEvent>> {
        let lib = self.nvml.lib();
        let wait = *symbol(lib.nvmlEventSetWait_v2.as_ref(), "nvmlEventSetWait_v2")?;
        let ms = u32::try_from(timeout.as_millis()).unwrap_or(u32::MAX);
        // SAFETY: plain old data the driver fills in.
        let mut data: nvmlEventData_t = unsafe { std::mem::zeroed() };
        // SAFETY: the set this watch owns and an out pointer.
        match unsafe { wait(self.set, &mut data, ms) } {
            SUCCESS => {}
            TIMEOUT => return Ok(None),
            other => return Err(code::error(other, "nvmlEventSetWait_v2")),
        }
        let Some(cause) = cause_of(data.eventType, data.eventData) else {
            return Ok(None);
        };
        let (gpu, uuid) = self.gpu_of(data.device)?;
        let mig_device = (data.gpuInstanceId != NO_INSTANCE
            && data.computeInstanceId != NO_INSTANCE)
            .then_some((data.gpuInstanceId, data.computeInstanceId));
        Ok(Some(DeviceEvent {
            gpu,
            uuid,
            cause,
            mig_device,
        }))
    }

    fn unwatched(&self) -> Vec<(u32, String)> {
        self.unwatched.clone()
    }
}

impl Drop for NvmlWatch {
    fn drop(&mut self) {
        if let Ok(free) = symbol(
            self.nvml.lib().nvmlEventSetFree.as_ref(),
            "nvmlEventSetFree",
        ) {
            // SAFETY: the set this watch created, freed once, before its session closes.
            unsafe { free(self.set) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_type_is_its_cause() {
        assert_eq!(cause_of(XID_CRITICAL, 79), Some(Cause::Xid(79)));
        assert_eq!(cause_of(DOUBLE_BIT_ECC, 0), Some(Cause::EccDoubleBit));
        assert_eq!(cause_of(SINGLE_BIT_ECC, 0), Some(Cause::EccSingleBit));
        assert_eq!(cause_of(0x10, 0), None);
    }
}
