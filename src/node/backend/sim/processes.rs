//! GPU processes on the simulated node: a test registers a real process (a container's, found
//! by its host PID) as one the driver lists, on a GPU or a MIG device, with the memory it uses,
//! and ends it. Every NVML client of the node (gpushare, the stand-in's programs, NVIDIA's
//! plugins) then lists it, as the driver would.

use super::state::SimState;
use crate::node::backend::{DriverError, DriverErrorKind, DriverResult};
use crate::node::model::catalog::catalog;
use crate::node::model::{Process, ProcessKind};
use serde::{Deserialize, Serialize};

/// A process to start: what the driver will list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NewProcess {
    pub gpu: u32,
    pub pid: u32,
    pub name: String,
    pub used_memory_mib: u64,
    /// On the MIG device (GPU instance, compute instance); the whole GPU when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mig_device: Option<(u32, u32)>,
    #[serde(default)]
    pub kind: ProcessKind,
}

fn refused(kind: DriverErrorKind, detail: String) -> DriverError {
    DriverError::new(kind, detail)
}

impl SimState {
    /// List `p` as a process of its GPU: refused where the driver could not have it (no such
    /// device, a process on the whole of a GPU with MIG on, more memory than the GPU has, the
    /// same pid already there).
    pub(crate) fn start_process(&mut self, p: &NewProcess) -> DriverResult<()> {
        let g = self.gpu(p.gpu)?;
        match p.mig_device {
            Some((gi, ci)) if !g.has_mig_device(gi, ci) => {
                return Err(refused(
                    DriverErrorKind::NotFound,
                    format!("GPU {} has no MIG device {gi}:{ci}", p.gpu),
                ));
            }
            None if g.mig_current.is_enabled() => {
                return Err(refused(
                    DriverErrorKind::InvalidArgument,
                    format!(
                        "GPU {} has MIG on: a process runs on one of its MIG devices (--mig-device GI:CI)",
                        p.gpu
                    ),
                ));
            }
            _ => {}
        }
        if g.processes.iter().any(|q| q.pid == p.pid) {
            return Err(refused(
                DriverErrorKind::InUse,
                format!("GPU {} already lists pid {}", p.gpu, p.pid),
            ));
        }
        let used = g
            .processes_memory_mib()
            .and_then(|u| u.checked_add(p.used_memory_mib));
        if let Some(model) = catalog().model(&g.model)
            && used.is_none_or(|u| u > model.memory_mib)
        {
            return Err(refused(
                DriverErrorKind::InsufficientResources,
                format!(
                    "GPU {} has {} MiB: its processes would use more",
                    p.gpu, model.memory_mib
                ),
            ));
        }
        // A MIG device has its GPU instance's memory, no more: the driver fails the allocation.
        if let Some((gi, _)) = p.mig_device {
            let instance = g.instances.iter().find(|i| i.id == gi);
            if let Some(instance) = instance {
                let memory = g.gi_profile(instance)?.memory_mib;
                let used = g
                    .processes
                    .iter()
                    .filter(|q| q.gpu_instance_id == Some(gi))
                    .filter_map(|q| q.used_memory_mib)
                    .try_fold(p.used_memory_mib, u64::checked_add);
                if used.is_none_or(|u| u > memory) {
                    return Err(refused(
                        DriverErrorKind::InsufficientResources,
                        format!(
                            "GPU {} GPU instance {gi} has {memory} MiB: its processes would use more",
                            p.gpu
                        ),
                    ));
                }
            }
        }
        self.gpus[p.gpu as usize].processes.push(Process {
            pid: p.pid,
            name: p.name.clone(),
            used_memory_mib: Some(p.used_memory_mib),
            gpu_instance_id: p.mig_device.map(|(gi, _)| gi),
            compute_instance_id: p.mig_device.map(|(_, ci)| ci),
            kind: p.kind,
            owner: None,
        });
        Ok(())
    }

    /// The process `pid` ends: no GPU lists it any more.
    pub(crate) fn end_process(&mut self, pid: u32) -> DriverResult<()> {
        let mut found = false;
        for g in &mut self.gpus {
            let before = g.processes.len();
            g.processes.retain(|q| q.pid != pid);
            found |= g.processes.len() != before;
        }
        if found {
            Ok(())
        } else {
            Err(refused(
                DriverErrorKind::NotFound,
                format!("no GPU lists pid {pid}"),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::backend::sim::node_file;

    fn on(gpu: u32, pid: u32, mib: u64) -> NewProcess {
        NewProcess {
            gpu,
            pid,
            name: "python".into(),
            used_memory_mib: mib,
            mig_device: None,
            kind: ProcessKind::MpsClient,
        }
    }

    #[test]
    fn a_process_is_listed_where_the_driver_could_have_it_and_ends() {
        let mut s = node_file::from_preset("t4x4").unwrap();
        s.start_process(&on(1, 42, 1000)).unwrap();
        assert_eq!(s.gpus[1].processes[0].kind, ProcessKind::MpsClient);
        let err = |r: DriverResult<()>| r.unwrap_err().detail;
        assert!(err(s.start_process(&on(1, 42, 1))).contains("already lists pid 42"));
        assert!(err(s.start_process(&on(1, 43, 1 << 20))).contains("would use more"));
        assert!(err(s.start_process(&on(9, 43, 1))).contains("no GPU with index 9"));
        let mut mig = on(1, 44, 1);
        mig.mig_device = Some((1, 0));
        assert!(err(s.start_process(&mig)).contains("no MIG device 1:0"));
        s.end_process(42).unwrap();
        assert!(s.gpus[1].processes.is_empty());
        assert!(err(s.end_process(42)).contains("no GPU lists pid 42"));
    }

    #[test]
    fn an_end_that_cannot_be_logged_leaves_the_process_listed() {
        let mut s = node_file::from_preset("t4x4").unwrap();
        s.start_process(&on(2, 42, 10)).unwrap();
        let end = super::super::ops::SimOp::EndProcess { pid: 42 };
        let refused = end.apply_then(&mut s, |_| {
            Err(DriverError::new(DriverErrorKind::Unknown, "disk full"))
        });
        assert!(refused.is_err());
        assert_eq!(s.gpus[2].processes.len(), 1);
    }

    #[test]
    fn with_mig_on_a_process_runs_on_a_mig_device() {
        let mut s = node_file::from_preset("dgx-a100").unwrap();
        s.set_mig_mode(0, crate::node::model::MigMode::Enabled)
            .unwrap();
        let err = s.start_process(&on(0, 7, 10)).unwrap_err().detail;
        assert!(err.contains("has MIG on"), "{err}");
        // A 1g.5gb holds 4864 MiB, whatever the GPU's 40960.
        let gi = s
            .create_gpu_instance(0, 19, crate::node::model::Placement { start: 0, size: 1 })
            .unwrap();
        s.create_compute_instance(0, gi, 0).unwrap();
        let mig = |pid, mib| NewProcess {
            mig_device: Some((gi, 0)),
            ..on(0, pid, mib)
        };
        let err = s.start_process(&mig(7, 9000)).unwrap_err().detail;
        assert!(err.contains("4864 MiB"), "{err}");
        s.start_process(&mig(7, 4000)).unwrap();
        assert!(s.start_process(&mig(8, 865)).is_err(), "4000 + 865 > 4864");
        s.start_process(&mig(8, 864)).unwrap();
    }
}
