//! `mode = "mig"`: hardware partitions, each MIG device optionally shared by MPS (`mig.mps`,
//! one daemon per device) or by time-slicing (`mig.time_slicing`, replicas the device plugin
//! advertises per MIG device). `crate::sharing::mig` plans and makes the instances.

use super::offer::{GpuOffer, MigSlice, MpsShare, Sharing, profile_order};
use super::{DeviceShare, SharingMode, mps::threads_and_clients};
use crate::node::config::{Config, GpuEntry};
use crate::node::model::Gpu;
use crate::node::model::catalog::catalog;
use crate::sharing::mps::settings::DaemonSpec;
use crate::support::error::{Error, Result};
use std::collections::BTreeMap;
use toml::Spanned;

pub(super) struct Mig;

/// The time-slicing replicas of each MIG device (`mig.time_slicing.replicas`).
fn replicas(entry: &GpuEntry) -> Option<u32> {
    let ts = entry.mig.as_ref()?.get_ref().time_slicing.as_ref()?;
    Some(*ts.get_ref().replicas.get_ref())
}

impl SharingMode for Mig {
    fn offer(
        &self,
        config: &Config,
        gpu: &Gpu,
        entry: &GpuEntry,
        offer: &mut GpuOffer,
    ) -> Result<()> {
        let Some(mig) = &entry.mig else {
            return Ok(());
        };
        let m = mig.get_ref();
        let mut slices = Vec::new();
        for (profile, count) in &m.devices {
            let slice = mig_slice(config, gpu, profile)?;
            for _ in 0..*count.get_ref() {
                slices.push(slice.clone());
            }
        }
        for inst in &m.instances {
            slices.push(mig_slice(config, gpu, &inst.get_ref().profile)?);
        }
        slices.sort_by(|a, b| {
            profile_order(&b.profile)
                .cmp(&profile_order(&a.profile))
                .then(a.profile.cmp(&b.profile))
        });
        if let Some(mps) = &m.mps {
            // Each MIG device gets its own daemon; the limits are shares of the smallest.
            let smallest = slices.iter().map(|s| s.memory_mib).min().unwrap_or(0);
            offer.mig_sharing = match mps.get_ref().shares {
                Some(_) => Sharing::Claims,
                None => Sharing::Mps(MpsShare::from_section(mps.get_ref(), smallest)),
            };
        }
        if let Some(replicas) = replicas(entry) {
            offer.mig_sharing = Sharing::TimeSlicing { replicas };
        }
        offer.mig = Some(slices);
        Ok(())
    }

    fn device_share<'e>(&self, entry: &'e GpuEntry) -> DeviceShare<'e> {
        DeviceShare {
            clients: replicas(entry),
            mps: entry
                .mig
                .as_ref()
                .and_then(|m| m.get_ref().mps.as_ref())
                .map(Spanned::get_ref),
        }
    }

    fn describe(&self, gpu: &Gpu, entry: &GpuEntry, daemons: &[&DaemonSpec]) -> Vec<String> {
        let Some(instances) = &gpu.mig.instances else {
            return vec!["MIG layout unknown (the driver would not list it)".into()];
        };
        let mut counts: BTreeMap<&str, u32> = BTreeMap::new();
        for gi in instances {
            for ci in &gi.compute_instances {
                *counts.entry(ci.profile.as_str()).or_default() += 1;
            }
        }
        let mut v: Vec<String> = counts
            .iter()
            .map(|(p, n)| format!("{n}x MIG {p}"))
            .collect();
        let dynamic = entry
            .mig
            .as_ref()
            .and_then(|m| m.get_ref().dynamic.as_ref())
            .is_some_and(|d| *d.get_ref());
        if dynamic {
            v.push("MIG devices made for claims by gpushare's DRA driver (mig.dynamic)".into());
        } else if v.is_empty() {
            v.push("MIG enabled, no devices".into());
        }
        if let Some(first) = daemons.first() {
            v.push(format!(
                "MPS on {} MIG device(s): {} per client",
                daemons.len(),
                threads_and_clients(first)
            ));
        }
        if let Some(replicas) = replicas(entry)
            && !counts.is_empty()
        {
            v.push(format!(
                "time-slicing: {replicas} replicas of each MIG device through the device plugin"
            ));
        }
        v
    }
}

/// A MIG device of `profile` on `gpu`, checked against the GPU's MIG profiles.
fn mig_slice(config: &Config, gpu: &Gpu, profile: &Spanned<String>) -> Result<MigSlice> {
    let name = profile.get_ref();
    let cat = catalog();
    if !gpu.mig.capable {
        return Err(config
            .error_at(
                profile.span(),
                format!("GPU {} ({}) is not MIG-capable", gpu.index, gpu.name),
            )
            .with_hint("narrow the entry's select to MIG-capable GPUs"));
    }
    let Some(table) = cat.model_of(gpu).and_then(|m| cat.mig_table(m)) else {
        return Err(config
            .error_at(
                profile.span(),
                format!(
                    "GPU {} ({}): the catalog has no MIG table that agrees with the driver, so \
                     the manifests cannot describe `{name}` before the MIG devices exist",
                    gpu.index, gpu.name
                ),
            )
            .with_hint(
                "apply the layout first, then run `gpushare manifests` without -c: it describes \
                 the MIG devices the node has",
            ));
    };
    let gi_name = name.split_once("c.").map_or(name.as_str(), |(_, gi)| gi);
    let known = table
        .profile(gi_name)
        .filter(|p| gi_name == name || p.compute_profiles().iter().any(|c| &c.name == name));
    match known {
        Some(p) => Ok(MigSlice {
            profile: name.clone(),
            memory_mib: p.memory_mib,
        }),
        None => Err(unknown_profile(config, profile, gpu, table)),
    }
}

fn unknown_profile(
    config: &Config,
    profile: &Spanned<String>,
    gpu: &Gpu,
    table: &crate::node::model::catalog::MigTable,
) -> Error {
    let names: Vec<&str> = table.profiles.iter().map(|p| p.name.as_str()).collect();
    config
        .error_at(
            profile.span(),
            format!(
                "`{}` is not a MIG profile of GPU {} ({})",
                profile.get_ref(),
                gpu.index,
                gpu.name
            ),
        )
        .with_hint(format!("its profiles are {}", names.join(", ")))
}
