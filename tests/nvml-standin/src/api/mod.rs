//! The exported NVML functions, one file per part of `nvml.h`, and the lookups they share.

mod compute_instance;
mod device;
mod event;
mod gpu_instance;
mod mig_device;
mod system;

pub use system::{nvmlInit_v2, nvmlShutdown};

#[cfg(test)]
pub use {compute_instance::*, device::*, event::*, gpu_instance::*, mig_device::*, system::*};

use crate::call::{Fail, INVALID_ARGUMENT, NOT_SUPPORTED};
use crate::handles::{self, Handle};
use gpushare::node::backend::sim::state::{SimComputeInstance, SimGpu, SimGpuInstance, SimState};

fn invalid_handle(raw: usize) -> Fail {
    Fail::new(
        INVALID_ARGUMENT,
        match handles::peek(raw) {
            Some(_) => "a handle of an earlier session (before nvmlShutdown)".to_string(),
            None => format!("{raw:#x} is not a handle"),
        },
    )
}

/// Any device handle: a GPU or a MIG device.
fn device_handle(raw: usize) -> Result<Handle, Fail> {
    match handles::decode(raw) {
        Some(h @ (Handle::Device { .. } | Handle::MigDevice { .. })) => Ok(h),
        Some(_) => Err(Fail::new(INVALID_ARGUMENT, "not a device handle")),
        None => Err(invalid_handle(raw)),
    }
}

/// A handle of a whole GPU; NOT_SUPPORTED for a MIG device, as the driver answers calls that
/// only a GPU has.
fn whole_gpu(raw: usize) -> Result<u32, Fail> {
    match device_handle(raw)? {
        Handle::Device { gpu } => Ok(gpu),
        _ => Err(Fail::new(NOT_SUPPORTED, "a MIG device handle")),
    }
}

fn gpu_instance_handle(raw: usize) -> Result<(u32, u32), Fail> {
    match handles::decode(raw) {
        Some(Handle::GpuInstance { gpu, gi }) => Ok((gpu, gi)),
        Some(_) => Err(Fail::new(INVALID_ARGUMENT, "not a GPU-instance handle")),
        None => Err(invalid_handle(raw)),
    }
}

fn compute_instance_handle(raw: usize) -> Result<(u32, u32, u32), Fail> {
    match handles::decode(raw) {
        Some(Handle::ComputeInstance { gpu, gi, ci }) => Ok((gpu, gi, ci)),
        Some(_) => Err(Fail::new(INVALID_ARGUMENT, "not a compute-instance handle")),
        None => Err(invalid_handle(raw)),
    }
}

fn gpu(state: &SimState, index: u32) -> Result<&SimGpu, Fail> {
    state
        .gpus
        .get(index as usize)
        .ok_or_else(|| Fail::new(INVALID_ARGUMENT, format!("no GPU {index}")))
}

/// The GPU instance a handle names; INVALID_ARGUMENT once it is destroyed (the handle is void).
fn live_gi(gpu: &SimGpu, id: u32) -> Result<&SimGpuInstance, Fail> {
    gpu.instances.iter().find(|g| g.id == id).ok_or_else(|| {
        Fail::new(
            INVALID_ARGUMENT,
            format!("GPU instance {id} does not exist (a void handle)"),
        )
    })
}

fn live_ci(gi: &SimGpuInstance, id: u32) -> Result<&SimComputeInstance, Fail> {
    gi.compute_instances
        .iter()
        .find(|c| c.id == id)
        .ok_or_else(|| {
            Fail::new(
                INVALID_ARGUMENT,
                format!(
                    "compute instance {id} of GPU instance {} does not exist (a void handle)",
                    gi.id
                ),
            )
        })
}

/// The MIG devices of a GPU in index order: every compute instance, by GPU then compute
/// instance id.
fn mig_devices(gpu: &SimGpu) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = gpu
        .instances
        .iter()
        .flat_map(|gi| gi.compute_instances.iter().map(move |ci| (gi.id, ci.id)))
        .collect();
    out.sort_unstable();
    out
}
