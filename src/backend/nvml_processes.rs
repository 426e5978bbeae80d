//! The compute processes of a GPU: `_v3`, else `_v2`, else v1 of
//! `nvmlDeviceGetComputeRunningProcesses`, as go-nvml falls back; a list that grows between the
//! count and the call is asked for again.

use super::nvml_error::{self as code, symbol};
use super::{DriverErrorKind, DriverResult};
use crate::node::Process;
use nvml_wrapper::{Device, Nvml};
use nvml_wrapper_sys::bindings::*;
use std::mem;

const MIB: u64 = 1024 * 1024;

/// A compute process as the driver lists it (the fields common to every struct version).
pub(super) struct RawProcess {
    pid: u32,
    used_bytes: Option<u64>,
    gpu_instance_id: Option<u32>,
    compute_instance_id: Option<u32>,
}

/// `NVML_VALUE_NOT_AVAILABLE`: the driver does not know (or may not tell) this value.
const NOT_AVAILABLE_U32: u32 = u32::MAX;
const NOT_AVAILABLE_U64: u64 = u64::MAX;

fn available32(v: u32) -> Option<u32> {
    (v != NOT_AVAILABLE_U32).then_some(v)
}

/// The compute processes: `_v3`, else `_v2`, else v1 (which has no MIG instance ids).
pub(super) fn compute_processes(nvml: &Nvml, device: &Device) -> DriverResult<Vec<RawProcess>> {
    let lib = nvml.lib();
    let calls = [
        (
            lib.nvmlDeviceGetComputeRunningProcesses_v3.as_ref().ok(),
            "nvmlDeviceGetComputeRunningProcesses_v3",
        ),
        (
            lib.nvmlDeviceGetComputeRunningProcesses_v2.as_ref().ok(),
            "nvmlDeviceGetComputeRunningProcesses_v2",
        ),
    ];
    for (call, name) in calls {
        let Some(get) = call else { continue };
        match process_list::<nvmlProcessInfo_v2_t>(name, |count, buf| {
            // SAFETY: `buf` is null or holds `*count` elements, as the call requires.
            unsafe { get(device.handle(), count, buf) }
        }) {
            Ok(list) => {
                return Ok(list
                    .into_iter()
                    .map(|p| RawProcess {
                        pid: p.pid,
                        used_bytes: (p.usedGpuMemory != NOT_AVAILABLE_U64)
                            .then_some(p.usedGpuMemory),
                        gpu_instance_id: available32(p.gpuInstanceId),
                        compute_instance_id: available32(p.computeInstanceId),
                    })
                    .collect());
            }
            Err(e) if e.kind == DriverErrorKind::FunctionNotFound => continue,
            Err(e) => return Err(e),
        }
    }
    let get = symbol(
        lib.nvmlDeviceGetComputeRunningProcesses.as_ref(),
        "nvmlDeviceGetComputeRunningProcesses",
    )?;
    let list = process_list::<nvmlProcessInfo_v1_t>(
        "nvmlDeviceGetComputeRunningProcesses",
        |count, buf| {
            // SAFETY: as above, for the v1 struct.
            unsafe { get(device.handle(), count, buf) }
        },
    )?;
    Ok(list
        .into_iter()
        .map(|p| RawProcess {
            pid: p.pid,
            used_bytes: (p.usedGpuMemory != NOT_AVAILABLE_U64).then_some(p.usedGpuMemory),
            gpu_instance_id: None,
            compute_instance_id: None,
        })
        .collect())
}

/// Ask for the count, then the list; a list that grew in between is asked for again.
fn process_list<T: Copy>(
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

pub(super) fn process(nvml: &Nvml, p: RawProcess) -> Process {
    let name = nvml
        .sys_process_name(p.pid, 256)
        .ok()
        .or_else(|| {
            crate::fsutil::read_host(std::path::Path::new(&format!("/proc/{}/comm", p.pid)))
                .ok()
                .flatten()
        })
        .map(|n| n.trim().rsplit('/').next().unwrap_or_default().to_string())
        .unwrap_or_else(|| "?".into());
    Process {
        pid: p.pid,
        name,
        used_memory_mib: p.used_bytes.map(|b| b / MIB),
        gpu_instance_id: p.gpu_instance_id,
        compute_instance_id: p.compute_instance_id,
    }
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
}
