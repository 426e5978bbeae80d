//! `mode = "vgpu"`: vGPU devices for virtual machines (`crate::sharing::vgpu` makes them).

use super::offer::{GpuOffer, Sharing};
use super::{DeviceShare, SharingMode};
use crate::node::config::{Config, GpuEntry};
use crate::node::model::Gpu;
use crate::sharing::mps::settings::DaemonSpec;
use crate::support::error::Result;

pub(super) struct Vgpu;

impl SharingMode for Vgpu {
    fn offer(&self, _: &Config, _: &Gpu, _: &GpuEntry, offer: &mut GpuOffer) -> Result<()> {
        offer.sharing = Sharing::Vgpu;
        Ok(())
    }

    fn host_runs_cuda(&self) -> bool {
        false
    }

    fn device_share<'e>(&self, _: &'e GpuEntry) -> DeviceShare<'e> {
        DeviceShare::default()
    }

    fn describe(&self, _: &Gpu, entry: &GpuEntry, _: &[&DaemonSpec]) -> Vec<String> {
        let types: Vec<String> = entry
            .vgpu
            .as_ref()
            .map(|v| {
                v.get_ref()
                    .devices
                    .iter()
                    .map(|(t, n)| format!("{}x {}", n.get_ref(), t.get_ref()))
                    .collect()
            })
            .unwrap_or_default();
        vec![format!("vGPU: {}", types.join(", "))]
    }
}
