//! The processes of a GPU: `_v3`, else `_v2`, else v1 of `nvmlDeviceGetComputeRunningProcesses`
//! and of `nvmlDeviceGetMPSComputeRunningProcesses`, as go-nvml falls back; a list that grows
//! between the count and the call is asked for again.

use super::error::symbol;
use super::ffi::{MIB, process_list};
use crate::node::backend::{DriverErrorKind, DriverResult};
use crate::node::model::{Process, ProcessKind};
use nvml_wrapper::{Device, Nvml};
use nvml_wrapper_sys::bindings::*;

/// A compute process as the driver lists it (the fields common to every struct version).
pub(super) struct RawProcess {
    pid: u32,
    used_bytes: Option<u64>,
    gpu_instance_id: Option<u32>,
    compute_instance_id: Option<u32>,
    kind: ProcessKind,
}

/// `NVML_VALUE_NOT_AVAILABLE`: the driver does not know (or may not tell) this value.
const NOT_AVAILABLE_U32: u32 = u32::MAX;
const NOT_AVAILABLE_U64: u64 = u64::MAX;

fn available32(v: u32) -> Option<u32> {
    (v != NOT_AVAILABLE_U32).then_some(v)
}

/// One of the driver's two process lists.
#[derive(Clone, Copy)]
enum List {
    Compute,
    Mps,
}

/// The GPU's processes: the compute list (an MPS server is on it) and the MPS clients'
/// (`nvmlDeviceGetMPSComputeRunningProcesses*`), one entry per pid, an MPS client marked so.
/// A driver without the MPS list, or one that does not support it on this GPU, has no clients.
pub(super) fn gpu_processes(nvml: &Nvml, device: &Device) -> DriverResult<Vec<RawProcess>> {
    let mut all = process_list_of(nvml, device, List::Compute)?;
    let clients = match process_list_of(nvml, device, List::Mps) {
        Ok(list) => list,
        Err(e)
            if matches!(
                e.kind,
                DriverErrorKind::FunctionNotFound | DriverErrorKind::NotSupported
            ) =>
        {
            Vec::new()
        }
        Err(e) => return Err(e),
    };
    for mut client in clients {
        client.kind = ProcessKind::MpsClient;
        match all.iter_mut().find(|p| p.pid == client.pid) {
            Some(p) => *p = client,
            None => all.push(client),
        }
    }
    Ok(all)
}

/// One list: `_v3`, else `_v2`, else v1 (which has no MIG instance ids).
fn process_list_of(nvml: &Nvml, device: &Device, list: List) -> DriverResult<Vec<RawProcess>> {
    let lib = nvml.lib();
    let (v3, v2, v1) = match list {
        List::Compute => (
            (
                lib.nvmlDeviceGetComputeRunningProcesses_v3.as_ref().ok(),
                "nvmlDeviceGetComputeRunningProcesses_v3",
            ),
            (
                lib.nvmlDeviceGetComputeRunningProcesses_v2.as_ref().ok(),
                "nvmlDeviceGetComputeRunningProcesses_v2",
            ),
            (
                lib.nvmlDeviceGetComputeRunningProcesses.as_ref(),
                "nvmlDeviceGetComputeRunningProcesses",
            ),
        ),
        List::Mps => (
            (
                lib.nvmlDeviceGetMPSComputeRunningProcesses_v3.as_ref().ok(),
                "nvmlDeviceGetMPSComputeRunningProcesses_v3",
            ),
            (
                lib.nvmlDeviceGetMPSComputeRunningProcesses_v2.as_ref().ok(),
                "nvmlDeviceGetMPSComputeRunningProcesses_v2",
            ),
            (
                lib.nvmlDeviceGetMPSComputeRunningProcesses.as_ref(),
                "nvmlDeviceGetMPSComputeRunningProcesses",
            ),
        ),
    };
    for (call, name) in [v3, v2] {
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
                        kind: ProcessKind::Compute,
                    })
                    .collect());
            }
            Err(e) if e.kind == DriverErrorKind::FunctionNotFound => continue,
            Err(e) => return Err(e),
        }
    }
    let get = symbol(v1.0, v1.1)?;
    let list = process_list::<nvmlProcessInfo_v1_t>(v1.1, |count, buf| {
        // SAFETY: as above, for the v1 struct.
        unsafe { get(device.handle(), count, buf) }
    })?;
    Ok(list
        .into_iter()
        .map(|p| RawProcess {
            pid: p.pid,
            used_bytes: (p.usedGpuMemory != NOT_AVAILABLE_U64).then_some(p.usedGpuMemory),
            gpu_instance_id: None,
            compute_instance_id: None,
            kind: ProcessKind::Compute,
        })
        .collect())
}

pub(super) fn process(nvml: &Nvml, p: RawProcess) -> Process {
    let name = nvml
        .sys_process_name(p.pid, 256)
        .ok()
        .or_else(|| {
            crate::support::fsutil::read_host(std::path::Path::new(&format!(
                "/proc/{}/comm",
                p.pid
            )))
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
        kind: p.kind,
        owner: None,
    }
}
