//! Whose each GPU process is: the driver lists processes by host PID; the process's cgroup
//! (`/proc/PID/cgroup` under the host's root) says which pod and container it runs in
//! ([`cgroup`]), and the kubelet's records or the API name them ([`names`]). What cannot be
//! read stays unknown, with a note on the GPU; nothing is guessed from which pods hold a device.

pub(crate) mod cgroup;
pub(crate) mod names;

use crate::node::model::{GpuNote, Node, Owner, PodContainer};
use cgroup::{Place, PodCgroups};
use names::PodNames;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The note's field on a GPU whose process could not be attributed.
pub(crate) const NOTE_FIELD: &str = "processes.owner";
/// A cgroup file is a line per hierarchy.
const CGROUP_FILE_LIMIT: u64 = 64 * 1024;

/// Reads the owners of processes on one host.
pub(crate) struct OwnerReader {
    root: PathBuf,
    names: PodNames,
    /// Why pods and containers have no names, when none could be read.
    pub names_unknown: Option<String>,
    /// gpushare runs in a cgroup namespace of its own (in a pod): paths are relative to it.
    private_namespace: bool,
    /// The pod and container gpushare runs in, when it knows (the agent): whose a process
    /// inside its own cgroup namespace is.
    own: Option<PodContainer>,
    /// Where the kubelet puts pods: a pod's cgroup anywhere else is the host's.
    pods: PodCgroups,
}

impl OwnerReader {
    /// Under `root` (`/` on a node), names from the kubelet's log directories there.
    pub(crate) fn with_kubelet_logs(root: &Path) -> OwnerReader {
        match PodNames::from_kubelet_logs(root) {
            Ok(names) => OwnerReader::with_names(root, names),
            Err(why) => OwnerReader {
                names_unknown: Some(format!("pod and container names unknown: {why}")),
                ..OwnerReader::with_names(root, PodNames::default())
            },
        }
    }

    pub(crate) fn with_names(root: &Path, names: PodNames) -> OwnerReader {
        let ns = |p: PathBuf| std::fs::read_link(p).ok();
        let ours = ns(PathBuf::from("/proc/self/ns/cgroup"));
        let hosts = ns(root.join("proc/1/ns/cgroup"));
        OwnerReader {
            root: root.to_path_buf(),
            names,
            names_unknown: None,
            private_namespace: matches!((ours, hosts), (Some(a), Some(b)) if a != b),
            own: None,
            pods: PodCgroups::default(),
        }
    }

    /// The kubelet puts pods under `pods` (its cgroup roots), not only under `/`.
    pub(crate) fn with_pod_cgroups(self, pods: PodCgroups) -> OwnerReader {
        OwnerReader { pods, ..self }
    }

    /// gpushare runs in `own`: what is inside its cgroup namespace is that container's.
    pub(crate) fn with_own_container(self, own: Option<PodContainer>) -> OwnerReader {
        OwnerReader { own, ..self }
    }

    /// Set each process's owner on `node`; a GPU gets a note for each one it cannot tell.
    pub(crate) fn attribute(&self, node: &mut Node) {
        let mut known: HashMap<u32, Result<Owner, String>> = HashMap::new();
        for gpu in &mut node.gpus {
            let mut notes = Vec::new();
            for p in gpu.processes.iter_mut().flatten() {
                let owner = known.entry(p.pid).or_insert_with(|| self.owner(p.pid));
                match owner {
                    Ok(o) => p.owner = Some(o.clone()),
                    Err(why) => {
                        p.owner = None;
                        notes.push(GpuNote::new(NOTE_FIELD, format!("pid {}: {why}", p.pid)));
                    }
                }
            }
            gpu.notes.extend(notes);
        }
    }

    /// The owner of the process `pid`, or why it cannot be told.
    pub(crate) fn owner(&self, pid: u32) -> Result<Owner, String> {
        let path = self.root.join(format!("proc/{pid}/cgroup"));
        let text = match crate::support::fsutil::read_host_text(&path, CGROUP_FILE_LIMIT) {
            Ok(Some(text)) => text,
            Ok(None) => return Err(format!("no {}: the process has ended", path.display())),
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        match cgroup::place(&text, self.private_namespace, &self.pods) {
            Ok(Place::Outside) => Ok(Owner::Host),
            Ok(Place::Pod { uid, container_id }) => {
                let container = container_id
                    .as_deref()
                    .and_then(|id| self.names.container(id));
                let pod = container.map(|c| &c.pod).or_else(|| self.names.pod(&uid));
                Ok(Owner::Pod(PodContainer {
                    namespace: pod.map(|p| p.namespace.clone()),
                    pod: pod.map(|p| p.pod.clone()),
                    pod_uid: uid,
                    container: container.map(|c| c.container.clone()),
                    container_id,
                }))
            }
            Ok(Place::ReadersNamespace) => match &self.own {
                Some(own) => Ok(Owner::Pod(own.clone())),
                None => Err(format!(
                    "{} is inside gpushare's own cgroup namespace, which hides whose it is",
                    path.display()
                )),
            },
            Err(why) => Err(format!("{}: {why}", path.display())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::backend::Backend;
    use crate::node::backend::sim::SimBackend;
    use crate::node::backend::sim::processes::NewProcess;

    const UID: &str = "0b9f1c6e-3d4a-4f5b-8c7d-123456789abc";
    const ID: &str = "5f2c9a1e7b3d4c6f8a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f";

    #[test]
    fn each_process_gets_its_pod_the_host_or_a_note() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        let put = |pid: u32, cgroup: &str| {
            std::fs::create_dir_all(r.join(format!("proc/{pid}"))).unwrap();
            std::fs::write(r.join(format!("proc/{pid}/cgroup")), cgroup).unwrap();
        };
        let u = UID.replace('-', "_");
        put(
            10,
            &format!(
                "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod{u}.slice/cri-containerd-{ID}.scope\n"
            ),
        );
        put(11, "0::/system.slice/ollama.service\n");
        put(12, "not a cgroup file\n");
        std::fs::create_dir_all(r.join(format!("var/log/pods/ml_trainer-0_{UID}"))).unwrap();
        std::fs::create_dir_all(r.join("var/log/containers")).unwrap();
        std::fs::write(
            r.join(format!("var/log/containers/trainer-0_ml_cuda-{ID}.log")),
            "",
        )
        .unwrap();

        let sim = SimBackend::from_preset("t4x4").unwrap();
        for (pid, gpu) in [(10, 0), (11, 0), (12, 1), (13, 1), (10, 1)] {
            let p = NewProcess {
                gpu,
                pid,
                name: "python".into(),
                used_memory_mib: 100,
                mig_device: None,
                kind: Default::default(),
            };
            sim.start_process(p).unwrap();
        }
        let mut node = sim.snapshot().unwrap();
        let reader = OwnerReader::with_kubelet_logs(r);
        assert_eq!(reader.names_unknown, None);
        reader.attribute(&mut node);
        let owners = |g: usize| -> Vec<Option<String>> {
            node.gpus[g]
                .processes
                .as_ref()
                .unwrap()
                .iter()
                .map(|p| p.owner.as_ref().map(Owner::describe))
                .collect()
        };
        assert_eq!(
            owners(0),
            [Some("ml/trainer-0/cuda".into()), Some("host".into())]
        );
        assert_eq!(owners(1), [None, None, Some("ml/trainer-0/cuda".into())]);
        let notes: Vec<&str> = node.gpus[1]
            .notes
            .iter()
            .filter(|n| n.field == NOTE_FIELD)
            .map(|n| n.message.as_str())
            .collect();
        assert!(
            notes[0].starts_with("pid 12: ") && notes[0].contains("line 1 is not"),
            "{notes:?}"
        );
        assert!(
            notes[1].starts_with("pid 13: ") && notes[1].contains("the process has ended"),
            "{notes:?}"
        );
        // Without the kubelet's logs the pod is still known by its UID and the container by its ID.
        let bare = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(bare.path().join("proc/10")).unwrap();
        std::fs::copy(r.join("proc/10/cgroup"), bare.path().join("proc/10/cgroup")).unwrap();
        let reader = OwnerReader::with_kubelet_logs(bare.path());
        assert!(
            reader
                .names_unknown
                .as_deref()
                .unwrap()
                .contains("names unknown")
        );
        let Ok(Owner::Pod(p)) = reader.owner(10) else {
            panic!()
        };
        assert_eq!(
            (p.pod_uid.as_str(), p.container_id.as_deref(), p.pod),
            (UID, Some(ID), None)
        );
    }
}

#[cfg(test)]
mod own_namespace_tests {
    use super::*;

    #[test]
    fn inside_its_own_cgroup_namespace_a_process_is_the_agents_own_when_it_knows_itself() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("proc/9")).unwrap();
        std::fs::write(root.path().join("proc/9/cgroup"), "0::/\n").unwrap();
        let mut reader = OwnerReader::with_names(root.path(), PodNames::default());
        reader.private_namespace = true;
        assert!(
            reader
                .owner(9)
                .unwrap_err()
                .contains("own cgroup namespace")
        );
        let agent = PodContainer {
            namespace: Some("kube-system".into()),
            pod: Some("gpushare-agent-x1".into()),
            pod_uid: "0b9f1c6e-3d4a-4f5b-8c7d-123456789abc".into(),
            container: Some("gpushare".into()),
            container_id: None,
        };
        let reader = reader.with_own_container(Some(agent.clone()));
        assert_eq!(reader.owner(9), Ok(Owner::Pod(agent)));
    }
}
