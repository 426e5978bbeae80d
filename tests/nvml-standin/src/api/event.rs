//! Event sets (`nvmlEventSet*`, `nvmlDeviceRegisterEvents`): what the device plugin's health
//! check waits on. The simulated node raises Xid and ECC events when told to (`gpushare sim xid`,
//! kept in its state with a sequence number): a wait hands out, once per set, each event raised
//! after the set was made on a GPU it registered for that kind, with its MIG device's ids, as the
//! driver does; with none, it lasts its timeout and answers TIMEOUT, as a healthy GPU's does.

use super::{gpu, whole_gpu};
use crate::call::*;
use crate::{handles, node, profiles};
use gpushare::node::backend::sim::events::SimEvent;
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

/// What an open set registered, and the last event it handed out.
#[derive(Default)]
struct Set {
    /// GPU → event types.
    registered: BTreeMap<u32, u64>,
    /// The sequence number of the last event handed out (or raised before the set was made).
    seen: u64,
}

/// The open sets by id.
static SETS: Mutex<BTreeMap<usize, Set>> = Mutex::new(BTreeMap::new());

fn sets() -> std::sync::MutexGuard<'static, BTreeMap<usize, Set>> {
    SETS.lock().unwrap_or_else(|e| e.into_inner())
}

/// How often a wait looks for new events.
const POLL: Duration = Duration::from_millis(50);
/// `gpuInstanceId`/`computeInstanceId` of an event that is not on a MIG device.
const NO_INSTANCE: c_uint = 0xFFFF_FFFF;

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
        // Only events raised from now on are this set's.
        let seen = node::read(|s| Ok(s.events.last().map_or(0, |e| e.seq)))?;
        sets().insert(
            id,
            Set {
                registered: BTreeMap::new(),
                seen,
            },
        );
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
            if let Some(open) = sets().get_mut(&id) {
                *open.registered.entry(index).or_default() |= types;
            }
            Ok(())
        },
    )
}

fn wait(name: &'static str, set: nvmlEventSet_t, data: *mut nvmlEventData_t, ms: c_uint) -> Ret {
    call(name, Record::default().arg("timeout_ms", ms), |rec| {
        let id = set_id(set)?;
        if data.is_null() {
            return Err(Fail::new(INVALID_ARGUMENT, "null event data"));
        }
        let deadline = std::time::Instant::now() + Duration::from_millis(ms.into());
        loop {
            if let Some(event) = next_event(id)? {
                rec.out("seq", event.seq);
                let (gi, ci) = event.mig_device.unwrap_or((NO_INSTANCE, NO_INSTANCE));
                return put(
                    data,
                    nvmlEventData_t {
                        device: handles::Handle::Device { gpu: event.gpu }.as_ptr(),
                        eventType: event.kind.nvml_type(),
                        eventData: event.xid,
                        gpuInstanceId: gi,
                        computeInstanceId: ci,
                    },
                );
            }
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return Err(Fail::new(TIMEOUT, "no event"));
            }
            std::thread::sleep(left.min(POLL));
            // A set freed or a session closed meanwhile ends the wait as the driver's would.
            set_id(set)?;
            if handles::session().is_none() {
                return Err(Fail::new(UNINITIALIZED, "nvmlShutdown during the wait"));
            }
        }
    })
}

/// The first event set `id` has not handed out that it registered for, now marked as handed out.
fn next_event(id: usize) -> Result<Option<SimEvent>, Fail> {
    let (registered, seen) = match sets().get(&id) {
        Some(open) => (open.registered.clone(), open.seen),
        None => return Err(Fail::new(INVALID_ARGUMENT, "the event set was freed")),
    };
    let event = node::read(|s| {
        Ok(s.events
            .iter()
            .find(|e| {
                e.seq > seen
                    && registered
                        .get(&e.gpu)
                        .is_some_and(|types| types & e.kind.nvml_type() != 0)
            })
            .cloned())
    })?;
    if let (Some(e), Some(open)) = (&event, sets().get_mut(&id)) {
        open.seen = open.seen.max(e.seq);
    }
    Ok(event)
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
