//! The node's ResourceSlice (`resource.k8s.io/v1`): one pool named after the node, one slice,
//! its devices exactly the node's ([`super::devices`]). Written only when they changed (a
//! new pool generation each time), so an idle node asks nothing of the API server but a read
//! at start.

use super::devices::DRIVER;
use crate::error::{Error, Result};
use kube::api::{Api, DynamicObject, PostParams};
use kube::core::{ApiResource, GroupVersionKind};
use serde_json::{Value, json};

/// The slice's name: the driver's and a hash of the node's name (a node's name may be as long
/// as a slice's may be).
pub(crate) fn slice_name(node: &str) -> String {
    format!("{DRIVER}-{}", crate::kube_api::short_hash(node))
}

fn api(client: &kube::Client) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk("resource.k8s.io", "v1", "ResourceSlice");
    Api::all_with(client.clone(), &ApiResource::from_gvk(&gvk))
}

/// The slice of `node` with `devices` (as they are published), at pool `generation`.
pub(crate) fn slice(node: &str, devices: &[Value], generation: i64) -> Value {
    json!({
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {
            "name": slice_name(node),
            "labels": { "app.kubernetes.io/managed-by": "gpushare-dra-plugin" },
        },
        "spec": {
            "driver": DRIVER,
            "nodeName": node,
            "pool": { "name": node, "generation": generation, "resourceSliceCount": 1 },
            "devices": devices,
        },
    })
}

/// Keeps the node's slice equal to its devices.
pub(crate) struct Publisher {
    client: kube::Client,
    node: String,
    /// The devices last written or read back; None before the first look.
    published: Option<Vec<Value>>,
}

impl Publisher {
    pub(crate) fn new(client: kube::Client, node: &str) -> Publisher {
        Publisher {
            client,
            node: node.to_string(),
            published: None,
        }
    }

    /// Make the slice list `devices`; true when it was written.
    pub(crate) async fn publish(&mut self, devices: Vec<Value>) -> Result<bool> {
        if self.published.as_ref() == Some(&devices) {
            return Ok(false);
        }
        let api = api(&self.client);
        let name = slice_name(&self.node);
        let cannot = |what: &str, e: kube::Error| {
            Error::failed(format!("cannot {what} the ResourceSlice {name}: {e}"))
        };
        let existing = api.get_opt(&name).await.map_err(|e| cannot("read", e))?;
        let written = match existing {
            Some(found) => {
                let spec = &found.data["spec"];
                if spec["devices"] == json!(devices) && spec["nodeName"] == self.node.as_str() {
                    false
                } else {
                    let generation = spec["pool"]["generation"].as_i64().unwrap_or(0) + 1;
                    let mut object: DynamicObject =
                        serde_json::from_value(slice(&self.node, &devices, generation))
                            .map_err(|e| Error::failed(format!("a ResourceSlice: {e}")))?;
                    object.metadata.resource_version = found.metadata.resource_version.clone();
                    api.replace(&name, &PostParams::default(), &object)
                        .await
                        .map_err(|e| cannot("update", e))?;
                    true
                }
            }
            None => {
                let object: DynamicObject = serde_json::from_value(slice(&self.node, &devices, 1))
                    .map_err(|e| Error::failed(format!("a ResourceSlice: {e}")))?;
                api.create(&PostParams::default(), &object)
                    .await
                    .map_err(|e| cannot("create", e))?;
                true
            }
        };
        self.published = Some(devices);
        Ok(written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_pool_per_node_named_for_any_node() {
        let s = slice("gpu-node-1", &[json!({"name": "gpu-0"})], 3);
        assert_eq!(s["spec"]["pool"]["name"], "gpu-node-1");
        assert_eq!(s["spec"]["pool"]["generation"], 3);
        assert_eq!(s["spec"]["driver"], DRIVER);
        let long = "n".repeat(253);
        let name = slice_name(&long);
        assert!(
            name.len() <= 253 && crate::k8s::objects::is_dns_subdomain(&name),
            "{name}"
        );
        assert_ne!(slice_name("a"), slice_name("b"));
    }
}
