//! The one door to the GPUs: a `Backend` trait with the NVML implementation and the simulator.
//!
//! Commands never talk to NVML directly: they read a [`Node`] snapshot and change the node through
//! these operations. Both backends return [`DriverError`]s with the driver's semantics, so code
//! tested against the simulator behaves the same on hardware.

pub mod events;
pub(crate) mod host_events;
pub mod nvml;
pub mod sim;

use crate::node::model::catalog::{ComputeInstanceProfile, GpuInstanceProfile};
use crate::node::model::{ComputeMode, MigMode, Node, Placement};
use crate::support::error::{Error, Exit};
use std::fmt;

/// NVML return codes that gpushare distinguishes (names follow `nvmlReturn_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DriverErrorKind {
    /// The NVML library could not be loaded.
    LibraryNotFound,
    /// The library is there but the kernel module is not loaded.
    DriverNotLoaded,
    NoPermission,
    NotSupported,
    InvalidArgument,
    NotFound,
    /// The device or instance is in use (processes, compute instances, a service holding it).
    InUse,
    /// No room: placement taken, max instances reached, slices exhausted.
    InsufficientResources,
    /// The GPU must be reset (or the machine rebooted) before this can happen.
    ResetRequired,
    GpuLost,
    /// The driver is older than the call (missing symbol).
    FunctionNotFound,
    /// A buffer was too small for the answer (the count grew between two calls).
    InsufficientSize,
    /// The driver does not know the version of a versioned struct (it is older than the call).
    ArgumentVersionMismatch,
    Unknown,
}

/// An error from a backend operation: the NVML return code and what it was about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriverError {
    pub kind: DriverErrorKind,
    pub detail: String,
}

impl DriverError {
    pub fn new(kind: DriverErrorKind, detail: impl Into<String>) -> Self {
        DriverError {
            kind,
            detail: detail.into(),
        }
    }

    /// The text nvidia-smi prints for the code (`nvmlErrorString`).
    pub fn code_text(&self) -> &'static str {
        match self.kind {
            DriverErrorKind::LibraryNotFound => "NVML Shared Library Not Found",
            DriverErrorKind::DriverNotLoaded => "Driver Not Loaded",
            DriverErrorKind::NoPermission => "Insufficient Permissions",
            DriverErrorKind::NotSupported => "Not Supported",
            DriverErrorKind::InvalidArgument => "Invalid Argument",
            DriverErrorKind::NotFound => "Not Found",
            DriverErrorKind::InUse => "In use by another client",
            DriverErrorKind::InsufficientResources => "Insufficient Resources",
            DriverErrorKind::ResetRequired => "GPU requires reset",
            DriverErrorKind::GpuLost => "GPU is lost",
            DriverErrorKind::FunctionNotFound => "Function Not Found",
            DriverErrorKind::InsufficientSize => "Insufficient Size",
            DriverErrorKind::ArgumentVersionMismatch => "Argument Version Mismatch",
            DriverErrorKind::Unknown => "Unknown Error",
        }
    }
}

impl fmt::Display for DriverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.detail.is_empty() {
            f.write_str(self.code_text())
        } else {
            write!(f, "{} ({})", self.detail, self.code_text())
        }
    }
}

impl std::error::Error for DriverError {}

impl From<DriverError> for Error {
    fn from(e: DriverError) -> Self {
        let hint = match e.kind {
            DriverErrorKind::LibraryNotFound | DriverErrorKind::DriverNotLoaded => Some(
                "is the NVIDIA driver installed and loaded (`lsmod | grep nvidia`)? \
                 Try --sim dgx-a100 to explore without a GPU",
            ),
            DriverErrorKind::NoPermission => Some("run the command as root"),
            DriverErrorKind::FunctionNotFound | DriverErrorKind::ArgumentVersionMismatch => {
                Some("the NVIDIA driver is too old for this operation; upgrade it")
            }
            DriverErrorKind::GpuLost => {
                Some("check `dmesg` for Xid errors; the GPU may need a reboot")
            }
            _ => None,
        };
        let exit = match e.kind {
            DriverErrorKind::LibraryNotFound | DriverErrorKind::DriverNotLoaded => Exit::NoDriver,
            _ => Exit::Failed,
        };
        let err = Error::new(exit, e.to_string());
        match hint {
            Some(h) => err.with_hint(h),
            None => err,
        }
    }
}

pub(crate) type DriverResult<T> = Result<T, DriverError>;

/// A GPU-instance profile as the driver offers it on one GPU right now.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileCapacity {
    pub profile: GpuInstanceProfile,
    /// How many more instances of this profile could be created now.
    pub free_instances: u32,
}

/// Where a GPU's MIG profiles come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfileOrigin {
    /// The driver listed them (with MIG off too: its v1 call and placements answer then).
    Driver,
    /// MIG is off and the driver did not list them: the catalog's, checked against the driver.
    Catalog,
}

/// The GPU-instance profiles of a MIG-capable GPU.
#[derive(Debug, Clone, PartialEq)]
pub enum MigProfiles {
    Listed {
        profiles: Vec<ProfileCapacity>,
        source: ProfileOrigin,
    },
    /// MIG is off, the driver lists no profiles until it is on, and the catalog does not know the
    /// GPU (or disagrees with the driver about it): why. Known once MIG is enabled.
    UntilEnabled { why: String },
}

impl MigProfiles {
    /// The profiles, when they are known now.
    pub fn listed(self) -> Option<Vec<ProfileCapacity>> {
        match self {
            MigProfiles::Listed { profiles, .. } => Some(profiles),
            MigProfiles::UntilEnabled { .. } => None,
        }
    }
}

/// What a MIG mode change did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModeChange {
    /// The new mode is current.
    Applied,
    /// The new mode is pending until the GPU is reset (it was busy).
    PendingReset,
    /// The new mode is pending and the GPU cannot be reset here (e.g. a VM with passthrough, NVML
    /// activation status `NVML_ERROR_RESET_REQUIRED`): it takes effect after a reboot.
    PendingReboot,
}

/// A device that has its own compute mode: a whole GPU, or a MIG device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceRef {
    Gpu(u32),
    Mig {
        gpu: u32,
        gpu_instance_id: u32,
        compute_instance_id: u32,
    },
}

impl DeviceRef {
    pub fn gpu(self) -> u32 {
        match self {
            DeviceRef::Gpu(g) | DeviceRef::Mig { gpu: g, .. } => g,
        }
    }
}

impl fmt::Display for DeviceRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceRef::Gpu(g) => write!(f, "GPU {g}"),
            DeviceRef::Mig {
                gpu,
                gpu_instance_id,
                compute_instance_id,
            } => write!(
                f,
                "MIG device {gpu}:{gpu_instance_id}:{compute_instance_id}"
            ),
        }
    }
}

/// What gpushare needs from a GPU driver. GPUs are named by their NVML index.
///
/// Shared between threads: the executor changes several GPUs at once, one thread per GPU, through
/// the same backend (NVML is thread-safe; the simulator keeps its state under a lock). Calls on
/// one GPU come from one thread at a time, in plan order.
pub trait Backend: Send + Sync {
    /// `nvml` or `sim:<name>`.
    fn source(&self) -> String;

    /// The node as it is now.
    fn snapshot(&self) -> DriverResult<Node>;

    /// GPU-instance profiles of a MIG-capable GPU with their placements and free counts. A query
    /// the driver refuses is an error, never an empty list.
    fn gpu_instance_profiles(&self, gpu: u32) -> DriverResult<MigProfiles>;

    /// Compute-instance profiles a GPU instance offers.
    fn compute_instance_profiles(
        &self,
        gpu: u32,
        gpu_instance_id: u32,
    ) -> DriverResult<Vec<ComputeInstanceProfile>>;

    /// Ask for a MIG mode. It applies at once on an idle GPU; otherwise it is pending a reset.
    fn set_mig_mode(&self, gpu: u32, mode: MigMode) -> DriverResult<ModeChange>;

    /// Reset GPUs (applies pending MIG modes; fails while anything uses them).
    fn reset_gpus(&self, gpus: &[u32]) -> DriverResult<()>;

    /// Create a GPU instance of profile `profile_id` (the id nvidia-smi shows) at `placement`.
    /// Returns the new GPU instance id.
    fn create_gpu_instance(
        &self,
        gpu: u32,
        profile_id: u32,
        placement: Placement,
    ) -> DriverResult<u32>;

    /// Create a compute instance in a GPU instance; returns its id. `profile_id` is the
    /// `NVML_COMPUTE_INSTANCE_PROFILE_*` index, as the catalog numbers compute-instance profiles;
    /// the driver's own profile id for it can differ and is the backend's business.
    fn create_compute_instance(
        &self,
        gpu: u32,
        gpu_instance_id: u32,
        profile_id: u32,
    ) -> DriverResult<u32>;

    fn destroy_compute_instance(
        &self,
        gpu: u32,
        gpu_instance_id: u32,
        compute_instance_id: u32,
    ) -> DriverResult<()>;

    /// Destroy a GPU instance; fails with `InUse` while it has compute instances or processes.
    fn destroy_gpu_instance(&self, gpu: u32, gpu_instance_id: u32) -> DriverResult<()>;

    fn set_compute_mode(&self, device: DeviceRef, mode: ComputeMode) -> DriverResult<()>;
}

/// A backend the executor's workers share.
pub(crate) type SharedBackend = std::sync::Arc<dyn Backend>;

/// How a command reaches the GPUs, from the global options.
#[derive(Debug, Clone, Default)]
pub struct BackendOptions {
    /// `--sim`: a preset name or a node file.
    pub sim: Option<String>,
    /// `--sim-state`: where the simulated node keeps its changes.
    pub sim_state: Option<std::path::PathBuf>,
    /// `--nvml-lib`: a libnvidia-ml.so in an odd place.
    pub nvml_lib: Option<std::path::PathBuf>,
    /// The variable that switched the simulator on when the environment did, not a flag.
    pub sim_from_env: Option<&'static str>,
}

impl BackendOptions {
    /// Whether commands run on the simulator.
    pub fn simulated(&self) -> bool {
        self.sim.is_some() || self.sim_state.is_some()
    }
}

/// Whether an NVIDIA driver answers on this host: its control device is there (cheap, and what
/// every driver creates), or NVML loads and initialises.
pub(crate) fn driver_answers(nvml_lib: Option<&std::path::Path>) -> bool {
    std::path::Path::new("/dev/nvidiactl").exists() || nvml::NvmlBackend::open(nvml_lib).is_ok()
}

/// Open the backend the options ask for: the simulator with `--sim`/`--sim-state`, NVML otherwise.
/// An opened node: its driver, and what hears of the steps taken outside the driver.
pub(crate) struct Opened {
    pub backend: SharedBackend,
    pub events: std::sync::Arc<dyn host_events::HostEvents>,
}

pub(crate) fn open(options: &BackendOptions) -> crate::support::error::Result<Opened> {
    if options.simulated() {
        let sim = std::sync::Arc::new(sim::SimBackend::open(
            options.sim.as_deref(),
            options.sim_state.as_deref(),
        )?);
        return Ok(Opened {
            backend: sim.clone(),
            events: sim,
        });
    }
    Ok(Opened {
        backend: std::sync::Arc::new(nvml::NvmlBackend::open(options.nvml_lib.as_deref())?),
        events: std::sync::Arc::new(host_events::RealHost),
    })
}

/// Open a watch on the node the options name: the simulator's, or NVML's on a session of its own.
pub(crate) fn watch(
    options: &BackendOptions,
) -> crate::support::error::Result<Box<dyn events::EventWatch>> {
    if options.simulated() {
        return Ok(Box::new(sim::watch::SimWatch::open(
            options.sim.as_deref(),
            options.sim_state.as_deref(),
        )?));
    }
    Ok(Box::new(nvml::NvmlBackend::watch(
        options.nvml_lib.as_deref(),
    )?))
}
