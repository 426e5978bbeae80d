//! The NVML backend: the real driver through nvml-wrapper, loaded at run time.
//!
//! **The driver decides**: what NVML reports wins, and the catalog only fills what the driver
//! cannot say yet (see `node::catalog`). A field the driver refuses is unknown (`None`, with a
//! note naming the call), never 0 or "empty"; while MIG is on, a refused instance or profile query
//! makes the layout unknown, which nothing plans from.
//!
//! - [`device`]: one GPU's snapshot, field by field, with the older-symbol fallbacks;
//! - [`processes`]: its compute processes;
//! - [`profiles`], [`compute_profiles`]: GPU- and compute-instance profiles, placements, free
//!   counts;
//! - [`mig`]: GPU and compute instances (list, create, destroy);
//! - [`mig_devices`]: MIG device handles (UUIDs, compute modes);
//! - [`compute_mode`]: compute modes between NVML's enum and gpushare's;
//! - [`events`]: the health watch (Xid and ECC events, attributed to MIG devices);
//! - [`error`]: the one mapping of NVML return codes (also for `nvmlInit`);
//! - [`ffi`]: the raw helpers the calls share (struct versions, list calls, profile indices).
//!
//! Resets go through `nvidia-smi -r`, as mig-parted does, because NVML has no reset call.

mod compute_mode;
mod compute_profiles;
mod device;
mod error;
mod events;
mod ffi;
mod mig;
mod mig_devices;
mod processes;
mod profiles;

use crate::node::backend::{
    Backend, DeviceRef, DriverError, DriverErrorKind, DriverResult, MigProfiles, ModeChange,
};
use crate::node::model::catalog::ComputeInstanceProfile;
use crate::node::model::{ComputeMode, Holder, HolderKind, MigMode, Node, Placement};
use crate::support::error::{Error, Result};
use compute_mode::to_nvml_mode;
use device::snapshot_gpu;
use error::{self as code, RESET_REQUIRED, driver_error, on_gpu, symbol};
use ffi::memory_info;
use nvml_wrapper::Nvml;
use std::path::Path;

/// Shared by the executor's workers, one thread per GPU: `Nvml` is `Send + Sync` and NVML is
/// thread-safe; device handles are looked up per call, never kept.
pub struct NvmlBackend {
    nvml: Nvml,
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
        builder
            .init()
            .map(|nvml| NvmlBackend { nvml })
            .map_err(|e| init_error(&driver_error(e, "nvmlInit_v2"), &lib))
    }

    /// Run `f` with NVML shut down, then initialise it again. The driver refuses to reset a GPU
    /// that any NVML client holds, this process included, so a reset runs in here (mig-parted
    /// does the same). The library stays loaded; handles are looked up per call, so none from
    /// before is used after.
    fn released<T>(&self, f: impl FnOnce() -> T) -> DriverResult<T> {
        let lib = self.nvml.lib();
        let shutdown = *symbol(lib.nvmlShutdown.as_ref(), "nvmlShutdown")?;
        let init = *symbol(lib.nvmlInit_v2.as_ref(), "nvmlInit_v2")?;
        code::check(
            // SAFETY: NVML's own shutdown, matched by the nvmlInit_v2 below. No device handle
            // outlives it: this backend looks handles up per call and lends none out.
            unsafe { shutdown() },
            "nvmlShutdown (release NVML before the GPU reset)",
        )?;
        let out = f();
        code::check(
            // SAFETY: initialises the library nvml-wrapper loaded; its own shutdown at drop matches it.
            unsafe { init() },
            "nvmlInit_v2 (open NVML again after the GPU reset)",
        )?;
        Ok(out)
    }

    /// The health watch (see [`events`]), on an NVML session of its own: the driver resets no
    /// GPU any client holds, so it is closed around resets, apart from the backend's session.
    pub(crate) fn watch(lib_path: Option<&Path>) -> Result<events::NvmlWatch> {
        let backend = NvmlBackend::open(lib_path)?;
        Ok(events::NvmlWatch::new(backend.nvml)?)
    }

    fn device(&self, index: u32) -> DriverResult<nvml_wrapper::Device<'_>> {
        self.nvml
            .device_by_index(index)
            .map_err(|e| driver_error(e, &format!("GPU {index}: nvmlDeviceGetHandleByIndex")))
    }
}

/// Why NVML did not initialise, for people: the return code as the one mapping reads it
/// ([`error`]), with what to do about it.
fn init_error(e: &DriverError, lib: &str) -> Error {
    match e.kind {
        DriverErrorKind::LibraryNotFound => {
            Error::no_driver(format!("no NVIDIA driver: cannot load {lib}"))
                .with_hint("install the NVIDIA driver (or point --nvml-lib at libnvidia-ml.so.1); try --sim dgx-a100 to explore without a GPU")
        }
        DriverErrorKind::DriverNotLoaded => Error::no_driver(format!(
            "no NVIDIA driver: {lib} is present but the nvidia kernel module is not loaded"
        ))
        .with_hint("load it with `modprobe nvidia` (check `dmesg`); try --sim dgx-a100 to explore without a GPU"),
        DriverErrorKind::FunctionNotFound => {
            Error::no_driver(format!("{lib} is not a usable NVML library: {}", e.detail))
                .with_hint("point --nvml-lib at the driver's libnvidia-ml.so.1")
        }
        DriverErrorKind::NoPermission => {
            Error::failed("NVML refused to initialise: insufficient permissions")
                .with_hint("check the permissions of /dev/nvidia*")
        }
        _ => Error::no_driver(format!("NVML failed to initialise: {e}"))
            .with_hint("check the driver installation (`nvidia-smi`); try --sim dgx-a100 to explore without a GPU"),
    }
}

/// Processes and kernel modules that hold NVIDIA devices open without being compute processes
/// (nvidia-persistenced, DCGM, nvidia_drm). Best effort: other users' fds need root to read.
fn scan_holders(compute_pids: &[u32]) -> Vec<Holder> {
    let mut holders = Vec::new();
    if let Ok(Some(modules)) =
        crate::support::fsutil::read_host(std::path::Path::new("/proc/modules"))
    {
        for name in ["nvidia_drm"] {
            if modules
                .lines()
                .any(|l| l.split_whitespace().next() == Some(name))
            {
                holders.push(Holder {
                    name: name.into(),
                    kind: HolderKind::Module,
                    pid: None,
                    unit: None,
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
            let name = crate::support::fsutil::read_host(&entry.path().join("comm"))
                .ok()
                .flatten()
                .map_or_else(|| "?".into(), |s| s.trim().to_string());
            let unit = crate::support::fsutil::read_host(&entry.path().join("cgroup"))
                .ok()
                .flatten()
                .and_then(|text| crate::node::clients::systemd::unit_of_cgroup(&text));
            holders.push(Holder {
                name,
                kind: HolderKind::Process,
                pid: Some(pid),
                unit,
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
            .map(|i| snapshot_gpu(&self.nvml, i))
            .collect::<DriverResult<Vec<_>>>()?;
        let compute_pids: Vec<u32> = gpus
            .iter()
            .flat_map(|g| g.processes.iter().flatten().map(|p| p.pid))
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

    fn gpu_instance_profiles(&self, gpu: u32) -> DriverResult<MigProfiles> {
        let device = self.device(gpu)?;
        profiles::gpu_instance_profiles(&self.nvml, &device, gpu)
    }

    fn compute_instance_profiles(
        &self,
        gpu: u32,
        gpu_instance_id: u32,
    ) -> DriverResult<Vec<ComputeInstanceProfile>> {
        let device = self.device(gpu)?;
        let total = memory_info(&self.nvml, &device)
            .map_err(|e| on_gpu(e, gpu))?
            .total
            / (1024 * 1024);
        mig::compute_instance_profiles(&self.nvml, &device, gpu_instance_id, total)
            .map_err(|e| on_gpu(e, gpu))
    }

    fn set_mig_mode(&self, gpu: u32, mode: MigMode) -> DriverResult<ModeChange> {
        let device = self.device(gpu)?;
        let what = format!("GPU {gpu}: set MIG mode {}", mode.as_str());
        // The activation status says whether the change could take effect now.
        let status = device
            .set_mig_mode(mode.is_enabled())
            .map_err(|e| driver_error(e, &what))?;
        let now = device.mig_mode().map_err(|e| driver_error(e, &what))?;
        if status == 0 && MigMode::from_enabled(now.current == 1) == mode {
            Ok(ModeChange::Applied)
        } else if status == RESET_REQUIRED {
            // The driver cannot reset the GPU here (passthrough VM): only a reboot applies it.
            Ok(ModeChange::PendingReboot)
        } else {
            Ok(ModeChange::PendingReset)
        }
    }

    fn reset_gpus(&self, gpus: &[u32]) -> DriverResult<()> {
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
        &self,
        gpu: u32,
        profile_id: u32,
        placement: Placement,
    ) -> DriverResult<u32> {
        let device = self.device(gpu)?;
        mig::create_gpu_instance(&self.nvml, &device, profile_id, placement)
            .map_err(|e| on_gpu(e, gpu))
    }

    fn create_compute_instance(
        &self,
        gpu: u32,
        gpu_instance_id: u32,
        profile_id: u32,
    ) -> DriverResult<u32> {
        let device = self.device(gpu)?;
        mig::create_compute_instance(&self.nvml, &device, gpu_instance_id, profile_id)
            .map_err(|e| on_gpu(e, gpu))
    }

    fn destroy_compute_instance(
        &self,
        gpu: u32,
        gpu_instance_id: u32,
        compute_instance_id: u32,
    ) -> DriverResult<()> {
        let device = self.device(gpu)?;
        mig::destroy_compute_instance(&self.nvml, &device, gpu_instance_id, compute_instance_id)
            .map_err(|e| on_gpu(e, gpu))
    }

    fn destroy_gpu_instance(&self, gpu: u32, gpu_instance_id: u32) -> DriverResult<()> {
        let device = self.device(gpu)?;
        mig::destroy_gpu_instance(&self.nvml, &device, gpu_instance_id).map_err(|e| on_gpu(e, gpu))
    }

    fn set_compute_mode(&self, target: DeviceRef, mode: ComputeMode) -> DriverResult<()> {
        let what = format!("{target}: set compute mode {}", mode.as_str());
        let mut device = match target {
            DeviceRef::Gpu(g) => self.device(g)?,
            DeviceRef::Mig {
                gpu,
                gpu_instance_id,
                compute_instance_id,
            } => mig_devices::mig_device(
                &self.nvml,
                &self.device(gpu)?,
                gpu_instance_id,
                compute_instance_id,
            )
            .map_err(|e| on_gpu(e, gpu))?,
        };
        device
            .set_compute_mode(to_nvml_mode(mode))
            .map_err(|e| driver_error(e, &what))
    }
}
