//! The sharing modes of gpushare.toml, one module each behind [`SharingMode`]: what a GPU under a
//! mode offers the cluster (the manifests and `init` read it), what the probe promises each of
//! its devices, and how `init` describes it once applied. A mode's section is part of the
//! schema (`crate::node::config`, checked as the file is parsed); its changes are planned by the
//! mechanisms it uses, each its part of the one planner
//! (`crate::change::pipeline::planner::{mig, mps, vgpu}`).
//!
//! Adding a mode or a mode feature: its section in the schema, its module here, and the
//! targets that render what it offers.

mod mig;
mod mps;
pub(crate) mod offer;
mod time_slicing;
mod unshared;
mod vgpu;

use crate::node::config::{Config, GpuEntry, Mode, MpsSection};
use crate::node::model::Gpu;
use crate::sharing::mps::settings::DaemonSpec;
use crate::support::error::Result;
use offer::GpuOffer;

/// What every sharing mode answers.
pub(crate) trait SharingMode: Sync {
    /// What `gpu`, covered by `entry`, offers once the layout is applied: its MIG devices and
    /// how they are shared, or how the whole GPU is. `offer` comes as the GPU is now, without
    /// MIG devices and unshared. A value of the entry the GPU cannot have (a MIG profile it
    /// lacks) is bad input at that value.
    fn offer(
        &self,
        config: &Config,
        gpu: &Gpu,
        entry: &GpuEntry,
        offer: &mut GpuOffer,
    ) -> Result<()>;

    /// Whether CUDA on the host can use the GPU (not when its devices go to virtual machines).
    fn host_runs_cuda(&self) -> bool {
        true
    }

    /// What a device of a GPU under `entry` is promised to be shared by.
    fn device_share<'e>(&self, entry: &'e GpuEntry) -> DeviceShare<'e>;

    /// What `gpu` offers now that the layout is applied, a phrase each (`init`'s summary);
    /// `daemons`: the MPS daemons gpushare runs on it.
    fn describe(&self, gpu: &Gpu, entry: &GpuEntry, daemons: &[&DaemonSpec]) -> Vec<String>;
}

/// How a device is promised to be shared (the probe's promise).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct DeviceShare<'e> {
    /// Workloads promised to share it at once (MPS clients, time-slicing replicas); `None`:
    /// nothing promised.
    pub clients: Option<u32>,
    /// The limits of its MPS clients, when MPS serves it.
    pub mps: Option<&'e MpsSection>,
}

/// The module of `mode`.
pub(crate) fn of(mode: Mode) -> &'static dyn SharingMode {
    match mode {
        Mode::Mig => &mig::Mig,
        Mode::Mps => &mps::Mps,
        Mode::TimeSlicing => &time_slicing::TimeSlicing,
        Mode::Vgpu => &vgpu::Vgpu,
        Mode::None => &unshared::Unshared,
    }
}
