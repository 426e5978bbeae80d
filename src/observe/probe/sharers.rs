//! Whom the probe shared a device with: the other processes the driver listed on the target's
//! GPU or MIG device when the probe started and when it ended (its own workers are not there
//! then), each with its pod and container or `host` (see `crate::observe::owners`).

use crate::node::model::{Node, Owner, ProcessKind};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Sharer {
    pub pid: u32,
    pub name: String,
    pub kind: ProcessKind,
    pub used_memory_mib: Option<u64>,
    /// None when it was not read (a simulated node) or could not be.
    pub owner: Option<Owner>,
}

impl Sharer {
    /// `ml/trainer-0/cuda (pid 4242, 1024 MiB)`.
    pub(crate) fn describe(&self) -> String {
        let owner = self
            .owner
            .as_ref()
            .map_or_else(|| "?".into(), Owner::describe);
        let mib = self
            .used_memory_mib
            .map_or_else(|| "?".into(), |m| m.to_string());
        format!("{owner} (pid {}, {mib} MiB)", self.pid)
    }
}

/// The processes on the device `uuid` (a GPU's, or a MIG device's) of GPU `gpu` in any of
/// `nodes`, once each.
pub(crate) fn on_device(nodes: &[&Node], gpu: u32, uuid: &str) -> Vec<Sharer> {
    let mut seen: Vec<Sharer> = Vec::new();
    for node in nodes {
        let Some(g) = node.gpu(gpu) else { continue };
        let mig = g
            .mig
            .instances
            .iter()
            .flatten()
            .flat_map(|gi| gi.compute_instances.iter().map(move |ci| (gi, ci)))
            .find(|(_, ci)| ci.uuid.as_deref() == Some(uuid))
            .map(|(gi, ci)| (gi.gpu_instance_id, ci.compute_instance_id));
        if mig.is_none() && g.uuid != uuid {
            continue;
        }
        for p in g.processes.iter().flatten() {
            let here = match mig {
                Some((gi, ci)) => {
                    p.gpu_instance_id == Some(gi) && p.compute_instance_id == Some(ci)
                }
                None => true,
            };
            if here && !seen.iter().any(|s| s.pid == p.pid) {
                seen.push(Sharer {
                    pid: p.pid,
                    name: p.name.clone(),
                    kind: p.kind,
                    used_memory_mib: p.used_memory_mib,
                    owner: p.owner.clone(),
                });
            }
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::backend::Backend;
    use crate::node::backend::sim::SimBackend;
    use crate::node::backend::sim::processes::NewProcess;

    #[test]
    fn the_processes_on_the_targets_device_at_either_end_once_each() {
        let sim = SimBackend::open(Some("dgx-a100"), None).unwrap();
        let mut before = sim.snapshot().unwrap();
        let p = |pid, gpu, mig_device| NewProcess {
            gpu,
            pid,
            name: "python".into(),
            used_memory_mib: 10,
            mig_device,
            kind: ProcessKind::MpsClient,
        };
        sim.start_process(p(1, 0, None)).unwrap();
        sim.start_process(p(2, 1, None)).unwrap();
        let after = sim.snapshot().unwrap();
        before.gpus[0].processes = Some(Vec::new());
        let uuid = after.gpus[0].uuid.clone();
        let on = on_device(&[&before, &after], 0, &uuid);
        assert_eq!(on.iter().map(|s| s.pid).collect::<Vec<_>>(), [1]);
        assert_eq!(on[0].describe(), "? (pid 1, 10 MiB)");
        assert!(on_device(&[&after], 0, "GPU-other").is_empty());
    }
}
