//! The stand-in's switches, read from the environment of the process that loads it.

use crate::call::{Ret, UNKNOWN, code_by_name};
use std::collections::BTreeMap;
use std::sync::Mutex;

fn flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// `NVML_STANDIN_STRICT`: an unimplemented entry point aborts its caller, named.
pub fn strict() -> bool {
    flag(crate::STRICT_ENV)
}

/// `NVML_STANDIN_NON_ROOT`: play a caller without root.
pub fn non_root() -> bool {
    flag(crate::NON_ROOT_ENV)
}

/// `NVML_STANDIN_CI_NVL`: full-GPU instances offer the 7_SLICE_NVL compute-instance profile.
pub fn nvl() -> bool {
    flag(crate::NVL_ENV)
}

/// `NVML_STANDIN_CI_PROFILE_ID_OFFSET`: compute-instance profile id = index + this.
pub fn ci_id_offset() -> u32 {
    std::env::var(crate::CI_ID_OFFSET_ENV)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}

/// `NVML_STANDIN_CI_STARTS_UNALIGNED`: a compute-instance profile may start at any compute slice
/// where it fits, so it has more placements than instances (as `1g.5gb+me` has one instance and
/// seven placements).
pub fn ci_starts_unaligned() -> bool {
    flag(crate::CI_UNALIGNED_ENV)
}

/// `NVML_STANDIN_MIG_PARENT_NO_COMPUTE_MODE`: with MIG on, a whole GPU's compute-mode query
/// answers NOT_SUPPORTED (only its MIG devices have one).
pub fn mig_parent_no_compute_mode() -> bool {
    flag(crate::PARENT_COMPUTE_MODE_ENV)
}

/// `NVML_STANDIN_GPU_NAME` / `NVML_STANDIN_GPU_PCI_ID`: what every GPU calls itself instead of
/// its catalog model (a GPU the catalog does not know); MIG rules stay the model's.
pub fn gpu_name() -> Option<String> {
    std::env::var(crate::GPU_NAME_ENV)
        .ok()
        .filter(|v| !v.is_empty())
}

pub fn gpu_pci_id() -> Option<u32> {
    let v = std::env::var(crate::GPU_PCI_ID_ENV).ok()?;
    u32::from_str_radix(v.trim().trim_start_matches("0x"), 16).ok()
}

/// `NVML_STANDIN_PROFILES_NEED_MIG`: with MIG off the v1 profile-info and the placement calls
/// answer NOT_SUPPORTED too (as the versioned call does), so the driver lists no profile then.
pub fn profiles_need_mig() -> bool {
    flag(crate::PROFILES_NEED_MIG_ENV)
}

/// `NVML_STANDIN_MAX_MIG_DEVICES_ALWAYS`: the maximum MIG device count is reported with MIG off
/// too (as NVIDIA's mock NVML does), not 0 as nvml.h says.
pub fn max_mig_devices_always() -> bool {
    flag(crate::MAX_MIG_ALWAYS_ENV)
}

/// `NVML_STANDIN_OLD_DRIVER`: a driver older than the versioned calls: they answer
/// FUNCTION_NOT_FOUND, and the older ones they replaced answer instead.
pub fn old_driver() -> bool {
    flag(crate::OLD_DRIVER_ENV)
}

/// `NVML_STANDIN_MIG_DEVICE_FAIL=FN:CODE,…`: every call of FN on a MIG device handle fails with
/// CODE (a MIG device field the driver refuses).
pub fn mig_device_failure(name: &str) -> Option<Ret> {
    let spec = std::env::var(crate::MIG_DEVICE_FAIL_ENV).ok()?;
    spec.split(',').find_map(|item| {
        let (f, code) = item.trim().split_once(':')?;
        (f == name).then(|| code_by_name(code)).flatten()
    })
}

/// Calls made so far in this process, per function, for `NVML_STANDIN_FAIL`.
static CALLS: Mutex<BTreeMap<String, u32>> = Mutex::new(BTreeMap::new());

/// `NVML_STANDIN_FAIL=FN:N[:CODE],…`: the code this call of `name` must fail with, if any.
pub fn injected_failure(name: &str) -> Option<Ret> {
    let spec = std::env::var(crate::FAIL_ENV).ok()?;
    let mut calls = CALLS.lock().unwrap_or_else(|e| e.into_inner());
    let n = calls.entry(name.to_string()).or_insert(0);
    *n += 1;
    spec.split(',').find_map(|item| {
        let mut parts = item.trim().split(':');
        let (f, call) = (parts.next()?, parts.next()?.parse::<u32>().ok()?);
        let code = parts.next().map_or(Some(UNKNOWN), code_by_name)?;
        (f == name && call == *n).then_some(code)
    })
}
