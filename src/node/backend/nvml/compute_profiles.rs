//! The compute-instance profiles of a GPU instance, asked index after index until the driver
//! answers INVALID_ARGUMENT (so the NVL profile 0x8 is listed), with their placements (the count
//! first, then a buffer that holds them all).

use super::error::{self as code, symbol};
use super::ffi::{Answer, answer, c_name, count_then_list, enumerate, struct_version_2};
use crate::node::backend::DriverResult;
use crate::node::model::catalog::ComputeInstanceProfile;
use nvml_wrapper::Nvml;
use nvml_wrapper_sys::bindings::*;
use std::mem;

/// `NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED`.
const CI_ENGINE_SHARED: u32 = 0;

/// One compute-instance profile as the driver describes it.
pub(super) struct RawComputeProfile {
    /// The `NVML_COMPUTE_INSTANCE_PROFILE_*` index, the name gpushare (like the catalog and
    /// mig-parted) gives the profile; `info.id` is the driver's id for it, which other calls take
    /// and which need not equal the index.
    pub index: u32,
    pub info: nvmlComputeInstanceProfileInfo_t,
    pub name: Option<String>,
}

/// The compute-instance profiles a GPU instance offers.
pub(super) fn compute_profile_infos(
    nvml: &Nvml,
    gi: nvmlGpuInstance_t,
) -> DriverResult<Vec<RawComputeProfile>> {
    let lib = nvml.lib();
    let versioned = lib
        .nvmlGpuInstanceGetComputeInstanceProfileInfoV
        .as_ref()
        .ok();
    let v1 = symbol(
        lib.nvmlGpuInstanceGetComputeInstanceProfileInfo.as_ref(),
        "nvmlGpuInstanceGetComputeInstanceProfileInfo",
    )?;
    enumerate(|index| {
        if let Some(get) = versioned {
            // SAFETY: zeroed C struct with its version set; live GPU-instance handle.
            let mut info: nvmlComputeInstanceProfileInfo_v2_t = unsafe { mem::zeroed() };
            info.version = struct_version_2::<nvmlComputeInstanceProfileInfo_v2_t>();
            // SAFETY: the handle is live and the call only fills the struct above.
            let rc = unsafe { get(gi, index, CI_ENGINE_SHARED, &mut info) };
            match rc {
                code::SUCCESS => {
                    return Ok(Answer::Profile(RawComputeProfile {
                        index,
                        name: c_name(&info.name),
                        info: nvmlComputeInstanceProfileInfo_t {
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
                    }));
                }
                code::INVALID_ARGUMENT => return Ok(Answer::End),
                rc if rc == code::NOT_SUPPORTED || code::is_too_new(rc) => {}
                rc => {
                    return Err(code::error(
                        rc,
                        format!("nvmlGpuInstanceGetComputeInstanceProfileInfoV (profile {index})"),
                    ));
                }
            }
        }
        // SAFETY: as above, for the v1 struct.
        let mut info: nvmlComputeInstanceProfileInfo_t = unsafe { mem::zeroed() };
        // SAFETY: the handle is live and the call only fills the struct above.
        let rc = unsafe { v1(gi, index, CI_ENGINE_SHARED, &mut info) };
        Ok(
            match answer(rc, || {
                format!("nvmlGpuInstanceGetComputeInstanceProfileInfo (profile {index})")
            })? {
                Answer::Profile(()) => Answer::Profile(RawComputeProfile {
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

/// The name nvidia-smi shows for a compute-instance profile: the driver's, else `Nc.<GI>`, or
/// the GPU-instance profile's for the full-size one.
pub(super) fn compute_profile_name(
    raw: Option<String>,
    slices: u32,
    gi_slices: u32,
    gi_profile: &str,
) -> String {
    raw.unwrap_or_else(|| {
        if slices == gi_slices {
            gi_profile.to_string()
        } else {
            format!("{slices}c.{gi_profile}")
        }
    })
}

/// The starts a compute-instance profile may take in a GPU instance: the count first, then a
/// buffer that holds every placement (`nvml.h`: the buffer must hold them all).
fn compute_instance_starts(
    nvml: &Nvml,
    gi: nvmlGpuInstance_t,
    profile_id: u32,
) -> DriverResult<Vec<u32>> {
    let get = symbol(
        nvml.lib()
            .nvmlGpuInstanceGetComputeInstancePossiblePlacements
            .as_ref(),
        "nvmlGpuInstanceGetComputeInstancePossiblePlacements",
    )?;
    let empty = nvmlComputeInstancePlacement_t { start: 0, size: 0 };
    // SAFETY: `count_then_list` passes null or a buffer of `*count` placements; gi is live.
    let list = count_then_list(empty, |buf, count| unsafe {
        get(gi, profile_id, buf, count)
    })
    .map_err(|rc| {
        code::error(
            rc,
            format!(
                "nvmlGpuInstanceGetComputeInstancePossiblePlacements (profile id {profile_id})"
            ),
        )
    })?;
    Ok(list.iter().map(|p| p.start).collect())
}

/// The compute-instance profiles of a GPU instance with their starts.
pub(super) fn compute_instance_profiles(
    nvml: &Nvml,
    gi: nvmlGpuInstance_t,
    gi_name: &str,
    gi_slices: u32,
) -> DriverResult<Vec<ComputeInstanceProfile>> {
    let mut out = Vec::new();
    for cp in compute_profile_infos(nvml, gi)? {
        out.push(ComputeInstanceProfile {
            name: compute_profile_name(cp.name, cp.info.sliceCount, gi_slices, gi_name),
            id: cp.index,
            slices: cp.info.sliceCount,
            max_instances: cp.info.instanceCount,
            sm: cp.info.multiprocessorCount,
            starts: compute_instance_starts(nvml, gi, cp.info.id)?,
        });
    }
    Ok(out)
}
