//! Compute instances: profiles by index (`NVML_COMPUTE_INSTANCE_PROFILE_*`), everything else by
//! profile id, which is the index plus `NVML_STANDIN_CI_PROFILE_ID_OFFSET`.

use super::gpu_instance::struct_version;
use super::{compute_instance_handle, gpu, gpu_instance_handle, live_ci, live_gi};
use crate::call::*;
use crate::handles::Handle;
use crate::node;
use crate::profiles::{self, CI_PROFILE_7_SLICE_NVL, CiProfile};
use gpushare::node::backend::sim::state::{SimComputeInstance, SimState, stable_uuid};
use gpushare::node::model::catalog::{GpuInstanceProfile, MigTable};
use gpushare::node::model::{ComputeMode, Placement};
use nvml_wrapper_sys::bindings::*;
use std::os::raw::c_uint;

/// `NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED`, the only engine profile.
const ENGINE_SHARED: u32 = 0;

fn raw<T>(handle: *mut T) -> usize {
    handle as usize
}

/// What a live GPU-instance handle stands for.
struct Parent {
    gpu: u32,
    gi: u32,
    table: &'static MigTable,
    profile: &'static GpuInstanceProfile,
}

fn parent(s: &SimState, raw: usize) -> Result<Parent, Fail> {
    let (index, id) = gpu_instance_handle(raw)?;
    let g = gpu(s, index)?;
    let table = profiles::table(g)?;
    let profile = profiles::gi_profile_of(table, live_gi(g, id)?)?;
    Ok(Parent {
        gpu: index,
        gi: id,
        table,
        profile,
    })
}

fn profile_at(gi: usize, profile: u32, eng_profile: u32) -> Result<(CiProfile, Parent), Fail> {
    if eng_profile != ENGINE_SHARED {
        return Err(Fail::new(
            INVALID_ARGUMENT,
            format!("engine profile {eng_profile}"),
        ));
    }
    node::read(|s| {
        let p = parent(s, gi)?;
        Ok((
            profiles::ci_profile_by_index(p.table, p.profile, profile)?,
            p,
        ))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlGpuInstanceGetComputeInstanceProfileInfo(
    gpu_instance: nvmlGpuInstance_t,
    profile: c_uint,
    eng_profile: c_uint,
    info: *mut nvmlComputeInstanceProfileInfo_t,
) -> Ret {
    call(
        "nvmlGpuInstanceGetComputeInstanceProfileInfo",
        Record::default()
            .handle(raw(gpu_instance))
            .arg("profile", profile)
            .arg("engProfile", eng_profile),
        |rec| {
            let (cp, p) = profile_at(raw(gpu_instance), profile, eng_profile)?;
            rec.out("id", cp.id());
            put(
                info,
                nvmlComputeInstanceProfileInfo_t {
                    id: cp.id(),
                    sliceCount: cp.slices,
                    instanceCount: cp.max_instances,
                    multiprocessorCount: cp.sm,
                    sharedCopyEngineCount: p.profile.ce,
                    sharedDecoderCount: p.profile.dec,
                    sharedEncoderCount: p.profile.enc,
                    sharedJpegCount: p.profile.jpeg,
                    sharedOfaCount: p.profile.ofa,
                },
            )
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlGpuInstanceGetComputeInstanceProfileInfoV(
    gpu_instance: nvmlGpuInstance_t,
    profile: c_uint,
    eng_profile: c_uint,
    info: *mut nvmlComputeInstanceProfileInfo_v2_t,
) -> Ret {
    call(
        "nvmlGpuInstanceGetComputeInstanceProfileInfoV",
        Record::default()
            .handle(raw(gpu_instance))
            .arg("profile", profile)
            .arg("engProfile", eng_profile),
        |rec| {
            let version = get(info.cast::<u32>().cast_const())?;
            let (v2, v3) = (
                struct_version::<nvmlComputeInstanceProfileInfo_v2_t>(2),
                struct_version::<nvmlComputeInstanceProfileInfo_v3_t>(3),
            );
            if version != v2 && version != v3 {
                return Err(Fail::new(
                    ARGUMENT_VERSION_MISMATCH,
                    format!("version {version:#x}, not v2 ({v2:#x}) or v3 ({v3:#x})"),
                ));
            }
            let (cp, p) = profile_at(raw(gpu_instance), profile, eng_profile)?;
            rec.out("id", cp.id());
            let name = format!("MIG {}", cp.name);
            // The v2 and v3 structs share these fields; v3 adds `capabilities`, left 0.
            macro_rules! filled {
                ($t:ty) => {{
                    // SAFETY: a plain C struct of integers and a char array: all zeroes is valid.
                    let mut out: $t = unsafe { std::mem::zeroed() };
                    out.version = version;
                    out.id = cp.id();
                    out.sliceCount = cp.slices;
                    out.instanceCount = cp.max_instances;
                    out.multiprocessorCount = cp.sm;
                    out.sharedCopyEngineCount = p.profile.ce;
                    out.sharedDecoderCount = p.profile.dec;
                    out.sharedEncoderCount = p.profile.enc;
                    out.sharedJpegCount = p.profile.jpeg;
                    out.sharedOfaCount = p.profile.ofa;
                    fill_name(&mut out.name, &name);
                    out
                }};
            }
            if version == v2 {
                put(info, filled!(nvmlComputeInstanceProfileInfo_v2_t))
            } else {
                // The caller's struct is a v3 one: its version says so.
                put(
                    info.cast::<nvmlComputeInstanceProfileInfo_v3_t>(),
                    filled!(nvmlComputeInstanceProfileInfo_v3_t),
                )
            }
        },
    )
}

/// The profile with `id` in a GPU instance, with the GPU instance.
fn profile_by_id(s: &SimState, gi: usize, id: u32) -> Result<(CiProfile, Parent), Fail> {
    let p = parent(s, gi)?;
    Ok((profiles::ci_profile_by_id(p.table, p.profile, id)?, p))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlGpuInstanceGetComputeInstancePossiblePlacements(
    gpu_instance: nvmlGpuInstance_t,
    profile_id: c_uint,
    placements: *mut nvmlComputeInstancePlacement_t,
    count: *mut c_uint,
) -> Ret {
    call(
        "nvmlGpuInstanceGetComputeInstancePossiblePlacements",
        Record::default()
            .handle(raw(gpu_instance))
            .arg("profileId", profile_id)
            .arg("count", get(count.cast_const()).unwrap_or(0))
            .arg("buffer", !placements.is_null()),
        |rec| {
            require_root()?;
            let list: Vec<nvmlComputeInstancePlacement_t> = node::read(|s| {
                let (cp, _) = profile_by_id(s, raw(gpu_instance), profile_id)?;
                Ok(cp
                    .starts
                    .iter()
                    .map(|&start| nvmlComputeInstancePlacement_t {
                        start,
                        size: cp.slices,
                    })
                    .collect())
            })?;
            rec.out("count", list.len());
            put_counted(placements, count, &list)
        },
    )
}

/// Compute slices the compute instances of a GPU instance take now.
fn used(s: &SimState, p: &Parent) -> Result<Vec<(u32, Placement)>, Fail> {
    let gi = live_gi(gpu(s, p.gpu)?, p.gi)?;
    gi.compute_instances
        .iter()
        .map(|ci| {
            let cp = profiles::ci_profile_by_index(p.table, p.profile, ci.profile_id)?;
            Ok((
                ci.profile_id,
                Placement {
                    start: ci.start,
                    size: cp.slices,
                },
            ))
        })
        .collect()
}

/// Where the next compute instance of `cp` would go, and how many more fit.
fn room(s: &SimState, p: &Parent, cp: &CiProfile) -> Result<Vec<u32>, Fail> {
    let mut taken = used(s, p)?;
    let mut free = Vec::new();
    for &start in &cp.starts {
        let same = taken.iter().filter(|(i, _)| *i == cp.index).count() as u32;
        let at = Placement {
            start,
            size: cp.slices,
        };
        if same < cp.max_instances && taken.iter().all(|(_, t)| !t.overlaps(at)) {
            free.push(start);
            taken.push((cp.index, at));
        }
    }
    Ok(free)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlGpuInstanceGetComputeInstanceRemainingCapacity(
    gpu_instance: nvmlGpuInstance_t,
    profile_id: c_uint,
    count: *mut c_uint,
) -> Ret {
    call(
        "nvmlGpuInstanceGetComputeInstanceRemainingCapacity",
        Record::default()
            .handle(raw(gpu_instance))
            .arg("profileId", profile_id),
        |rec| {
            require_root()?;
            let n = node::read(|s| {
                let (cp, p) = profile_by_id(s, raw(gpu_instance), profile_id)?;
                Ok(room(s, &p, &cp)?.len() as c_uint)
            })?;
            rec.out("count", n);
            put(count, n)
        },
    )
}

/// The 7_SLICE_NVL profile is the stand-in's own (the catalog has no such compute instance):
/// it takes the whole GPU instance, like the full-size profile.
fn create_nvl(s: &mut SimState, p: &Parent, cp: &CiProfile) -> Result<u32, Fail> {
    let start = *room(s, p, cp)?.first().ok_or_else(|| {
        Fail::new(
            INSUFFICIENT_RESOURCES,
            format!(
                "no room for a 7_SLICE_NVL compute instance in GPU instance {}",
                p.gi
            ),
        )
    })?;
    let gpu = &mut s.gpus[p.gpu as usize];
    gpu.mig_serial += 1;
    let uuid = format!(
        "MIG-{}",
        stable_uuid(&format!("{}/{}/{}/{}", s.name, p.gpu, p.gi, gpu.mig_serial))
    );
    let gi = s.gpus[p.gpu as usize]
        .instances
        .iter_mut()
        .find(|g| g.id == p.gi)
        .ok_or_else(|| Fail::new(INVALID_ARGUMENT, "the GPU instance is gone"))?;
    let id = (0..)
        .find(|i| gi.compute_instances.iter().all(|c| c.id != *i))
        .unwrap_or(0);
    gi.compute_instances.push(SimComputeInstance {
        id,
        profile_id: cp.index,
        start,
        uuid,
        compute_mode: ComputeMode::Default,
    });
    gi.compute_instances.sort_by_key(|c| c.id);
    Ok(id)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlGpuInstanceCreateComputeInstance(
    gpu_instance: nvmlGpuInstance_t,
    profile_id: c_uint,
    compute_instance: *mut nvmlComputeInstance_t,
) -> Ret {
    call(
        "nvmlGpuInstanceCreateComputeInstance",
        Record::default()
            .handle(raw(gpu_instance))
            .arg("profileId", profile_id),
        |rec| {
            require_root()?;
            if compute_instance.is_null() {
                return Err(Fail::new(INVALID_ARGUMENT, "null computeInstance"));
            }
            let (p_gpu, p_gi, ci) = node::change(|s| {
                let (cp, p) = profile_by_id(s, raw(gpu_instance), profile_id)?;
                rec.out("profile", cp.index);
                let ci = if cp.index == CI_PROFILE_7_SLICE_NVL {
                    create_nvl(s, &p, &cp)?
                } else {
                    s.create_compute_instance(p.gpu, p.gi, cp.index)?
                };
                Ok((p.gpu, p.gi, ci))
            })?;
            let h = Handle::ComputeInstance {
                gpu: p_gpu,
                gi: p_gi,
                ci,
            };
            rec.out_handle(h);
            put(compute_instance, h.as_ptr())
        },
    )
}

/// nvml.h: the buffer holds the profile's instance count; `count` only returns how many.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlGpuInstanceGetComputeInstances(
    gpu_instance: nvmlGpuInstance_t,
    profile_id: c_uint,
    compute_instances: *mut nvmlComputeInstance_t,
    count: *mut c_uint,
) -> Ret {
    call(
        "nvmlGpuInstanceGetComputeInstances",
        Record::default()
            .handle(raw(gpu_instance))
            .arg("profileId", profile_id),
        |rec| {
            require_root()?;
            if count.is_null() || compute_instances.is_null() {
                return Err(Fail::new(INVALID_ARGUMENT, "null buffer or count"));
            }
            let (index, gi, ids) = node::read(|s| {
                let (cp, p) = profile_by_id(s, raw(gpu_instance), profile_id)?;
                let ids: Vec<u32> = live_gi(gpu(s, p.gpu)?, p.gi)?
                    .compute_instances
                    .iter()
                    .filter(|c| c.profile_id == cp.index)
                    .map(|c| c.id)
                    .collect();
                Ok((p.gpu, p.gi, ids))
            })?;
            rec.out("ids", ids.clone());
            let list: Vec<nvmlComputeInstance_t> = ids
                .iter()
                .map(|&ci| Handle::ComputeInstance { gpu: index, gi, ci }.as_ptr())
                .collect();
            put_all(compute_instances, &list)?;
            put(count, list.len() as c_uint)
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlGpuInstanceGetComputeInstanceById(
    gpu_instance: nvmlGpuInstance_t,
    id: c_uint,
    compute_instance: *mut nvmlComputeInstance_t,
) -> Ret {
    call(
        "nvmlGpuInstanceGetComputeInstanceById",
        Record::default().handle(raw(gpu_instance)).arg("id", id),
        |_| {
            require_root()?;
            let (index, gi) = node::read(|s| {
                let p = parent(s, raw(gpu_instance))?;
                let instance = live_gi(gpu(s, p.gpu)?, p.gi)?;
                if !instance.compute_instances.iter().any(|c| c.id == id) {
                    return Err(Fail::new(NOT_FOUND, format!("no compute instance {id}")));
                }
                Ok((p.gpu, p.gi))
            })?;
            put(
                compute_instance,
                Handle::ComputeInstance {
                    gpu: index,
                    gi,
                    ci: id,
                }
                .as_ptr(),
            )
        },
    )
}

/// A compute instance's info; `with_placement`: the `_v2` call, which fills its placement.
fn compute_instance_info(
    raw_ci: usize,
    with_placement: bool,
) -> Result<nvmlComputeInstanceInfo_t, Fail> {
    let (index, gi, ci) = compute_instance_handle(raw_ci)?;
    node::read(|s| {
        let g = gpu(s, index)?;
        let instance = live_gi(g, gi)?;
        let c = live_ci(instance, ci)?;
        let table = profiles::table(g)?;
        let gp = profiles::gi_profile_of(table, instance)?;
        let cp = profiles::ci_profile_by_index(table, gp, c.profile_id)?;
        let placement = if with_placement {
            nvmlComputeInstancePlacement_t {
                start: c.start,
                size: cp.slices,
            }
        } else {
            nvmlComputeInstancePlacement_t { start: 0, size: 0 }
        };
        Ok(nvmlComputeInstanceInfo_t {
            device: Handle::Device { gpu: index }.as_ptr(),
            gpuInstance: Handle::GpuInstance { gpu: index, gi }.as_ptr(),
            id: ci,
            profileId: cp.id(),
            placement,
        })
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlComputeInstanceGetInfo_v2(
    compute_instance: nvmlComputeInstance_t,
    info: *mut nvmlComputeInstanceInfo_t,
) -> Ret {
    call(
        "nvmlComputeInstanceGetInfo_v2",
        Record::default().handle(raw(compute_instance)),
        |_| put(info, compute_instance_info(raw(compute_instance), true)?),
    )
}

/// The call `_v2` replaced: no placement (older drivers).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlComputeInstanceGetInfo(
    compute_instance: nvmlComputeInstance_t,
    info: *mut nvmlComputeInstanceInfo_t,
) -> Ret {
    call(
        "nvmlComputeInstanceGetInfo",
        Record::default().handle(raw(compute_instance)),
        |_| put(info, compute_instance_info(raw(compute_instance), false)?),
    )
}

#[unsafe(no_mangle)]
pub extern "C" fn nvmlComputeInstanceDestroy(compute_instance: nvmlComputeInstance_t) -> Ret {
    call(
        "nvmlComputeInstanceDestroy",
        Record::default().handle(raw(compute_instance)),
        |_| {
            require_root()?;
            let (index, gi, ci) = compute_instance_handle(raw(compute_instance))?;
            node::change(|s| {
                live_ci(live_gi(gpu(s, index)?, gi)?, ci)?;
                Ok(s.destroy_compute_instance(index, gi, ci)?)
            })
        },
    )
}
