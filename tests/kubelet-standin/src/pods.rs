//! The kubelet's admission of the pods bound to its node, as its device manager does it: each
//! container's extended resources that a plugin serves get distinct devices (the plugin's
//! preferred ones first, when it offers a preference), the plugin's `Allocate` answer is what
//! the container would get, and the devices come back when the pod goes. A pod whose devices
//! cannot be had is rejected (`UnexpectedAdmissionError`), as the kubelet rejects it.

use crate::Shared;
use crate::api::deviceplugin::ContainerAllocateResponse;
use crate::api::podresources::{ContainerDevices, ContainerResources, PodResources};
use crate::plugin;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams};
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

/// One container's devices of one resource, and the plugin's answer for them.
#[derive(Debug, Clone)]
pub struct Assigned {
    pub namespace: String,
    pub pod: String,
    pub container: String,
    pub resource: String,
    pub devices: Vec<String>,
    pub response: ContainerAllocateResponse,
}

/// A container's devices of one resource and the plugin's answer: (resource, IDs, answer).
type Got = (String, Vec<String>, ContainerAllocateResponse);

/// A pod the kubelet has admitted, or rejected.
pub(crate) struct Admitted {
    namespace: String,
    name: String,
    uid: String,
    /// Per container, in the pod's order: its name and what it got of each resource.
    containers: Vec<(String, Vec<Got>)>,
    pub(crate) rejected: Option<String>,
}

impl Admitted {
    pub(crate) fn key(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
    }

    pub(crate) fn is(&self, namespace: &str, name: &str) -> bool {
        self.namespace == namespace && self.name == name
    }

    pub(crate) fn assigned(&self) -> Vec<Assigned> {
        let mut out = Vec::new();
        for (container, got) in &self.containers {
            for (resource, devices, response) in got {
                out.push(Assigned {
                    namespace: self.namespace.clone(),
                    pod: self.name.clone(),
                    container: container.clone(),
                    resource: resource.clone(),
                    devices: devices.clone(),
                    response: response.clone(),
                });
            }
        }
        out
    }

    pub(crate) fn pod_resources(&self) -> PodResources {
        PodResources {
            name: self.name.clone(),
            namespace: self.namespace.clone(),
            containers: self
                .containers
                .iter()
                .map(|(name, got)| ContainerResources {
                    name: name.clone(),
                    devices: got
                        .iter()
                        .map(|(resource, ids, _)| ContainerDevices {
                            resource_name: resource.clone(),
                            device_ids: ids.clone(),
                            topology: None,
                        })
                        .collect(),
                    cpu_ids: vec![],
                    memory: vec![],
                    dynamic_resources: vec![],
                })
                .collect(),
        }
    }
}

/// The devices of `resource` held by admitted pods.
fn in_use(admitted: &[Admitted], resource: &str) -> BTreeSet<String> {
    admitted
        .iter()
        .filter(|p| p.rejected.is_none())
        .flat_map(|p| &p.containers)
        .flat_map(|(_, got)| got)
        .filter(|(r, _, _)| r == resource)
        .flat_map(|(_, ids, _)| ids.iter().cloned())
        .collect()
}

/// The extended resources a container asks for, with how many (limits, which the API server
/// makes equal to the requests for extended resources).
fn extended(
    container: &k8s_openapi::api::core::v1::Container,
) -> Result<Vec<(String, usize)>, String> {
    let resources = container.resources.as_ref();
    let asked = resources
        .and_then(|r| r.limits.clone())
        .or_else(|| resources.and_then(|r| r.requests.clone()))
        .unwrap_or_default();
    let mut out = Vec::new();
    for (name, quantity) in asked {
        let native = !name.contains('/') || name.contains("kubernetes.io/");
        if native {
            continue;
        }
        let n = quantity
            .0
            .parse::<usize>()
            .map_err(|_| format!("{name}: {} is not a whole number of devices", quantity.0))?;
        if n > 0 {
            out.push((name, n));
        }
    }
    Ok(out)
}

/// Choose and allocate the devices of every container of `pod`; the reason when the kubelet
/// would reject it.
async fn admit_pod(shared: &Shared, pod: &Pod) -> Admitted {
    let meta = &pod.metadata;
    let mut admitted = Admitted {
        namespace: meta.namespace.clone().unwrap_or_default(),
        name: meta.name.clone().unwrap_or_default(),
        uid: meta.uid.clone().unwrap_or_default(),
        containers: Vec::new(),
        rejected: None,
    };
    // Devices chosen for this pod's earlier containers are not free for its later ones.
    let mut chosen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let containers = pod
        .spec
        .as_ref()
        .map(|s| s.containers.clone())
        .unwrap_or_default();
    for container in containers {
        let mut got = Vec::new();
        let asked = match extended(&container) {
            Ok(a) => a,
            Err(why) => {
                admitted.rejected = Some(why);
                return admitted;
            }
        };
        for (resource, needed) in asked {
            match choose_and_allocate(
                shared,
                &resource,
                needed,
                chosen.entry(resource.clone()).or_default(),
            )
            .await
            {
                Ok((ids, response)) => got.push((resource, ids, response)),
                Err(why) => {
                    admitted.rejected = Some(why);
                    return admitted;
                }
            }
        }
        admitted.containers.push((container.name, got));
    }
    admitted
}

async fn choose_and_allocate(
    shared: &Shared,
    resource: &str,
    needed: usize,
    chosen: &mut BTreeSet<String>,
) -> Result<(Vec<String>, ContainerAllocateResponse), String> {
    let (available, client, prefers) = {
        let known = shared.lock();
        let plugin = known
            .plugins
            .get(resource)
            .ok_or_else(|| format!("no device plugin has registered {resource}"))?;
        let held = in_use(&known.admitted, resource);
        let available: Vec<String> = plugin
            .allocatable()
            .into_iter()
            .filter(|id| !held.contains(id) && !chosen.contains(id))
            .collect();
        (
            available,
            plugin.client(),
            plugin.view().options.get_preferred_allocation_available,
        )
    };
    if available.len() < needed {
        return Err(format!(
            "Allocate failed due to requested number of devices unavailable for {resource}. \
             Requested: {needed}, Available: {}, which is unexpected",
            available.len()
        ));
    }
    let mut ids: Vec<String> = Vec::new();
    if prefers {
        let preferred =
            plugin::preferred_allocation(client.clone(), &available, &[], needed as i32).await?;
        ids.extend(
            preferred
                .into_iter()
                .filter(|id| available.contains(id))
                .take(needed),
        );
    }
    for id in &available {
        if ids.len() == needed {
            break;
        }
        if !ids.contains(id) {
            ids.push(id.clone());
        }
    }
    let response = plugin::allocate(client, &ids).await?;
    chosen.extend(ids.iter().cloned());
    Ok((ids, response))
}

/// Admit the pods bound to `node` and release the devices of pods that go, until the runtime
/// stops. A pod being deleted is finished at once: nothing runs in it.
pub(crate) async fn admit(client: kube::Client, node: String, shared: Arc<Shared>) {
    let all: Api<Pod> = Api::all(client.clone());
    let on_node = ListParams::default().fields(&format!("spec.nodeName={node}"));
    loop {
        if let Ok(list) = all.list(&on_node).await {
            let uid = |p: &Pod| p.metadata.uid.clone().unwrap_or_default();
            let live: BTreeSet<String> = list
                .items
                .iter()
                .filter(|p| p.metadata.deletion_timestamp.is_none())
                .map(uid)
                .collect();
            shared.update(|k| k.admitted.retain(|a| live.contains(&a.uid)));
            for pod in &list.items {
                let ns = pod.metadata.namespace.clone().unwrap_or_default();
                let name = pod.metadata.name.clone().unwrap_or_default();
                let pods: Api<Pod> = Api::namespaced(client.clone(), &ns);
                if pod.metadata.deletion_timestamp.is_some() {
                    let _ = pods
                        .delete(&name, &DeleteParams::default().grace_period(0))
                        .await;
                    continue;
                }
                let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref());
                let known = shared.lock().admitted.iter().any(|a| a.uid == uid(pod));
                if known || matches!(phase, Some("Succeeded" | "Failed")) {
                    continue;
                }
                let admitted = admit_pod(&shared, pod).await;
                let status = match &admitted.rejected {
                    None => json!({ "status": { "phase": "Running" } }),
                    Some(why) => json!({ "status": {
                        "phase": "Failed", "reason": "UnexpectedAdmissionError", "message": why,
                    }}),
                };
                let _ = pods
                    .patch_status(&name, &PatchParams::default(), &Patch::Merge(&status))
                    .await;
                shared.update(|k| k.admitted.push(admitted));
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
