//! Initialisation, the system queries and device enumeration.

use super::gpu;
use crate::call::*;
use crate::handles::{self, Handle};
use crate::{holders, node};
use nvml_wrapper_sys::bindings::nvmlDevice_t;
use std::os::raw::{c_char, c_int, c_uint};

fn init(name: &'static str, record: Record) -> Ret {
    call_uninitialised(name, record, |_| {
        let path = node::path()?;
        node::ensure(&path)?;
        node::load(&path)?;
        if handles::open()
            && let Err(e) = holders::hold(&path)
        {
            handles::close();
            return Err(Fail::new(
                UNKNOWN,
                format!("cannot record this process as an NVML client: {e}"),
            ));
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn nvmlInit_v2() -> Ret {
    init("nvmlInit_v2", Record::default())
}

#[unsafe(no_mangle)]
pub extern "C" fn nvmlInit() -> Ret {
    init("nvmlInit", Record::default())
}

#[unsafe(no_mangle)]
pub extern "C" fn nvmlInitWithFlags(flags: c_uint) -> Ret {
    init("nvmlInitWithFlags", Record::default().arg("flags", flags))
}

#[unsafe(no_mangle)]
pub extern "C" fn nvmlShutdown() -> Ret {
    call_uninitialised(
        "nvmlShutdown",
        Record::default(),
        |_| match handles::close() {
            None => Err(Fail::new(UNINITIALIZED, "not initialised")),
            Some(closed) => {
                if closed && let Ok(path) = node::path() {
                    holders::release(&path);
                }
                Ok(())
            }
        },
    )
}

#[unsafe(no_mangle)]
pub extern "C" fn nvmlErrorString(code: Ret) -> *const c_char {
    let text = match code {
        SUCCESS => c"Success",
        UNINITIALIZED => c"Uninitialized",
        INVALID_ARGUMENT => c"Invalid Argument",
        NOT_SUPPORTED => c"Not Supported",
        NO_PERMISSION => c"Insufficient Permissions",
        NOT_FOUND => c"Not Found",
        INSUFFICIENT_SIZE => c"Insufficient Size",
        DRIVER_NOT_LOADED => c"Driver Not Loaded",
        GPU_IS_LOST => c"GPU is lost",
        RESET_REQUIRED => c"GPU requires reset",
        IN_USE => c"In use by another client",
        INSUFFICIENT_RESOURCES => c"Insufficient resources",
        ARGUMENT_VERSION_MISMATCH => c"Argument version mismatch",
        _ => c"Unknown Error",
    };
    text.as_ptr()
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlSystemGetDriverVersion(version: *mut c_char, length: c_uint) -> Ret {
    call("nvmlSystemGetDriverVersion", Record::default(), |_| {
        let text = node::read(|s| Ok(s.driver_version.clone()))?;
        put_str(version, length, &text)
    })
}

/// `12.550.163.01`: the CUDA major version the driver supports, then the driver's version, as
/// NVML reports its own.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlSystemGetNVMLVersion(version: *mut c_char, length: c_uint) -> Ret {
    call("nvmlSystemGetNVMLVersion", Record::default(), |_| {
        let driver = node::read(|s| Ok(s.driver_version.clone()))?;
        put_str(
            version,
            length,
            &format!("{}.{driver}", cuda_version()? / 1000),
        )
    })
}

/// `13.0` → 13000, as NVML encodes CUDA versions.
fn cuda_version() -> Result<c_int, Fail> {
    let text = node::read(|s| Ok(s.cuda_driver_version.clone()))?;
    let mut parts = text.split('.').map(|p| p.parse::<c_int>().unwrap_or(0));
    let major = parts.next().unwrap_or(0);
    let minor = parts.next().unwrap_or(0);
    Ok(major * 1000 + minor * 10)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlSystemGetCudaDriverVersion_v2(version: *mut c_int) -> Ret {
    call(
        "nvmlSystemGetCudaDriverVersion_v2",
        Record::default(),
        |_| put(version, cuda_version()?),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlSystemGetCudaDriverVersion(version: *mut c_int) -> Ret {
    call("nvmlSystemGetCudaDriverVersion", Record::default(), |_| {
        put(version, cuda_version()?)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlSystemGetProcessName(
    pid: c_uint,
    name: *mut c_char,
    length: c_uint,
) -> Ret {
    call(
        "nvmlSystemGetProcessName",
        Record::default().arg("pid", pid),
        |_| {
            let found = node::read(|s| {
                Ok(s.gpus
                    .iter()
                    .flat_map(|g| &g.processes)
                    .find(|p| p.pid == pid)
                    .map(|p| p.name.clone()))
            })?;
            let found = found.ok_or_else(|| Fail::new(NOT_FOUND, "no such process on a GPU"))?;
            put_str(name, length, &found)
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetCount_v2(count: *mut c_uint) -> Ret {
    call("nvmlDeviceGetCount_v2", Record::default(), |_| {
        put(count, node::read(|s| Ok(s.gpus.len() as c_uint))?)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetHandleByIndex_v2(
    index: c_uint,
    device: *mut nvmlDevice_t,
) -> Ret {
    call(
        "nvmlDeviceGetHandleByIndex_v2",
        Record::default().arg("index", index),
        |_| {
            node::read(|s| gpu(s, index).map(|_| ()))?;
            put(device, Handle::Device { gpu: index }.as_ptr())
        },
    )
}

/// `0000:07:00.0`, `00000000:07:00.0` or `07:00.0` (domain 0), any case: (domain, bus, device,
/// function), as the driver compares bus ids.
fn pci_address(text: &str) -> Option<(u32, u32, u32, u32)> {
    let (rest, function) = text.trim().rsplit_once('.')?;
    let mut parts: Vec<&str> = rest.split(':').collect();
    if parts.len() == 2 {
        parts.insert(0, "0");
    }
    let hex = |p: &str| u32::from_str_radix(p, 16).ok();
    match parts.as_slice() {
        [d, b, dev] => Some((hex(d)?, hex(b)?, hex(dev)?, hex(function)?)),
        _ => None,
    }
}

fn by_pci_bus_id(name: &'static str, bus_id: *const c_char, device: *mut nvmlDevice_t) -> Ret {
    let wanted = c_str_arg(bus_id);
    call(
        name,
        Record::default().arg("pciBusId", wanted.clone()),
        |_| {
            let wanted = pci_address(&wanted)
                .ok_or_else(|| Fail::new(INVALID_ARGUMENT, "not a PCI bus id"))?;
            let index = node::read(|s| {
                s.gpus
                    .iter()
                    .position(|g| pci_address(&g.pci_bus_id) == Some(wanted))
                    .ok_or_else(|| Fail::new(NOT_FOUND, "no GPU at this bus id"))
            })?;
            put(device, Handle::Device { gpu: index as u32 }.as_ptr())
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetHandleByPciBusId_v2(
    bus_id: *const c_char,
    device: *mut nvmlDevice_t,
) -> Ret {
    by_pci_bus_id("nvmlDeviceGetHandleByPciBusId_v2", bus_id, device)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetHandleByPciBusId(
    bus_id: *const c_char,
    device: *mut nvmlDevice_t,
) -> Ret {
    by_pci_bus_id("nvmlDeviceGetHandleByPciBusId", bus_id, device)
}

/// A GPU by its `GPU-…` UUID, or a MIG device by its `MIG-…` UUID (a MIG device handle, as
/// drivers since R470 answer).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetHandleByUUID(
    uuid: *const c_char,
    device: *mut nvmlDevice_t,
) -> Ret {
    let wanted = c_str_arg(uuid);
    call(
        "nvmlDeviceGetHandleByUUID",
        Record::default().arg("uuid", wanted.clone()),
        |_| {
            let handle = node::read(|s| {
                for (index, g) in s.gpus.iter().enumerate() {
                    let gpu = index as u32;
                    if g.uuid == wanted {
                        return Ok(Handle::Device { gpu });
                    }
                    for gi in &g.instances {
                        if let Some(ci) = gi.compute_instances.iter().find(|c| c.uuid == wanted) {
                            return Ok(Handle::MigDevice {
                                gpu,
                                gi: gi.id,
                                ci: ci.id,
                            });
                        }
                    }
                }
                Err(Fail::new(NOT_FOUND, "no GPU or MIG device has this UUID"))
            })?;
            put(device, handle.as_ptr())
        },
    )
}
