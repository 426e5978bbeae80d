//! MIG profiles as the driver lists them: GPU-instance profiles with their placements and free
//! counts (the compute-instance profiles of a GPU instance are in [`compute_profiles`](super::compute_profiles)).
//!
//! Profile indices are asked one after the other until the driver answers INVALID_ARGUMENT, as
//! `nvml.h` advises (so profiles newer than gpushare, such as the NVL compute profile 0x8, are
//! listed too). The versioned call (`…ProfileInfoV`, with names) comes first; the v1 call is asked
//! where it answers NOT_SUPPORTED — which it does for every profile while MIG is off, when the v1
//! call and the placements still answer — or where the driver is older than it.
//!
//! While MIG is off and the driver lists nothing, the catalog stands in when it agrees with the
//! driver; otherwise the profiles are known only once MIG is on ([`MigProfiles::UntilEnabled`]).
//! While MIG is on, a refused query is an error, never an empty list.

use super::error::{self as code, driver_error, on_gpu, symbol};
use super::ffi::{
    Answer, answer, c_name, count_then_list, enumerate, memory_info, struct_version_2,
};
use crate::node::backend::{
    DriverError, DriverErrorKind, DriverResult, MigProfiles, ProfileCapacity, ProfileOrigin,
};
use crate::node::model::PciId;
use crate::node::model::catalog::{CatalogMatch, GpuInstanceProfile, catalog, profile_name};
use nvml_wrapper::{Device, Nvml};
use nvml_wrapper_sys::bindings::*;
use std::mem;

/// More placements than any profile has (8 memory slices), for the v1 placements call, which
/// cannot be asked for the count.
const V1_PLACEMENT_ROOM: u32 = 32;

/// What an empty profile list means while MIG is on: the driver refused every profile.
pub(super) const NO_PROFILE_WITH_MIG_ON: &str =
    "nvmlDeviceGetGpuInstanceProfileInfo(V) answers no profile while MIG is on";

/// One GPU-instance profile as the driver describes it.
pub(super) struct RawProfile {
    /// The `NVML_GPU_INSTANCE_PROFILE_*` index.
    pub index: u32,
    pub info: nvmlGpuInstanceProfileInfo_t,
    /// The driver's name (versioned call only).
    pub name: Option<String>,
}

impl RawProfile {
    /// The name nvidia-smi shows: the driver's, else derived by the driver's rule.
    pub(super) fn name(&self, total_mib: u64) -> String {
        self.name.clone().unwrap_or_else(|| {
            profile_name(
                self.info.sliceCount,
                self.index,
                self.info.memorySizeMB,
                total_mib,
            )
        })
    }
}

/// Every GPU-instance profile the driver lists for this GPU.
pub(super) fn gpu_instance_profile_infos(
    nvml: &Nvml,
    device: &Device,
) -> DriverResult<Vec<RawProfile>> {
    let lib = nvml.lib();
    // SAFETY: the handle comes from nvml-wrapper and outlives these calls.
    let handle = unsafe { device.handle() };
    let versioned = lib.nvmlDeviceGetGpuInstanceProfileInfoV.as_ref().ok();
    let v1 = symbol(
        lib.nvmlDeviceGetGpuInstanceProfileInfo.as_ref(),
        "nvmlDeviceGetGpuInstanceProfileInfo",
    )?;
    enumerate(|index| {
        if let Some(get) = versioned {
            // SAFETY: a zeroed plain C struct with its version set, as the API asks.
            let mut info: nvmlGpuInstanceProfileInfo_v2_t = unsafe { mem::zeroed() };
            info.version = struct_version_2::<nvmlGpuInstanceProfileInfo_v2_t>();
            // SAFETY: valid device handle and out pointer.
            let rc = unsafe { get(handle, index, &mut info) };
            match rc {
                code::SUCCESS => {
                    return Ok(Answer::Profile(RawProfile {
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
                    }));
                }
                code::INVALID_ARGUMENT => return Ok(Answer::End),
                rc if rc == code::NOT_SUPPORTED || code::is_too_new(rc) => {}
                rc => {
                    return Err(code::error(
                        rc,
                        format!("nvmlDeviceGetGpuInstanceProfileInfoV (profile {index})"),
                    ));
                }
            }
        }
        // SAFETY: as above, for the v1 struct.
        let mut info: nvmlGpuInstanceProfileInfo_t = unsafe { mem::zeroed() };
        // SAFETY: the handle is live and the call only fills the struct above.
        let rc = unsafe { v1(handle, index, &mut info) };
        Ok(
            match answer(rc, || {
                format!("nvmlDeviceGetGpuInstanceProfileInfo (profile {index})")
            })? {
                Answer::Profile(()) => Answer::Profile(RawProfile {
                    index,
                    info,
                    name: None,
                }),
                Answer::Skip => Answer::Skip,
                Answer::End => Answer::End,
            },
        )
    })
}

/// The placements of a GPU-instance profile: `_v2` (count first), else the v1 call.
fn gpu_instance_placements(
    nvml: &Nvml,
    handle: nvmlDevice_t,
    profile_id: u32,
) -> DriverResult<Vec<nvmlGpuInstancePlacement_t>> {
    let lib = nvml.lib();
    if let Ok(get) = lib.nvmlDeviceGetGpuInstancePossiblePlacements_v2.as_ref() {
        let empty = nvmlGpuInstancePlacement_t { start: 0, size: 0 };
        // SAFETY: `count_then_list` passes null or a buffer of `*count` placements.
        match count_then_list(empty, |buf, count| unsafe {
            get(handle, profile_id, buf, count)
        }) {
            Ok(list) => return Ok(list),
            Err(rc) if code::is_too_new(rc) => {}
            Err(rc) => {
                return Err(code::error(
                    rc,
                    format!(
                        "nvmlDeviceGetGpuInstancePossiblePlacements_v2 (profile id {profile_id})"
                    ),
                ));
            }
        }
    }
    let get = symbol(
        lib.nvmlDeviceGetGpuInstancePossiblePlacements.as_ref(),
        "nvmlDeviceGetGpuInstancePossiblePlacements",
    )?;
    let mut count = V1_PLACEMENT_ROOM;
    let mut buf = vec![nvmlGpuInstancePlacement_t { start: 0, size: 0 }; count as usize];
    code::check(
        // SAFETY: the buffer holds `count` placements, more than any profile has.
        unsafe { get(handle, profile_id, buf.as_mut_ptr(), &mut count) },
        format!("nvmlDeviceGetGpuInstancePossiblePlacements (profile id {profile_id})"),
    )?;
    buf.truncate(count as usize);
    Ok(buf)
}

/// The GPU-instance profiles of a MIG-capable GPU with placements and free counts (see the
/// module doc for where they come from).
pub(super) fn gpu_instance_profiles(
    nvml: &Nvml,
    device: &Device,
    index: u32,
) -> DriverResult<MigProfiles> {
    let at = |what: &str| format!("GPU {index}: {what}");
    let total_mib = memory_info(nvml, device)
        .map(|m| m.total / (1024 * 1024))
        .map_err(|e| on_gpu(e, index))?;
    let enabled = device
        .mig_mode()
        .map_err(|e| driver_error(e, &at("nvmlDeviceGetMigMode")))?
        .current
        == 1;
    let raw = gpu_instance_profile_infos(nvml, device).map_err(|e| on_gpu(e, index))?;
    if raw.is_empty() && enabled {
        return Err(DriverError::new(
            DriverErrorKind::NotSupported,
            at(NO_PROFILE_WITH_MIG_ON),
        ));
    }
    let remaining = symbol(
        nvml.lib()
            .nvmlDeviceGetGpuInstanceRemainingCapacity
            .as_ref(),
        "nvmlDeviceGetGpuInstanceRemainingCapacity",
    )?;
    // SAFETY: the handle comes from nvml-wrapper and outlives these calls.
    let handle = unsafe { device.handle() };
    let mut out = Vec::new();
    let mut missing_placements = raw.is_empty();
    for p in &raw {
        let placements = match gpu_instance_placements(nvml, handle, p.info.id) {
            Ok(list) if !list.is_empty() => list,
            Ok(_) if enabled => {
                return Err(DriverError::new(
                    DriverErrorKind::NotSupported,
                    at(&format!(
                        "nvmlDeviceGetGpuInstancePossiblePlacements lists no placement of profile id {}",
                        p.info.id
                    )),
                ));
            }
            Err(e) if enabled => return Err(on_gpu(e, index)),
            Ok(_) | Err(_) => {
                missing_placements = true;
                break;
            }
        };
        let mut free: u32 = 0;
        if enabled {
            code::check(
                // SAFETY: valid handle and out pointer.
                unsafe { remaining(handle, p.info.id, &mut free) },
                at(&format!(
                    "nvmlDeviceGetGpuInstanceRemainingCapacity (profile id {})",
                    p.info.id
                )),
            )?;
        }
        out.push(ProfileCapacity {
            profile: GpuInstanceProfile {
                name: p.name(total_mib),
                nvml_profile: p.index,
                id: p.info.id,
                slices: p.info.sliceCount,
                memory_mib: p.info.memorySizeMB,
                max_instances: p.info.instanceCount,
                sm: p.info.multiprocessorCount,
                ce: p.info.copyEngineCount,
                dec: p.info.decoderCount,
                enc: p.info.encoderCount,
                jpeg: p.info.jpegCount,
                ofa: p.info.ofaCount,
                starts: placements.iter().map(|pl| pl.start).collect(),
                size: placements.first().map_or(0, |pl| pl.size),
                inferred: false,
            },
            free_instances: free,
        });
    }
    if !missing_placements {
        return Ok(MigProfiles::Listed {
            profiles: out,
            source: ProfileOrigin::Driver,
        });
    }
    // MIG off, and the driver did not list every profile with its placements.
    catalog_profiles(device, total_mib, index)
}

/// The catalog's profiles of a GPU whose MIG mode is off, when the catalog agrees with the
/// driver about it (nothing is free until MIG is on).
fn catalog_profiles(device: &Device, total_mib: u64, index: u32) -> DriverResult<MigProfiles> {
    let at = |what: &str| format!("GPU {index}: {what}");
    let pci = device
        .pci_info()
        .map_err(|e| driver_error(e, &at("nvmlDeviceGetPciInfo_v3")))?;
    let name = device
        .name()
        .map_err(|e| driver_error(e, &at("nvmlDeviceGetName")))?;
    let why = match catalog().match_gpu(&name, PciId(pci.pci_device_id), total_mib) {
        CatalogMatch::Found(model) => match catalog().mig_table(model) {
            Some(table) => {
                return Ok(MigProfiles::Listed {
                    profiles: table
                        .profiles
                        .iter()
                        .map(|p| ProfileCapacity {
                            profile: p.clone(),
                            free_instances: 0,
                        })
                        .collect(),
                    source: ProfileOrigin::Catalog,
                });
            }
            None => format!("the catalog has no MIG table for {}", model.name),
        },
        CatalogMatch::Unknown => format!(
            "the catalog does not know {name} ({})",
            PciId(pci.pci_device_id)
        ),
        CatalogMatch::Mismatch(why) => why,
    };
    Ok(MigProfiles::UntilEnabled {
        why: format!("the driver lists its MIG profiles only with MIG on, and {why}"),
    })
}
