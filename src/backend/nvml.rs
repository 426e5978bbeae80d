//! The NVML backend: the real driver through nvml-wrapper, loaded at run time.
//!
//! MIG instance calls that nvml-wrapper does not wrap live in `nvml_mig.rs`. Resets go through
//! `nvidia-smi -r`, as mig-parted does, because NVML has no reset call.

use super::nvml_mig as mig;
use super::{
    Backend, DeviceRef, DriverError, DriverErrorKind, DriverResult, ModeChange, ProfileCapacity,
};
use crate::error::{Error, Result};
use crate::node::catalog::{ComputeInstanceProfile, catalog};
use crate::node::{
    ComputeMode, Gpu, Holder, HolderKind, MigMode, MigState, Node, PciId, Placement, Process,
    VgpuHostMode,
};
use nvml_wrapper::Nvml;
use nvml_wrapper::enum_wrappers::device::ComputeMode as NvmlComputeMode;
use nvml_wrapper::error::{NvmlError, nvml_sym, nvml_try};
use nvml_wrapper::struct_wrappers::device::ProcessInfo;
use std::path::Path;

pub struct NvmlBackend {
    nvml: Nvml,
}

/// NVML's return code for "no room" (`NVML_ERROR_INSUFFICIENT_RESOURCES`), which nvml-wrapper
/// does not name.
const NVML_ERROR_INSUFFICIENT_RESOURCES: u32 = 23;

/// `NVML_ERROR_RESET_REQUIRED`: as a MIG activation status, "a reset is not possible here".
const NVML_ERROR_RESET_REQUIRED: u32 = 16;

/// Map an nvml-wrapper error to the driver's meaning; `what` says which call it was.
pub(super) fn driver_error(e: NvmlError, what: &str) -> DriverError {
    use DriverErrorKind as K;
    let kind = match &e {
        NvmlError::LibloadingError(_) | NvmlError::LibraryNotFound => K::LibraryNotFound,
        NvmlError::DriverNotLoaded => K::DriverNotLoaded,
        NvmlError::NoPermission => K::NoPermission,
        NvmlError::NotSupported => K::NotSupported,
        NvmlError::InvalidArg => K::InvalidArgument,
        NvmlError::NotFound => K::NotFound,
        NvmlError::InUse => K::InUse,
        NvmlError::GpuLost => K::GpuLost,
        NvmlError::ResetRequired => K::ResetRequired,
        NvmlError::FailedToLoadSymbol(_) | NvmlError::FunctionNotFound => K::FunctionNotFound,
        NvmlError::UnexpectedVariant(NVML_ERROR_INSUFFICIENT_RESOURCES) => K::InsufficientResources,
        _ => K::Unknown,
    };
    let detail = match kind {
        K::Unknown | K::LibraryNotFound | K::FunctionNotFound => format!("{what}: {e}"),
        _ => what.to_string(),
    };
    DriverError::new(kind, detail)
}

impl NvmlBackend {
    /// Load NVML (`--nvml-lib` or the system's libnvidia-ml.so.1) and initialise it.
    pub fn open(lib_path: Option<&Path>) -> Result<Self> {
        let mut builder = Nvml::builder();
        if let Some(path) = lib_path {
            builder.lib_path(path.as_os_str());
        }
        let lib = lib_path.map_or_else(
            || "libnvidia-ml.so.1".to_string(),
            |p| p.display().to_string(),
        );
        builder.init().map(|nvml| NvmlBackend { nvml }).map_err(|e| match e {
            NvmlError::LibloadingError(_) | NvmlError::LibraryNotFound => {
                Error::no_driver(format!("no NVIDIA driver: cannot load {lib}"))
                    .with_hint("install the NVIDIA driver (or point --nvml-lib at libnvidia-ml.so.1); try --sim dgx-a100 to explore without a GPU")
            }
            NvmlError::DriverNotLoaded => Error::no_driver(format!(
                "no NVIDIA driver: {lib} is present but the nvidia kernel module is not loaded"
            ))
            .with_hint("load it with `modprobe nvidia` (check `dmesg`); try --sim dgx-a100 to explore without a GPU"),
            NvmlError::FailedToLoadSymbol(s) => Error::no_driver(format!(
                "{lib} is not a usable NVML library: {s}"
            ))
            .with_hint("point --nvml-lib at the driver's libnvidia-ml.so.1"),
            NvmlError::NoPermission => Error::failed("NVML refused to initialise: insufficient permissions")
                .with_hint("check the permissions of /dev/nvidia*"),
            other => Error::no_driver(format!("NVML failed to initialise: {other}"))
                .with_hint("check the driver installation (`nvidia-smi`); try --sim dgx-a100 to explore without a GPU"),
        })
    }

    /// Run `f` with NVML shut down, then initialise it again. The driver refuses to reset a GPU
    /// that any NVML client holds, this process included, so a reset runs in here (mig-parted
    /// does the same). The library stays loaded; handles are looked up per call, so none from
    /// before is used after.
    fn released<T>(&self, f: impl FnOnce() -> T) -> DriverResult<T> {
        let lib = self.nvml.lib();
        let shutdown =
            *nvml_sym(lib.nvmlShutdown.as_ref()).map_err(|e| driver_error(e, "nvmlShutdown"))?;
        let init =
            *nvml_sym(lib.nvmlInit_v2.as_ref()).map_err(|e| driver_error(e, "nvmlInit_v2"))?;
        // SAFETY: NVML's own shutdown, matched by the nvmlInit_v2 below. No device handle
        // outlives it: this backend looks handles up per call and lends none out.
        nvml_try(unsafe { shutdown() })
            .map_err(|e| driver_error(e, "release NVML before the GPU reset"))?;
        let out = f();
        // SAFETY: initialises the library nvml-wrapper loaded; its own shutdown at drop matches it.
        nvml_try(unsafe { init() })
            .map_err(|e| driver_error(e, "open NVML again after the GPU reset"))?;
        Ok(out)
    }

    fn device(&self, index: u32) -> DriverResult<nvml_wrapper::Device<'_>> {
        self.nvml
            .device_by_index(index)
            .map_err(|e| driver_error(e, &format!("GPU {index}")))
    }

    fn snapshot_gpu(&self, index: u32) -> DriverResult<Gpu> {
        let at = |what: &str| format!("GPU {index}: {what}");
        let device = self.device(index)?;
        let pci = device
            .pci_info()
            .map_err(|e| driver_error(e, &at("PCI info")))?;
        let memory = device
            .memory_info()
            .map_err(|e| driver_error(e, &at("memory info")))?;
        let cc = device
            .cuda_compute_capability()
            .map_err(|e| driver_error(e, &at("compute capability")))?;
        let pci_device_id = PciId(pci.pci_device_id);
        let model = catalog().model_by_pci(pci_device_id);
        let multiprocessors = match model {
            Some(m) => m.multiprocessors,
            None => device
                .num_cores()
                .map(|cores| cores / cores_per_sm(cc.major, cc.minor))
                .unwrap_or(0),
        };
        let architecture = model.map(|m| m.architecture.clone()).or_else(|| {
            device
                .architecture()
                .ok()
                .map(|a| a.to_string().to_ascii_lowercase())
        });
        let mig_state = match device.mig_mode() {
            Ok(mode) => {
                let current = MigMode::from_enabled(mode.current == 1);
                let instances = if current.is_enabled() {
                    mig::gpu_instances(&self.nvml, &device, memory.total / (1024 * 1024))?
                } else {
                    Vec::new()
                };
                MigState {
                    capable: true,
                    current,
                    pending: MigMode::from_enabled(mode.pending == 1),
                    instances,
                }
            }
            Err(NvmlError::NotSupported) => MigState::default(),
            Err(e) => return Err(driver_error(e, &at("MIG mode"))),
        };
        let processes = device
            .running_compute_processes()
            .map_err(|e| driver_error(e, &at("processes")))?
            .into_iter()
            .map(|p| self.process(p))
            .collect();
        Ok(Gpu {
            index,
            uuid: device.uuid().map_err(|e| driver_error(e, &at("UUID")))?,
            name: device.name().map_err(|e| driver_error(e, &at("name")))?,
            pci_bus_id: pci.bus_id,
            pci_device_id,
            pci_subsystem_id: pci.pci_sub_system_id.map(PciId),
            memory_total_mib: memory.total / (1024 * 1024),
            memory_used_mib: memory.used / (1024 * 1024),
            compute_capability: format!("{}.{}", cc.major, cc.minor),
            multiprocessors,
            architecture,
            compute_mode: match device.compute_mode() {
                Ok(m) => from_nvml_mode(m),
                Err(NvmlError::NotSupported) => ComputeMode::Default,
                Err(e) => return Err(driver_error(e, &at("compute mode"))),
            },
            persistence_mode: device.is_in_persistent_mode().unwrap_or(false),
            mig: mig_state,
            processes,
            vgpu_host_mode: vgpu_host_mode(&device),
        })
    }

    fn process(&self, p: ProcessInfo) -> Process {
        use nvml_wrapper::enums::device::UsedGpuMemory;
        let name = self
            .nvml
            .sys_process_name(p.pid, 256)
            .ok()
            .or_else(|| std::fs::read_to_string(format!("/proc/{}/comm", p.pid)).ok())
            .map(|n| n.trim().rsplit('/').next().unwrap_or_default().to_string())
            .unwrap_or_else(|| "?".into());
        Process {
            pid: p.pid,
            name,
            used_memory_mib: match p.used_gpu_memory {
                UsedGpuMemory::Used(bytes) => bytes / (1024 * 1024),
                UsedGpuMemory::Unavailable => 0,
            },
            gpu_instance_id: p.gpu_instance_id,
            compute_instance_id: p.compute_instance_id,
        }
    }
}

/// The vGPU host mode of a GPU the vGPU Manager drives; `None` for any other GPU, and when the
/// driver cannot say (the query is informational, so it never fails a snapshot).
fn vgpu_host_mode(device: &nvml_wrapper::Device<'_>) -> Option<VgpuHostMode> {
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

/// CUDA cores per SM, for GPUs the catalog does not know (NVML reports cores, not SMs).
fn cores_per_sm(major: i32, minor: i32) -> u32 {
    match (major, minor) {
        (7, _) => 64,
        (8, 0) => 64,
        (9, 0) => 128,
        _ => 128,
    }
}

fn from_nvml_mode(m: NvmlComputeMode) -> ComputeMode {
    match m {
        NvmlComputeMode::ExclusiveProcess => ComputeMode::ExclusiveProcess,
        NvmlComputeMode::Prohibited => ComputeMode::Prohibited,
        // EXCLUSIVE_THREAD is gone from current drivers; it behaves like exclusive-process.
        NvmlComputeMode::ExclusiveThread => ComputeMode::ExclusiveProcess,
        NvmlComputeMode::Default => ComputeMode::Default,
    }
}

fn to_nvml_mode(m: ComputeMode) -> NvmlComputeMode {
    match m {
        ComputeMode::Default => NvmlComputeMode::Default,
        ComputeMode::ExclusiveProcess => NvmlComputeMode::ExclusiveProcess,
        ComputeMode::Prohibited => NvmlComputeMode::Prohibited,
    }
}

/// Processes and kernel modules that hold NVIDIA devices open without being compute processes
/// (nvidia-persistenced, DCGM, nvidia_drm). Best effort: other users' fds need root to read.
fn scan_holders(compute_pids: &[u32]) -> Vec<Holder> {
    let mut holders = Vec::new();
    if let Ok(modules) = std::fs::read_to_string("/proc/modules") {
        for name in ["nvidia_drm"] {
            if modules
                .lines()
                .any(|l| l.split_whitespace().next() == Some(name))
            {
                holders.push(Holder {
                    name: name.into(),
                    kind: HolderKind::Module,
                    pid: None,
                });
            }
        }
    }
    let me = std::process::id();
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return holders;
    };
    for entry in procs.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == me || compute_pids.contains(&pid) {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(entry.path().join("fd")) else {
            continue;
        };
        let holds_gpu = fds.flatten().any(|fd| {
            std::fs::read_link(fd.path()).is_ok_and(|target| {
                target
                    .to_str()
                    .and_then(|t| t.strip_prefix("/dev/nvidia"))
                    .is_some_and(|rest| rest.chars().next().is_some_and(|c| c.is_ascii_digit()))
            })
        });
        if holds_gpu {
            let name = std::fs::read_to_string(entry.path().join("comm"))
                .map(|s| s.trim().to_string())
                .unwrap_or_else(|_| "?".into());
            holders.push(Holder {
                name,
                kind: HolderKind::Process,
                pid: Some(pid),
            });
        }
    }
    holders
}

impl Backend for NvmlBackend {
    fn source(&self) -> String {
        "nvml".into()
    }

    fn snapshot(&self) -> DriverResult<Node> {
        let driver_version = self
            .nvml
            .sys_driver_version()
            .map_err(|e| driver_error(e, "driver version"))?;
        let cuda = self
            .nvml
            .sys_cuda_driver_version()
            .map_err(|e| driver_error(e, "CUDA driver version"))?;
        let count = self
            .nvml
            .device_count()
            .map_err(|e| driver_error(e, "device count"))?;
        let gpus = (0..count)
            .map(|i| self.snapshot_gpu(i))
            .collect::<DriverResult<Vec<_>>>()?;
        let compute_pids: Vec<u32> = gpus
            .iter()
            .flat_map(|g| g.processes.iter().map(|p| p.pid))
            .collect();
        Ok(Node {
            source: self.source(),
            driver_version,
            cuda_driver_version: format!(
                "{}.{}",
                nvml_wrapper::cuda_driver_version_major(cuda),
                nvml_wrapper::cuda_driver_version_minor(cuda)
            ),
            gpus,
            holders: scan_holders(&compute_pids),
        })
    }

    fn gpu_instance_profiles(&self, gpu: u32) -> DriverResult<Vec<ProfileCapacity>> {
        let device = self.device(gpu)?;
        let total = device
            .memory_info()
            .map_err(|e| driver_error(e, &format!("GPU {gpu}: memory info")))?
            .total
            / (1024 * 1024);
        mig::gpu_instance_profiles(&self.nvml, &device, total)
    }

    fn compute_instance_profiles(
        &self,
        gpu: u32,
        gpu_instance_id: u32,
    ) -> DriverResult<Vec<ComputeInstanceProfile>> {
        let device = self.device(gpu)?;
        mig::compute_instance_profiles(&self.nvml, &device, gpu_instance_id)
    }

    fn set_mig_mode(&mut self, gpu: u32, mode: MigMode) -> DriverResult<ModeChange> {
        let device = self.device(gpu)?;
        let what = format!("GPU {gpu}: set MIG mode {}", mode.as_str());
        // The activation status says whether the change could take effect now.
        let status = device
            .set_mig_mode(mode.is_enabled())
            .map_err(|e| driver_error(e, &what))?;
        let now = device.mig_mode().map_err(|e| driver_error(e, &what))?;
        if status == 0 && MigMode::from_enabled(now.current == 1) == mode {
            Ok(ModeChange::Applied)
        } else if status == NVML_ERROR_RESET_REQUIRED {
            // The driver cannot reset the GPU here (passthrough VM): only a reboot applies it.
            Ok(ModeChange::PendingReboot)
        } else {
            Ok(ModeChange::PendingReset)
        }
    }

    fn reset_gpus(&mut self, gpus: &[u32]) -> DriverResult<()> {
        let mut bus_ids = Vec::new();
        for &g in gpus {
            let pci = self
                .device(g)?
                .pci_info()
                .map_err(|e| driver_error(e, &format!("GPU {g}: PCI info")))?;
            bus_ids.push(pci.bus_id);
        }
        let smi = which::which("nvidia-smi").map_err(|_| {
            DriverError::new(
                DriverErrorKind::NotSupported,
                "cannot reset GPUs: nvidia-smi is not on PATH",
            )
        })?;
        let output = self
            .released(|| {
                duct::cmd(smi, ["-r", "-i", &bus_ids.join(",")])
                    .stdout_capture()
                    .stderr_capture()
                    .unchecked()
                    .run()
            })?
            .map_err(|e| {
                DriverError::new(DriverErrorKind::Unknown, format!("nvidia-smi -r: {e}"))
            })?;
        if output.status.success() {
            return Ok(());
        }
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        let lower = text.to_ascii_lowercase();
        let kind = if lower.contains("in use") {
            DriverErrorKind::InUse
        } else if lower.contains("not supported") || lower.contains("is the primary gpu") {
            // Resets are not possible on this machine (VM, primary display GPU): reboot instead.
            DriverErrorKind::NotSupported
        } else if lower.contains("permission") {
            DriverErrorKind::NoPermission
        } else {
            DriverErrorKind::Unknown
        };
        Err(DriverError::new(
            kind,
            format!("nvidia-smi -r -i {}: {}", bus_ids.join(","), text.trim()),
        ))
    }

    fn create_gpu_instance(
        &mut self,
        gpu: u32,
        profile_id: u32,
        placement: Placement,
    ) -> DriverResult<u32> {
        let device = self.device(gpu)?;
        mig::create_gpu_instance(&self.nvml, &device, profile_id, placement)
    }

    fn create_compute_instance(
        &mut self,
        gpu: u32,
        gpu_instance_id: u32,
        profile_id: u32,
    ) -> DriverResult<u32> {
        let device = self.device(gpu)?;
        mig::create_compute_instance(&self.nvml, &device, gpu_instance_id, profile_id)
    }

    fn destroy_compute_instance(
        &mut self,
        gpu: u32,
        gpu_instance_id: u32,
        compute_instance_id: u32,
    ) -> DriverResult<()> {
        let device = self.device(gpu)?;
        mig::destroy_compute_instance(&self.nvml, &device, gpu_instance_id, compute_instance_id)
    }

    fn destroy_gpu_instance(&mut self, gpu: u32, gpu_instance_id: u32) -> DriverResult<()> {
        let device = self.device(gpu)?;
        mig::destroy_gpu_instance(&self.nvml, &device, gpu_instance_id)
    }

    fn set_compute_mode(&mut self, target: DeviceRef, mode: ComputeMode) -> DriverResult<()> {
        let what = format!("{target}: set compute mode {}", mode.as_str());
        let mut device = match target {
            DeviceRef::Gpu(g) => self.device(g)?,
            DeviceRef::Mig {
                gpu,
                gpu_instance_id,
                compute_instance_id,
            } => mig::mig_device(
                &self.nvml,
                &self.device(gpu)?,
                gpu_instance_id,
                compute_instance_id,
            )?,
        };
        device
            .set_compute_mode(to_nvml_mode(mode))
            .map_err(|e| driver_error(e, &what))
    }
}
