//! The raw FFI helpers the NVML calls share: struct versions, C strings, the list calls
//! (count first, then a buffer), profile indices asked until the driver says there are no more,
//! and the versioned memory call with its v1 fallback.

use super::error::{self as code, driver_error, symbol};
use crate::node::backend::{DriverErrorKind, DriverResult};
use nvml_wrapper::{Device, Nvml};
use nvml_wrapper_sys::bindings::*;
use std::ffi::CStr;
use std::mem;
use std::ptr;

/// The most profile indices asked of a library that never answers INVALID_ARGUMENT (current
/// drivers have 0x12 GPU-instance and 0x9 compute-instance profiles).
const MAX_PROFILE_INDEX: u32 = 64;
/// NVML_STRUCT_VERSION(name, 2): the struct size with the version in the top byte.
pub(super) fn struct_version_2<T>() -> u32 {
    mem::size_of::<T>() as u32 | (2 << 24)
}

/// A profile name from a driver buffer, without the `MIG ` nvidia-smi puts in front.
pub(super) fn c_name(raw: &[std::os::raw::c_char]) -> Option<String> {
    if !raw.contains(&0) {
        return None;
    }
    // SAFETY: the buffer is NUL-terminated (checked above) and lives for the call.
    let s = unsafe { CStr::from_ptr(raw.as_ptr()) }.to_string_lossy();
    let s = s.trim().trim_start_matches("MIG ").trim();
    (!s.is_empty()).then(|| s.to_string())
}

/// What one profile index answered.
pub(super) enum Answer<T> {
    Profile(T),
    /// Not offered on this GPU (or not listed while MIG is off): ask the next index.
    Skip,
    /// Past the last profile.
    End,
}

/// Ask profile indices 0, 1, … until INVALID_ARGUMENT.
pub(super) fn enumerate<T>(
    mut ask: impl FnMut(u32) -> DriverResult<Answer<T>>,
) -> DriverResult<Vec<T>> {
    let mut out = Vec::new();
    for index in 0..MAX_PROFILE_INDEX {
        match ask(index)? {
            Answer::Profile(p) => out.push(p),
            Answer::Skip => {}
            Answer::End => break,
        }
    }
    Ok(out)
}

/// The answer of a profile-info call: the versioned one's code, then (where it says
/// NOT_SUPPORTED or is too new) the v1 call's.
pub(super) fn answer(
    code: nvmlReturn_t,
    what: impl FnOnce() -> String,
) -> DriverResult<Answer<()>> {
    match code {
        code::SUCCESS => Ok(Answer::Profile(())),
        code::INVALID_ARGUMENT => Ok(Answer::End),
        code::NOT_SUPPORTED => Ok(Answer::Skip),
        other => Err(code::error(other, what())),
    }
}

/// A list call that takes a buffer and its size: asked for the count with a null buffer first,
/// then with a buffer that holds them all (`nvml.h`: a placement buffer must hold every
/// placement, which can be more than the profile's instance count). A count of 0 makes no second
/// call. `Err`: the code of the call that failed.
pub(super) fn count_then_list<T: Copy>(
    empty: T,
    mut call: impl FnMut(*mut T, *mut u32) -> nvmlReturn_t,
) -> Result<Vec<T>, nvmlReturn_t> {
    let mut count: u32 = 0;
    match call(ptr::null_mut(), &mut count) {
        code::SUCCESS | code::INSUFFICIENT_SIZE => {}
        rc => return Err(rc),
    }
    if count == 0 {
        return Ok(Vec::new());
    }
    let mut buf = vec![empty; count as usize];
    match call(buf.as_mut_ptr(), &mut count) {
        code::SUCCESS => {
            buf.truncate(count as usize);
            Ok(buf)
        }
        rc => Err(rc),
    }
}

/// Handles from a list call whose buffer must hold `max` of them (`nvml.h`: the profile's
/// instance count); none without a call for a profile that has no instances.
pub(super) fn list_handles<H: Copy>(
    max: u32,
    null: H,
    what: impl FnOnce() -> String,
    call: impl FnOnce(*mut H, *mut u32) -> nvmlReturn_t,
) -> DriverResult<Vec<H>> {
    if max == 0 {
        return Ok(Vec::new());
    }
    let mut handles = vec![null; max as usize];
    let mut count: u32 = 0;
    code::check(call(handles.as_mut_ptr(), &mut count), what())?;
    handles.truncate(count as usize);
    Ok(handles)
}

/// Ask for the count, then the list; a list that grew in between is asked for again.
pub(super) fn process_list<T: Copy>(
    name: &str,
    mut call: impl FnMut(*mut u32, *mut T) -> nvmlReturn_t,
) -> DriverResult<Vec<T>> {
    for _ in 0..3 {
        let mut count: u32 = 0;
        match call(&mut count, std::ptr::null_mut()) {
            code::SUCCESS => return Ok(Vec::new()),
            code::INSUFFICIENT_SIZE => {}
            other => return Err(code::error(other, name)),
        }
        // Room for a few processes started between the two calls.
        let mut room = count + 4;
        // SAFETY: the process structs are plain C data; zeroed is a valid value.
        let mut buf: Vec<T> = vec![unsafe { mem::zeroed() }; room as usize];
        match call(&mut room, buf.as_mut_ptr()) {
            code::SUCCESS => {
                buf.truncate(room as usize);
                return Ok(buf);
            }
            code::INSUFFICIENT_SIZE => continue,
            other => return Err(code::error(other, name)),
        }
    }
    Err(code::error(code::INSUFFICIENT_SIZE, name))
}

/// Bytes in a MiB, the unit the node model counts memory in.
pub(super) const MIB: u64 = 1024 * 1024;

/// Total and used memory: `nvmlDeviceGetMemoryInfo_v2`, else the v1 call of older drivers.
pub(super) fn memory_info(nvml: &Nvml, device: &Device) -> DriverResult<nvmlMemory_t> {
    match device.memory_info() {
        Ok(m) => {
            return Ok(nvmlMemory_t {
                total: m.total,
                free: m.free,
                used: m.used,
            });
        }
        Err(e) => {
            let e = driver_error(e, "nvmlDeviceGetMemoryInfo_v2");
            if !matches!(
                e.kind,
                DriverErrorKind::FunctionNotFound | DriverErrorKind::ArgumentVersionMismatch
            ) {
                return Err(e);
            }
        }
    }
    let get = symbol(
        nvml.lib().nvmlDeviceGetMemoryInfo.as_ref(),
        "nvmlDeviceGetMemoryInfo",
    )?;
    // SAFETY: a zeroed plain C struct the call fills; the handle comes from nvml-wrapper and
    // outlives the call.
    let mut m: nvmlMemory_t = unsafe { mem::zeroed() };
    code::check(
        // SAFETY: the handle is live and the call only fills the struct above.
        unsafe { get(device.handle(), &mut m) },
        "nvmlDeviceGetMemoryInfo",
    )?;
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_list_that_grows_between_the_two_calls_is_asked_again() {
        let mut running = 2u32;
        let mut calls = 0;
        let list = process_list::<u32>("nvmlDeviceGetComputeRunningProcesses_v3", |count, buf| {
            calls += 1;
            // SAFETY: `count` points at the caller's counter; `buf` is null or holds `*count`.
            unsafe {
                if buf.is_null() {
                    *count = running;
                    return code::INSUFFICIENT_SIZE;
                }
                if calls == 2 {
                    // Ten processes started since the count: more than the room given.
                    running = 12;
                    *count = running;
                    return code::INSUFFICIENT_SIZE;
                }
                assert!(*count >= running);
                for i in 0..running as usize {
                    *buf.add(i) = 100 + i as u32;
                }
                *count = running;
            }
            code::SUCCESS
        })
        .unwrap();
        assert_eq!(list.len(), 12);
        assert_eq!(calls, 4);
        // No process: one call.
        let list = process_list::<u32>("x", |_, _| code::SUCCESS).unwrap();
        assert!(list.is_empty());
        // A refusal names the call.
        let e = process_list::<u32>("nvmlDeviceGetComputeRunningProcesses_v3", |_, _| {
            code::NO_PERMISSION
        })
        .unwrap_err();
        assert_eq!(e.kind, DriverErrorKind::NoPermission);
        assert!(
            e.to_string()
                .contains("nvmlDeviceGetComputeRunningProcesses_v3")
        );
    }

    #[test]
    fn a_list_is_asked_for_its_count_first_and_never_with_an_empty_buffer() {
        // 1g.5gb+me: one instance, seven placements.
        let mut calls = Vec::new();
        let list = count_then_list(0u32, |buf, count| {
            calls.push(buf.is_null());
            if buf.is_null() {
                // SAFETY: `count` points at the caller's counter.
                unsafe { *count = 7 };
                return code::INSUFFICIENT_SIZE;
            }
            // SAFETY: the buffer holds `*count` elements (asserted before any write).
            unsafe {
                assert!(*count >= 7, "the buffer holds every placement");
                for i in 0..7 {
                    *buf.add(i) = i as u32;
                }
                *count = 7;
            }
            code::SUCCESS
        });
        assert_eq!(list.unwrap(), [0, 1, 2, 3, 4, 5, 6]);
        assert_eq!(calls, [true, false]);
        // A count of 0: no second call with a dangling buffer.
        let mut calls = 0;
        let list = count_then_list(0u32, |buf, _| {
            calls += 1;
            assert!(buf.is_null());
            code::SUCCESS
        });
        assert_eq!((list.unwrap().len(), calls), (0, 1));
        // A refusal is the caller's to name.
        assert_eq!(
            count_then_list(0u32, |_, _| code::NO_PERMISSION),
            Err(code::NO_PERMISSION)
        );
    }

    #[test]
    fn profiles_are_asked_until_invalid_argument_and_never_forever() {
        // Index 0x8 (the NVL compute profile) comes after a gap and is still listed.
        let answers = |index: u32| match index {
            0..=4 | 8 => Ok(Answer::Profile(index)),
            5..=7 => Ok(Answer::Skip),
            _ => Ok(Answer::End),
        };
        assert_eq!(enumerate(answers).unwrap(), [0, 1, 2, 3, 4, 8]);
        // A library that never answers INVALID_ARGUMENT (NVIDIA's mock) ends at the cap.
        let mut asked = 0;
        let none = enumerate(|_| {
            asked += 1;
            Ok(Answer::<u32>::Skip)
        })
        .unwrap();
        assert!(none.is_empty());
        assert_eq!(asked, MAX_PROFILE_INDEX);
        // The codes: SUCCESS lists, NOT_SUPPORTED skips, INVALID_ARGUMENT ends, others fail.
        assert!(matches!(
            answer(code::NOT_SUPPORTED, String::new).unwrap(),
            Answer::Skip
        ));
        assert!(matches!(
            answer(code::INVALID_ARGUMENT, String::new).unwrap(),
            Answer::End
        ));
        let e = answer(code::NO_PERMISSION, || "nvmlX (profile 3)".into())
            .err()
            .unwrap();
        assert_eq!(
            e.to_string(),
            "nvmlX (profile 3) (Insufficient Permissions)"
        );
    }
}
