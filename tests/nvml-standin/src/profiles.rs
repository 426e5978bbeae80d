//! MIG profiles as the driver numbers them: GPU-instance profile *indices*
//! (`NVML_GPU_INSTANCE_PROFILE_*`, what the profile-info calls take) next to profile *ids* (what
//! every other call takes), and the same for compute instances, whose ids are their index plus
//! `NVML_STANDIN_CI_PROFILE_ID_OFFSET`.
//!
//! The simulator keeps compute instances by index (the catalog's `ComputeInstanceProfile::id`).

use crate::call::{Fail, INVALID_ARGUMENT, NOT_SUPPORTED};
use crate::switches;
use gpushare::node::backend::sim::state::{SimGpu, SimGpuInstance};
use gpushare::node::model::catalog::{GpuInstanceProfile, MigTable, catalog};

/// `NVML_GPU_INSTANCE_PROFILE_COUNT`.
pub const GI_PROFILE_COUNT: u32 = 0x12;
/// `NVML_COMPUTE_INSTANCE_PROFILE_COUNT`.
pub const CI_PROFILE_COUNT: u32 = 0x9;
/// `NVML_COMPUTE_INSTANCE_PROFILE_7_SLICE_NVL`.
pub const CI_PROFILE_7_SLICE_NVL: u32 = 0x8;

/// The MIG table of a GPU; NOT_SUPPORTED on a GPU without MIG.
pub fn table(gpu: &SimGpu) -> Result<&'static MigTable, Fail> {
    gpu.model()
        .ok()
        .and_then(|m| catalog().mig_table(m))
        .ok_or_else(|| Fail::new(NOT_SUPPORTED, format!("{} has no MIG", gpu.model)))
}

/// NOT_SUPPORTED unless MIG is enabled now (not merely pending).
pub fn require_mig_enabled(gpu: &SimGpu) -> Result<&'static MigTable, Fail> {
    let t = table(gpu)?;
    if !gpu.mig_current.is_enabled() {
        return Err(Fail::new(NOT_SUPPORTED, "MIG mode is not enabled"));
    }
    Ok(t)
}

pub fn gi_profile_by_index(
    table: &'static MigTable,
    index: u32,
) -> Result<&'static GpuInstanceProfile, Fail> {
    if index >= GI_PROFILE_COUNT {
        return Err(Fail::new(
            INVALID_ARGUMENT,
            format!("profile index {index} is past NVML_GPU_INSTANCE_PROFILE_COUNT"),
        ));
    }
    table
        .profiles
        .iter()
        .find(|p| p.nvml_profile == index)
        .ok_or_else(|| Fail::new(NOT_SUPPORTED, format!("no profile with index {index}")))
}

/// A GPU-instance profile by its id; `code` for an id the GPU does not have (the calls differ).
pub fn gi_profile_by_id(
    table: &'static MigTable,
    id: u32,
    code: crate::call::Ret,
) -> Result<&'static GpuInstanceProfile, Fail> {
    table
        .profile_by_id(id)
        .ok_or_else(|| Fail::new(code, format!("no GPU-instance profile with id {id}")))
}

/// A compute-instance profile a GPU instance offers.
#[derive(Debug, Clone)]
pub struct CiProfile {
    /// `NVML_COMPUTE_INSTANCE_PROFILE_*`.
    pub index: u32,
    pub name: String,
    pub slices: u32,
    pub max_instances: u32,
    pub sm: u32,
    pub starts: Vec<u32>,
}

impl CiProfile {
    pub fn id(&self) -> u32 {
        self.index + switches::ci_id_offset()
    }
}

/// The compute-instance profiles of a GPU instance of `gi` on a GPU with `table`.
pub fn ci_profiles(table: &MigTable, gi: &GpuInstanceProfile) -> Vec<CiProfile> {
    let mut out: Vec<CiProfile> = gi
        .compute_profiles()
        .into_iter()
        .map(|c| CiProfile {
            index: c.id,
            name: c.name,
            slices: c.slices,
            max_instances: c.max_instances,
            sm: c.sm,
            starts: if switches::ci_starts_unaligned() {
                (0..=gi.slices - c.slices).collect()
            } else {
                c.starts
            },
        })
        .collect();
    if switches::nvl() && gi.slices == table.compute_slices {
        out.push(CiProfile {
            index: CI_PROFILE_7_SLICE_NVL,
            name: gi.name.clone(),
            slices: gi.slices,
            max_instances: 1,
            sm: gi.sm,
            starts: vec![0],
        });
    }
    out
}

/// The GPU-instance profile of an existing instance.
pub fn gi_profile_of(
    table: &'static MigTable,
    gi: &SimGpuInstance,
) -> Result<&'static GpuInstanceProfile, Fail> {
    gi_profile_by_id(table, gi.profile_id, INVALID_ARGUMENT)
}

/// The compute-instance profile with `index` of a GPU instance; INVALID_ARGUMENT past the count,
/// NOT_SUPPORTED when the instance does not offer it.
pub fn ci_profile_by_index(
    table: &MigTable,
    gi: &GpuInstanceProfile,
    index: u32,
) -> Result<CiProfile, Fail> {
    if index >= CI_PROFILE_COUNT {
        return Err(Fail::new(
            INVALID_ARGUMENT,
            format!("profile index {index} is past NVML_COMPUTE_INSTANCE_PROFILE_COUNT"),
        ));
    }
    ci_profiles(table, gi)
        .into_iter()
        .find(|p| p.index == index)
        .ok_or_else(|| {
            Fail::new(
                NOT_SUPPORTED,
                format!(
                    "a {} instance has no compute profile index {index}",
                    gi.name
                ),
            )
        })
}

/// The compute-instance profile with `id`; INVALID_ARGUMENT for an id no index has.
pub fn ci_profile_by_id(
    table: &MigTable,
    gi: &GpuInstanceProfile,
    id: u32,
) -> Result<CiProfile, Fail> {
    let index = id
        .checked_sub(switches::ci_id_offset())
        .filter(|i| *i < CI_PROFILE_COUNT)
        .ok_or_else(|| {
            Fail::new(
                INVALID_ARGUMENT,
                format!("no compute-instance profile has id {id}"),
            )
        })?;
    ci_profile_by_index(table, gi, index)
}
