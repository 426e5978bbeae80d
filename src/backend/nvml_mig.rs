//! MIG calls nvml-wrapper does not wrap (GPU/compute instances, placements), made through the raw
//! `nvml-wrapper-sys` symbol table. Each symbol is resolved with `nvml_sym`, never the panicking
//! helpers, so an old driver gives `FunctionNotFound` instead of a crash.

use super::nvml::driver_error;
use super::{DriverError, DriverErrorKind, DriverResult, ProfileCapacity};
use crate::node::catalog::{ComputeInstanceProfile, GpuInstanceProfile, catalog, profile_name};
use crate::node::{ComputeInstance, ComputeMode, GpuInstance, PciId, Placement};
use nvml_wrapper::error::nvml_sym;
use nvml_wrapper::{Device, Nvml};
use nvml_wrapper_sys::bindings::*;
use std::ffi::CStr;
use std::mem;
use std::ptr;

/// `NVML_GPU_INSTANCE_PROFILE_COUNT` of current drivers (older ones answer NotSupported past theirs).
const GI_PROFILE_COUNT: u32 = 0x12;
/// `NVML_COMPUTE_INSTANCE_PROFILE_COUNT`.
const CI_PROFILE_COUNT: u32 = 0x8;
/// `NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED`.
const CI_ENGINE_SHARED: u32 = 0;

/// Map a raw NVML return code; `what` names the call for the message.
fn check(code: nvmlReturn_t, what: &str) -> DriverResult<()> {
    use DriverErrorKind as K;
    let kind = match code {
        0 => return Ok(()),
        2 => K::InvalidArgument,
        3 => K::NotSupported,
        4 => K::NoPermission,
        6 => K::NotFound,
        9 => K::DriverNotLoaded,
        13 => K::FunctionNotFound,
        15 => K::GpuLost,
        16 => K::ResetRequired,
        19 => K::InUse,
        23 => K::InsufficientResources,
        _ => {
            return Err(DriverError::new(
                K::Unknown,
                format!("{what}: NVML error {code}"),
            ));
        }
    };
    Err(DriverError::new(kind, what))
}

fn symbol<'a, T>(s: Result<&'a T, &libloading::Error>, name: &str) -> DriverResult<&'a T> {
    nvml_sym(s).map_err(|e| driver_error(e, name))
}

/// NVML_STRUCT_VERSION(name, 2): the struct size with the version in the top byte.
fn struct_version_2<T>() -> u32 {
    mem::size_of::<T>() as u32 | (2 << 24)
}

fn c_name(raw: &[std::os::raw::c_char]) -> Option<String> {
    if !raw.contains(&0) {
        return None;
    }
    // SAFETY: the buffer is NUL-terminated (checked above) and lives for the call.
    let s = unsafe { CStr::from_ptr(raw.as_ptr()) }.to_string_lossy();
    let s = s.trim().trim_start_matches("MIG ").trim();
    (!s.is_empty()).then(|| s.to_string())
}

/// One GPU-instance profile as the driver describes it.
struct RawProfile {
    index: u32,
    info: nvmlGpuInstanceProfileInfo_t,
    name: Option<String>,
}

fn raw_profiles(nvml: &Nvml, device: &Device) -> DriverResult<Vec<RawProfile>> {
    let lib = nvml.lib();
    // SAFETY: the handle comes from nvml-wrapper and outlives these calls.
    let handle = unsafe { device.handle() };
    let v2 = lib.nvmlDeviceGetGpuInstanceProfileInfoV.as_ref().ok();
    let v1 = symbol(
        lib.nvmlDeviceGetGpuInstanceProfileInfo.as_ref(),
        "nvmlDeviceGetGpuInstanceProfileInfo",
    )?;
    let mut out = Vec::new();
    for index in 0..GI_PROFILE_COUNT {
        if let Some(get) = v2 {
            // SAFETY: a zeroed plain C struct with its version set, as the API asks.
            let mut info: nvmlGpuInstanceProfileInfo_v2_t = unsafe { mem::zeroed() };
            info.version = struct_version_2::<nvmlGpuInstanceProfileInfo_v2_t>();
            // SAFETY: valid device handle and out pointer.
            let code = unsafe { get(handle, index, &mut info) };
            if code == 0 {
                out.push(RawProfile {
                    index,
                    name: c_name(&info.name),
                    info: nvmlGpuInstanceProfileInfo_t {
                        id: info.id,
                        isP2pSupported: info.isP2pSupported,
                        sliceCount: info.sliceCount,
                        instanceCount: info.instanceCount,
                        multiprocessorCount: info.multiprocessorCount,
                        copyEngineCount: info.copyEngineCount,
                        decoderCount: info.decoderCount,
                        encoderCount: info.encoderCount,
                        jpegCount: info.jpegCount,
                        ofaCount: info.ofaCount,
                        memorySizeMB: info.memorySizeMB,
                    },
                });
                continue;
            }
            if code != 13 && code != 25 {
                // Not offered on this GPU (or MIG disabled): try the next profile.
                continue;
            }
        }
        // SAFETY: as above, for the v1 call.
        let mut info: nvmlGpuInstanceProfileInfo_t = unsafe { mem::zeroed() };
        if unsafe { v1(handle, index, &mut info) } == 0 {
            out.push(RawProfile {
                index,
                info,
                name: None,
            });
        }
    }
    Ok(out)
}

/// The GPU-instance profiles with placements and free counts. With MIG disabled the driver
/// answers nothing, so the catalog stands in (with nothing free) to let a plan be made first.
pub fn gpu_instance_profiles(
    nvml: &Nvml,
    device: &Device,
    total_mib: u64,
) -> DriverResult<Vec<ProfileCapacity>> {
    let raw = raw_profiles(nvml, device)?;
    // With MIG disabled the driver may list profiles but no placements or capacity: the catalog
    // stands in when it knows the GPU, so a plan can be made before the mode flips.
    let enabled = device.mig_mode().is_ok_and(|m| m.current == 1);
    if raw.is_empty() || !enabled {
        match catalog_profiles(device) {
            Ok(list) => return Ok(list),
            Err(e) if raw.is_empty() => return Err(e),
            Err(_) => {}
        }
    }
    let lib = nvml.lib();
    let placements = symbol(
        lib.nvmlDeviceGetGpuInstancePossiblePlacements_v2.as_ref(),
        "nvmlDeviceGetGpuInstancePossiblePlacements_v2",
    )?;
    let remaining = symbol(
        lib.nvmlDeviceGetGpuInstanceRemainingCapacity.as_ref(),
        "nvmlDeviceGetGpuInstanceRemainingCapacity",
    )?;
    // SAFETY: the handle comes from nvml-wrapper and outlives these calls.
    let handle = unsafe { device.handle() };
    let mut out = Vec::new();
    for p in raw {
        let what = format!("possible placements of profile {}", p.info.id);
        let mut count: u32 = 0;
        // SAFETY: the first call asks for the count with a null buffer, as the API allows.
        let code = unsafe { placements(handle, p.info.id, ptr::null_mut(), &mut count) };
        let mut buf: Vec<nvmlGpuInstancePlacement_t> = Vec::new();
        if code == 0 || code == 7 {
            buf = vec![nvmlGpuInstancePlacement_t { start: 0, size: 0 }; count as usize];
            // SAFETY: the buffer holds `count` elements.
            let code = unsafe { placements(handle, p.info.id, buf.as_mut_ptr(), &mut count) };
            if code == 0 {
                buf.truncate(count as usize);
            } else if enabled {
                check(code, &what)?;
            } else {
                buf.clear();
            }
        } else if enabled {
            check(code, &what)?;
        }
        let mut free: u32 = 0;
        if enabled {
            // SAFETY: valid handle and out pointer.
            check(
                unsafe { remaining(handle, p.info.id, &mut free) },
                "remaining capacity",
            )?;
        }
        let memory_mib = p.info.memorySizeMB;
        out.push(ProfileCapacity {
            profile: GpuInstanceProfile {
                name: p.name.unwrap_or_else(|| {
                    profile_name(p.info.sliceCount, p.index, memory_mib, total_mib)
                }),
                nvml_profile: p.index,
                id: p.info.id,
                slices: p.info.sliceCount,
                memory_mib,
                max_instances: p.info.instanceCount,
                sm: p.info.multiprocessorCount,
                ce: p.info.copyEngineCount,
                dec: p.info.decoderCount,
                enc: p.info.encoderCount,
                jpeg: p.info.jpegCount,
                ofa: p.info.ofaCount,
                starts: buf.iter().map(|pl| pl.start).collect(),
                size: buf.first().map_or(0, |pl| pl.size),
                inferred: false,
            },
            free_instances: free,
        });
    }
    Ok(out)
}

fn catalog_profiles(device: &Device) -> DriverResult<Vec<ProfileCapacity>> {
    let pci = device.pci_info().map_err(|e| driver_error(e, "PCI info"))?;
    let model = catalog().model_by_pci(PciId(pci.pci_device_id));
    let table = model.and_then(|m| catalog().mig_table(m)).ok_or_else(|| {
        DriverError::new(
            DriverErrorKind::NotSupported,
            format!(
                "the driver lists MIG profiles only with MIG enabled, and {} is not in the catalog",
                PciId(pci.pci_device_id)
            ),
        )
    })?;
    Ok(table
        .profiles
        .iter()
        .map(|p| ProfileCapacity {
            profile: p.clone(),
            free_instances: 0,
        })
        .collect())
}

fn gpu_instance_info(nvml: &Nvml, gi: nvmlGpuInstance_t) -> DriverResult<nvmlGpuInstanceInfo_t> {
    let get = symbol(
        nvml.lib().nvmlGpuInstanceGetInfo.as_ref(),
        "nvmlGpuInstanceGetInfo",
    )?;
    // SAFETY: zeroed C struct filled by the call; gi is a live handle.
    let mut info: nvmlGpuInstanceInfo_t = unsafe { mem::zeroed() };
    check(unsafe { get(gi, &mut info) }, "GPU instance info")?;
    Ok(info)
}

fn gpu_instance_by_id(nvml: &Nvml, device: &Device, id: u32) -> DriverResult<nvmlGpuInstance_t> {
    let get = symbol(
        nvml.lib().nvmlDeviceGetGpuInstanceById.as_ref(),
        "nvmlDeviceGetGpuInstanceById",
    )?;
    let mut gi: nvmlGpuInstance_t = ptr::null_mut();
    // SAFETY: valid device handle and out pointer.
    check(
        unsafe { get(device.handle(), id, &mut gi) },
        &format!("GPU instance {id}"),
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
    // SAFETY: live GPU-instance handle and out pointer.
    check(
        unsafe { get(gi, id, &mut ci) },
        &format!("compute instance {id}"),
    )?;
    Ok(ci)
}

/// A compute-instance profile as the driver describes it: its `NVML_COMPUTE_INSTANCE_PROFILE_*`
/// index, its info (with the profile *id*, which other calls take and which need not equal the
/// index) and its name.
type RawComputeProfile = (u32, nvmlComputeInstanceProfileInfo_t, Option<String>);

/// Compute-instance profiles a GPU instance offers, with their index, info and name.
fn raw_compute_profiles(
    nvml: &Nvml,
    gi: nvmlGpuInstance_t,
) -> DriverResult<Vec<RawComputeProfile>> {
    let lib = nvml.lib();
    let v2 = lib
        .nvmlGpuInstanceGetComputeInstanceProfileInfoV
        .as_ref()
        .ok();
    let v1 = symbol(
        lib.nvmlGpuInstanceGetComputeInstanceProfileInfo.as_ref(),
        "nvmlGpuInstanceGetComputeInstanceProfileInfo",
    )?;
    let mut out = Vec::new();
    for index in 0..CI_PROFILE_COUNT {
        if let Some(get) = v2 {
            // SAFETY: zeroed C struct with its version set; live handle.
            let mut info: nvmlComputeInstanceProfileInfo_v2_t = unsafe { mem::zeroed() };
            info.version = struct_version_2::<nvmlComputeInstanceProfileInfo_v2_t>();
            let code = unsafe { get(gi, index, CI_ENGINE_SHARED, &mut info) };
            if code == 0 {
                out.push((
                    index,
                    nvmlComputeInstanceProfileInfo_t {
                        id: info.id,
                        sliceCount: info.sliceCount,
                        instanceCount: info.instanceCount,
                        multiprocessorCount: info.multiprocessorCount,
                        sharedCopyEngineCount: info.sharedCopyEngineCount,
                        sharedDecoderCount: info.sharedDecoderCount,
                        sharedEncoderCount: info.sharedEncoderCount,
                        sharedJpegCount: info.sharedJpegCount,
                        sharedOfaCount: info.sharedOfaCount,
                    },
                    c_name(&info.name),
                ));
                continue;
            }
            if code != 13 && code != 25 {
                continue;
            }
        }
        // SAFETY: as above, for the v1 call.
        let mut info: nvmlComputeInstanceProfileInfo_t = unsafe { mem::zeroed() };
        if unsafe { v1(gi, index, CI_ENGINE_SHARED, &mut info) } == 0 {
            out.push((index, info, None));
        }
    }
    Ok(out)
}

fn ci_name(raw: Option<String>, slices: u32, gi_slices: u32, gi_profile: &str) -> String {
    raw.unwrap_or_else(|| {
        if slices == gi_slices {
            gi_profile.to_string()
        } else {
            format!("{slices}c.{gi_profile}")
        }
    })
}

/// Every GPU instance of a MIG-enabled GPU, with its compute instances and MIG UUIDs.
pub fn gpu_instances(
    nvml: &Nvml,
    device: &Device,
    total_mib: u64,
) -> DriverResult<Vec<GpuInstance>> {
    let list = symbol(
        nvml.lib().nvmlDeviceGetGpuInstances.as_ref(),
        "nvmlDeviceGetGpuInstances",
    )?;
    let cis = symbol(
        nvml.lib().nvmlGpuInstanceGetComputeInstances.as_ref(),
        "nvmlGpuInstanceGetComputeInstances",
    )?;
    let ci_info = symbol(
        nvml.lib().nvmlComputeInstanceGetInfo_v2.as_ref(),
        "nvmlComputeInstanceGetInfo_v2",
    )?;
    let mig_devices = mig_devices(nvml, device);
    let mut out = Vec::new();
    for p in raw_profiles(nvml, device)? {
        let mut handles: Vec<nvmlGpuInstance_t> =
            vec![ptr::null_mut(); p.info.instanceCount.max(1) as usize];
        let mut count: u32 = 0;
        // SAFETY: the buffer holds instanceCount handles, the most the driver returns.
        check(
            unsafe { list(device.handle(), p.info.id, handles.as_mut_ptr(), &mut count) },
            "list GPU instances",
        )?;
        handles.truncate(count as usize);
        let gi_name = p.name.clone().unwrap_or_else(|| {
            profile_name(p.info.sliceCount, p.index, p.info.memorySizeMB, total_mib)
        });
        for gi in handles {
            let info = gpu_instance_info(nvml, gi)?;
            let mut compute_instances = Vec::new();
            for (ci_index, cp, cname) in raw_compute_profiles(nvml, gi)? {
                let mut ci_handles: Vec<nvmlComputeInstance_t> =
                    vec![ptr::null_mut(); cp.instanceCount.max(1) as usize];
                let mut n: u32 = 0;
                // SAFETY: the buffer holds instanceCount handles.
                check(
                    unsafe { cis(gi, cp.id, ci_handles.as_mut_ptr(), &mut n) },
                    "list compute instances",
                )?;
                ci_handles.truncate(n as usize);
                for ci in ci_handles {
                    // SAFETY: zeroed C struct filled by the call; live handle.
                    let mut cinfo: nvmlComputeInstanceInfo_t = unsafe { mem::zeroed() };
                    check(unsafe { ci_info(ci, &mut cinfo) }, "compute instance info")?;
                    let mig = mig_devices.iter().find(|m| {
                        m.gpu_instance_id == info.id && m.compute_instance_id == cinfo.id
                    });
                    compute_instances.push(ComputeInstance {
                        compute_instance_id: cinfo.id,
                        profile: ci_name(cname.clone(), cp.sliceCount, p.info.sliceCount, &gi_name),
                        // gpushare names compute-instance profiles by index, as the catalog
                        // and mig-parted do; the driver's id is only for its own calls.
                        profile_id: ci_index,
                        placement: Placement {
                            start: cinfo.placement.start,
                            size: cinfo.placement.size,
                        },
                        multiprocessors: cp.multiprocessorCount,
                        uuid: mig.map(|m| m.uuid.clone()).unwrap_or_default(),
                        compute_mode: mig.map_or(ComputeMode::Default, |m| m.compute_mode),
                    });
                }
            }
            compute_instances.sort_by_key(|c| c.compute_instance_id);
            out.push(GpuInstance {
                gpu_instance_id: info.id,
                profile: gi_name.clone(),
                profile_id: info.profileId,
                placement: Placement {
                    start: info.placement.start,
                    size: info.placement.size,
                },
                memory_mib: p.info.memorySizeMB,
                multiprocessors: p.info.multiprocessorCount,
                compute_instances,
            });
        }
    }
    out.sort_by_key(|g| g.gpu_instance_id);
    Ok(out)
}

struct MigDevice {
    index: u32,
    gpu_instance_id: u32,
    compute_instance_id: u32,
    uuid: String,
    compute_mode: ComputeMode,
}

fn mig_devices(nvml: &Nvml, device: &Device) -> Vec<MigDevice> {
    let lib = nvml.lib();
    let (Ok(gi_id), Ok(ci_id)) = (
        nvml_sym(lib.nvmlDeviceGetGpuInstanceId.as_ref()),
        nvml_sym(lib.nvmlDeviceGetComputeInstanceId.as_ref()),
    ) else {
        return Vec::new();
    };
    let max = device.mig_device_count().unwrap_or(0);
    let mut out = Vec::new();
    for index in 0..max {
        let Ok(mig) = device.mig_device_by_index(index) else {
            continue;
        };
        let (mut gi, mut ci) = (0u32, 0u32);
        // SAFETY: a live MIG device handle and out pointers.
        let ok = unsafe { gi_id(mig.handle(), &mut gi) == 0 && ci_id(mig.handle(), &mut ci) == 0 };
        if !ok {
            continue;
        }
        out.push(MigDevice {
            index,
            gpu_instance_id: gi,
            compute_instance_id: ci,
            uuid: mig.uuid().unwrap_or_default(),
            compute_mode: mig
                .compute_mode()
                .map(|m| match m {
                    nvml_wrapper::enum_wrappers::device::ComputeMode::Default => {
                        ComputeMode::Default
                    }
                    nvml_wrapper::enum_wrappers::device::ComputeMode::Prohibited => {
                        ComputeMode::Prohibited
                    }
                    _ => ComputeMode::ExclusiveProcess,
                })
                .unwrap_or_default(),
        });
    }
    out
}

/// The MIG device handle of a compute instance (for its compute mode).
pub fn mig_device<'n>(
    nvml: &'n Nvml,
    device: &Device<'n>,
    gpu_instance_id: u32,
    compute_instance_id: u32,
) -> DriverResult<Device<'n>> {
    let found = mig_devices(nvml, device)
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
        .map_err(|e| driver_error(e, "MIG device handle"))
}

pub fn compute_instance_profiles(
    nvml: &Nvml,
    device: &Device,
    gpu_instance_id: u32,
) -> DriverResult<Vec<ComputeInstanceProfile>> {
    let gi = gpu_instance_by_id(nvml, device, gpu_instance_id)?;
    let info = gpu_instance_info(nvml, gi)?;
    let gi_profile = raw_profiles(nvml, device)?
        .into_iter()
        .find(|p| p.info.id == info.profileId);
    let (gi_name, gi_slices) = gi_profile
        .as_ref()
        .map(|p| (p.name.clone().unwrap_or_default(), p.info.sliceCount))
        .unwrap_or_default();
    let placements = symbol(
        nvml.lib()
            .nvmlGpuInstanceGetComputeInstancePossiblePlacements
            .as_ref(),
        "nvmlGpuInstanceGetComputeInstancePossiblePlacements",
    )?;
    let mut out = Vec::new();
    for (index, cp, name) in raw_compute_profiles(nvml, gi)? {
        let mut count = cp.instanceCount.max(1);
        let mut buf = vec![nvmlComputeInstancePlacement_t { start: 0, size: 0 }; count as usize];
        // SAFETY: the buffer holds instanceCount placements.
        let code = unsafe { placements(gi, cp.id, buf.as_mut_ptr(), &mut count) };
        let starts = if code == 0 {
            buf.truncate(count as usize);
            buf.iter().map(|p| p.start).collect()
        } else {
            Vec::new()
        };
        out.push(ComputeInstanceProfile {
            name: ci_name(name, cp.sliceCount, gi_slices, &gi_name),
            id: index,
            slices: cp.sliceCount,
            max_instances: cp.instanceCount,
            sm: cp.multiprocessorCount,
            starts,
        });
    }
    Ok(out)
}

pub fn create_gpu_instance(
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
    // SAFETY: valid device handle, placement and out pointer.
    check(
        unsafe { create(device.handle(), profile_id, &raw, &mut gi) },
        &format!("create GPU instance of profile {profile_id} at {placement}"),
    )?;
    Ok(gpu_instance_info(nvml, gi)?.id)
}

pub fn create_compute_instance(
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
    let info_fn = symbol(
        nvml.lib().nvmlComputeInstanceGetInfo_v2.as_ref(),
        "nvmlComputeInstanceGetInfo_v2",
    )?;
    // The planner names the profile by its NVML_COMPUTE_INSTANCE_PROFILE_* index; the call takes
    // the driver's profile id, which this GPU instance's profile info gives (as mig-parted does).
    let id = raw_compute_profiles(nvml, gi)?
        .into_iter()
        .find(|(index, _, _)| *index == profile)
        .map(|(_, info, _)| info.id)
        .ok_or_else(|| {
            DriverError::new(
                DriverErrorKind::NotSupported,
                format!(
                    "GPU instance {gpu_instance_id} offers no compute-instance profile with index {profile}"
                ),
            )
        })?;
    let mut ci: nvmlComputeInstance_t = ptr::null_mut();
    // SAFETY: live GPU-instance handle and out pointer.
    check(
        unsafe { create(gi, id, &mut ci) },
        &format!(
            "create compute instance of profile {profile} (id {id}) in GPU instance {gpu_instance_id}"
        ),
    )?;
    // SAFETY: zeroed C struct filled by the call.
    let mut info: nvmlComputeInstanceInfo_t = unsafe { mem::zeroed() };
    check(unsafe { info_fn(ci, &mut info) }, "compute instance info")?;
    Ok(info.id)
}

pub fn destroy_compute_instance(
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
    check(
        unsafe { destroy(ci) },
        &format!("destroy compute instance {gpu_instance_id}:{compute_instance_id}"),
    )
}

pub fn destroy_gpu_instance(
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
    check(
        unsafe { destroy(gi) },
        &format!("destroy GPU instance {gpu_instance_id}"),
    )
}
