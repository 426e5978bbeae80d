//! The simulated backend: a node built from the GPU catalog that behaves like the driver.
//!
//! `--sim <preset|node file>` builds it; `--sim-state FILE` keeps it between commands (loaded when
//! the file exists, saved after every change), so a sequence of commands sees earlier changes.

mod faults;
pub mod node_file;
pub mod state;
mod state_check;

use crate::backend::{
    Backend, DeviceRef, DriverError, DriverErrorKind, DriverResult, MigProfiles, ModeChange,
    ProfileSource,
};
use crate::error::{Error, Result};
use crate::node::catalog::ComputeInstanceProfile;
use crate::node::{ComputeMode, MigMode, Node, Placement};
use crate::source_file::SourceFile;
use faults::Faults;
use state::SimState;
use std::path::{Path, PathBuf};

pub use faults::{
    CRASH_ENV, DELAY_ENV as SIM_DELAY_ENV, ENV as FAULT_ENV, OPERATIONS as FAULT_OPERATIONS,
};

pub struct SimBackend {
    state: SimState,
    state_path: Option<PathBuf>,
    faults: Faults,
}

impl SimBackend {
    /// Open a simulated node from `--sim` and/or `--sim-state`.
    pub fn open(sim: Option<&str>, state_path: Option<&Path>) -> Result<Self> {
        let faults = Faults::from_env()?;
        // The state file is rewritten after every change: a link there is refused, never followed.
        if let Some(path) = state_path {
            crate::fsutil::own::refuse_link(path).map_err(|e| {
                Error::failed(format!(
                    "cannot use the simulator state {}: {e}",
                    path.display()
                ))
            })?;
        }
        let built = sim.map(build).transpose()?;
        let state = match state_path {
            Some(path) if path.exists() => {
                let loaded = load_state(path)?;
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
            Some(path) => {
                let Some(built) = built else {
                    return Err(Error::usage(format!(
                        "{} does not exist yet and no --sim node was given",
                        path.display()
                    ))
                    .with_hint("start with --sim <preset> --sim-state FILE, e.g. --sim dgx-a100"));
                };
                save_state(path, &built).map_err(|e| Error::failed(e.detail))?;
                built
            }
            None => built.ok_or_else(|| Error::usage("no simulated node given"))?,
        };
        Ok(SimBackend {
            state,
            state_path: state_path.map(Path::to_path_buf),
            faults,
        })
    }

    /// A simulated node from a preset, with no state file and no faults (tests).
    pub fn from_preset(name: &str) -> Result<Self> {
        Ok(SimBackend {
            state: node_file::from_preset(name)?,
            state_path: None,
            faults: Faults::default(),
        })
    }

    /// A simulated node from a state built in code, with no state file (tests).
    pub fn from_state(state: SimState) -> Self {
        SimBackend {
            state,
            state_path: None,
            faults: Faults::default(),
        }
    }

    /// Make operations fail as `GPUSHARE_SIM_FAIL` would (tests that run in-process).
    pub fn inject_faults(&mut self, spec: &str) -> Result<()> {
        self.faults = Faults::parse(spec)?;
        Ok(())
    }

    pub fn state_mut(&mut self) -> &mut SimState {
        &mut self.state
    }

    pub fn state(&self) -> &SimState {
        &self.state
    }

    /// Reboot the simulated machine (see [`SimState::reboot`]) and save it.
    pub fn reboot(&mut self) -> DriverResult<()> {
        let mut next = self.state.clone();
        next.reboot();
        if let Some(path) = &self.state_path {
            save_state(path, &next)?;
        }
        self.state = next;
        Ok(())
    }

    /// Run one changing operation: injected faults first, then the change, then save it.
    fn change<T>(
        &mut self,
        op: &'static str,
        f: impl FnOnce(&mut SimState) -> DriverResult<T>,
    ) -> DriverResult<T> {
        self.faults.check(op)?;
        self.faults.wait();
        let mut next = self.state.clone();
        let out = f(&mut next)?;
        if let Some(path) = &self.state_path {
            save_state(path, &next)?;
        }
        self.state = next;
        self.faults.after(op);
        Ok(out)
    }
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

fn load_state(path: &Path) -> Result<SimState> {
    let source = SourceFile::read(path)?;
    let state: SimState = serde_json::from_str(&source.text).map_err(|e| {
        Error::in_file(
            path,
            Some((e.line(), e.column())),
            format!("not a simulator state file: {e}"),
        )
        .with_hint("it is written by --sim-state; delete it to start over")
    })?;
    // A hand-edited file can say anything: check what the simulator relies on now, not on
    // first use.
    state_check::check(&state).map_err(|p| {
        Error::in_file(path, state_check::locate(&source.text, p.at), p.message)
            .with_hint("it is written by --sim-state; delete it to start over")
    })?;
    state
        .snapshot()
        .map_err(|e| Error::in_file(path, None, e.detail).with_hint("delete it to start over"))?;
    Ok(state)
}

fn save_state(path: &Path, state: &SimState) -> DriverResult<()> {
    let mut json = serde_json::to_string_pretty(state)
        .map_err(|e| DriverError::new(DriverErrorKind::Unknown, e.to_string()))?;
    json.push('\n');
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    // Saved after every operation: atomic (never half written), but not fsynced each time.
    dir.map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|_| crate::fsutil::write_atomic_unsynced(path, json.as_bytes(), 0o644))
        .map_err(|e| {
            DriverError::new(
                DriverErrorKind::Unknown,
                format!("cannot save the simulator state to {}: {e}", path.display()),
            )
        })
}

impl Backend for SimBackend {
    fn source(&self) -> String {
        format!("sim:{}", self.state.name)
    }

    fn snapshot(&self) -> DriverResult<Node> {
        self.state.snapshot()
    }

    fn gpu_instance_profiles(&self, gpu: u32) -> DriverResult<MigProfiles> {
        // The simulated driver lists its profiles with MIG off too, as the v1 call does.
        Ok(MigProfiles::Listed {
            profiles: self.state.gpu_instance_profiles(gpu)?,
            source: ProfileSource::Driver,
        })
    }

    fn compute_instance_profiles(
        &self,
        gpu: u32,
        gpu_instance_id: u32,
    ) -> DriverResult<Vec<ComputeInstanceProfile>> {
        self.state.compute_instance_profiles(gpu, gpu_instance_id)
    }

    fn set_mig_mode(&mut self, gpu: u32, mode: MigMode) -> DriverResult<ModeChange> {
        self.change("set_mig_mode", |s| s.set_mig_mode(gpu, mode))
    }

    fn reset_gpus(&mut self, gpus: &[u32]) -> DriverResult<()> {
        self.change("reset", |s| s.reset_gpus(gpus))
    }

    fn create_gpu_instance(
        &mut self,
        gpu: u32,
        profile_id: u32,
        placement: Placement,
    ) -> DriverResult<u32> {
        self.change("create_gpu_instance", |s| {
            s.create_gpu_instance(gpu, profile_id, placement)
        })
    }

    fn create_compute_instance(
        &mut self,
        gpu: u32,
        gpu_instance_id: u32,
        profile_id: u32,
    ) -> DriverResult<u32> {
        self.change("create_compute_instance", |s| {
            s.create_compute_instance(gpu, gpu_instance_id, profile_id)
        })
    }

    fn destroy_compute_instance(
        &mut self,
        gpu: u32,
        gpu_instance_id: u32,
        compute_instance_id: u32,
    ) -> DriverResult<()> {
        self.change("destroy_compute_instance", |s| {
            s.destroy_compute_instance(gpu, gpu_instance_id, compute_instance_id)
        })
    }

    fn destroy_gpu_instance(&mut self, gpu: u32, gpu_instance_id: u32) -> DriverResult<()> {
        self.change("destroy_gpu_instance", |s| {
            s.destroy_gpu_instance(gpu, gpu_instance_id)
        })
    }

    fn set_compute_mode(&mut self, device: DeviceRef, mode: ComputeMode) -> DriverResult<()> {
        self.change("set_compute_mode", |s| s.set_compute_mode(device, mode))
    }

    fn fault_before(&mut self, step: &'static str) -> DriverResult<()> {
        self.faults.check(step)
    }

    fn fault_after(&mut self, step: &'static str) {
        self.faults.after(step);
    }

    fn client_changed(
        &mut self,
        client: &crate::clients::Client,
        running: bool,
    ) -> DriverResult<()> {
        let mut next = self.state.clone();
        next.client_changed(client, running);
        if let Some(path) = &self.state_path {
            save_state(path, &next)?;
        }
        self.state = next;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
