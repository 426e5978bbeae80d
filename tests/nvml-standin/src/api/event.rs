//! Event sets (`nvmlEventSet*`, `nvmlDeviceRegisterEvents`): what the device plugin's health
//! check waits on. A simulated node raises no event (no Xid, no ECC error), so a wait lasts its
//! timeout and answers TIMEOUT, as a healthy GPU's does.

use super::{gpu, whole_gpu};
use crate::call::*;
use crate::{handles, node, profiles};
use nvml_wrapper_sys::bindings::*;
use std::collections::BTreeMap;
use std::os::raw::{c_uint, c_ulonglong};
use std::sync::Mutex;
use std::time::Duration;

// nvmlEventType*: ECC single and double bit, P-state, Xid, clock; MIG reconfiguration on GPUs
// that have MIG.
const EVENTS_OF_EVERY_GPU: u64 = 0x1 | 0x2 | 0x4 | 0x8 | 0x10;
const MIG_CONFIG_CHANGE: u64 = 0x100;

/// An event set's value carries this tag, so no device handle is taken for one.
const SET_TAG: usize = 0x5 << 60;

/// The open sets: id → (GPU → event types registered).
static SETS: Mutex<BTreeMap<usize, BTreeMap<u32, u64>>> = Mutex::new(BTreeMap::new());

fn sets() -> std::sync::MutexGuard<'static, BTreeMap<usize, BTreeMap<u32, u64>>> {
    SETS.lock().unwrap_or_else(|e| e.into_inner())
}

fn set_id(set: nvmlEventSet_t) -> Result<usize, Fail> {
    let raw = set as usize;
    let id = raw & !SET_TAG;
    if raw & SET_TAG != SET_TAG || !sets().contains_key(&id) {
        return Err(Fail::new(
            INVALID_ARGUMENT,
            format!("{raw:#x} is not an event set"),
        ));
    }
    Ok(id)
}

fn supported(index: u32) -> Result<u64, Fail> {
    node::read(|s| {
        let mig = profiles::table(gpu(s, index)?).is_ok();
        Ok(EVENTS_OF_EVERY_GPU | if mig { MIG_CONFIG_CHANGE } else { 0 })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlEventSetCreate(set: *mut nvmlEventSet_t) -> Ret {
    call("nvmlEventSetCreate", Record::default(), |rec| {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static NEXT: AtomicUsize = AtomicUsize::new(1);
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        put(set, std::ptr::without_provenance_mut(SET_TAG | id))?;
        sets().insert(id, BTreeMap::new());
        rec.out("set", id as u64);
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nvmlEventSetFree(set: nvmlEventSet_t) -> Ret {
    call("nvmlEventSetFree", Record::default(), |_| {
        let id = set_id(set)?;
        sets().remove(&id);
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetSupportedEventTypes(
    device: nvmlDevice_t,
    types: *mut c_ulonglong,
) -> Ret {
    call(
        "nvmlDeviceGetSupportedEventTypes",
        Record::default().handle(device as usize),
        |_| put(types, supported(whole_gpu(device as usize)?)?),
    )
}

#[unsafe(no_mangle)]
pub extern "C" fn nvmlDeviceRegisterEvents(
    device: nvmlDevice_t,
    types: c_ulonglong,
    set: nvmlEventSet_t,
) -> Ret {
    call(
        "nvmlDeviceRegisterEvents",
        Record::default()
            .handle(device as usize)
            .arg("types", types),
        |_| {
            let index = whole_gpu(device as usize)?;
            let id = set_id(set)?;
            if types & !supported(index)? != 0 {
                return Err(Fail::new(
                    NOT_SUPPORTED,
                    format!("GPU {index} cannot raise events {types:#x}"),
                ));
            }
            if let Some(registered) = sets().get_mut(&id) {
                *registered.entry(index).or_default() |= types;
            }
            Ok(())
        },
    )
}

fn wait(name: &'static str, set: nvmlEventSet_t, data: *mut nvmlEventData_t, ms: c_uint) -> Ret {
    call(name, Record::default().arg("timeout_ms", ms), |_| {
        set_id(set)?;
        if data.is_null() {
            return Err(Fail::new(INVALID_ARGUMENT, "null event data"));
        }
        std::thread::sleep(Duration::from_millis(ms.into()));
        // A set freed or a session closed meanwhile ends the wait as the driver's would.
        set_id(set)?;
        if handles::session().is_none() {
            return Err(Fail::new(UNINITIALIZED, "nvmlShutdown during the wait"));
        }
        Err(Fail::new(TIMEOUT, "no event on a simulated node"))
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nvmlEventSetWait_v2(
    set: nvmlEventSet_t,
    data: *mut nvmlEventData_t,
    timeout_ms: c_uint,
) -> Ret {
    wait("nvmlEventSetWait_v2", set, data, timeout_ms)
}

#[unsafe(no_mangle)]
pub extern "C" fn nvmlEventSetWait(
    set: nvmlEventSet_t,
    data: *mut nvmlEventData_t,
    timeout_ms: c_uint,
) -> Ret {
    wait("nvmlEventSetWait", set, data, timeout_ms)
}
