//! One GPU as NVML reports it, field by field.
//!
//! The driver decides: name, memory, compute capability, architecture, SM count and MIG
//! capability come from NVML; the catalog fills only the SM count when the driver does not report
//! CUDA cores, and only when it agrees with the driver (see `catalog::Catalog::match_gpu`). What
//! identifies the GPU (name, UUID, PCI, memory, compute capability, MIG mode) must answer or the
//! snapshot fails; any other field the driver refuses is `None` with a note naming the call, so a
//! non-root `detect` still shows everything it could read.
//!
//! Older drivers get the older symbols, as go-nvml falls back: memory info v2 → v1, compute
//! processes `_v3` → `_v2` → v1 (`processes.rs`).

use super::compute_mode::from_nvml_mode;
use super::error::{driver_error, note, on_gpu};
use super::ffi::{MIB, memory_info};
use super::processes::{gpu_processes, process};
use super::{mig, profiles};
use crate::node::backend::DriverResult;
use crate::node::model::catalog::{CatalogMatch, catalog};
use crate::node::model::{Gpu, GpuNote, MigMode, MigState, PciId, VgpuHostMode};
use nvml_wrapper::enums::device::DeviceArchitecture;
use nvml_wrapper::error::NvmlError;
use nvml_wrapper::{Device, Nvml};

/// The snapshot of GPU `index`.
pub(super) fn snapshot_gpu(nvml: &Nvml, index: u32) -> DriverResult<Gpu> {
    let at = |what: &str| format!("GPU {index}: {what}");
    let device = nvml
        .device_by_index(index)
        .map_err(|e| driver_error(e, &at("nvmlDeviceGetHandleByIndex")))?;
    let pci = device
        .pci_info()
        .map_err(|e| driver_error(e, &at("nvmlDeviceGetPciInfo_v3")))?;
    let memory = memory_info(nvml, &device).map_err(|e| on_gpu(e, index))?;
    let cc = device
        .cuda_compute_capability()
        .map_err(|e| driver_error(e, &at("nvmlDeviceGetCudaComputeCapability")))?;
    let name = device
        .name()
        .map_err(|e| driver_error(e, &at("nvmlDeviceGetName")))?;
    let uuid = device
        .uuid()
        .map_err(|e| driver_error(e, &at("nvmlDeviceGetUUID")))?;
    let pci_device_id = PciId(pci.pci_device_id);
    let memory_total_mib = memory.total / MIB;
    let mut notes = Vec::new();
    let known = catalog().match_gpu(&name, pci_device_id, memory_total_mib);
    if let CatalogMatch::Mismatch(why) = &known {
        notes.push(GpuNote::new("catalog", why.clone()));
    }
    let cc_pair = (cc.major, cc.minor);
    let architecture = architecture(&device, cc_pair, known.model().map(|m| &m.architecture))
        .unwrap_or_else(|why| {
            notes.push(GpuNote::new("architecture", why));
            None
        });
    let multiprocessors = multiprocessors(&device, cc_pair, &known).unwrap_or_else(|why| {
        notes.push(GpuNote::new("multiprocessors", why));
        None
    });
    let mig = mig_state(nvml, &device, index, memory_total_mib, &known, &mut notes)?;
    let compute_mode = match device.compute_mode() {
        Ok(m) => Some(from_nvml_mode(m)),
        Err(e) => {
            let mut note = refused("compute_mode", e, "nvmlDeviceGetComputeMode");
            if mig.current.is_enabled() {
                note.message
                    .push_str(" (with MIG on, each MIG device has its own compute mode)");
            }
            notes.push(note);
            None
        }
    };
    let persistence_mode = match device.is_in_persistent_mode() {
        Ok(on) => Some(on),
        Err(e) => {
            notes.push(refused(
                "persistence_mode",
                e,
                "nvmlDeviceGetPersistenceMode",
            ));
            None
        }
    };
    let processes = match gpu_processes(nvml, &device) {
        Ok(list) => Some(list.into_iter().map(|p| process(nvml, p)).collect()),
        Err(e) => {
            notes.push(note("processes", &e));
            None
        }
    };
    Ok(Gpu {
        index,
        uuid,
        name,
        pci_bus_id: pci.bus_id,
        pci_device_id,
        pci_subsystem_id: pci.pci_sub_system_id.map(PciId),
        memory_total_mib,
        memory_used_mib: memory.used / MIB,
        compute_capability: format!("{}.{}", cc.major, cc.minor),
        multiprocessors,
        architecture,
        compute_mode,
        persistence_mode,
        mig,
        processes,
        vgpu_host_mode: vgpu_host_mode(&device),
        utilization_percent: utilization(&device, &mut notes),
        notes,
    })
}

/// The GPU's utilisation; none where the driver has no figure (MIG on, some boards), and a note
/// when it refuses otherwise.
fn utilization(device: &Device<'_>, notes: &mut Vec<GpuNote>) -> Option<u32> {
    match device.utilization_rates() {
        Ok(u) => Some(u.gpu.min(100)),
        Err(NvmlError::NotSupported | NvmlError::FunctionNotFound) => None,
        Err(e) => {
            notes.push(refused(
                "utilization_percent",
                e,
                "nvmlDeviceGetUtilizationRates",
            ));
            None
        }
    }
}

fn refused(field: &str, e: NvmlError, call: &str) -> GpuNote {
    note(field, &driver_error(e, call))
}

/// `nvmlDeviceGetArchitecture`, else from the compute capability, else the catalog's (when it
/// agrees with the driver). `Err`: why it is unknown.
fn architecture(
    device: &Device,
    cc: (i32, i32),
    catalog: Option<&String>,
) -> Result<Option<String>, String> {
    let asked = match device.architecture() {
        Ok(DeviceArchitecture::Unknown) => "nvmlDeviceGetArchitecture: unknown".to_string(),
        Ok(a) => return Ok(Some(architecture_name(&a).to_string())),
        Err(NvmlError::UnexpectedVariant(v)) => {
            format!("nvmlDeviceGetArchitecture: architecture {v} is newer than gpushare")
        }
        Err(e) => driver_error(e, "nvmlDeviceGetArchitecture").to_string(),
    };
    if let Some(name) = architecture_of(cc.0, cc.1) {
        return Ok(Some(name.to_string()));
    }
    if let Some(name) = catalog {
        return Ok(Some(name.clone()));
    }
    Err(format!(
        "{asked}, and compute capability {}.{} is not one gpushare knows",
        cc.0, cc.1
    ))
}

fn architecture_name(a: &DeviceArchitecture) -> &'static str {
    match a {
        DeviceArchitecture::Kepler => "kepler",
        DeviceArchitecture::Maxwell => "maxwell",
        DeviceArchitecture::Pascal => "pascal",
        DeviceArchitecture::Volta => "volta",
        DeviceArchitecture::Turing => "turing",
        DeviceArchitecture::Ampere => "ampere",
        DeviceArchitecture::Ada => "ada",
        DeviceArchitecture::Hopper => "hopper",
        DeviceArchitecture::Blackwell => "blackwell",
        DeviceArchitecture::Unknown => "unknown",
    }
}

/// The architecture of a compute capability, for drivers that do not name it.
pub(super) fn architecture_of(major: i32, minor: i32) -> Option<&'static str> {
    Some(match (major, minor) {
        (3, _) => "kepler",
        (5, _) => "maxwell",
        (6, _) => "pascal",
        (7, 0 | 2) => "volta",
        (7, 5) => "turing",
        (8, 0 | 6 | 7) => "ampere",
        (8, 9) => "ada",
        (9, 0) => "hopper",
        (10..=12, _) => "blackwell",
        _ => return None,
    })
}

/// CUDA cores per SM of a compute capability (NVML reports cores, not SMs); `None` for one
/// gpushare does not know.
pub(super) fn cores_per_sm(major: i32, minor: i32) -> Option<u32> {
    Some(match (major, minor) {
        (6, 0) | (7, _) | (8, 0) => 64,
        (6, _) | (8, 6 | 7 | 9) | (9, 0) | (10..=12, _) => 128,
        _ => return None,
    })
}

/// SMs of the whole GPU: CUDA cores from the driver over cores per SM, else the catalog's when
/// it agrees with the driver. `Err`: why it is unknown.
fn multiprocessors(
    device: &Device,
    cc: (i32, i32),
    known: &CatalogMatch,
) -> Result<Option<u32>, String> {
    let asked = match device.num_cores() {
        Ok(cores) if cores > 0 => match cores_per_sm(cc.0, cc.1) {
            Some(per_sm) => return Ok(Some(cores / per_sm)),
            None => format!(
                "nvmlDeviceGetNumGpuCores says {cores} cores, but gpushare does not know the \
                 cores per SM of compute capability {}.{}",
                cc.0, cc.1
            ),
        },
        Ok(_) => "nvmlDeviceGetNumGpuCores says 0 cores".to_string(),
        Err(e) => driver_error(e, "nvmlDeviceGetNumGpuCores").to_string(),
    };
    match known {
        CatalogMatch::Found(model) => Ok(Some(model.multiprocessors)),
        CatalogMatch::Unknown => Err(format!("{asked}, and the catalog does not know this GPU")),
        CatalogMatch::Mismatch(_) => Err(format!(
            "{asked}, and the catalog disagrees with the driver about this GPU"
        )),
    }
}

/// MIG mode and capability, and with MIG on the instances — `None` with a note when the driver
/// would not list them.
///
/// MIG-capable: the mode query answers and the maximum MIG device count is above 0. With MIG off
/// that count is 0 on real drivers (`nvml.h`: "zero if MIG is not supported or enabled"), so
/// there a 0 says nothing and the GPU is MIG-capable when the driver lists a GPU-instance profile
/// (the v1 call answers regardless of the mode) or the catalog has a MIG table for it.
fn mig_state(
    nvml: &Nvml,
    device: &Device,
    index: u32,
    total_mib: u64,
    known: &CatalogMatch,
    notes: &mut Vec<GpuNote>,
) -> DriverResult<MigState> {
    let mode = match device.mig_mode() {
        Ok(mode) => mode,
        Err(NvmlError::NotSupported | NvmlError::FunctionNotFound) => {
            return Ok(MigState::default());
        }
        Err(NvmlError::FailedToLoadSymbol(_)) => return Ok(MigState::default()),
        Err(e) => {
            return Err(driver_error(
                e,
                &format!("GPU {index}: nvmlDeviceGetMigMode"),
            ));
        }
    };
    let current = MigMode::from_enabled(mode.current == 1);
    let capable = match device.mig_device_count() {
        Ok(n) if n > 0 => true,
        Ok(_) if !current.is_enabled() => capable_while_off(nvml, device, known),
        Ok(_) | Err(NvmlError::NotSupported) => false,
        Err(e) => {
            notes.push(refused("mig.capable", e, "nvmlDeviceGetMaxMigDeviceCount"));
            false
        }
    };
    if !capable {
        return Ok(MigState::default());
    }
    let instances = if current.is_enabled() {
        match mig::gpu_instances(nvml, device, total_mib, notes) {
            Ok(list) => Some(list),
            Err(e) => {
                notes.push(note("mig.instances", &e));
                None
            }
        }
    } else {
        Some(Vec::new())
    };
    Ok(MigState {
        capable,
        current,
        pending: MigMode::from_enabled(mode.pending == 1),
        instances,
    })
}

/// Whether a GPU with MIG off (maximum MIG device count 0) can have MIG: the driver lists a
/// GPU-instance profile for it, or the catalog, agreeing with the driver, has its MIG table.
fn capable_while_off(nvml: &Nvml, device: &Device, known: &CatalogMatch) -> bool {
    known
        .model()
        .is_some_and(|m| catalog().mig_table(m).is_some())
        || profiles::gpu_instance_profile_infos(nvml, device).is_ok_and(|list| !list.is_empty())
}

/// The vGPU host mode of a GPU the vGPU Manager drives; `None` for any other GPU, and when the
/// driver cannot say (the query is informational, so it never fails a snapshot).
fn vgpu_host_mode(device: &Device<'_>) -> Option<VgpuHostMode> {
    use nvml_wrapper::enum_wrappers::device::{GpuVirtualizationMode, HostVgpuMode};
    match device.virtualization_mode() {
        Ok(GpuVirtualizationMode::HostVgpu) => {}
        _ => return None,
    }
    // Drivers older than the SR-IOV query predate SR-IOV vGPU, so "not supported" means non-SR-IOV.
    match device.vgpu_host_mode() {
        Ok(HostVgpuMode::Sriov) => Some(VgpuHostMode::Sriov),
        Ok(HostVgpuMode::NonSriov) | Err(NvmlError::NotSupported) => Some(VgpuHostMode::NonSriov),
        Err(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn architectures_and_sm_sizes_follow_the_compute_capability() {
        assert_eq!(architecture_of(8, 0), Some("ampere"));
        assert_eq!(architecture_of(8, 9), Some("ada"));
        assert_eq!(architecture_of(9, 0), Some("hopper"));
        assert_eq!(architecture_of(10, 0), Some("blackwell"));
        assert_eq!(architecture_of(7, 5), Some("turing"));
        assert_eq!(architecture_of(13, 0), None);
        // A100 6912 cores / 108 SMs, H100 16896 / 132, T4 2560 / 40, L40S 18176 / 142.
        for (cores, (major, minor), sms) in [
            (6912, (8, 0), 108),
            (16896, (9, 0), 132),
            (2560, (7, 5), 40),
            (18176, (8, 9), 142),
        ] {
            assert_eq!(cores / cores_per_sm(major, minor).unwrap(), sms);
        }
        assert_eq!(cores_per_sm(13, 0), None);
    }
}
