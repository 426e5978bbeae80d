//! `mode = "mps"`: concurrent processes on a whole GPU through an MPS daemon, with per-client
//! limits (`crate::sharing::mps` runs the daemons).

use super::offer::{GpuOffer, MpsShare, Sharing};
use super::{DeviceShare, SharingMode};
use crate::node::config::{Config, GpuEntry};
use crate::node::model::Gpu;
use crate::sharing::mps::settings::DaemonSpec;
use crate::support::error::Result;

pub(super) struct Mps;

impl SharingMode for Mps {
    fn offer(&self, _: &Config, gpu: &Gpu, entry: &GpuEntry, offer: &mut GpuOffer) -> Result<()> {
        if let Some(mps) = &entry.mps {
            offer.sharing = match mps.get_ref().shares {
                Some(_) => Sharing::Claims,
                None => Sharing::Mps(MpsShare::from_section(mps.get_ref(), gpu.memory_total_mib)),
            };
        }
        Ok(())
    }

    fn device_share<'e>(&self, entry: &'e GpuEntry) -> DeviceShare<'e> {
        DeviceShare {
            clients: None,
            mps: entry.mps.as_ref().map(|m| m.get_ref()),
        }
    }

    fn describe(&self, gpu: &Gpu, _: &GpuEntry, daemons: &[&DaemonSpec]) -> Vec<String> {
        let Some(d) = daemons.first() else {
            return vec!["MPS: no daemon runs".into()];
        };
        let memory = d
            .devices
            .iter()
            .find(|x| x.gpu == gpu.index && x.mig.is_none())
            .and_then(|x| x.memory_limit_mib)
            .map_or(String::new(), |m| format!(", {m} MiB"));
        vec![format!(
            "MPS daemon `{}`: {}{memory} per client",
            d.name,
            threads_and_clients(d)
        )]
    }
}

/// `4 clients, threads 25%` for a daemon.
pub(super) fn threads_and_clients(d: &DaemonSpec) -> String {
    let clients = d
        .clients
        .map_or(String::new(), |n| format!("{n} clients, "));
    let threads = d
        .thread_percentage
        .map_or("threads 100%".to_string(), |p| format!("threads {p}%"));
    format!("{clients}{threads}")
}
