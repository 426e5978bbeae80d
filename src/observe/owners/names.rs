//! The names of pods and containers, by pod UID and container ID: the two things a cgroup path
//! gives. From the kubelet's log directories (`gpushare detect`, `metrics --listen`, `probe`),
//! or from the API's pods on the node (the agent). A name that is not a valid Kubernetes name
//! is not taken: these become label values and table cells.

use crate::support::dns_name::{is_dns_label as is_label, is_dns_subdomain as is_subdomain};
use k8s_openapi::api::core::v1::Pod;
use std::collections::HashMap;
use std::path::Path;

/// Where the kubelet keeps each pod's logs (`<namespace>_<pod>_<uid>/`) and a link per
/// container (`<pod>_<namespace>_<container>-<id>.log`), under the host's root.
const POD_LOGS: &str = "var/log/pods";
const CONTAINER_LOGS: &str = "var/log/containers";
/// More than the pods and containers any node runs; the rest of a larger directory is not read.
const ENTRY_LIMIT: usize = 100_000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PodName {
    pub namespace: String,
    pub pod: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ContainerName {
    pub pod: PodName,
    pub container: String,
}

/// The names known on the node.
#[derive(Debug, Clone, Default)]
pub(crate) struct PodNames {
    pods: HashMap<String, PodName>,
    containers: HashMap<String, ContainerName>,
}

impl PodNames {
    pub(crate) fn pod(&self, uid: &str) -> Option<&PodName> {
        self.pods.get(uid)
    }

    pub(crate) fn container(&self, id: &str) -> Option<&ContainerName> {
        self.containers.get(id)
    }

    /// From the kubelet's log directories under `root`; Err says why none could be read (no
    /// kubelet there, or a directory that refuses).
    pub(crate) fn from_kubelet_logs(root: &Path) -> Result<PodNames, String> {
        let mut names = PodNames::default();
        let pods = root.join(POD_LOGS);
        for entry in entries(&pods)? {
            let mut parts = entry.split('_');
            if let (Some(ns), Some(pod), Some(uid), None) =
                (parts.next(), parts.next(), parts.next(), parts.next())
                && let Some(name) = pod_name(ns, pod)
            {
                names.pods.insert(uid.to_string(), name);
            }
        }
        // Containers that started before logs went here may have no link: their pod's name
        // still comes from its directory.
        for entry in entries(&root.join(CONTAINER_LOGS)).unwrap_or_default() {
            let Some(stem) = entry.strip_suffix(".log") else {
                continue;
            };
            let Some((head, id)) = stem.rsplit_once('-') else {
                continue;
            };
            let mut parts = head.split('_');
            if let (Some(pod), Some(ns), Some(container), None) =
                (parts.next(), parts.next(), parts.next(), parts.next())
                && let Some(pod) = pod_name(ns, pod)
                && is_label(container)
                && id.bytes().all(|b| b.is_ascii_hexdigit())
            {
                names.containers.insert(
                    id.to_string(),
                    ContainerName {
                        pod,
                        container: container.to_string(),
                    },
                );
            }
        }
        Ok(names)
    }

    /// From the pods the API says run on the node: each container's ID from its status.
    pub(crate) fn from_pods(pods: &[Pod]) -> PodNames {
        let mut names = PodNames::default();
        for p in pods {
            let (Some(ns), Some(name), Some(uid)) = (
                p.metadata.namespace.as_deref(),
                p.metadata.name.as_deref(),
                p.metadata.uid.as_deref(),
            ) else {
                continue;
            };
            let Some(pod) = pod_name(ns, name) else {
                continue;
            };
            names.pods.insert(uid.to_string(), pod.clone());
            let Some(status) = &p.status else { continue };
            let statuses = [
                &status.container_statuses,
                &status.init_container_statuses,
                &status.ephemeral_container_statuses,
            ];
            for s in statuses.into_iter().flatten().flatten() {
                // `containerd://<id>`, `cri-o://<id>`, `docker://<id>`.
                let Some((_, id)) = s.container_id.as_deref().and_then(|i| i.split_once("://"))
                else {
                    continue;
                };
                if is_label(&s.name) && id.bytes().all(|b| b.is_ascii_hexdigit()) {
                    names.containers.insert(
                        id.to_string(),
                        ContainerName {
                            pod: pod.clone(),
                            container: s.name.clone(),
                        },
                    );
                }
            }
        }
        names
    }
}

/// The names in a directory, at most [`ENTRY_LIMIT`].
fn entries(dir: &Path) -> Result<Vec<String>, String> {
    let read = std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    Ok(read
        .take(ENTRY_LIMIT)
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect())
}

fn pod_name(namespace: &str, pod: &str) -> Option<PodName> {
    (is_label(namespace) && is_subdomain(pod)).then(|| PodName {
        namespace: namespace.to_string(),
        pod: pod.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "5f2c9a1e7b3d4c6f8a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f";

    #[test]
    fn the_kubelets_log_directories_name_pods_and_containers() {
        let root = tempfile::tempdir().unwrap();
        let pods = root.path().join(POD_LOGS);
        let containers = root.path().join(CONTAINER_LOGS);
        std::fs::create_dir_all(&containers).unwrap();
        for d in [
            "team-a_trainer-0_0b9f1c6e-3d4a-4f5b-8c7d-123456789abc",
            "kube-system_etcd-node.example_8f14e45fceea167a5a36dedd4bea2543",
            // Not a pod directory: ignored.
            "Bad_Name_x",
            "a_b",
        ] {
            std::fs::create_dir_all(pods.join(d)).unwrap();
        }
        for f in [
            format!("trainer-0_team-a_cuda-{ID}.log"),
            format!("trainer-0_team-a_UPPER-{ID}.log"),
            "trainer-0_team-a_cuda-nothex.log".to_string(),
            "noise".to_string(),
        ] {
            std::fs::write(containers.join(f), "").unwrap();
        }
        let names = PodNames::from_kubelet_logs(root.path()).unwrap();
        let trainer = names.pod("0b9f1c6e-3d4a-4f5b-8c7d-123456789abc").unwrap();
        assert_eq!(
            (trainer.namespace.as_str(), trainer.pod.as_str()),
            ("team-a", "trainer-0")
        );
        assert_eq!(
            names.pod("8f14e45fceea167a5a36dedd4bea2543").unwrap().pod,
            "etcd-node.example"
        );
        assert_eq!(names.pods.len(), 2);
        let c = names.container(ID).unwrap();
        assert_eq!(
            (c.pod.pod.as_str(), c.container.as_str()),
            ("trainer-0", "cuda")
        );
        assert_eq!(names.containers.len(), 1);
        let none = tempfile::tempdir().unwrap();
        assert!(
            PodNames::from_kubelet_logs(none.path())
                .unwrap_err()
                .contains("var/log/pods")
        );
    }

    #[test]
    fn the_apis_pods_name_their_containers_by_the_id_in_their_status() {
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"namespace": "ml", "name": "infer-1", "uid": "u-1"},
            "status": {"containerStatuses": [
                {"name": "server", "containerID": format!("containerd://{ID}"), "image": "", "imageID": "", "ready": true, "restartCount": 0},
                {"name": "side", "image": "", "imageID": "", "ready": false, "restartCount": 0},
                {"name": "Bad", "containerID": "containerd://abcd", "image": "", "imageID": "", "ready": true, "restartCount": 0}
            ]}
        }))
        .unwrap();
        let names = PodNames::from_pods(&[pod]);
        assert_eq!(names.pod("u-1").unwrap().pod, "infer-1");
        assert_eq!(names.container(ID).unwrap().container, "server");
        assert_eq!(names.containers.len(), 1);
    }
}
