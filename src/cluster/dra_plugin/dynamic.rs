//! What the driver offers: the node's devices ([`super::devices`]) on every GPU but those that
//! gpushare.toml gives to dynamic MIG (`mig.dynamic = true`), which are offered as every
//! placement instead ([`super::partitionable`]); the devices it shares by claims (`mps.shares`,
//! `mig.mps.shares`) are offered to many claims at once ([`super::shares`]).
//!
//! The file is read again when it changes; one that cannot be read or checked keeps the GPUs of
//! the last good one (and says why, once), so a typo does not take devices from claims.

use super::devices::{self, DraDevice, PciPlace};
use super::partitionable::{self, DynamicGpu};
use super::shares;
use crate::node::backend::Backend;
use crate::node::config::shares::SharePolicy;
use crate::node::config::{AssignedConfig, Config, Mode};
use crate::node::model::catalog::GpuInstanceProfile;
use crate::node::model::{Gpu, Node};
use crate::sharing::mig::claimed::Made;
use crate::sharing::mps::limits;
use crate::support::error::{Error, Result};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::SystemTime;

/// The dynamic GPUs of gpushare.toml, read again when the file changes.
pub(crate) struct DynamicGpus {
    path: PathBuf,
    /// `--config` named it: it must exist.
    required: bool,
    seen: Mutex<Seen>,
    /// Each MIG GPU's profiles, by UUID, as its driver listed them once MIG was on (they do not
    /// change while it is).
    profiles: Mutex<HashMap<String, Vec<GpuInstanceProfile>>>,
}

#[derive(Default)]
struct Seen {
    /// The file's modification time and length when it was last read; None: not there.
    stamp: Option<Option<(SystemTime, u64)>>,
    read: FromFile,
}

/// What the file says of the driver's GPUs.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct FromFile {
    /// Given to dynamic MIG.
    pub dynamic: BTreeSet<u32>,
    /// Shared by claims: the whole GPU (`mps.shares`: true), or each of its MIG devices
    /// (`mig.mps.shares`: false).
    pub shared: BTreeMap<u32, (SharePolicy, bool)>,
}

/// The node as the driver offers it.
pub(crate) struct Offer {
    /// Every device, the dynamic GPUs' placements among them.
    pub devices: Vec<DraDevice>,
    /// The dynamic GPUs: their counter sets and devices, in their slices' order.
    pub dynamic: Vec<DynamicGpu>,
    /// The dynamic GPUs whose MIG is off: their placements wait for it.
    pub waiting: Vec<u32>,
}

fn stamp(path: &std::path::Path) -> Option<(SystemTime, u64)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

impl DynamicGpus {
    /// `explicit`: the `--config` given; else `default`, when it exists.
    pub(crate) fn new(explicit: Option<PathBuf>, default: PathBuf) -> Result<DynamicGpus> {
        let required = explicit.is_some();
        let path = explicit.unwrap_or(default);
        if required && !path.exists() {
            return Err(Error::usage(format!(
                "--config {}: no such file",
                path.display()
            )));
        }
        Ok(DynamicGpus {
            path,
            required,
            seen: Mutex::default(),
            profiles: Mutex::default(),
        })
    }

    /// What the file says of `node`'s GPUs.
    pub(crate) fn read(&self, node: &Node) -> FromFile {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        let now = stamp(&self.path);
        if seen.stamp.as_ref() == Some(&now) {
            return seen.read.clone();
        }
        seen.stamp = Some(now);
        match self.read_file(node, now.is_some()) {
            Ok(read) => seen.read = read,
            Err(e) => crate::support::output::stderr_line(&format!(
                "warning: {}; the dynamic GPUs stay {:?} and the shared ones {:?}",
                e.message,
                seen.read.dynamic,
                seen.read.shared.keys().collect::<Vec<_>>()
            )),
        }
        seen.read.clone()
    }

    fn read_file(&self, node: &Node, exists: bool) -> Result<FromFile> {
        if !exists {
            if self.required {
                return Err(Error::failed(format!("{} is gone", self.path.display())));
            }
            return Ok(FromFile::default());
        }
        let assigned = AssignedConfig::new(Config::load(&self.path)?, node)?;
        let mut out = FromFile::default();
        for a in assigned.assignments() {
            let e = a.entry.get_ref();
            let mig = e.mig.as_ref().map(|m| m.get_ref());
            match *e.mode.get_ref() {
                Mode::Mig => {
                    if mig
                        .and_then(|m| m.dynamic.as_ref())
                        .is_some_and(|d| *d.get_ref())
                    {
                        out.dynamic.insert(a.gpu);
                    }
                    if let Some(p) = mig
                        .and_then(|m| m.mps.as_ref())
                        .and_then(|m| m.get_ref().share_policy())
                    {
                        out.shared.insert(a.gpu, (p, false));
                    }
                }
                Mode::Mps => {
                    if let Some(p) = e.mps.as_ref().and_then(|m| m.get_ref().share_policy()) {
                        out.shared.insert(a.gpu, (p, true));
                    }
                }
                _ => {}
            }
        }
        Ok(out)
    }

    /// The GPU-instance profiles of a MIG GPU, as its driver lists them.
    fn profiles_of(&self, backend: &dyn Backend, gpu: &Gpu) -> Result<Vec<GpuInstanceProfile>> {
        let mut known = self.profiles.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = known.get(&gpu.uuid) {
            return Ok(p.clone());
        }
        let listed = backend
            .gpu_instance_profiles(gpu.index)
            .map_err(|e| {
                Error::failed(format!(
                    "cannot list the MIG profiles of GPU {}: {e}",
                    gpu.index
                ))
            })?
            .listed()
            .ok_or_else(|| {
                Error::failed(format!(
                    "GPU {}: its driver lists no MIG profiles yet",
                    gpu.index
                ))
            })?;
        let profiles: Vec<GpuInstanceProfile> = listed.into_iter().map(|c| c.profile).collect();
        // With MIG off the list may be the catalog's; the driver's own comes once it is on.
        if gpu.mig.current.is_enabled() {
            known.insert(gpu.uuid.clone(), profiles.clone());
        }
        Ok(profiles)
    }

    /// What the driver offers on `node` now; `place` says where each GPU sits.
    /// `made`: the instances made for claims (offered after those that stay).
    pub(crate) fn offer(
        &self,
        backend: &dyn Backend,
        node: &Node,
        made: &[Made],
        place: impl Fn(&Gpu) -> PciPlace,
    ) -> Result<Offer> {
        let from_file = self.read(node);
        let dynamic_gpus = &from_file.dynamic;
        let mut devices = devices::devices_placed(node, &place)?;
        devices.retain(|d| !dynamic_gpus.contains(&d.gpu));
        share(node, &from_file, &mut devices, &[]);
        let mut dynamic = Vec::new();
        let mut waiting = Vec::new();
        for gpu in node.gpus.iter().filter(|g| dynamic_gpus.contains(&g.index)) {
            // With MIG off, its placements wait for it (binding conditions) and the GPU is
            // offered as nothing else.
            if !gpu.mig.current.is_enabled() {
                waiting.push(gpu.index);
            }
            let profiles = self.profiles_of(backend, gpu)?;
            let mut published =
                partitionable::dynamic_gpu(node, gpu, &profiles, &place(gpu), |gi| {
                    made.iter().any(|m| m.is(gpu, gi))
                })?;
            share(node, &from_file, &mut published.devices, &profiles);
            devices.extend(published.devices.iter().cloned());
            dynamic.push(published);
        }
        Ok(Offer {
            devices,
            dynamic,
            waiting,
        })
    }
}

/// Publish the devices of `devices` that the file shares by claims as shared: a whole GPU, a
/// MIG device, or a placement of a dynamic GPU (of one of `profiles`).
fn share(
    node: &Node,
    from_file: &FromFile,
    devices: &mut [DraDevice],
    profiles: &[GpuInstanceProfile],
) {
    for d in devices {
        let (Some((policy, whole)), Some(gpu)) = (from_file.shared.get(&d.gpu), node.gpu(d.gpu))
        else {
            continue;
        };
        let is_whole = d.mig.is_none() && d.placed.is_none();
        if is_whole != *whole {
            continue;
        }
        let target = match (&d.mig, &d.placed) {
            (None, None) => limits::gpu_target(node, gpu),
            (Some((gi, ci)), _) => {
                let Some(gi) = gpu.instance(*gi) else {
                    continue;
                };
                let Some(ci) = gi
                    .compute_instances
                    .iter()
                    .find(|c| c.compute_instance_id == *ci)
                else {
                    continue;
                };
                limits::mig_target(node, gpu, gi, ci)
            }
            (None, Some(placed)) => {
                let Some(p) = profiles.iter().find(|p| p.name == placed.profile) else {
                    continue;
                };
                limits::profile_target(node, gpu, &p.name, p.memory_mib, p.slices)
            }
        };
        shares::publish(d, *policy, target.memory_mib, target.client_cap);
    }
}
