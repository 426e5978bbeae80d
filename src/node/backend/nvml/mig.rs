//! MIG instances through the raw `nvml-wrapper-sys` symbol table (nvml-wrapper does not wrap
//! them): listing GPU and compute instances, creating and destroying them. Each symbol is resolved
//! with `error::symbol`, never the panicking helpers, so an old driver gives
//! `FunctionNotFound` instead of a crash.

use super::compute_profiles::{
    compute_instance_profiles as ci_profiles, compute_profile_infos, compute_profile_name,
};
use super::error::{self as code, note, symbol};
use super::ffi::list_handles;
use super::mig_devices::mig_devices;
use super::profiles::{NO_PROFILE_WITH_MIG_ON, gpu_instance_profile_infos};
use crate::node::backend::{DriverError, DriverErrorKind, DriverResult};
use crate::node::model::catalog::ComputeInstanceProfile;
use crate::node::model::{ComputeInstance, ComputePlacement, GpuInstance, GpuNote, Placement};
use nvml_wrapper::{Device, Nvml};
use nvml_wrapper_sys::bindings::*;
use std::mem;
use std::ptr;

fn gpu_instance_info(nvml: &Nvml, gi: nvmlGpuInstance_t) -> DriverResult<nvmlGpuInstanceInfo_t> {
    let get = symbol(
        nvml.lib().nvmlGpuInstanceGetInfo.as_ref(),
        "nvmlGpuInstanceGetInfo",
    )?;
    // SAFETY: zeroed C struct filled by the call; gi is a live handle.
    let mut info: nvmlGpuInstanceInfo_t = unsafe { mem::zeroed() };
    // SAFETY: the handle is live and the call only fills the struct above.
    code::check(unsafe { get(gi, &mut info) }, "nvmlGpuInstanceGetInfo")?;
    Ok(info)
}

/// A compute instance's info: `_v2` (with its placement), else the v1 call of older drivers,
/// whose placement start is unknown (`None`).
fn compute_instance_info(
    nvml: &Nvml,
    ci: nvmlComputeInstance_t,
) -> DriverResult<(nvmlComputeInstanceInfo_t, bool)> {
    let lib = nvml.lib();
    // SAFETY: zeroed C struct filled by the call; ci is a live handle.
    let mut info: nvmlComputeInstanceInfo_t = unsafe { mem::zeroed() };
    if let Ok(get) = lib.nvmlComputeInstanceGetInfo_v2.as_ref() {
        // SAFETY: the handle is live and the call only fills the struct above.
        let rc = unsafe { get(ci, &mut info) };
        if !code::is_too_new(rc) {
            code::check(rc, "nvmlComputeInstanceGetInfo_v2")?;
            return Ok((info, true));
        }
    }
    let get = symbol(
        lib.nvmlComputeInstanceGetInfo.as_ref(),
        "nvmlComputeInstanceGetInfo",
    )?;
    // SAFETY: as above; the v1 call leaves the placement zeroed.
    code::check(unsafe { get(ci, &mut info) }, "nvmlComputeInstanceGetInfo")?;
    Ok((info, false))
}

fn gpu_instance_by_id(nvml: &Nvml, device: &Device, id: u32) -> DriverResult<nvmlGpuInstance_t> {
    let get = symbol(
        nvml.lib().nvmlDeviceGetGpuInstanceById.as_ref(),
        "nvmlDeviceGetGpuInstanceById",
    )?;
    let mut gi: nvmlGpuInstance_t = ptr::null_mut();
    code::check(
        // SAFETY: valid device handle and out pointer.
        unsafe { get(device.handle(), id, &mut gi) },
        format!("nvmlDeviceGetGpuInstanceById ({id})"),
    )?;
    Ok(gi)
}

fn compute_instance_by_id(
    nvml: &Nvml,
    gi: nvmlGpuInstance_t,
    id: u32,
) -> DriverResult<nvmlComputeInstance_t> {
    let get = symbol(
        nvml.lib().nvmlGpuInstanceGetComputeInstanceById.as_ref(),
        "nvmlGpuInstanceGetComputeInstanceById",
    )?;
    let mut ci: nvmlComputeInstance_t = ptr::null_mut();
    code::check(
        // SAFETY: live GPU-instance handle and out pointer.
        unsafe { get(gi, id, &mut ci) },
        format!("nvmlGpuInstanceGetComputeInstanceById ({id})"),
    )?;
    Ok(ci)
}

/// Every GPU instance of a MIG-enabled GPU, with its compute instances and MIG UUIDs. What the
/// driver leaves out that is not the layout itself (a MIG device's UUID or compute mode, a
/// compute instance's start on old drivers) is `None` or noted in `notes` (only when the layout
/// itself could be read).
pub(super) fn gpu_instances(
    nvml: &Nvml,
    device: &Device,
    total_mib: u64,
    notes: &mut Vec<GpuNote>,
) -> DriverResult<Vec<GpuInstance>> {
    let mut found = Vec::new();
    let out = list_gpu_instances(nvml, device, total_mib, &mut found)?;
    notes.extend(found);
    Ok(out)
}

fn list_gpu_instances(
    nvml: &Nvml,
    device: &Device,
    total_mib: u64,
    notes: &mut Vec<GpuNote>,
) -> DriverResult<Vec<GpuInstance>> {
    let list = symbol(
        nvml.lib().nvmlDeviceGetGpuInstances.as_ref(),
        "nvmlDeviceGetGpuInstances",
    )?;
    let cis = symbol(
        nvml.lib().nvmlGpuInstanceGetComputeInstances.as_ref(),
        "nvmlGpuInstanceGetComputeInstances",
    )?;
    let profiles = gpu_instance_profile_infos(nvml, device)?;
    if profiles.is_empty() {
        return Err(DriverError::new(
            DriverErrorKind::NotSupported,
            NO_PROFILE_WITH_MIG_ON,
        ));
    }
    let devices = mig_devices(nvml, device)?;
    let mut out = Vec::new();
    for p in profiles {
        // SAFETY: the buffer holds the profile's instance count, the most the driver returns.
        let handles = list_handles(
            p.info.instanceCount,
            ptr::null_mut(),
            || format!("nvmlDeviceGetGpuInstances (profile id {})", p.info.id),
            |buf, count| unsafe { list(device.handle(), p.info.id, buf, count) },
        )?;
        let gi_name = p.name(total_mib);
        for gi in handles {
            let info = gpu_instance_info(nvml, gi)?;
            let mut compute_instances = Vec::new();
            for cp in compute_profile_infos(nvml, gi)? {
                // SAFETY: the buffer holds the profile's instance count.
                let ci_handles = list_handles(
                    cp.info.instanceCount,
                    ptr::null_mut(),
                    || {
                        format!(
                            "nvmlGpuInstanceGetComputeInstances (GPU instance {}, profile id {})",
                            info.id, cp.info.id
                        )
                    },
                    |buf, count| unsafe { cis(gi, cp.info.id, buf, count) },
                )?;
                for ci in ci_handles {
                    let (cinfo, has_start) = compute_instance_info(nvml, ci)?;
                    let mig = devices.iter().find(|m| {
                        m.gpu_instance_id == info.id && m.compute_instance_id == cinfo.id
                    });
                    let at = format!("{}:{}", info.id, cinfo.id);
                    if !has_start {
                        notes.push(GpuNote::new(
                            "mig.instances.placement",
                            format!("compute instance {at}: the driver has no nvmlComputeInstanceGetInfo_v2, so its start is unknown"),
                        ));
                    }
                    let uuid = known(mig.map(|m| &m.uuid), &at, "mig.instances.uuid", notes);
                    let compute_mode = known(
                        mig.map(|m| &m.compute_mode),
                        &at,
                        "mig.instances.compute_mode",
                        notes,
                    );
                    compute_instances.push(ComputeInstance {
                        compute_instance_id: cinfo.id,
                        profile: compute_profile_name(
                            cp.name.clone(),
                            cp.info.sliceCount,
                            p.info.sliceCount,
                            &gi_name,
                        ),
                        // gpushare names compute-instance profiles by index, as the catalog
                        // and mig-parted do; the driver's id is only for its own calls.
                        profile_id: cp.index,
                        placement: ComputePlacement {
                            start: has_start.then_some(cinfo.placement.start),
                            size: if has_start {
                                cinfo.placement.size
                            } else {
                                cp.info.sliceCount
                            },
                        },
                        multiprocessors: cp.info.multiprocessorCount,
                        uuid,
                        compute_mode,
                    });
                }
            }
            compute_instances.sort_by_key(|c| c.compute_instance_id);
            // Every MIG device of the instance answers for the whole instance; without a
            // compute instance there is none to ask.
            let memory_used_mib = match compute_instances.first() {
                Some(ci) => known(
                    devices
                        .iter()
                        .find(|m| {
                            m.gpu_instance_id == info.id
                                && m.compute_instance_id == ci.compute_instance_id
                        })
                        .map(|m| &m.memory_used_mib),
                    &format!("{}:{}", info.id, ci.compute_instance_id),
                    "mig.instances.memory_used",
                    notes,
                ),
                None => None,
            };
            out.push(GpuInstance {
                gpu_instance_id: info.id,
                profile: gi_name.clone(),
                profile_id: info.profileId,
                placement: Placement {
                    start: info.placement.start,
                    size: info.placement.size,
                },
                memory_mib: p.info.memorySizeMB,
                memory_used_mib,
                multiprocessors: p.info.multiprocessorCount,
                compute_instances,
            });
        }
    }
    out.sort_by_key(|g| g.gpu_instance_id);
    Ok(out)
}

/// A MIG device's field as the driver answered it; `None` with a note saying why when the
/// driver refused it or lists no MIG device for the compute instance `at`.
fn known<T: Clone>(
    answer: Option<&DriverResult<T>>,
    at: &str,
    field: &str,
    notes: &mut Vec<GpuNote>,
) -> Option<T> {
    match answer {
        Some(Ok(v)) => Some(v.clone()),
        Some(Err(e)) => {
            let mut n = note(field, e);
            n.message = format!("compute instance {at}: {}", n.message);
            notes.push(n);
            None
        }
        None => {
            notes.push(GpuNote::new(
                field,
                format!("compute instance {at}: the driver lists no MIG device for it"),
            ));
            None
        }
    }
}

/// The compute-instance profiles a GPU instance offers, with their starts.
pub(super) fn compute_instance_profiles(
    nvml: &Nvml,
    device: &Device,
    gpu_instance_id: u32,
    total_mib: u64,
) -> DriverResult<Vec<ComputeInstanceProfile>> {
    let gi = gpu_instance_by_id(nvml, device, gpu_instance_id)?;
    let info = gpu_instance_info(nvml, gi)?;
    let profile = gpu_instance_profile_infos(nvml, device)?
        .into_iter()
        .find(|p| p.info.id == info.profileId)
        .ok_or_else(|| {
            DriverError::new(
                DriverErrorKind::NotFound,
                format!(
                    "GPU instance {gpu_instance_id}: nvmlDeviceGetGpuInstanceProfileInfo does not list its profile id {}",
                    info.profileId
                ),
            )
        })?;
    ci_profiles(nvml, gi, &profile.name(total_mib), profile.info.sliceCount)
}

pub(super) fn create_gpu_instance(
    nvml: &Nvml,
    device: &Device,
    profile_id: u32,
    placement: Placement,
) -> DriverResult<u32> {
    let create = symbol(
        nvml.lib().nvmlDeviceCreateGpuInstanceWithPlacement.as_ref(),
        "nvmlDeviceCreateGpuInstanceWithPlacement",
    )?;
    let raw = nvmlGpuInstancePlacement_t {
        start: placement.start,
        size: placement.size,
    };
    let mut gi: nvmlGpuInstance_t = ptr::null_mut();
    code::check(
        // SAFETY: valid device handle, placement and out pointer.
        unsafe { create(device.handle(), profile_id, &raw, &mut gi) },
        format!(
            "nvmlDeviceCreateGpuInstanceWithPlacement (profile id {profile_id} at {placement})"
        ),
    )?;
    Ok(gpu_instance_info(nvml, gi)?.id)
}

pub(super) fn create_compute_instance(
    nvml: &Nvml,
    device: &Device,
    gpu_instance_id: u32,
    profile: u32,
) -> DriverResult<u32> {
    let gi = gpu_instance_by_id(nvml, device, gpu_instance_id)?;
    let create = symbol(
        nvml.lib().nvmlGpuInstanceCreateComputeInstance.as_ref(),
        "nvmlGpuInstanceCreateComputeInstance",
    )?;
    // The planner names the profile by its NVML_COMPUTE_INSTANCE_PROFILE_* index; the call takes
    // the driver's profile id, which this GPU instance's profile info gives (as mig-parted does).
    let id = compute_profile_infos(nvml, gi)?
        .into_iter()
        .find(|p| p.index == profile)
        .map(|p| p.info.id)
        .ok_or_else(|| {
            DriverError::new(
                DriverErrorKind::NotSupported,
                format!(
                    "GPU instance {gpu_instance_id} offers no compute-instance profile with index {profile}"
                ),
            )
        })?;
    let mut ci: nvmlComputeInstance_t = ptr::null_mut();
    code::check(
        // SAFETY: live GPU-instance handle and out pointer.
        unsafe { create(gi, id, &mut ci) },
        format!(
            "nvmlGpuInstanceCreateComputeInstance (profile {profile}, id {id}, in GPU instance {gpu_instance_id})"
        ),
    )?;
    Ok(compute_instance_info(nvml, ci)?.0.id)
}

pub(super) fn destroy_compute_instance(
    nvml: &Nvml,
    device: &Device,
    gpu_instance_id: u32,
    compute_instance_id: u32,
) -> DriverResult<()> {
    let gi = gpu_instance_by_id(nvml, device, gpu_instance_id)?;
    let ci = compute_instance_by_id(nvml, gi, compute_instance_id)?;
    let destroy = symbol(
        nvml.lib().nvmlComputeInstanceDestroy.as_ref(),
        "nvmlComputeInstanceDestroy",
    )?;
    // SAFETY: a live compute-instance handle.
    code::check(
        unsafe { destroy(ci) },
        format!(
            "nvmlComputeInstanceDestroy (compute instance {gpu_instance_id}:{compute_instance_id})"
        ),
    )
}

pub(super) fn destroy_gpu_instance(
    nvml: &Nvml,
    device: &Device,
    gpu_instance_id: u32,
) -> DriverResult<()> {
    let gi = gpu_instance_by_id(nvml, device, gpu_instance_id)?;
    let destroy = symbol(
        nvml.lib().nvmlGpuInstanceDestroy.as_ref(),
        "nvmlGpuInstanceDestroy",
    )?;
    // SAFETY: a live GPU-instance handle.
    code::check(
        unsafe { destroy(gi) },
        format!("nvmlGpuInstanceDestroy (GPU instance {gpu_instance_id})"),
    )
}
