//! The stand-in answers as nvml.h says, called the way a C caller would.
//!
//! One test, in order: the stand-in reads its switches from the environment, and a process has one
//! NVML session, so the steps cannot run side by side.

// The steps call C entry points under one contract, stated where they run.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::api::*;
use crate::call::*;
use crate::handles;
use nvml_wrapper_sys::bindings::*;
use std::mem::{size_of, zeroed};
use std::ptr::null_mut;

fn set(var: &str, value: Option<&str>) {
    // SAFETY: this is the crate's only test that reads or writes the environment, and it runs
    // its steps one after the other.
    unsafe {
        match value {
            Some(v) => std::env::set_var(var, v),
            None => std::env::remove_var(var),
        }
    }
}

fn version<T>(ver: u32) -> u32 {
    size_of::<T>() as u32 | (ver << 24)
}

unsafe fn handle(index: u32) -> nvmlDevice_t {
    let mut d: nvmlDevice_t = null_mut();
    assert_eq!(nvmlDeviceGetHandleByIndex_v2(index, &mut d), SUCCESS);
    d
}

unsafe fn gi_info_v1(d: nvmlDevice_t, profile: u32) -> (Ret, nvmlGpuInstanceProfileInfo_t) {
    let mut info: nvmlGpuInstanceProfileInfo_t = zeroed();
    let r = nvmlDeviceGetGpuInstanceProfileInfo(d, profile, &mut info);
    (r, info)
}

unsafe fn gi_info_v(
    d: nvmlDevice_t,
    profile: u32,
    ver: u32,
) -> (Ret, nvmlGpuInstanceProfileInfo_v2_t) {
    let mut info: nvmlGpuInstanceProfileInfo_v2_t = zeroed();
    info.version = ver;
    let r = nvmlDeviceGetGpuInstanceProfileInfoV(d, profile, &mut info);
    (r, info)
}

unsafe fn create_gi(d: nvmlDevice_t, id: u32, start: u32, size: u32) -> (Ret, nvmlGpuInstance_t) {
    let mut gi: nvmlGpuInstance_t = null_mut();
    let at = nvmlGpuInstancePlacement_t { start, size };
    let r = nvmlDeviceCreateGpuInstanceWithPlacement(d, id, &at, &mut gi);
    (r, gi)
}

unsafe fn ci_info(
    gi: nvmlGpuInstance_t,
    profile: u32,
) -> (Ret, nvmlComputeInstanceProfileInfo_v2_t) {
    let mut info: nvmlComputeInstanceProfileInfo_v2_t = zeroed();
    info.version = version::<nvmlComputeInstanceProfileInfo_v2_t>(2);
    let r = nvmlGpuInstanceGetComputeInstanceProfileInfoV(gi, profile, 0, &mut info);
    (r, info)
}

fn name(raw: &[std::os::raw::c_char]) -> String {
    raw.iter()
        .take_while(|c| **c != 0)
        .map(|c| *c as u8 as char)
        .collect()
}

#[test]
fn the_stand_in_answers_as_nvml_h_says() {
    // SAFETY: every call passes handles of the current session and pointers to live locals of
    // the types nvml.h names, as it asks of a caller.
    unsafe { steps() }
}

unsafe fn steps() {
    let dir = std::env::temp_dir().join(format!("nvml-standin-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let state = dir.join("node.json");
    set(crate::STATE_ENV, Some(state.to_str().unwrap()));
    // 2x A100 80GB PCIe (MIG, disabled) + 2x T4 (no MIG).
    set(crate::NODE_ENV, Some("mixed"));
    for v in [
        crate::LOG_ENV,
        crate::NON_ROOT_ENV,
        crate::CI_ID_OFFSET_ENV,
        crate::NVL_ENV,
        crate::FAIL_ENV,
    ] {
        set(v, None);
    }
    let mut count = 0u32;

    // Nothing answers before nvmlInit.
    assert_eq!(nvmlDeviceGetCount_v2(&mut count), UNINITIALIZED);
    assert_eq!(nvmlInit_v2(), SUCCESS);
    assert!(
        crate::holders::dir(&state)
            .join(std::process::id().to_string())
            .exists()
    );
    assert_eq!(nvmlDeviceGetCount_v2(&mut count), SUCCESS);
    assert_eq!(count, 4);
    let (a100, t4) = (handle(0), handle(2));
    let mut bad: nvmlDevice_t = null_mut();
    assert_eq!(nvmlDeviceGetHandleByIndex_v2(4, &mut bad), INVALID_ARGUMENT);

    // A GPU without MIG: NOT_SUPPORTED, but an index past the count is an invalid argument.
    let (mut cur, mut pend) = (0u32, 0u32);
    assert_eq!(nvmlDeviceGetMigMode(t4, &mut cur, &mut pend), NOT_SUPPORTED);
    assert_eq!(gi_info_v1(t4, 0).0, NOT_SUPPORTED);
    assert_eq!(gi_info_v1(a100, 0x12).0, INVALID_ARGUMENT);

    // MIG disabled: the v1 call and the placements answer, the V call and the capacity do not.
    let (r, info) = gi_info_v1(a100, 0);
    assert_eq!((r, info.id, info.sliceCount), (SUCCESS, 19, 1));
    let v2 = version::<nvmlGpuInstanceProfileInfo_v2_t>(2);
    assert_eq!(gi_info_v(a100, 0, v2).0, NOT_SUPPORTED);
    assert_eq!(gi_info_v(a100, 0, 1 << 24).0, ARGUMENT_VERSION_MISMATCH);
    let mut n = 0u32;
    assert_eq!(
        nvmlDeviceGetGpuInstancePossiblePlacements_v2(a100, 19, null_mut(), &mut n),
        SUCCESS
    );
    assert_eq!(n, 7);
    assert_eq!(
        nvmlDeviceGetGpuInstanceRemainingCapacity(a100, 19, &mut n),
        NOT_SUPPORTED
    );
    assert_eq!(create_gi(a100, 9, 4, 4).0, NOT_SUPPORTED);

    // Versioned structs are checked.
    let mut mem: nvmlMemory_v2_t = zeroed();
    mem.version = 1;
    assert_eq!(
        nvmlDeviceGetMemoryInfo_v2(a100, &mut mem),
        ARGUMENT_VERSION_MISMATCH
    );
    mem.version = version::<nvmlMemory_v2_t>(2);
    assert_eq!(nvmlDeviceGetMemoryInfo_v2(a100, &mut mem), SUCCESS);
    assert_eq!(mem.total, 81920 * 1024 * 1024);

    // Enable MIG: idle, so it is current at once.
    let mut status = UNKNOWN;
    assert_eq!(nvmlDeviceSetMigMode(a100, 1, &mut status), SUCCESS);
    assert_eq!(status, SUCCESS);
    let (r, info) = gi_info_v(a100, 0, v2);
    assert_eq!((r, name(&info.name)), (SUCCESS, "MIG 1g.10gb".to_string()));
    let v3 = version::<nvmlGpuInstanceProfileInfo_v3_t>(3);
    let mut info3: nvmlGpuInstanceProfileInfo_v3_t = zeroed();
    info3.version = v3;
    let r = nvmlDeviceGetGpuInstanceProfileInfoV(a100, 0, (&raw mut info3).cast());
    assert_eq!(
        (r, info3.id, name(&info3.name).as_str()),
        (SUCCESS, 19, "MIG 1g.10gb")
    );

    // Placements: a short buffer is INSUFFICIENT_SIZE with the count needed.
    let mut buf = [nvmlGpuInstancePlacement_t { start: 0, size: 0 }; 2];
    let mut n = 2u32;
    assert_eq!(
        nvmlDeviceGetGpuInstancePossiblePlacements_v2(a100, 19, buf.as_mut_ptr(), &mut n),
        INSUFFICIENT_SIZE
    );
    assert_eq!(n, 7);

    // Placements in memory slices; no room, a bad placement.
    let (r, gi) = create_gi(a100, 9, 4, 4);
    assert_eq!(r, SUCCESS);
    assert_eq!(create_gi(a100, 9, 4, 4).0, INSUFFICIENT_RESOURCES);
    assert_eq!(create_gi(a100, 9, 1, 4).0, INVALID_ARGUMENT);
    let mut gi_info: nvmlGpuInstanceInfo_t = zeroed();
    assert_eq!(nvmlGpuInstanceGetInfo(gi, &mut gi_info), SUCCESS);
    assert_eq!(
        (
            gi_info.profileId,
            gi_info.placement.start,
            gi_info.placement.size
        ),
        (9, 4, 4)
    );

    // Compute instances: index 2 is the full 3-slice one; its id equals the index by default.
    let (r, info) = ci_info(gi, 2);
    assert_eq!((r, info.id, info.sliceCount), (SUCCESS, 2, 3));
    assert_eq!(ci_info(gi, 3).0, NOT_SUPPORTED, "no 4-slice CI in a 3g");
    assert_eq!(ci_info(gi, 9).0, INVALID_ARGUMENT);
    let mut ci: nvmlComputeInstance_t = null_mut();
    assert_eq!(
        nvmlGpuInstanceCreateComputeInstance(gi, 2, &mut ci),
        SUCCESS
    );
    // IN_USE while a compute instance is there.
    assert_eq!(nvmlGpuInstanceDestroy(gi), IN_USE);

    // Ids that differ from indices.
    set(crate::CI_ID_OFFSET_ENV, Some("3"));
    let (r, info) = ci_info(gi, 0);
    assert_eq!((r, info.id), (SUCCESS, 3));
    let mut other: nvmlComputeInstance_t = null_mut();
    assert_eq!(
        nvmlGpuInstanceCreateComputeInstance(gi, 0, &mut other),
        INVALID_ARGUMENT,
        "an index is not an id"
    );
    let mut ci_info_out: nvmlComputeInstanceInfo_t = zeroed();
    assert_eq!(nvmlComputeInstanceGetInfo_v2(ci, &mut ci_info_out), SUCCESS);
    assert_eq!(ci_info_out.profileId, 5, "index 2 + 3");
    set(crate::CI_ID_OFFSET_ENV, None);

    // MIG device handles.
    assert_eq!(nvmlDeviceGetMaxMigDeviceCount(a100, &mut n), SUCCESS);
    assert_eq!(n, 7);
    let mut mig: nvmlDevice_t = null_mut();
    assert_eq!(
        nvmlDeviceGetMigDeviceHandleByIndex(a100, 1, &mut mig),
        NOT_FOUND
    );
    assert_eq!(
        nvmlDeviceGetMigDeviceHandleByIndex(a100, 0, &mut mig),
        SUCCESS
    );
    let mut uuid = [0 as std::os::raw::c_char; 96];
    assert_eq!(nvmlDeviceGetUUID(mig, uuid.as_mut_ptr(), 96), SUCCESS);
    assert!(name(&uuid).starts_with("MIG-"));
    let mut id = 0u32;
    assert_eq!(nvmlDeviceGetGpuInstanceId(mig, &mut id), SUCCESS);
    assert_eq!(id, gi_info.id);
    assert_eq!(nvmlDeviceGetGpuInstanceId(a100, &mut id), NOT_SUPPORTED);

    // Minor numbers follow the GPUs' order; a MIG device has none. UUIDs find both.
    let mut minor = 9u32;
    assert_eq!(nvmlDeviceGetMinorNumber(t4, &mut minor), SUCCESS);
    assert_eq!(minor, 2);
    assert_eq!(nvmlDeviceGetMinorNumber(mig, &mut minor), NOT_SUPPORTED);
    // So do indices; the brand of a data-centre GPU is NVIDIA, and a PCIe or SXM host has no
    // addressing mode (NVIDIA's DRA driver asks all three).
    let mut index = 9u32;
    assert_eq!(nvmlDeviceGetIndex(t4, &mut index), SUCCESS);
    assert_eq!(index, 2);
    assert_eq!(nvmlDeviceGetIndex(mig, &mut index), NOT_SUPPORTED);
    let mut brand: nvmlBrandType_t = 0;
    assert_eq!(nvmlDeviceGetBrand(a100, &mut brand), SUCCESS);
    assert_eq!(brand, nvmlBrandType_enum_NVML_BRAND_NVIDIA);
    let mut mode = nvmlDeviceAddressingMode_t {
        version: version::<nvmlDeviceAddressingMode_t>(1),
        value: 9,
    };
    assert_eq!(nvmlDeviceGetAddressingMode(a100, &mut mode), NOT_SUPPORTED);
    assert_eq!(mode.value, 9);
    let mut found: nvmlDevice_t = null_mut();
    assert_eq!(
        nvmlDeviceGetHandleByUUID(uuid.as_ptr(), &mut found),
        SUCCESS
    );
    assert_eq!(found, mig);
    assert_eq!(nvmlDeviceGetUUID(a100, uuid.as_mut_ptr(), 96), SUCCESS);
    assert_eq!(
        nvmlDeviceGetHandleByUUID(uuid.as_ptr(), &mut found),
        SUCCESS
    );
    assert_eq!(found, a100);
    let missing = c"GPU-00000000-0000-0000-0000-000000000000";
    assert_eq!(
        nvmlDeviceGetHandleByUUID(missing.as_ptr(), &mut found),
        NOT_FOUND
    );

    // Event sets: Xid and ECC events are supported; nothing happens on a simulated node, so a
    // wait times out; a freed set is no set.
    let mut events: nvmlEventSet_t = null_mut();
    assert_eq!(nvmlEventSetCreate(&mut events), SUCCESS);
    let mut supported = 0u64;
    assert_eq!(
        nvmlDeviceGetSupportedEventTypes(a100, &mut supported),
        SUCCESS
    );
    assert_eq!(supported & 0x10b, 0x10b, "{supported:#x}");
    assert_eq!(
        nvmlDeviceGetSupportedEventTypes(t4, &mut supported),
        SUCCESS
    );
    assert_eq!(
        supported & 0x100,
        0,
        "no MIG, no MIG reconfiguration events"
    );
    assert_eq!(nvmlDeviceRegisterEvents(a100, 0x8, events), SUCCESS);
    assert_eq!(nvmlDeviceRegisterEvents(t4, 0x100, events), NOT_SUPPORTED);
    assert_eq!(nvmlDeviceRegisterEvents(mig, 0x8, events), NOT_SUPPORTED);
    let mut event: nvmlEventData_t = zeroed();
    assert_eq!(nvmlEventSetWait_v2(events, &mut event, 10), TIMEOUT);
    assert_eq!(nvmlEventSetFree(events), SUCCESS);
    assert_eq!(
        nvmlEventSetWait_v2(events, &mut event, 10),
        INVALID_ARGUMENT
    );
    assert_eq!(nvmlEventSetFree(events), INVALID_ARGUMENT);

    // A caller without root.
    set(crate::NON_ROOT_ENV, Some("1"));
    let mut list = [null_mut(); 2];
    assert_eq!(
        nvmlDeviceGetGpuInstances(a100, 9, list.as_mut_ptr(), &mut n),
        NO_PERMISSION
    );
    assert_eq!(gi_info_v1(a100, 0).0, SUCCESS, "profile info needs no root");
    let mut procs = 0u32;
    assert_eq!(
        nvmlDeviceGetComputeRunningProcesses_v3(a100, &mut procs, null_mut()),
        NO_PERMISSION,
        "the aggregate process list of a MIG GPU needs privileges"
    );
    set(crate::NON_ROOT_ENV, None);
    assert_eq!(
        nvmlDeviceGetGpuInstances(a100, 9, list.as_mut_ptr(), &mut n),
        SUCCESS
    );
    assert_eq!(n, 1);

    // The 7_SLICE_NVL compute profile, on full-GPU instances when switched on.
    let second = handle(1);
    assert_eq!(nvmlDeviceSetMigMode(second, 1, &mut status), SUCCESS);
    let (r, full) = create_gi(second, 0, 0, 8);
    assert_eq!(r, SUCCESS);
    assert_eq!(ci_info(full, 8).0, NOT_SUPPORTED);
    set(crate::NVL_ENV, Some("1"));
    let (r, info) = ci_info(full, 8);
    assert_eq!((r, info.sliceCount), (SUCCESS, 7));
    assert_eq!(
        ci_info(gi, 8).0,
        NOT_SUPPORTED,
        "only on full-GPU instances"
    );
    set(crate::NVL_ENV, None);

    // Injected failures: the N-th call of a function, with a code.
    set(crate::FAIL_ENV, Some("nvmlDeviceGetCount_v2:2:IN_USE"));
    assert_eq!(nvmlDeviceGetCount_v2(&mut count), SUCCESS);
    assert_eq!(nvmlDeviceGetCount_v2(&mut count), IN_USE);
    assert_eq!(nvmlDeviceGetCount_v2(&mut count), SUCCESS);
    set(crate::FAIL_ENV, None);

    // Shutdown: nothing answers; after a new init, old handles are refused.
    assert_eq!(nvmlShutdown(), SUCCESS);
    assert!(
        !crate::holders::dir(&state)
            .join(std::process::id().to_string())
            .exists()
    );
    assert_eq!(
        nvmlDeviceGetMigMode(a100, &mut cur, &mut pend),
        UNINITIALIZED
    );
    assert_eq!(nvmlShutdown(), UNINITIALIZED);
    assert_eq!(nvmlInit_v2(), SUCCESS);
    assert_eq!(
        nvmlDeviceGetMigMode(a100, &mut cur, &mut pend),
        INVALID_ARGUMENT,
        "a handle of the closed session"
    );
    assert_eq!(
        nvmlDeviceGetMigMode(handle(0), &mut cur, &mut pend),
        SUCCESS
    );
    assert_eq!((cur, pend), (1, 1));
    // An entry point go-nvml binds and the stand-in does not implement answers NOT_SUPPORTED
    // (NVML_STANDIN_STRICT, unset here, would abort the caller instead), and is exported: the
    // build made a stub of every one.
    assert_eq!(
        crate::unimplemented::nvmlDeviceGetPowerUsage(),
        NOT_SUPPORTED
    );
    assert_eq!(nvmlShutdown(), SUCCESS);
    assert!(handles::session().is_none());
    let _ = std::fs::remove_dir_all(&dir);
}
