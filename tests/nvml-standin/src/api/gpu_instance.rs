//! GPU instances: profiles by index, placements and capacity by profile id, create, list,
//! look up, describe, destroy.

use super::{gpu, gpu_instance_handle, live_gi, whole_gpu};
use crate::call::*;
use crate::handles::Handle;
use crate::{node, profiles, switches};
use gpushare::node::model::Placement;
use gpushare::node::model::catalog::GpuInstanceProfile;
use nvml_wrapper_sys::bindings::*;
use std::os::raw::c_uint;

fn raw<T>(handle: *mut T) -> usize {
    handle as usize
}

/// NVML_STRUCT_VERSION(name, ver): the struct's size with the version in the top byte.
pub fn struct_version<T>(ver: u32) -> u32 {
    std::mem::size_of::<T>() as u32 | (ver << 24)
}

/// The profile with `index` of the GPU a handle names. `v_call`: the versioned call, which
/// nvml.h says answers NOT_SUPPORTED while MIG is disabled; the v1 call answers regardless.
fn profile_at(device: usize, index: u32, v_call: bool) -> Result<GpuInstanceProfile, Fail> {
    node::read(|s| {
        let g = gpu(s, whole_gpu(device)?)?;
        let table = profiles::table(g)?;
        let p = profiles::gi_profile_by_index(table, index)?;
        if (v_call || switches::profiles_need_mig()) && !g.mig_current.is_enabled() {
            return Err(Fail::new(NOT_SUPPORTED, "MIG mode is not enabled"));
        }
        Ok(p.clone())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetGpuInstanceProfileInfo(
    device: nvmlDevice_t,
    profile: c_uint,
    info: *mut nvmlGpuInstanceProfileInfo_t,
) -> Ret {
    call(
        "nvmlDeviceGetGpuInstanceProfileInfo",
        Record::default()
            .handle(raw(device))
            .arg("profile", profile),
        |rec| {
            let p = profile_at(raw(device), profile, false)?;
            rec.out("id", p.id);
            put(
                info,
                nvmlGpuInstanceProfileInfo_t {
                    id: p.id,
                    isP2pSupported: 0,
                    sliceCount: p.slices,
                    instanceCount: p.max_instances,
                    multiprocessorCount: p.sm,
                    copyEngineCount: p.ce,
                    decoderCount: p.dec,
                    encoderCount: p.enc,
                    jpegCount: p.jpeg,
                    ofaCount: p.ofa,
                    memorySizeMB: p.memory_mib,
                },
            )
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetGpuInstanceProfileInfoV(
    device: nvmlDevice_t,
    profile: c_uint,
    info: *mut nvmlGpuInstanceProfileInfo_v2_t,
) -> Ret {
    call(
        "nvmlDeviceGetGpuInstanceProfileInfoV",
        Record::default()
            .handle(raw(device))
            .arg("profile", profile),
        |rec| {
            let version = get(info.cast::<u32>().cast_const())?;
            let (v2, v3) = (
                struct_version::<nvmlGpuInstanceProfileInfo_v2_t>(2),
                struct_version::<nvmlGpuInstanceProfileInfo_v3_t>(3),
            );
            if version != v2 && version != v3 {
                return Err(Fail::new(
                    ARGUMENT_VERSION_MISMATCH,
                    format!("version {version:#x}, not v2 ({v2:#x}) or v3 ({v3:#x})"),
                ));
            }
            let p = profile_at(raw(device), profile, true)?;
            rec.out("id", p.id);
            let name = format!("MIG {}", p.name);
            // The v2 and v3 structs share these fields; v3 adds `capabilities`, left 0.
            macro_rules! filled {
                ($t:ty) => {{
                    // SAFETY: a plain C struct of integers and a char array: all zeroes is valid.
                    let mut out: $t = unsafe { std::mem::zeroed() };
                    out.version = version;
                    out.id = p.id;
                    out.sliceCount = p.slices;
                    out.instanceCount = p.max_instances;
                    out.multiprocessorCount = p.sm;
                    out.copyEngineCount = p.ce;
                    out.decoderCount = p.dec;
                    out.encoderCount = p.enc;
                    out.jpegCount = p.jpeg;
                    out.ofaCount = p.ofa;
                    out.memorySizeMB = p.memory_mib;
                    fill_name(&mut out.name, &name);
                    out
                }};
            }
            if version == v2 {
                put(info, filled!(nvmlGpuInstanceProfileInfo_v2_t))
            } else {
                // The caller's struct is a v3 one: its version says so.
                put(
                    info.cast::<nvmlGpuInstanceProfileInfo_v3_t>(),
                    filled!(nvmlGpuInstanceProfileInfo_v3_t),
                )
            }
        },
    )
}

/// The placements of a GPU-instance profile: nvml.h says they answer "regardless of whether
/// MIG is enabled or not" (unless `NVML_STANDIN_PROFILES_NEED_MIG`).
fn gi_placements(device: usize, profile_id: u32) -> Result<Vec<nvmlGpuInstancePlacement_t>, Fail> {
    require_root()?;
    node::read(|s| {
        let g = gpu(s, whole_gpu(device)?)?;
        let table = profiles::table(g)?;
        if switches::profiles_need_mig() && !g.mig_current.is_enabled() {
            return Err(Fail::new(NOT_SUPPORTED, "MIG mode is not enabled"));
        }
        let p = profiles::gi_profile_by_id(table, profile_id, NOT_SUPPORTED)?;
        Ok(p.placements()
            .map(|pl| nvmlGpuInstancePlacement_t {
                start: pl.start,
                size: pl.size,
            })
            .collect())
    })
}

/// The call `_v2` replaced, which cannot be asked for the count: the buffer must hold every
/// placement (the count passed in is its size here, stricter than nvml.h, which leaves an
/// overrun undefined).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetGpuInstancePossiblePlacements(
    device: nvmlDevice_t,
    profile_id: c_uint,
    placements: *mut nvmlGpuInstancePlacement_t,
    count: *mut c_uint,
) -> Ret {
    call(
        "nvmlDeviceGetGpuInstancePossiblePlacements",
        Record::default()
            .handle(raw(device))
            .arg("profileId", profile_id),
        |rec| {
            if placements.is_null() {
                return Err(Fail::new(INVALID_ARGUMENT, "null buffer"));
            }
            let list = gi_placements(raw(device), profile_id)?;
            rec.out("count", list.len());
            put_counted(placements, count, &list)
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetGpuInstancePossiblePlacements_v2(
    device: nvmlDevice_t,
    profile_id: c_uint,
    placements: *mut nvmlGpuInstancePlacement_t,
    count: *mut c_uint,
) -> Ret {
    call(
        "nvmlDeviceGetGpuInstancePossiblePlacements_v2",
        Record::default()
            .handle(raw(device))
            .arg("profileId", profile_id)
            .arg("count", get(count.cast_const()).unwrap_or(0))
            .arg("buffer", !placements.is_null()),
        |rec| {
            let list = gi_placements(raw(device), profile_id)?;
            rec.out("count", list.len());
            put_counted(placements, count, &list)
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetGpuInstanceRemainingCapacity(
    device: nvmlDevice_t,
    profile_id: c_uint,
    count: *mut c_uint,
) -> Ret {
    call(
        "nvmlDeviceGetGpuInstanceRemainingCapacity",
        Record::default()
            .handle(raw(device))
            .arg("profileId", profile_id),
        |rec| {
            require_root()?;
            let free = node::read(|s| {
                let index = whole_gpu(raw(device))?;
                let table = profiles::require_mig_enabled(gpu(s, index)?)?;
                profiles::gi_profile_by_id(table, profile_id, NOT_SUPPORTED)?;
                let list = s.gpu_instance_profiles(index)?;
                Ok(list
                    .iter()
                    .find(|c| c.profile.id == profile_id)
                    .map_or(0, |c| c.free_instances))
            })?;
            rec.out("count", free);
            put(count, free)
        },
    )
}

fn create(device: usize, profile_id: u32, at: Option<Placement>) -> Result<Handle, Fail> {
    require_root()?;
    let index = whole_gpu(device)?;
    let id = node::change(|s| {
        if let Some(placement) = at {
            return Ok(s.create_gpu_instance(index, profile_id, placement)?);
        }
        // Without a placement the driver takes the first one that fits.
        let table = profiles::table(gpu(s, index)?)?;
        let p = profiles::gi_profile_by_id(table, profile_id, INVALID_ARGUMENT)?;
        let mut last = Fail::new(INSUFFICIENT_RESOURCES, "no placement fits");
        for placement in p.placements() {
            // A refused create changes nothing, so the next placement can be tried.
            match s.create_gpu_instance(index, profile_id, placement) {
                Ok(id) => return Ok(id),
                Err(e) => last = e.into(),
            }
        }
        Err(last)
    })?;
    Ok(Handle::GpuInstance { gpu: index, gi: id })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceCreateGpuInstanceWithPlacement(
    device: nvmlDevice_t,
    profile_id: c_uint,
    placement: *const nvmlGpuInstancePlacement_t,
    gpu_instance: *mut nvmlGpuInstance_t,
) -> Ret {
    let at = get(placement).ok();
    let mut record = Record::default()
        .handle(raw(device))
        .arg("profileId", profile_id);
    if let Some(p) = at {
        record = record.arg("start", p.start).arg("size", p.size);
    }
    call("nvmlDeviceCreateGpuInstanceWithPlacement", record, |rec| {
        let at = at.ok_or_else(|| Fail::new(INVALID_ARGUMENT, "null placement"))?;
        if gpu_instance.is_null() {
            return Err(Fail::new(INVALID_ARGUMENT, "null gpuInstance"));
        }
        let placement = Placement {
            start: at.start,
            size: at.size,
        };
        let h = create(raw(device), profile_id, Some(placement))?;
        rec.out_handle(h);
        put(gpu_instance, h.as_ptr())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceCreateGpuInstance(
    device: nvmlDevice_t,
    profile_id: c_uint,
    gpu_instance: *mut nvmlGpuInstance_t,
) -> Ret {
    call(
        "nvmlDeviceCreateGpuInstance",
        Record::default()
            .handle(raw(device))
            .arg("profileId", profile_id),
        |rec| {
            if gpu_instance.is_null() {
                return Err(Fail::new(INVALID_ARGUMENT, "null gpuInstance"));
            }
            let h = create(raw(device), profile_id, None)?;
            rec.out_handle(h);
            put(gpu_instance, h.as_ptr())
        },
    )
}

/// nvml.h: the buffer holds the profile's instance count; `count` only returns how many.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetGpuInstances(
    device: nvmlDevice_t,
    profile_id: c_uint,
    gpu_instances: *mut nvmlGpuInstance_t,
    count: *mut c_uint,
) -> Ret {
    call(
        "nvmlDeviceGetGpuInstances",
        Record::default()
            .handle(raw(device))
            .arg("profileId", profile_id),
        |rec| {
            require_root()?;
            if count.is_null() || gpu_instances.is_null() {
                return Err(Fail::new(INVALID_ARGUMENT, "null buffer or count"));
            }
            let index = whole_gpu(raw(device))?;
            let ids: Vec<u32> = node::read(|s| {
                let g = gpu(s, index)?;
                let table = profiles::require_mig_enabled(g)?;
                profiles::gi_profile_by_id(table, profile_id, INVALID_ARGUMENT)?;
                Ok(g.instances
                    .iter()
                    .filter(|gi| gi.profile_id == profile_id)
                    .map(|gi| gi.id)
                    .collect())
            })?;
            rec.out("ids", ids.clone());
            let list: Vec<nvmlGpuInstance_t> = ids
                .iter()
                .map(|&gi| Handle::GpuInstance { gpu: index, gi }.as_ptr())
                .collect();
            put_all(gpu_instances, &list)?;
            put(count, list.len() as c_uint)
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetGpuInstanceById(
    device: nvmlDevice_t,
    id: c_uint,
    gpu_instance: *mut nvmlGpuInstance_t,
) -> Ret {
    call(
        "nvmlDeviceGetGpuInstanceById",
        Record::default().handle(raw(device)).arg("id", id),
        |_| {
            require_root()?;
            let index = whole_gpu(raw(device))?;
            node::read(|s| {
                let g = gpu(s, index)?;
                profiles::require_mig_enabled(g)?;
                if g.instances.iter().any(|gi| gi.id == id) {
                    Ok(())
                } else {
                    Err(Fail::new(NOT_FOUND, format!("no GPU instance {id}")))
                }
            })?;
            put(
                gpu_instance,
                Handle::GpuInstance { gpu: index, gi: id }.as_ptr(),
            )
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlGpuInstanceGetInfo(
    gpu_instance: nvmlGpuInstance_t,
    info: *mut nvmlGpuInstanceInfo_t,
) -> Ret {
    call(
        "nvmlGpuInstanceGetInfo",
        Record::default().handle(raw(gpu_instance)),
        |_| {
            let (index, id) = gpu_instance_handle(raw(gpu_instance))?;
            let (profile_id, placement) = node::read(|s| {
                let g = gpu(s, index)?;
                let gi = live_gi(g, id)?;
                let p = profiles::gi_profile_of(profiles::table(g)?, gi)?;
                Ok((
                    gi.profile_id,
                    nvmlGpuInstancePlacement_t {
                        start: gi.start,
                        size: p.size,
                    },
                ))
            })?;
            put(
                info,
                nvmlGpuInstanceInfo_t {
                    device: Handle::Device { gpu: index }.as_ptr(),
                    id,
                    profileId: profile_id,
                    placement,
                },
            )
        },
    )
}

#[unsafe(no_mangle)]
pub extern "C" fn nvmlGpuInstanceDestroy(gpu_instance: nvmlGpuInstance_t) -> Ret {
    call(
        "nvmlGpuInstanceDestroy",
        Record::default().handle(raw(gpu_instance)),
        |_| {
            require_root()?;
            let (index, id) = gpu_instance_handle(raw(gpu_instance))?;
            node::change(|s| {
                live_gi(gpu(s, index)?, id)?;
                Ok(s.destroy_gpu_instance(index, id)?)
            })
        },
    )
}
