//! The stand-in's switches, read from the environment of the process that loads it.

use crate::call::{Ret, UNKNOWN, code_by_name};
use std::collections::BTreeMap;
use std::sync::Mutex;

fn flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0")
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
