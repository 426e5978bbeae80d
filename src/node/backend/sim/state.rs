//! The simulated node's state and its operations, with the driver's rules and errors.
//!
//! This is the test double for the whole program, so every rule here mirrors what NVML does on
//! hardware: placements must be valid and free, max instances and compute slices hold, nothing
//! with processes is destroyed, MIG mode changes wait for a reset while the GPU is busy.

use super::events::{EVENT_LIMIT, EventKind, SimEvent};
use crate::node::backend::{
    DeviceRef, DriverError, DriverErrorKind, DriverResult, ModeChange, ProfileCapacity,
};
use crate::node::clients::Client;
use crate::node::model::catalog::{
    ComputeInstanceProfile, GpuInstanceProfile, GpuModel, MigTable, catalog,
};
use crate::node::model::{
    ComputeInstance, ComputeMode, ComputePlacement, Gpu, GpuInstance, Holder, HolderKind, MigMode,
    MigState, Node, Placement, Process, VgpuHostMode,
};
use serde::{Deserialize, Serialize};

pub const STATE_VERSION: u32 = 1;

/// Everything the simulator keeps between commands (the `--sim-state` file, JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimState {
    pub version: u32,
    /// Preset name or node-file stem; `detect` reports `sim:<name>`.
    pub name: String,
    pub driver_version: String,
    pub cuda_driver_version: String,
    pub gpus: Vec<SimGpu>,
    /// Services and kernel modules that hold the GPUs open and block resets.
    #[serde(default)]
    pub holders: Vec<Holder>,
    /// systemd units gpushare stopped: the holders that run in them are gone until they start.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stopped_units: Vec<String>,
    /// Kernel modules gpushare unloaded: their holders are gone until they are loaded again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unloaded_modules: Vec<String>,
    /// Which lines of the operation log beside the state file follow this state (see
    /// `sim::store`); none until the state is written to a file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ops_id: Option<String>,
    /// The Xid and ECC events raised, the last [`EVENT_LIMIT`] (see [`super::events`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<SimEvent>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimGpu {
    pub model: String,
    pub uuid: String,
    pub pci_bus_id: String,
    pub compute_mode: ComputeMode,
    pub persistence_mode: bool,
    pub mig_current: MigMode,
    pub mig_pending: MigMode,
    /// False when the GPU cannot be reset from here (a VM with passthrough): MIG mode changes
    /// wait for a reboot.
    #[serde(default = "resettable")]
    pub reset_supported: bool,
    pub instances: Vec<SimGpuInstance>,
    pub processes: Vec<Process>,
    /// vGPU host mode, as a node file sets it; absent on GPUs that are not vGPU hosts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vgpu_host_mode: Option<VgpuHostMode>,
    /// The utilisation the driver reports while MIG is off, as a node file sets it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utilization_percent: Option<u32>,
    /// Serial for the GPU's MIG UUIDs: a re-created instance gets a new UUID, as on hardware.
    /// Per GPU, so that a UUID does not depend on how changes of several GPUs interleave.
    #[serde(default)]
    pub mig_serial: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimGpuInstance {
    pub id: u32,
    pub profile_id: u32,
    pub start: u32,
    pub compute_instances: Vec<SimComputeInstance>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimComputeInstance {
    pub id: u32,
    pub profile_id: u32,
    pub start: u32,
    pub uuid: String,
    pub compute_mode: ComputeMode,
}

fn resettable() -> bool {
    true
}

fn err(kind: DriverErrorKind, detail: impl Into<String>) -> DriverError {
    DriverError::new(kind, detail)
}

/// The lowest id that none of `taken` holds, as the driver numbers a new instance: of n ids
/// taken, one of 0..=n is free.
fn lowest_free_id(taken: impl IntoIterator<Item = u32>) -> u32 {
    let mut ids: Vec<u32> = taken.into_iter().collect();
    ids.sort_unstable();
    ids.dedup();
    let mut free = 0;
    for id in ids {
        if id != free {
            break;
        }
        free += 1;
    }
    free
}

/// A stable UUID body (8-4-4-4-12 hex) from a seed, so simulated ids never change between runs.
pub fn stable_uuid(seed: &str) -> String {
    // Two FNV-1a passes with different offsets, each through the splitmix64 finaliser so that
    // seeds differing in one character give unrelated ids.
    let mix = |mut z: u64| {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let fnv = |offset: u64| {
        mix(seed.bytes().fold(offset, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        }))
    };
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&fnv(0xcbf2_9ce4_8422_2325).to_be_bytes());
    bytes[8..].copy_from_slice(&fnv(0x6c62_272e_07bb_0142).to_be_bytes());
    crate::node::model::format_uuid(&bytes)
}

impl SimGpu {
    /// The memory its processes use, in MiB; None past u64 (more than any GPU has: a checked
    /// sum, since a wrapped one would be a little memory used).
    pub(crate) fn processes_memory_mib(&self) -> Option<u64> {
        self.processes
            .iter()
            .filter_map(|p| p.used_memory_mib)
            .try_fold(0u64, u64::checked_add)
    }

    /// Whether its GPU instance `gi` has the compute instance `ci`.
    pub(crate) fn has_mig_device(&self, gi: u32, ci: u32) -> bool {
        self.instances
            .iter()
            .find(|i| i.id == gi)
            .is_some_and(|i| i.compute_instances.iter().any(|c| c.id == ci))
    }

    pub fn model(&self) -> DriverResult<&'static GpuModel> {
        catalog().model(&self.model).ok_or_else(|| {
            err(
                DriverErrorKind::Unknown,
                format!("unknown GPU model `{}`", self.model),
            )
        })
    }

    fn mig_table(&self) -> Option<&'static MigTable> {
        self.model().ok().and_then(|m| catalog().mig_table(m))
    }

    fn gi(&self, id: u32) -> DriverResult<&SimGpuInstance> {
        self.instances
            .iter()
            .find(|g| g.id == id)
            .ok_or_else(|| err(DriverErrorKind::NotFound, format!("no GPU instance {id}")))
    }

    pub(crate) fn gi_profile(
        &self,
        gi: &SimGpuInstance,
    ) -> DriverResult<&'static GpuInstanceProfile> {
        self.mig_table()
            .and_then(|t| t.profile_by_id(gi.profile_id))
            .ok_or_else(|| {
                err(
                    DriverErrorKind::Unknown,
                    format!("unknown profile id {}", gi.profile_id),
                )
            })
    }

    fn busy_reason(&self, gi: Option<u32>, ci: Option<u32>) -> Option<String> {
        let users: Vec<String> = self
            .processes
            .iter()
            .filter(|p| gi.is_none() || p.gpu_instance_id == gi)
            .filter(|p| ci.is_none() || p.compute_instance_id == ci)
            .map(|p| format!("pid {} ({})", p.pid, p.name))
            .collect();
        (!users.is_empty()).then(|| format!("used by {}", users.join(", ")))
    }

    /// Instances of each profile and the slices they take, for the capacity rules.
    fn occupied(&self) -> DriverResult<Vec<(Placement, &'static GpuInstanceProfile)>> {
        self.instances
            .iter()
            .map(|gi| {
                let p = self.gi_profile(gi)?;
                Ok((
                    Placement {
                        start: gi.start,
                        size: p.size,
                    },
                    p,
                ))
            })
            .collect()
    }

    /// Why a GPU instance of `profile` at `placement` cannot be created now, if it cannot.
    fn gi_blocker(
        &self,
        table: &MigTable,
        profile: &GpuInstanceProfile,
        placement: Placement,
    ) -> DriverResult<Option<String>> {
        let occupied = self.occupied()?;
        let same = occupied.iter().filter(|(_, p)| p.id == profile.id).count() as u32;
        if same >= profile.max_instances {
            return Ok(Some(format!(
                "{} allows at most {} instance(s)",
                profile.name, profile.max_instances
            )));
        }
        if occupied.len() as u32 >= table.max_gpu_instances {
            return Ok(Some(format!(
                "the GPU allows at most {} GPU instances",
                table.max_gpu_instances
            )));
        }
        let used_slices: u32 = occupied.iter().map(|(_, p)| p.slices).sum();
        if used_slices + profile.slices > table.compute_slices {
            return Ok(Some(format!(
                "{} compute slices are in use, {} needs {} more of {}",
                used_slices, profile.name, profile.slices, table.compute_slices
            )));
        }
        if let Some((pl, p)) = occupied.iter().find(|(pl, _)| pl.overlaps(placement)) {
            return Ok(Some(format!(
                "placement {placement} overlaps the {} instance at {pl}",
                p.name
            )));
        }
        Ok(None)
    }

    fn compute_profiles(&self, gi: &SimGpuInstance) -> DriverResult<Vec<ComputeInstanceProfile>> {
        Ok(self.gi_profile(gi)?.compute_profiles())
    }
}

impl SimState {
    pub(crate) fn gpu(&self, index: u32) -> DriverResult<&SimGpu> {
        self.gpus.get(index as usize).ok_or_else(|| {
            err(
                DriverErrorKind::InvalidArgument,
                format!("no GPU with index {index}"),
            )
        })
    }

    fn gpu_mut(&mut self, index: u32) -> DriverResult<&mut SimGpu> {
        self.gpus.get_mut(index as usize).ok_or_else(|| {
            err(
                DriverErrorKind::InvalidArgument,
                format!("no GPU with index {index}"),
            )
        })
    }

    fn mig_gpu(&self, index: u32) -> DriverResult<(&SimGpu, &'static MigTable)> {
        let gpu = self.gpu(index)?;
        let table = gpu.mig_table().ok_or_else(|| {
            err(
                DriverErrorKind::NotSupported,
                format!("GPU {index} ({}) is not MIG-capable", gpu.model),
            )
        })?;
        Ok((gpu, table))
    }

    fn mig_enabled_gpu(&self, index: u32) -> DriverResult<(&SimGpu, &'static MigTable)> {
        let (gpu, table) = self.mig_gpu(index)?;
        if !gpu.mig_current.is_enabled() {
            let why = if gpu.mig_pending.is_enabled() {
                "MIG mode is pending enable until the GPU is reset"
            } else {
                "MIG mode is disabled"
            };
            return Err(err(
                DriverErrorKind::NotSupported,
                format!("GPU {index}: {why}"),
            ));
        }
        Ok((gpu, table))
    }

    pub fn gpu_instance_profiles(&self, index: u32) -> DriverResult<Vec<ProfileCapacity>> {
        let (gpu, table) = self.mig_gpu(index)?;
        let mut out = Vec::new();
        for profile in &table.profiles {
            let free = if gpu.mig_current.is_enabled() {
                self.remaining_capacity(gpu, table, profile)?
            } else {
                0
            };
            out.push(ProfileCapacity {
                profile: profile.clone(),
                free_instances: free,
            });
        }
        Ok(out)
    }

    /// How many more instances of `profile` fit now (NVML `GetGpuInstanceRemainingCapacity`).
    fn remaining_capacity(
        &self,
        gpu: &SimGpu,
        table: &MigTable,
        profile: &GpuInstanceProfile,
    ) -> DriverResult<u32> {
        let mut trial = gpu.clone();
        let mut count = 0;
        for placement in profile.placements() {
            if trial.gi_blocker(table, profile, placement)?.is_none() {
                trial.instances.push(SimGpuInstance {
                    id: u32::MAX - count,
                    profile_id: profile.id,
                    start: placement.start,
                    compute_instances: Vec::new(),
                });
                count += 1;
            }
        }
        Ok(count)
    }

    pub(crate) fn compute_instance_profiles(
        &self,
        index: u32,
        gi_id: u32,
    ) -> DriverResult<Vec<ComputeInstanceProfile>> {
        let (gpu, _) = self.mig_enabled_gpu(index)?;
        gpu.compute_profiles(gpu.gi(gi_id)?)
    }

    /// The holders there now: those of stopped units and unloaded modules are gone.
    fn present_holders(&self) -> impl Iterator<Item = &Holder> {
        self.holders.iter().filter(|h| match h.kind {
            HolderKind::Process => h
                .unit
                .as_ref()
                .is_none_or(|u| !self.stopped_units.contains(u)),
            HolderKind::Module => !self.unloaded_modules.contains(&h.name.replace('-', "_")),
        })
    }

    /// gpushare stopped or started a GPU client (see `Backend::client_changed`).
    pub(crate) fn client_changed(&mut self, client: &Client, running: bool) {
        let (list, name) = match client {
            Client::Service(unit) => (&mut self.stopped_units, unit),
            Client::Module(module) => (&mut self.unloaded_modules, module),
        };
        list.retain(|n| n != name);
        if !running {
            list.push(name.clone());
        }
    }

    pub fn set_mig_mode(&mut self, index: u32, mode: MigMode) -> DriverResult<ModeChange> {
        let holders = self.holder_names();
        let (gpu, _) = self.mig_gpu(index)?;
        if gpu.mig_current == mode && gpu.mig_pending == mode {
            return Ok(ModeChange::Applied);
        }
        if !mode.is_enabled() && !gpu.instances.is_empty() {
            return Err(err(
                DriverErrorKind::InUse,
                format!(
                    "GPU {index} has {} GPU instance(s); destroy them before disabling MIG",
                    gpu.instances.len()
                ),
            ));
        }
        let busy = !gpu.processes.is_empty() || !holders.is_empty();
        let gpu = self.gpu_mut(index)?;
        gpu.mig_pending = mode;
        if !gpu.reset_supported && gpu.mig_current != mode {
            return Ok(ModeChange::PendingReboot);
        }
        if busy && gpu.mig_current != mode {
            return Ok(ModeChange::PendingReset);
        }
        gpu.mig_current = mode;
        Ok(ModeChange::Applied)
    }

    fn holder_names(&self) -> Vec<String> {
        self.present_holders().map(Holder::describe).collect()
    }

    pub fn reset_gpus(&mut self, indexes: &[u32]) -> DriverResult<()> {
        // Check every GPU first: a reset of several GPUs happens for all or none.
        for &index in indexes {
            let gpu = self.gpu(index)?;
            if !gpu.reset_supported {
                return Err(err(
                    DriverErrorKind::NotSupported,
                    format!(
                        "GPU {index} ({}) cannot be reset on this machine; reboot to apply its pending MIG mode",
                        gpu.pci_bus_id
                    ),
                ));
            }
            if let Some(why) = gpu.busy_reason(None, None) {
                return Err(err(
                    DriverErrorKind::InUse,
                    format!("cannot reset GPU {index} ({}): {why}", gpu.pci_bus_id),
                ));
            }
            if self.present_holders().next().is_some() {
                return Err(err(
                    DriverErrorKind::InUse,
                    format!(
                        "cannot reset GPU {index} ({}): held by {}",
                        gpu.pci_bus_id,
                        self.holder_names().join(", ")
                    ),
                ));
            }
        }
        for &index in indexes {
            let gpu = self.gpu_mut(index)?;
            // GPU and compute instances do not survive a reset.
            gpu.instances.clear();
            gpu.mig_current = gpu.mig_pending;
        }
        Ok(())
    }

    /// What a reboot of the machine does: pending MIG modes apply, GPU and compute instances and
    /// processes are gone, compute modes are back to default. Services and modules (holders)
    /// start again.
    /// Raise an event on GPU `gpu` (on its MIG device `(gi, ci)` when given, which must exist):
    /// its sequence number.
    pub(crate) fn raise(
        &mut self,
        gpu: u32,
        kind: EventKind,
        xid: u64,
        mig_device: Option<(u32, u32)>,
    ) -> DriverResult<u64> {
        let g = self.gpu(gpu)?;
        if let Some((gi, ci)) = mig_device
            && !g.has_mig_device(gi, ci)
        {
            return Err(err(
                DriverErrorKind::NotFound,
                format!("GPU {gpu} has no MIG device {gi}:{ci} (GPU instance:compute instance)"),
            ));
        }
        let seq = self.events.last().map_or(1, |e| e.seq + 1);
        self.events.push(SimEvent {
            seq,
            gpu,
            kind,
            xid,
            mig_device,
        });
        let over = self.events.len().saturating_sub(EVENT_LIMIT);
        self.events.drain(..over);
        Ok(seq)
    }

    pub(crate) fn reboot(&mut self) {
        self.stopped_units.clear();
        self.unloaded_modules.clear();
        for gpu in &mut self.gpus {
            gpu.mig_current = gpu.mig_pending;
            gpu.instances.clear();
            gpu.processes.clear();
            gpu.compute_mode = ComputeMode::Default;
        }
    }

    pub fn create_gpu_instance(
        &mut self,
        index: u32,
        profile_id: u32,
        placement: Placement,
    ) -> DriverResult<u32> {
        let (gpu, table) = self.mig_enabled_gpu(index)?;
        let profile = table.profile_by_id(profile_id).ok_or_else(|| {
            err(
                DriverErrorKind::InvalidArgument,
                format!("GPU {index} has no GPU-instance profile with id {profile_id}"),
            )
        })?;
        if placement.size != profile.size || !profile.starts.contains(&placement.start) {
            let valid: Vec<String> = profile.starts.iter().map(u32::to_string).collect();
            return Err(err(
                DriverErrorKind::InvalidArgument,
                format!(
                    "placement {placement} is not valid for {}; valid placements are {{{}}}:{}",
                    profile.name,
                    valid.join(","),
                    profile.size
                ),
            ));
        }
        if let Some(why) = gpu.gi_blocker(table, profile, placement)? {
            return Err(err(
                DriverErrorKind::InsufficientResources,
                format!("GPU {index}: {why}"),
            ));
        }
        // The driver numbers GPU instances by their slot in the memory-slice tree.
        let slot = table.memory_slices / placement.size - 1 + placement.start / placement.size;
        let taken = |id: u32| gpu.instances.iter().any(|g| g.id == id);
        let id = if taken(slot) {
            lowest_free_id(gpu.instances.iter().map(|g| g.id))
        } else {
            slot
        };
        let gpu = self.gpu_mut(index)?;
        gpu.instances.push(SimGpuInstance {
            id,
            profile_id,
            start: placement.start,
            compute_instances: Vec::new(),
        });
        gpu.instances.sort_by_key(|g| g.id);
        Ok(id)
    }

    pub fn create_compute_instance(
        &mut self,
        index: u32,
        gi_id: u32,
        profile_id: u32,
    ) -> DriverResult<u32> {
        let (gpu, _) = self.mig_enabled_gpu(index)?;
        let gi = gpu.gi(gi_id)?;
        let profiles = gpu.compute_profiles(gi)?;
        let Some(profile) = profiles.iter().find(|p| p.id == profile_id) else {
            let valid: Vec<String> = profiles
                .iter()
                .map(|p| format!("{} ({})", p.name, p.id))
                .collect();
            return Err(err(
                DriverErrorKind::InvalidArgument,
                format!(
                    "GPU instance {gi_id} has no compute-instance profile {profile_id}; valid: {}",
                    valid.join(", ")
                ),
            ));
        };
        let size_of = |ci: &SimComputeInstance| {
            profiles
                .iter()
                .find(|p| p.id == ci.profile_id)
                .map_or(1, |p| p.slices)
        };
        let used: Vec<Placement> = gi
            .compute_instances
            .iter()
            .map(|ci| Placement {
                start: ci.start,
                size: size_of(ci),
            })
            .collect();
        let same = gi
            .compute_instances
            .iter()
            .filter(|c| c.profile_id == profile_id)
            .count() as u32;
        let start = profile.starts.iter().copied().find(|&s| {
            let p = Placement {
                start: s,
                size: profile.slices,
            };
            used.iter().all(|u| !u.overlaps(p))
        });
        let Some(start) = start.filter(|_| same < profile.max_instances) else {
            return Err(err(
                DriverErrorKind::InsufficientResources,
                format!(
                    "GPU {index}: no room for a {} compute instance in GPU instance {gi_id}",
                    profile.name
                ),
            ));
        };
        let id = lowest_free_id(gi.compute_instances.iter().map(|c| c.id));
        let name = self.name.clone();
        let gpu = self.gpu_mut(index)?;
        gpu.mig_serial += 1;
        let uuid = format!(
            "MIG-{}",
            stable_uuid(&format!("{name}/{index}/{gi_id}/{}", gpu.mig_serial))
        );
        let gi = gpu
            .instances
            .iter_mut()
            .find(|g| g.id == gi_id)
            .ok_or_else(|| {
                err(
                    DriverErrorKind::NotFound,
                    format!("no GPU instance {gi_id}"),
                )
            })?;
        gi.compute_instances.push(SimComputeInstance {
            id,
            profile_id,
            start,
            uuid,
            compute_mode: ComputeMode::Default,
        });
        gi.compute_instances.sort_by_key(|c| c.id);
        Ok(id)
    }

    pub fn destroy_compute_instance(
        &mut self,
        index: u32,
        gi_id: u32,
        ci_id: u32,
    ) -> DriverResult<()> {
        let (gpu, _) = self.mig_enabled_gpu(index)?;
        let gi = gpu.gi(gi_id)?;
        if !gi.compute_instances.iter().any(|c| c.id == ci_id) {
            return Err(err(
                DriverErrorKind::NotFound,
                format!("GPU {index}: no compute instance {ci_id} in GPU instance {gi_id}"),
            ));
        }
        if let Some(why) = gpu.busy_reason(Some(gi_id), Some(ci_id)) {
            return Err(err(
                DriverErrorKind::InUse,
                format!("GPU {index}: compute instance {gi_id}:{ci_id} is {why}"),
            ));
        }
        let gpu = self.gpu_mut(index)?;
        if let Some(gi) = gpu.instances.iter_mut().find(|g| g.id == gi_id) {
            gi.compute_instances.retain(|c| c.id != ci_id);
        }
        Ok(())
    }

    pub fn destroy_gpu_instance(&mut self, index: u32, gi_id: u32) -> DriverResult<()> {
        let (gpu, _) = self.mig_enabled_gpu(index)?;
        let gi = gpu.gi(gi_id)?;
        if let Some(why) = gpu.busy_reason(Some(gi_id), None) {
            return Err(err(
                DriverErrorKind::InUse,
                format!("GPU {index}: GPU instance {gi_id} is {why}"),
            ));
        }
        if !gi.compute_instances.is_empty() {
            return Err(err(
                DriverErrorKind::InUse,
                format!(
                    "GPU {index}: GPU instance {gi_id} still has {} compute instance(s)",
                    gi.compute_instances.len()
                ),
            ));
        }
        self.gpu_mut(index)?.instances.retain(|g| g.id != gi_id);
        Ok(())
    }

    pub fn set_compute_mode(&mut self, device: DeviceRef, mode: ComputeMode) -> DriverResult<()> {
        match device {
            DeviceRef::Gpu(index) => {
                let gpu = self.gpu_mut(index)?;
                if gpu.mig_current.is_enabled() {
                    return Err(err(
                        DriverErrorKind::NotSupported,
                        format!(
                            "GPU {index} is in MIG mode: set the compute mode of its MIG devices"
                        ),
                    ));
                }
                gpu.compute_mode = mode;
            }
            DeviceRef::Mig {
                gpu: index,
                gpu_instance_id,
                compute_instance_id,
            } => {
                self.mig_enabled_gpu(index)?;
                let gpu = self.gpu_mut(index)?;
                let ci = gpu
                    .instances
                    .iter_mut()
                    .find(|g| g.id == gpu_instance_id)
                    .and_then(|g| {
                        g.compute_instances
                            .iter_mut()
                            .find(|c| c.id == compute_instance_id)
                    })
                    .ok_or_else(|| err(DriverErrorKind::NotFound, format!("no {device}")))?;
                ci.compute_mode = mode;
            }
        }
        Ok(())
    }

    /// The node as NVML would report it.
    pub(crate) fn snapshot(&self) -> DriverResult<Node> {
        let mut gpus = Vec::with_capacity(self.gpus.len());
        for (index, sim) in self.gpus.iter().enumerate() {
            gpus.push(self.snapshot_gpu(index as u32, sim)?);
        }
        Ok(Node {
            source: format!("sim:{}", self.name),
            driver_version: self.driver_version.clone(),
            cuda_driver_version: self.cuda_driver_version.clone(),
            gpus,
            holders: self.present_holders().cloned().collect(),
        })
    }

    fn snapshot_gpu(&self, index: u32, sim: &SimGpu) -> DriverResult<Gpu> {
        let model = sim.model()?;
        let table = catalog().mig_table(model);
        let mut instances = Vec::new();
        for gi in &sim.instances {
            let profile = sim.gi_profile(gi)?;
            let cis = profile.compute_profiles();
            let compute_instances: Vec<ComputeInstance> = gi
                .compute_instances
                .iter()
                .map(|ci| {
                    let cp = cis.iter().find(|p| p.id == ci.profile_id);
                    ComputeInstance {
                        compute_instance_id: ci.id,
                        profile: cp.map_or_else(|| "unknown".into(), |p| p.name.clone()),
                        profile_id: ci.profile_id,
                        placement: ComputePlacement {
                            start: Some(ci.start),
                            size: cp.map_or(1, |p| p.slices),
                        },
                        multiprocessors: cp.map_or(0, |p| p.sm),
                        uuid: Some(ci.uuid.clone()),
                        compute_mode: Some(ci.compute_mode),
                    }
                })
                .collect();
            instances.push(GpuInstance {
                gpu_instance_id: gi.id,
                profile: profile.name.clone(),
                profile_id: profile.id,
                placement: Placement {
                    start: gi.start,
                    size: profile.size,
                },
                memory_mib: profile.memory_mib,
                // As NVML answers for a MIG device: the memory of every process in the GPU
                // instance; unknown when one process's memory is (no MIG device: unknown too).
                memory_used_mib: if compute_instances.is_empty() {
                    None
                } else {
                    sim.processes
                        .iter()
                        .filter(|p| p.gpu_instance_id == Some(gi.id))
                        .try_fold(0u64, |sum, p| sum.checked_add(p.used_memory_mib?))
                },
                multiprocessors: profile.sm,
                compute_instances,
            });
        }
        Ok(Gpu {
            index,
            uuid: sim.uuid.clone(),
            name: model.name.clone(),
            pci_bus_id: sim.pci_bus_id.clone(),
            pci_device_id: model.pci_device_ids[0],
            pci_subsystem_id: None,
            memory_total_mib: model.memory_mib,
            memory_used_mib: sim
                .processes
                .iter()
                .filter_map(|p| p.used_memory_mib)
                .fold(0u64, u64::saturating_add),
            compute_capability: model.compute_capability.clone(),
            multiprocessors: Some(model.multiprocessors),
            architecture: Some(model.architecture.clone()),
            compute_mode: Some(sim.compute_mode),
            persistence_mode: Some(sim.persistence_mode),
            mig: MigState {
                capable: table.is_some(),
                current: sim.mig_current,
                pending: sim.mig_pending,
                instances: Some(instances),
            },
            processes: Some(sim.processes.clone()),
            vgpu_host_mode: sim.vgpu_host_mode,
            utilization_percent: sim
                .utilization_percent
                .filter(|_| !sim.mig_current.is_enabled()),
            notes: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::lowest_free_id;

    #[test]
    fn the_lowest_free_id_fills_gaps_first() {
        assert_eq!(lowest_free_id([]), 0);
        assert_eq!(lowest_free_id([3, 5]), 0);
        assert_eq!(lowest_free_id([1, 0, 3]), 2);
        assert_eq!(lowest_free_id([2, 1, 0, 0]), 3);
    }
}
