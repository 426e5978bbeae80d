//! Device queries and settings, on a GPU or (where nvml.h allows it) on a MIG device.

use super::{device_handle, gpu, live_ci, live_gi, whole_gpu};
use crate::call::*;
use crate::handles::Handle;
use crate::{node, profiles, switches};
use gpushare::node::backend::DeviceRef;
use gpushare::node::backend::sim::state::{SimGpu, SimState};
use gpushare::node::model::{ComputeMode, Process, ProcessKind, VgpuHostMode};
use nvml_wrapper_sys::bindings::*;
use std::os::raw::{c_char, c_int, c_uint};

const MIB: u64 = 1024 * 1024;

fn raw(device: nvmlDevice_t) -> usize {
    device as usize
}

/// The GPU of a handle, GPU or MIG device (for what a MIG device shares with its GPU).
fn gpu_of(s: &SimState, raw: usize) -> Result<&SimGpu, Fail> {
    gpu(s, device_handle(raw)?.gpu())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetPciInfo_v3(
    device: nvmlDevice_t,
    pci: *mut nvmlPciInfo_t,
) -> Ret {
    call(
        "nvmlDeviceGetPciInfo_v3",
        Record::default().handle(raw(device)),
        |_| {
            let (bus_id, device_id) = node::read(|s| {
                let g = gpu_of(s, raw(device))?;
                let id = match switches::gpu_pci_id() {
                    Some(id) => id,
                    None => g.model()?.pci_device_ids[0].0,
                };
                Ok((g.pci_bus_id.clone(), id))
            })?;
            // `00000000:07:00.0`: domain, bus, device.function.
            let mut parts = bus_id.split([':', '.']);
            let mut hex = || {
                parts
                    .next()
                    .and_then(|p| u32::from_str_radix(p, 16).ok())
                    .unwrap_or(0)
            };
            let (domain, bus, dev) = (hex(), hex(), hex());
            // SAFETY: a plain C struct of integers and char arrays: all zeroes is valid.
            let mut info: nvmlPciInfo_t = unsafe { std::mem::zeroed() };
            info.domain = domain;
            info.bus = bus;
            info.device = dev;
            info.pciDeviceId = device_id;
            // The simulated node has no subsystem ids; the driver always reports one.
            info.pciSubSystemId = 0;
            fill_name(&mut info.busId, &bus_id);
            fill_name(
                &mut info.busIdLegacy,
                &format!("{:04x}:{bus:02x}:{dev:02x}.0", domain & 0xFFFF),
            );
            put(pci, info)
        },
    )
}

/// Total and used bytes of a GPU, or of a MIG device's GPU instance.
fn memory(raw: usize) -> Result<(u64, u64), Fail> {
    node::read(|s| {
        let h = device_handle(raw)?;
        let g = gpu(s, h.gpu())?;
        let used = |procs: &mut dyn Iterator<Item = &Process>| -> u64 {
            procs.map(|p| p.used_memory_mib.unwrap_or(0) * MIB).sum()
        };
        match h {
            Handle::MigDevice { gi, ci, .. } => {
                let instance = live_gi(g, gi)?;
                live_ci(instance, ci)?;
                let p = profiles::gi_profile_of(profiles::table(g)?, instance)?;
                let used = used(&mut g.processes.iter().filter(|p| p.gpu_instance_id == Some(gi)));
                Ok((p.memory_mib * MIB, used))
            }
            _ => Ok((g.model()?.memory_mib * MIB, used(&mut g.processes.iter()))),
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetMemoryInfo_v2(
    device: nvmlDevice_t,
    memory_info: *mut nvmlMemory_v2_t,
) -> Ret {
    call(
        "nvmlDeviceGetMemoryInfo_v2",
        Record::default().handle(raw(device)),
        |_| {
            let expected = std::mem::size_of::<nvmlMemory_v2_t>() as u32 | (2 << 24);
            let version = get(memory_info.cast::<u32>().cast_const())?;
            if version != expected {
                return Err(Fail::new(
                    ARGUMENT_VERSION_MISMATCH,
                    format!("version {version:#x}, not nvmlMemory_v2 ({expected:#x})"),
                ));
            }
            let (total, used) = memory(raw(device))?;
            put(
                memory_info,
                nvmlMemory_v2_t {
                    version,
                    total,
                    reserved: 0,
                    free: total - used.min(total),
                    used,
                },
            )
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetMemoryInfo(
    device: nvmlDevice_t,
    memory_info: *mut nvmlMemory_t,
) -> Ret {
    call(
        "nvmlDeviceGetMemoryInfo",
        Record::default().handle(raw(device)),
        |_| {
            let (total, used) = memory(raw(device))?;
            put(
                memory_info,
                nvmlMemory_t {
                    total,
                    free: total - used.min(total),
                    used,
                },
            )
        },
    )
}

fn capability(raw: usize) -> Result<(c_int, c_int), Fail> {
    let text = node::read(|s| Ok(gpu_of(s, raw)?.model()?.compute_capability.clone()))?;
    let mut parts = text.split('.').map(|p| p.parse::<c_int>().unwrap_or(0));
    Ok((parts.next().unwrap_or(0), parts.next().unwrap_or(0)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetCudaComputeCapability(
    device: nvmlDevice_t,
    major: *mut c_int,
    minor: *mut c_int,
) -> Ret {
    call(
        "nvmlDeviceGetCudaComputeCapability",
        Record::default().handle(raw(device)),
        |_| {
            let (ma, mi) = capability(raw(device))?;
            put(major, ma)?;
            put(minor, mi)
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetNumGpuCores(device: nvmlDevice_t, cores: *mut c_uint) -> Ret {
    call(
        "nvmlDeviceGetNumGpuCores",
        Record::default().handle(raw(device)),
        |_| {
            let sms = node::read(|s| Ok(gpu_of(s, raw(device))?.model()?.multiprocessors))?;
            let per_sm = match capability(raw(device))? {
                (7, _) | (8, 0) => 64,
                _ => 128,
            };
            put(cores, sms * per_sm)
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetArchitecture(
    device: nvmlDevice_t,
    arch: *mut nvmlDeviceArchitecture_t,
) -> Ret {
    call(
        "nvmlDeviceGetArchitecture",
        Record::default().handle(raw(device)),
        |_| {
            let name = node::read(|s| Ok(gpu_of(s, raw(device))?.model()?.architecture.clone()))?;
            // NVML_DEVICE_ARCH_*.
            let value = match name.as_str() {
                "kepler" => 2,
                "maxwell" => 3,
                "pascal" => 4,
                "volta" => 5,
                "turing" => 6,
                "ampere" => 7,
                "ada" => 8,
                "hopper" => 9,
                "blackwell" => 10,
                _ => 0xffff_ffff,
            };
            put(arch, value)
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetName(
    device: nvmlDevice_t,
    name: *mut c_char,
    length: c_uint,
) -> Ret {
    call(
        "nvmlDeviceGetName",
        Record::default().handle(raw(device)),
        |_| {
            let text = node::read(|s| {
                let h = device_handle(raw(device))?;
                let g = gpu(s, h.gpu())?;
                let model = switches::gpu_name().unwrap_or(g.model()?.name.clone());
                match h {
                    Handle::MigDevice { gi, ci, .. } => {
                        let table = profiles::table(g)?;
                        let instance = live_gi(g, gi)?;
                        let c = live_ci(instance, ci)?;
                        let p = profiles::gi_profile_of(table, instance)?;
                        let cp = profiles::ci_profile_by_index(table, p, c.profile_id)?;
                        Ok(format!("{model} MIG {}", cp.name))
                    }
                    _ => Ok(model),
                }
            })?;
            put_str(name, length, &text)
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetUUID(
    device: nvmlDevice_t,
    uuid: *mut c_char,
    length: c_uint,
) -> Ret {
    call(
        "nvmlDeviceGetUUID",
        Record::default().handle(raw(device)),
        |_| {
            let text = node::read(|s| {
                let h = device_handle(raw(device))?;
                let g = gpu(s, h.gpu())?;
                match h {
                    Handle::MigDevice { gi, ci, .. } => {
                        Ok(live_ci(live_gi(g, gi)?, ci)?.uuid.clone())
                    }
                    _ => Ok(g.uuid.clone()),
                }
            })?;
            put_str(uuid, length, &text)
        },
    )
}

const COMPUTEMODE_DEFAULT: u32 = 0;
const COMPUTEMODE_EXCLUSIVE_THREAD: u32 = 1;
const COMPUTEMODE_PROHIBITED: u32 = 2;
const COMPUTEMODE_EXCLUSIVE_PROCESS: u32 = 3;

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetComputeMode(
    device: nvmlDevice_t,
    mode: *mut nvmlComputeMode_t,
) -> Ret {
    call(
        "nvmlDeviceGetComputeMode",
        Record::default().handle(raw(device)),
        |_| {
            let m = node::read(|s| {
                let h = device_handle(raw(device))?;
                let g = gpu(s, h.gpu())?;
                match h {
                    Handle::MigDevice { gi, ci, .. } => {
                        Ok(live_ci(live_gi(g, gi)?, ci)?.compute_mode)
                    }
                    _ if g.mig_current.is_enabled() && switches::mig_parent_no_compute_mode() => {
                        Err(Fail::new(
                            NOT_SUPPORTED,
                            "MIG is on: only MIG devices have a compute mode",
                        ))
                    }
                    _ => Ok(g.compute_mode),
                }
            })?;
            put(
                mode,
                match m {
                    ComputeMode::Default => COMPUTEMODE_DEFAULT,
                    ComputeMode::ExclusiveProcess => COMPUTEMODE_EXCLUSIVE_PROCESS,
                    ComputeMode::Prohibited => COMPUTEMODE_PROHIBITED,
                },
            )
        },
    )
}

#[unsafe(no_mangle)]
pub extern "C" fn nvmlDeviceSetComputeMode(device: nvmlDevice_t, mode: nvmlComputeMode_t) -> Ret {
    call(
        "nvmlDeviceSetComputeMode",
        Record::default().handle(raw(device)).arg("mode", mode),
        |_| {
            require_root()?;
            let wanted = match mode {
                COMPUTEMODE_DEFAULT => ComputeMode::Default,
                COMPUTEMODE_PROHIBITED => ComputeMode::Prohibited,
                COMPUTEMODE_EXCLUSIVE_PROCESS => ComputeMode::ExclusiveProcess,
                COMPUTEMODE_EXCLUSIVE_THREAD => {
                    return Err(Fail::new(NOT_SUPPORTED, "EXCLUSIVE_THREAD is gone"));
                }
                _ => return Err(Fail::new(INVALID_ARGUMENT, format!("mode {mode}"))),
            };
            let target = match device_handle(raw(device))? {
                Handle::MigDevice { gpu, gi, ci } => DeviceRef::Mig {
                    gpu,
                    gpu_instance_id: gi,
                    compute_instance_id: ci,
                },
                h => DeviceRef::Gpu(h.gpu()),
            };
            node::change(|s| Ok(s.set_compute_mode(target, wanted)?))
        },
    )
}

/// The brand the driver reports (NVML_BRAND_*), by the model's name: GeForce RTX cards are
/// `GEFORCE_RTX`, the workstation RTX line `NVIDIA_RTX`, data-centre GPUs `NVIDIA` (what
/// `nvidia-smi -q` shows as "Product Brand : NVIDIA" on current drivers).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetBrand(
    device: nvmlDevice_t,
    brand: *mut nvmlBrandType_t,
) -> Ret {
    call(
        "nvmlDeviceGetBrand",
        Record::default().handle(raw(device)),
        |_| {
            let name = node::read(|s| Ok(gpu_of(s, raw(device))?.model()?.name.clone()))?;
            let value = if name.contains("GeForce RTX") {
                15
            } else if name.contains("RTX") {
                13
            } else {
                14
            };
            put(brand, value)
        },
    )
}

/// A GPU's NVML index, as the simulator indexes them; a MIG device has none of its own.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetIndex(device: nvmlDevice_t, index: *mut c_uint) -> Ret {
    call(
        "nvmlDeviceGetIndex",
        Record::default().handle(raw(device)),
        |_| {
            let i = whole_gpu(raw(device))?;
            node::read(|s| gpu(s, i).map(|_| ()))?;
            put(index, i)
        },
    )
}

/// HMM and ATS are modes of coherent CPU-GPU platforms: on Grace (GH200, GB200) the driver
/// reports ATS, its default there; on PCIe and SXM hosts it answers NOT_SUPPORTED.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetAddressingMode(
    device: nvmlDevice_t,
    mode: *mut nvmlDeviceAddressingMode_t,
) -> Ret {
    call(
        "nvmlDeviceGetAddressingMode",
        Record::default().handle(raw(device)),
        |_| {
            let name = node::read(|s| Ok(gpu_of(s, raw(device))?.model()?.name.clone()))?;
            if !(name.contains("GH200") || name.contains("GB200")) {
                return Err(Fail::new(NOT_SUPPORTED, "not a coherent CPU-GPU platform"));
            }
            if mode.is_null() {
                return Err(Fail::new(INVALID_ARGUMENT, "null out pointer"));
            }
            // SAFETY: not null; nvml.h makes the caller pass a writable, versioned struct.
            unsafe {
                (*mode).value = nvmlDeviceAddressingModeType_t_NVML_DEVICE_ADDRESSING_MODE_ATS
            };
            Ok(())
        },
    )
}

/// The minor number of `/dev/nvidiaN`: the driver numbers GPUs in PCI order, as the simulator
/// indexes them. A MIG device has no node of its own.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetMinorNumber(device: nvmlDevice_t, minor: *mut c_uint) -> Ret {
    call(
        "nvmlDeviceGetMinorNumber",
        Record::default().handle(raw(device)),
        |_| {
            let index = whole_gpu(raw(device))?;
            node::read(|s| gpu(s, index).map(|_| ()))?;
            put(minor, index)
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetPersistenceMode(
    device: nvmlDevice_t,
    mode: *mut nvmlEnableState_t,
) -> Ret {
    call(
        "nvmlDeviceGetPersistenceMode",
        Record::default().handle(raw(device)),
        |_| {
            let on = node::read(|s| Ok(gpu(s, whole_gpu(raw(device))?)?.persistence_mode))?;
            put(mode, u32::from(on))
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetVirtualizationMode(
    device: nvmlDevice_t,
    mode: *mut nvmlGpuVirtualizationMode_t,
) -> Ret {
    call(
        "nvmlDeviceGetVirtualizationMode",
        Record::default().handle(raw(device)),
        |_| {
            let host = node::read(|s| Ok(gpu(s, whole_gpu(raw(device))?)?.vgpu_host_mode))?;
            // NVML_GPU_VIRTUALIZATION_MODE_NONE, _HOST_VGPU.
            put(mode, if host.is_some() { 3 } else { 0 })
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetHostVgpuMode(
    device: nvmlDevice_t,
    mode: *mut nvmlHostVgpuMode_t,
) -> Ret {
    call(
        "nvmlDeviceGetHostVgpuMode",
        Record::default().handle(raw(device)),
        |_| {
            let host = node::read(|s| Ok(gpu(s, whole_gpu(raw(device))?)?.vgpu_host_mode))?;
            match host {
                // NVML_HOST_VGPU_MODE_NON_SRIOV, _SRIOV.
                Some(VgpuHostMode::NonSriov) => put(mode, 0),
                Some(VgpuHostMode::Sriov) => put(mode, 1),
                None => Err(Fail::new(NOT_SUPPORTED, "not a vGPU host")),
            }
        },
    )
}

/// `nvmlProcessInfo_t`'s "not available" for a process outside MIG.
const NO_VALUE: c_uint = 0xFFFF_FFFF;

/// The processes of one list (compute, or MPS clients) a GPU or MIG device handle sees, as `_v3`
/// lists them: the driver lists an MPS server as a compute process and its clients apart.
fn processes_of(device: usize, kind: ProcessKind) -> Result<Vec<nvmlProcessInfo_t>, Fail> {
    node::read(|s| {
        let h = device_handle(device)?;
        let g = gpu(s, h.gpu())?;
        let procs: Vec<&Process> = match h {
            Handle::MigDevice { gi, ci, .. } => {
                live_ci(live_gi(g, gi)?, ci)?;
                g.processes
                    .iter()
                    .filter(|p| p.gpu_instance_id == Some(gi) && p.compute_instance_id == Some(ci))
                    .collect()
            }
            _ => {
                // nvml.h: with MIG on, the GPU's aggregate list needs privileges.
                if g.mig_current.is_enabled() {
                    require_root()?;
                }
                g.processes.iter().collect()
            }
        };
        Ok(procs
            .into_iter()
            .filter(|p| p.kind == kind)
            .map(|p| nvmlProcessInfo_t {
                pid: p.pid,
                // nvml.h: NVML_VALUE_NOT_AVAILABLE where the driver may not tell.
                usedGpuMemory: p.used_memory_mib.map_or(u64::MAX, |m| m * MIB),
                gpuInstanceId: p.gpu_instance_id.unwrap_or(NO_VALUE),
                computeInstanceId: p.compute_instance_id.unwrap_or(NO_VALUE),
            })
            .collect())
    })
}

/// The list calls' protocol: `*info_count` is the room in `infos`; the count is written back, and
/// a list longer than the room is INSUFFICIENT_SIZE with nothing else written.
fn put_processes<T: Copy>(
    rec: &mut Record,
    info_count: *mut c_uint,
    infos: *mut T,
    list: &[T],
) -> Answer {
    let room = get(info_count.cast_const())?;
    let n = list.len() as c_uint;
    rec.out("count", n);
    put(info_count, n)?;
    if room < n {
        return Err(Fail::new(
            INSUFFICIENT_SIZE,
            format!("room for {room} of {n} processes"),
        ));
    }
    put_all(infos, list)
}

/// A `_v3` list in the `_v2` struct (the same fields).
fn as_v2(list: Vec<nvmlProcessInfo_t>) -> Vec<nvmlProcessInfo_v2_t> {
    list.into_iter()
        .map(|p| nvmlProcessInfo_v2_t {
            pid: p.pid,
            usedGpuMemory: p.usedGpuMemory,
            gpuInstanceId: p.gpuInstanceId,
            computeInstanceId: p.computeInstanceId,
        })
        .collect()
}

/// A `_v3` list in the first struct: pid and memory only (no MIG instance ids).
fn as_v1(list: Vec<nvmlProcessInfo_t>) -> Vec<nvmlProcessInfo_v1_t> {
    list.into_iter()
        .map(|p| nvmlProcessInfo_v1_t {
            pid: p.pid,
            usedGpuMemory: p.usedGpuMemory,
        })
        .collect()
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetComputeRunningProcesses_v3(
    device: nvmlDevice_t,
    info_count: *mut c_uint,
    infos: *mut nvmlProcessInfo_t,
) -> Ret {
    call(
        "nvmlDeviceGetComputeRunningProcesses_v3",
        Record::default().handle(raw(device)),
        |rec| {
            put_processes(
                rec,
                info_count,
                infos,
                &processes_of(raw(device), ProcessKind::Compute)?,
            )
        },
    )
}

/// The `_v2` list: the same fields in its own struct.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetComputeRunningProcesses_v2(
    device: nvmlDevice_t,
    info_count: *mut c_uint,
    infos: *mut nvmlProcessInfo_v2_t,
) -> Ret {
    call(
        "nvmlDeviceGetComputeRunningProcesses_v2",
        Record::default().handle(raw(device)),
        |rec| {
            let list = as_v2(processes_of(raw(device), ProcessKind::Compute)?);
            put_processes(rec, info_count, infos, &list)
        },
    )
}

/// The first list: pid and memory only (no MIG instance ids).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetComputeRunningProcesses(
    device: nvmlDevice_t,
    info_count: *mut c_uint,
    infos: *mut nvmlProcessInfo_v1_t,
) -> Ret {
    call(
        "nvmlDeviceGetComputeRunningProcesses",
        Record::default().handle(raw(device)),
        |rec| {
            let list = as_v1(processes_of(raw(device), ProcessKind::Compute)?);
            put_processes(rec, info_count, infos, &list)
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetMPSComputeRunningProcesses_v3(
    device: nvmlDevice_t,
    info_count: *mut c_uint,
    infos: *mut nvmlProcessInfo_t,
) -> Ret {
    call(
        "nvmlDeviceGetMPSComputeRunningProcesses_v3",
        Record::default().handle(raw(device)),
        |rec| {
            let list = processes_of(raw(device), ProcessKind::MpsClient)?;
            put_processes(rec, info_count, infos, &list)
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetMPSComputeRunningProcesses_v2(
    device: nvmlDevice_t,
    info_count: *mut c_uint,
    infos: *mut nvmlProcessInfo_v2_t,
) -> Ret {
    call(
        "nvmlDeviceGetMPSComputeRunningProcesses_v2",
        Record::default().handle(raw(device)),
        |rec| {
            let list = as_v2(processes_of(raw(device), ProcessKind::MpsClient)?);
            put_processes(rec, info_count, infos, &list)
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetMPSComputeRunningProcesses(
    device: nvmlDevice_t,
    info_count: *mut c_uint,
    infos: *mut nvmlProcessInfo_v1_t,
) -> Ret {
    call(
        "nvmlDeviceGetMPSComputeRunningProcesses",
        Record::default().handle(raw(device)),
        |rec| {
            let list = as_v1(processes_of(raw(device), ProcessKind::MpsClient)?);
            put_processes(rec, info_count, infos, &list)
        },
    )
}

/// No simulated node has an NVLink fabric (no fabric manager, no cliques): the answer of a GPU
/// outside one, on every handle.
fn no_fabric(name: &'static str, device: nvmlDevice_t) -> Ret {
    call(name, Record::default().handle(raw(device)), |_| {
        device_handle(raw(device))?;
        Err(Fail::new(
            NOT_SUPPORTED,
            "the simulated node has no NVLink fabric",
        ))
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nvmlDeviceGetGpuFabricInfo(device: nvmlDevice_t) -> Ret {
    no_fabric("nvmlDeviceGetGpuFabricInfo", device)
}

#[unsafe(no_mangle)]
pub extern "C" fn nvmlDeviceGetGpuFabricInfoV(device: nvmlDevice_t) -> Ret {
    no_fabric("nvmlDeviceGetGpuFabricInfoV", device)
}
