//! The kubelet's Node: registered once, the admission's not-ready taint removed, and its
//! status kept equal to what the device plugins advertise.

use crate::Shared;
use k8s_openapi::api::core::v1::Node;
use kube::api::{Api, Patch, PatchParams, PostParams};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// What the node has besides devices: enough that no test pod waits for CPU or memory.
const BASE: [(&str, &str); 4] = [
    ("cpu", "64"),
    ("memory", "512Gi"),
    ("pods", "110"),
    ("ephemeral-storage", "1Ti"),
];

/// Create the Node unless it exists, and remove the taint admission gave it.
pub(crate) async fn register(
    client: kube::Client,
    name: &str,
    labels: &BTreeMap<String, String>,
) -> Result<(), String> {
    let nodes: Api<Node> = Api::all(client);
    let existing = nodes
        .get_opt(name)
        .await
        .map_err(|e| format!("Node {name}: {e}"))?;
    let node = match existing {
        Some(n) => n,
        None => {
            let node: Node = serde_json::from_value(json!({
                "apiVersion": "v1", "kind": "Node",
                "metadata": { "name": name, "labels": labels },
            }))
            .map_err(|e| e.to_string())?;
            nodes
                .create(&PostParams::default(), &node)
                .await
                .map_err(|e| format!("registering Node {name}: {e}"))?
        }
    };
    let taints: Vec<_> = node
        .spec
        .and_then(|s| s.taints)
        .unwrap_or_default()
        .into_iter()
        .filter(|t| t.key != "node.kubernetes.io/not-ready")
        .collect();
    nodes
        .patch(
            name,
            &PatchParams::default(),
            &Patch::Merge(json!({ "spec": { "taints": taints } })),
        )
        .await
        .map_err(|e| format!("untainting Node {name}: {e}"))?;
    Ok(())
}

/// The status the Node should have now: every device in the capacity, the allocatable ones in
/// the allocatable.
fn status(shared: &Shared) -> Value {
    let known = shared.lock();
    let mut capacity: BTreeMap<String, String> = BASE
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut allocatable = capacity.clone();
    for (resource, plugin) in &known.plugins {
        capacity.insert(resource.clone(), plugin.view().devices.len().to_string());
        allocatable.insert(resource.clone(), plugin.allocatable().len().to_string());
    }
    json!({ "status": {
        "capacity": capacity,
        "allocatable": allocatable,
        "conditions": [{
            "type": "Ready", "status": "True", "reason": "KubeletReady",
            "message": "kubelet stand-in is posting ready status",
        }],
    }})
}

/// Write the Node's status whenever it differs from what was last written, until the runtime
/// stops; an API server that is away is tried again.
pub(crate) async fn keep_status(client: kube::Client, name: String, shared: Arc<Shared>) {
    let nodes: Api<Node> = Api::all(client);
    let mut written = Value::Null;
    loop {
        let now = status(&shared);
        if now != written
            && nodes
                .patch_status(&name, &PatchParams::default(), &Patch::Merge(&now))
                .await
                .is_ok()
        {
            written = now;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
