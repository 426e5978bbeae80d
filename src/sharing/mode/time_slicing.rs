//! `mode = "time-slicing"`: workloads take turns on a whole GPU (compute mode DEFAULT; the
//! device plugin advertises the replicas).

use super::offer::{GpuOffer, Sharing};
use super::{DeviceShare, SharingMode};
use crate::node::config::{Config, GpuEntry};
use crate::node::model::Gpu;
use crate::sharing::mps::settings::DaemonSpec;
use crate::support::error::Result;

pub(super) struct TimeSlicing;

fn replicas(entry: &GpuEntry) -> Option<u32> {
    entry
        .time_slicing
        .as_ref()
        .map(|t| *t.get_ref().replicas.get_ref())
}

impl SharingMode for TimeSlicing {
    fn offer(&self, _: &Config, _: &Gpu, entry: &GpuEntry, offer: &mut GpuOffer) -> Result<()> {
        if let Some(replicas) = replicas(entry) {
            offer.sharing = Sharing::TimeSlicing { replicas };
        }
        Ok(())
    }

    fn device_share<'e>(&self, entry: &'e GpuEntry) -> DeviceShare<'e> {
        DeviceShare {
            clients: replicas(entry),
            mps: None,
        }
    }

    fn describe(&self, gpu: &Gpu, entry: &GpuEntry, _: &[&DaemonSpec]) -> Vec<String> {
        vec![format!(
            "time-slicing: {} replicas through the device plugin ({} compute mode)",
            replicas(entry).unwrap_or(0),
            gpu.compute_mode.map_or("unknown", |m| m.as_str())
        )]
    }
}
