//! The simulated backend: a node built from the GPU catalog that behaves like the driver.
//!
//! `--sim <preset|node file>` builds it; `--sim-state FILE` keeps it between commands (see
//! [`store`]: every call is logged as it is made, the whole state written once per command), so a
//! sequence of commands sees earlier changes, and a crash keeps what the driver would keep.
//!
//! The executor calls it from several threads at once: the state is under one lock, held for the
//! change itself only (the simulated slowness, `GPUSHARE_SIM_DELAY_MS`, is spent outside it, as
//! calls on different GPUs overlap on a real driver).

pub mod events;
mod faults;
pub mod node_file;
mod ops;
pub(crate) mod processes;
pub mod state;
mod state_check;
mod store;
pub(crate) mod watch;

use crate::node::backend::host_events::HostEvents;
use crate::node::backend::{
    Backend, DeviceRef, DriverResult, MigProfiles, ModeChange, ProfileOrigin,
};
use crate::node::model::catalog::ComputeInstanceProfile;
use crate::node::model::{ComputeMode, MigMode, Node, Placement};
use crate::support::error::{Error, Result};
use crate::support::source_file::SourceFile;
use faults::Faults;
use ops::{Answer, SimOp};
use state::SimState;
use std::path::Path;
use std::sync::{Mutex, MutexGuard};
use store::Store;

#[cfg(test)]
pub(crate) use faults::OPERATIONS as FAULT_OPERATIONS;

pub struct SimBackend {
    node: Mutex<Kept>,
    faults: Faults,
}

/// The state and where it is kept, under one lock: a call and its log line go together.
struct Kept {
    state: SimState,
    store: Option<Store>,
}

impl SimBackend {
    /// Open a simulated node from `--sim` and/or `--sim-state`.
    pub fn open(sim: Option<&str>, state_path: Option<&Path>) -> Result<Self> {
        let faults = Faults::from_env()?;
        // The state file is rewritten by every command: a link there is refused, never followed.
        if let Some(path) = state_path {
            crate::support::fsutil::own::refuse_link(path).map_err(|e| {
                Error::failed(format!(
                    "cannot use the simulator state {}: {e}",
                    path.display()
                ))
            })?;
        }
        let built = sim.map(build).transpose()?;
        let mut store = state_path.map(Store::new);
        let state = match (state_path, store.as_mut()) {
            (Some(path), Some(store)) if path.exists() => {
                let loaded = store.load()?;
                if let Some(built) = &built
                    && built.name != loaded.name
                {
                    return Err(Error::usage(format!(
                        "{} holds the simulated node `{}`, not `{}`",
                        path.display(),
                        loaded.name,
                        built.name
                    ))
                    .with_hint("use another --sim-state file, or delete this one to start over"));
                }
                loaded
            }
            (Some(path), Some(store)) => {
                let Some(mut built) = built else {
                    return Err(Error::usage(format!(
                        "{} does not exist yet and no --sim node was given",
                        path.display()
                    ))
                    .with_hint("start with --sim <preset> --sim-state FILE, e.g. --sim dgx-a100"));
                };
                store
                    .write(&mut built)
                    .map_err(|e| Error::failed(e.detail))?;
                built
            }
            _ => built.ok_or_else(|| Error::usage("no simulated node given"))?,
        };
        Ok(SimBackend {
            node: Mutex::new(Kept { state, store }),
            faults,
        })
    }

    /// A simulated node from a preset, with no state file and no faults (tests).
    pub fn from_preset(name: &str) -> Result<Self> {
        Ok(Self::from_state(node_file::from_preset(name)?))
    }

    /// A simulated node from a state built in code, with no state file (tests).
    pub(crate) fn from_state(state: SimState) -> Self {
        SimBackend {
            node: Mutex::new(Kept { state, store: None }),
            faults: Faults::default(),
        }
    }

    /// Make operations fail as `GPUSHARE_SIM_FAIL` would (tests that run in-process).
    #[cfg(test)]
    pub(crate) fn inject_faults(&mut self, spec: &str) -> Result<()> {
        self.faults = Faults::parse(spec)?;
        Ok(())
    }

    fn kept(&self) -> MutexGuard<'_, Kept> {
        // A panic elsewhere while the lock was held cannot leave a half-made call: every call
        // is all or nothing.
        self.node.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The state, to change it in code (tests; not recorded in a state file).
    #[cfg(test)]
    pub(crate) fn state_mut(&mut self) -> &mut SimState {
        &mut self.node.get_mut().unwrap_or_else(|e| e.into_inner()).state
    }

    /// A copy of the state as it is now.
    pub(crate) fn state(&self) -> SimState {
        self.kept().state.clone()
    }

    /// Raise an Xid or ECC event on a GPU or one of its MIG devices (see [`events`]).
    pub(crate) fn raise_event(
        &self,
        gpu: u32,
        kind: events::EventKind,
        xid: u64,
        mig_device: Option<(u32, u32)>,
    ) -> DriverResult<()> {
        self.call(SimOp::RaiseEvent {
            gpu,
            kind,
            xid,
            mig_device,
        })
        .map(|_| ())
    }

    /// List a process on a GPU or MIG device from now on (see [`processes`]).
    pub(crate) fn start_process(&self, p: processes::NewProcess) -> DriverResult<()> {
        self.call(SimOp::StartProcess(p)).map(|_| ())
    }

    /// The process `pid` ended.
    pub(crate) fn end_process(&self, pid: u32) -> DriverResult<()> {
        self.call(SimOp::EndProcess { pid }).map(|_| ())
    }

    /// The events raised after `seq`, oldest first (those the state still keeps).
    pub(crate) fn events_after(&self, seq: u64) -> DriverResult<Vec<events::SimEvent>> {
        let kept = self.current()?;
        Ok(kept
            .state
            .events
            .iter()
            .filter(|e| e.seq > seq)
            .cloned()
            .collect())
    }

    /// Reboot the simulated machine (see [`SimState::reboot`]) and save it.
    pub(crate) fn reboot(&self) -> DriverResult<()> {
        let mut kept = self.kept();
        let mut next = kept.state.clone();
        next.reboot();
        if let Some(store) = kept.store.as_mut() {
            store.write(&mut next)?;
        }
        kept.state = next;
        Ok(())
    }

    /// Make one changing call: injected faults first, then the simulated slowness (outside the
    /// lock), then the change and its log line together, then an injected crash.
    fn call(&self, op: SimOp) -> DriverResult<Answer> {
        let name = op.name();
        self.faults.check(name)?;
        self.faults.wait();
        let answer = self.record(&op)?;
        self.faults.after(name);
        Ok(answer)
    }

    /// Make a change and its log line together, under the lock (and the state file's, on the
    /// node as it is now).
    fn record(&self, op: &SimOp) -> DriverResult<Answer> {
        let mut kept = self.kept();
        let Kept { state, store } = &mut *kept;
        let Some(store) = store else {
            return op.apply_then(state, |_| Ok(()));
        };
        let _held = store.hold().map_err(driver_error)?;
        store.refresh(state).map_err(driver_error)?;
        op.apply_then(state, |s| store.append(s, op))
    }

    /// The state as it is now: other processes serving the same state file may have changed it.
    fn current(&self) -> DriverResult<MutexGuard<'_, Kept>> {
        let mut kept = self.kept();
        let Kept { state, store } = &mut *kept;
        if let Some(store) = store {
            let _held = store.hold().map_err(driver_error)?;
            store.refresh(state).map_err(driver_error)?;
        }
        Ok(kept)
    }
}

impl Drop for SimBackend {
    /// A backend used outside a changing command's pipeline (tests, helpers) still leaves its
    /// state file whole; the log alone would be read back as well.
    fn drop(&mut self) {
        let kept = self.node.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Some(store) = kept.store.as_mut()
            && store.pending()
        {
            let _ = store.write(&mut kept.state);
        }
    }
}

/// For a program that serves the same simulated node without this backend, reading and writing
/// FILE itself a change at a time (the NVML stand-in of the tests): bring a state it read from
/// FILE up to date with the calls logged beside it (a `gpushare --sim-state` that died).
pub fn catch_up(path: &Path, state: &mut SimState) -> Result<()> {
    Store::new(path).catch_up(state)
}

/// For such a program: write all of `state` to FILE as a command's flush does, under a new id
/// with the log emptied, so that no call logged before is replayed onto it.
pub fn write_state(path: &Path, state: &mut SimState) -> DriverResult<()> {
    Store::new(path).write(state)
}

/// A preset name, or the path of a node file.
fn build(sim: &str) -> Result<SimState> {
    let is_preset = node_file::preset_names().iter().any(|p| p == sim);
    let looks_like_path = sim.contains('/') || sim.ends_with(".toml") || Path::new(sim).exists();
    if !is_preset && looks_like_path {
        return node_file::from_file(&SourceFile::read(Path::new(sim))?);
    }
    node_file::from_preset(sim)
}

/// An answer of another kind than the call gives: a bug in this file, reported as the driver
/// would report a broken call.
fn driver_error(e: Error) -> crate::node::backend::DriverError {
    crate::node::backend::DriverError::new(
        crate::node::backend::DriverErrorKind::Unknown,
        e.message,
    )
}

fn unexpected(answer: Answer) -> crate::node::backend::DriverError {
    crate::node::backend::DriverError::new(
        crate::node::backend::DriverErrorKind::Unknown,
        format!("the simulator answered {answer:?}"),
    )
}

impl Backend for SimBackend {
    fn source(&self) -> String {
        format!("sim:{}", self.kept().state.name)
    }

    fn snapshot(&self) -> DriverResult<Node> {
        self.current()?.state.snapshot()
    }

    fn gpu_instance_profiles(&self, gpu: u32) -> DriverResult<MigProfiles> {
        // The simulated driver lists its profiles with MIG off too, as the v1 call does.
        Ok(MigProfiles::Listed {
            profiles: self.current()?.state.gpu_instance_profiles(gpu)?,
            source: ProfileOrigin::Driver,
        })
    }

    fn compute_instance_profiles(
        &self,
        gpu: u32,
        gpu_instance_id: u32,
    ) -> DriverResult<Vec<ComputeInstanceProfile>> {
        self.current()?
            .state
            .compute_instance_profiles(gpu, gpu_instance_id)
    }

    fn set_mig_mode(&self, gpu: u32, mode: MigMode) -> DriverResult<ModeChange> {
        match self.call(SimOp::SetMigMode { gpu, mode })? {
            Answer::Mode(m) => Ok(m),
            other => Err(unexpected(other)),
        }
    }

    fn reset_gpus(&self, gpus: &[u32]) -> DriverResult<()> {
        self.call(SimOp::Reset {
            gpus: gpus.to_vec(),
        })
        .map(drop)
    }

    fn create_gpu_instance(
        &self,
        gpu: u32,
        profile_id: u32,
        placement: Placement,
    ) -> DriverResult<u32> {
        match self.call(SimOp::CreateGpuInstance {
            gpu,
            profile_id,
            placement,
        })? {
            Answer::Id(id) => Ok(id),
            other => Err(unexpected(other)),
        }
    }

    fn create_compute_instance(
        &self,
        gpu: u32,
        gpu_instance_id: u32,
        profile_id: u32,
    ) -> DriverResult<u32> {
        match self.call(SimOp::CreateComputeInstance {
            gpu,
            gpu_instance_id,
            profile_id,
        })? {
            Answer::Id(id) => Ok(id),
            other => Err(unexpected(other)),
        }
    }

    fn destroy_compute_instance(
        &self,
        gpu: u32,
        gpu_instance_id: u32,
        compute_instance_id: u32,
    ) -> DriverResult<()> {
        self.call(SimOp::DestroyComputeInstance {
            gpu,
            gpu_instance_id,
            compute_instance_id,
        })
        .map(drop)
    }

    fn destroy_gpu_instance(&self, gpu: u32, gpu_instance_id: u32) -> DriverResult<()> {
        self.call(SimOp::DestroyGpuInstance {
            gpu,
            gpu_instance_id,
        })
        .map(drop)
    }

    fn set_compute_mode(&self, device: DeviceRef, mode: ComputeMode) -> DriverResult<()> {
        self.call(SimOp::set_compute_mode(device, mode)).map(drop)
    }
}

/// The simulator hears of the steps outside the driver as the driver never does.
impl HostEvents for SimBackend {
    fn before_step(&self, step: &'static str) -> DriverResult<()> {
        self.faults.check(step)
    }

    fn after_step(&self, step: &'static str) {
        self.faults.after(step);
    }

    fn client_changed(
        &self,
        client: &crate::node::clients::Client,
        running: bool,
    ) -> DriverResult<()> {
        // Logged like a driver call, so a crash right after the `systemctl stop` keeps it; the
        // runner injects the step's faults around the program it runs.
        self.record(&SimOp::client_changed(client, running))
            .map(drop)
    }

    fn keep(&self) -> DriverResult<()> {
        let mut kept = self.kept();
        let Kept { state, store } = &mut *kept;
        match store {
            Some(store) if store.pending() => store.write(state),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests;
