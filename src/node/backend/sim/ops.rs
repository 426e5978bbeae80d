//! The simulated driver's changing calls as data: what the backend runs, and what the operation
//! log beside a state file records (one JSON line each), so that a state can be brought up to
//! date by running the same calls again in the same order. The GPU clients gpushare stops and
//! starts on the host are recorded the same way, as they change which holders the driver sees.

use super::events::EventKind;
use super::processes::NewProcess;
use super::state::{SimGpu, SimState};
use crate::node::backend::{DeviceRef, DriverResult, ModeChange};
use crate::node::clients::Client;
use crate::node::model::{ComputeMode, MigMode, Placement};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub(super) enum SimOp {
    SetMigMode {
        gpu: u32,
        mode: MigMode,
    },
    Reset {
        gpus: Vec<u32>,
    },
    CreateGpuInstance {
        gpu: u32,
        profile_id: u32,
        placement: Placement,
    },
    CreateComputeInstance {
        gpu: u32,
        gpu_instance_id: u32,
        profile_id: u32,
    },
    DestroyComputeInstance {
        gpu: u32,
        gpu_instance_id: u32,
        compute_instance_id: u32,
    },
    DestroyGpuInstance {
        gpu: u32,
        gpu_instance_id: u32,
    },
    /// On a whole GPU, or on a MIG device when both instance ids are there.
    SetComputeMode {
        gpu: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mig_device: Option<(u32, u32)>,
        mode: ComputeMode,
    },
    /// A systemd unit gpushare stopped: the holders that run in it are gone until it starts.
    StopService {
        unit: String,
    },
    StartService {
        unit: String,
    },
    /// A kernel module gpushare unloaded: its holder is gone until it is loaded again.
    UnloadModule {
        module: String,
    },
    LoadModule {
        module: String,
    },
    /// An Xid or ECC error on a GPU, or on one of its MIG devices.
    RaiseEvent {
        gpu: u32,
        kind: EventKind,
        #[serde(default)]
        xid: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mig_device: Option<(u32, u32)>,
    },
    /// A process the driver lists from now on (see [`super::processes`]).
    StartProcess(NewProcess),
    /// A process that ended: no GPU lists it any more.
    EndProcess {
        pid: u32,
    },
}

/// What a call answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Answer {
    Mode(ModeChange),
    /// The id of the instance it created.
    Id(u32),
    Done,
}

impl SimOp {
    pub(super) fn set_compute_mode(device: DeviceRef, mode: ComputeMode) -> SimOp {
        let mig_device = match device {
            DeviceRef::Gpu(_) => None,
            DeviceRef::Mig {
                gpu_instance_id,
                compute_instance_id,
                ..
            } => Some((gpu_instance_id, compute_instance_id)),
        };
        SimOp::SetComputeMode {
            gpu: device.gpu(),
            mig_device,
            mode,
        }
    }

    /// gpushare stopped (`running: false`) or started a GPU client.
    pub(super) fn client_changed(client: &Client, running: bool) -> SimOp {
        match (client, running) {
            (Client::Service(unit), false) => SimOp::StopService { unit: unit.clone() },
            (Client::Service(unit), true) => SimOp::StartService { unit: unit.clone() },
            (Client::Module(module), false) => SimOp::UnloadModule {
                module: module.clone(),
            },
            (Client::Module(module), true) => SimOp::LoadModule {
                module: module.clone(),
            },
        }
    }

    /// The GPU client it stops or starts, and whether it runs afterwards.
    fn client(&self) -> Option<(Client, bool)> {
        match self {
            SimOp::StopService { unit } => Some((Client::Service(unit.clone()), false)),
            SimOp::StartService { unit } => Some((Client::Service(unit.clone()), true)),
            SimOp::UnloadModule { module } => Some((Client::Module(module.clone()), false)),
            SimOp::LoadModule { module } => Some((Client::Module(module.clone()), true)),
            _ => None,
        }
    }

    /// The operation name fault injection counts (`GPUSHARE_SIM_FAIL`).
    pub(super) fn name(&self) -> &'static str {
        match self {
            SimOp::SetMigMode { .. } => "set_mig_mode",
            SimOp::Reset { .. } => "reset",
            SimOp::CreateGpuInstance { .. } => "create_gpu_instance",
            SimOp::CreateComputeInstance { .. } => "create_compute_instance",
            SimOp::DestroyComputeInstance { .. } => "destroy_compute_instance",
            SimOp::DestroyGpuInstance { .. } => "destroy_gpu_instance",
            SimOp::SetComputeMode { .. } => "set_compute_mode",
            SimOp::StopService { .. } => "stop_service",
            SimOp::StartService { .. } => "start_service",
            SimOp::UnloadModule { .. } => "unload_module",
            SimOp::LoadModule { .. } => "load_module",
            SimOp::RaiseEvent { .. } => "raise_event",
            SimOp::StartProcess(_) => "start_process",
            SimOp::EndProcess { .. } => "end_process",
        }
    }

    /// The GPUs it changes.
    fn gpus(&self) -> Vec<u32> {
        match self {
            SimOp::Reset { gpus } => gpus.clone(),
            SimOp::SetMigMode { gpu, .. }
            | SimOp::CreateGpuInstance { gpu, .. }
            | SimOp::CreateComputeInstance { gpu, .. }
            | SimOp::DestroyComputeInstance { gpu, .. }
            | SimOp::DestroyGpuInstance { gpu, .. }
            | SimOp::SetComputeMode { gpu, .. } => vec![*gpu],
            SimOp::StartProcess(p) => vec![p.gpu],
            // Events and ended processes are kept aside on their own (see `apply_then`).
            SimOp::RaiseEvent { .. }
            | SimOp::EndProcess { .. }
            | SimOp::StopService { .. }
            | SimOp::StartService { .. }
            | SimOp::UnloadModule { .. }
            | SimOp::LoadModule { .. } => Vec::new(),
        }
    }

    /// Make the call on `state`, then `commit` it (record it in the log): all or nothing, as the
    /// driver does — a refused call, or one that cannot be recorded, changes nothing.
    pub(super) fn apply_then(
        &self,
        state: &mut SimState,
        commit: impl FnOnce(&SimState) -> DriverResult<()>,
    ) -> DriverResult<Answer> {
        // What the call may change: its GPUs (with their MIG UUID serials). Kept aside rather than
        // cloning the whole node, which is most of the cost on a node of 64 GPUs.
        let kept: Vec<(usize, SimGpu)> = self
            .gpus()
            .into_iter()
            .filter_map(|g| Some((g as usize, state.gpus.get(g as usize)?.clone())))
            .collect();
        let clients = self
            .client()
            .map(|_| (state.stopped_units.clone(), state.unloaded_modules.clone()));
        let events = matches!(self, SimOp::RaiseEvent { .. }).then(|| state.events.clone());
        let processes = matches!(self, SimOp::EndProcess { .. }).then(|| {
            state
                .gpus
                .iter()
                .map(|g| g.processes.clone())
                .collect::<Vec<_>>()
        });
        let answer = self
            .call(state)
            .and_then(|answer| commit(state).map(|()| answer));
        if answer.is_err() {
            for (i, gpu) in kept {
                state.gpus[i] = gpu;
            }
            if let Some((units, modules)) = clients {
                state.stopped_units = units;
                state.unloaded_modules = modules;
            }
            if let Some(events) = events {
                state.events = events;
            }
            for (gpu, processes) in state.gpus.iter_mut().zip(processes.into_iter().flatten()) {
                gpu.processes = processes;
            }
        }
        answer
    }

    /// Make the call on `state` (all or nothing).
    pub(super) fn apply(&self, state: &mut SimState) -> DriverResult<Answer> {
        self.apply_then(state, |_| Ok(()))
    }

    fn call(&self, s: &mut SimState) -> DriverResult<Answer> {
        match *self {
            SimOp::SetMigMode { gpu, mode } => s.set_mig_mode(gpu, mode).map(Answer::Mode),
            SimOp::Reset { ref gpus } => s.reset_gpus(gpus).map(|()| Answer::Done),
            SimOp::CreateGpuInstance {
                gpu,
                profile_id,
                placement,
            } => s
                .create_gpu_instance(gpu, profile_id, placement)
                .map(Answer::Id),
            SimOp::CreateComputeInstance {
                gpu,
                gpu_instance_id,
                profile_id,
            } => s
                .create_compute_instance(gpu, gpu_instance_id, profile_id)
                .map(Answer::Id),
            SimOp::DestroyComputeInstance {
                gpu,
                gpu_instance_id,
                compute_instance_id,
            } => s
                .destroy_compute_instance(gpu, gpu_instance_id, compute_instance_id)
                .map(|()| Answer::Done),
            SimOp::DestroyGpuInstance {
                gpu,
                gpu_instance_id,
            } => s
                .destroy_gpu_instance(gpu, gpu_instance_id)
                .map(|()| Answer::Done),
            SimOp::SetComputeMode {
                gpu,
                mig_device,
                mode,
            } => {
                let device = match mig_device {
                    None => DeviceRef::Gpu(gpu),
                    Some((gpu_instance_id, compute_instance_id)) => DeviceRef::Mig {
                        gpu,
                        gpu_instance_id,
                        compute_instance_id,
                    },
                };
                s.set_compute_mode(device, mode).map(|()| Answer::Done)
            }
            SimOp::RaiseEvent {
                gpu,
                kind,
                xid,
                mig_device,
            } => s.raise(gpu, kind, xid, mig_device).map(|_| Answer::Done),
            SimOp::StartProcess(ref p) => s.start_process(p).map(|()| Answer::Done),
            SimOp::EndProcess { pid } => s.end_process(pid).map(|()| Answer::Done),
            SimOp::StopService { .. }
            | SimOp::StartService { .. }
            | SimOp::UnloadModule { .. }
            | SimOp::LoadModule { .. } => {
                if let Some((client, running)) = self.client() {
                    s.client_changed(&client, running);
                }
                Ok(Answer::Done)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::backend::sim::node_file;

    #[test]
    fn a_refused_call_changes_nothing_and_ops_read_back_as_written() {
        let mut state = node_file::from_preset("dgx-a100").unwrap();
        let enable = SimOp::SetMigMode {
            gpu: 0,
            mode: MigMode::Enabled,
        };
        assert_eq!(
            enable.apply(&mut state).unwrap(),
            Answer::Mode(ModeChange::Applied)
        );
        let before = state.clone();
        let overlap = SimOp::CreateGpuInstance {
            gpu: 0,
            profile_id: 9,
            placement: Placement { start: 1, size: 4 },
        };
        assert!(overlap.apply(&mut state).is_err());
        assert_eq!(state, before);
        let ops = [
            enable,
            SimOp::set_compute_mode(
                DeviceRef::Mig {
                    gpu: 1,
                    gpu_instance_id: 2,
                    compute_instance_id: 0,
                },
                ComputeMode::ExclusiveProcess,
            ),
            SimOp::Reset { gpus: vec![0, 3] },
            SimOp::client_changed(&Client::Service("nvsm.service".into()), false),
            SimOp::client_changed(&Client::Module("nvidia_drm".into()), true),
            SimOp::StartProcess(NewProcess {
                gpu: 1,
                pid: 4242,
                name: "python".into(),
                used_memory_mib: 512,
                mig_device: Some((2, 0)),
                kind: crate::node::model::ProcessKind::MpsClient,
            }),
            SimOp::EndProcess { pid: 4242 },
        ];
        for op in ops {
            let line = serde_json::to_string(&op).unwrap();
            assert_eq!(serde_json::from_str::<SimOp>(&line).unwrap(), op, "{line}");
        }
        assert!(serde_json::from_str::<SimOp>(r#"{"op":"explode","gpu":0}"#).is_err());
    }
}
