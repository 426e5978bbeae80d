//! `mode = "none"`: no sharing (MIG disabled, no MPS, compute mode DEFAULT).

use super::offer::GpuOffer;
use super::{DeviceShare, SharingMode};
use crate::node::config::{Config, GpuEntry};
use crate::node::model::Gpu;
use crate::sharing::mps::settings::DaemonSpec;
use crate::support::error::Result;

pub(super) struct Unshared;

impl SharingMode for Unshared {
    fn offer(&self, _: &Config, _: &Gpu, _: &GpuEntry, _: &mut GpuOffer) -> Result<()> {
        Ok(())
    }

    fn device_share<'e>(&self, _: &'e GpuEntry) -> DeviceShare<'e> {
        DeviceShare::default()
    }

    fn describe(&self, _: &Gpu, _: &GpuEntry, _: &[&DaemonSpec]) -> Vec<String> {
        vec!["not shared".into()]
    }
}
