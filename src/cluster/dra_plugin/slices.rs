//! The node's ResourceSlices (`resource.k8s.io/v1`): one pool named after the node. Its first
//! slice lists the node's devices ([`super::devices`]); each dynamic GPU adds a slice with its
//! counter set and one with its partitionable devices ([`super::partitionable`]) — the API
//! takes counters and devices in separate slices, and at most 64 devices that consume counters
//! in one. Written only when something changed (a new pool generation for every slice each
//! time; slices of an older generation are ignored, and those no longer wanted deleted), so an
//! idle node asks nothing of the API server but a read at start.

use super::devices::DRIVER;
use crate::support::error::{Error, Result};
use kube::api::{Api, DeleteParams, DynamicObject, ListParams, PostParams};
use kube::core::{ApiResource, GroupVersionKind};
use serde_json::{Value, json};

/// The label on every slice the plugin writes.
const MANAGED_BY: (&str, &str) = ("app.kubernetes.io/managed-by", "gpushare-dra-plugin");

/// The name of the node's first slice: the driver's and a hash of the node's name (a node's
/// name may be as long as a slice's may be).
pub(crate) fn slice_name(node: &str) -> String {
    format!("{DRIVER}-{}", crate::cluster::api_client::short_hash(node))
}

/// One slice of the node's pool: its name and its content (`{"devices": [...]}` or
/// `{"sharedCounters": [...]}`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Content {
    pub name: String,
    pub body: Value,
}

/// The pool of `node`: its devices, then for each dynamic GPU its counter set and its devices.
pub(crate) fn pool(
    node: &str,
    devices: Vec<Value>,
    dynamic: Vec<(u32, Value, Vec<Value>)>,
) -> Vec<Content> {
    let first = slice_name(node);
    let mut out = vec![Content {
        name: first.clone(),
        body: json!({ "devices": devices }),
    }];
    for (gpu, counter_set, devices) in dynamic {
        out.push(Content {
            name: format!("{first}-gpu{gpu}-counters"),
            body: json!({ "sharedCounters": [counter_set] }),
        });
        out.push(Content {
            name: format!("{first}-gpu{gpu}"),
            body: json!({ "devices": devices }),
        });
    }
    out
}

fn api(client: &kube::Client) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk("resource.k8s.io", "v1", "ResourceSlice");
    Api::all_with(client.clone(), &ApiResource::from_gvk(&gvk))
}

/// A slice of `node`'s pool of `count` slices at `generation`.
pub(crate) fn slice(node: &str, content: &Content, generation: i64, count: usize) -> Value {
    let mut spec = json!({
        "driver": DRIVER,
        "nodeName": node,
        "pool": { "name": node, "generation": generation, "resourceSliceCount": count },
    });
    if let (Some(spec), Some(body)) = (spec.as_object_mut(), content.body.as_object()) {
        spec.extend(body.clone());
    }
    json!({
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {
            "name": content.name,
            "labels": { MANAGED_BY.0: MANAGED_BY.1 },
        },
        "spec": spec,
    })
}

/// Whether the slice `found` holds `content` in a pool of `count` slices.
fn holds(found: &DynamicObject, node: &str, content: &Content, count: usize) -> bool {
    let spec = &found.data["spec"];
    spec["nodeName"] == node
        && spec["pool"]["resourceSliceCount"] == json!(count)
        && content
            .body
            .as_object()
            .is_some_and(|b| b.iter().all(|(k, v)| &spec[k] == v))
        && ["devices", "sharedCounters"]
            .iter()
            .all(|k| content.body.get(k).is_some() || spec.get(k).is_none_or(Value::is_null))
}

/// Keeps the node's slices equal to its devices.
pub(crate) struct Publisher {
    client: kube::Client,
    node: String,
    /// The slices last written or read back; None before the first look.
    published: Option<Vec<Content>>,
}

impl Publisher {
    pub(crate) fn new(client: kube::Client, node: &str) -> Publisher {
        Publisher {
            client,
            node: node.to_string(),
            published: None,
        }
    }

    /// Make the pool hold `wanted`; true when a slice was written.
    pub(crate) async fn publish(&mut self, wanted: Vec<Content>) -> Result<bool> {
        if self.published.as_ref() == Some(&wanted) {
            return Ok(false);
        }
        let api = api(&self.client);
        let cannot = |what: &str, name: &str, e: kube::Error| {
            Error::failed(format!("cannot {what} the ResourceSlice {name}: {e}"))
        };
        let params = ListParams::default()
            .fields(&format!("spec.nodeName={},spec.driver={DRIVER}", self.node));
        let existing = api
            .list(&params)
            .await
            .map_err(|e| cannot("list", "of the node", e))?
            .items;
        let generations: Vec<i64> = existing
            .iter()
            .map(|s| s.data["spec"]["pool"]["generation"].as_i64().unwrap_or(0))
            .collect();
        let count = wanted.len();
        let same_generation = generations.windows(2).all(|w| w[0] == w[1]);
        let unchanged = same_generation
            && existing.len() == count
            && wanted.iter().all(|c| {
                existing.iter().any(|s| {
                    s.metadata.name.as_deref() == Some(&c.name) && holds(s, &self.node, c, count)
                })
            });
        if unchanged {
            self.published = Some(wanted);
            return Ok(false);
        }
        // Another writer's generation may be anything: never past the largest.
        let generation = generations
            .iter()
            .max()
            .copied()
            .unwrap_or(0)
            .saturating_add(1);
        for content in &wanted {
            let mut object: DynamicObject =
                serde_json::from_value(slice(&self.node, content, generation, count))
                    .map_err(|e| Error::failed(format!("a ResourceSlice: {e}")))?;
            match existing
                .iter()
                .find(|s| s.metadata.name.as_deref() == Some(&content.name))
            {
                Some(found) => {
                    object.metadata.resource_version = found.metadata.resource_version.clone();
                    api.replace(&content.name, &PostParams::default(), &object)
                        .await
                        .map_err(|e| cannot("update", &content.name, e))?;
                }
                None => {
                    api.create(&PostParams::default(), &object)
                        .await
                        .map_err(|e| cannot("create", &content.name, e))?;
                }
            }
        }
        // Slices no longer wanted (a GPU that stopped being dynamic): only the plugin's own.
        for stale in &existing {
            let Some(name) = stale.metadata.name.as_deref() else {
                continue;
            };
            let ours = stale
                .metadata
                .labels
                .as_ref()
                .and_then(|l| l.get(MANAGED_BY.0))
                .is_some_and(|v| v == MANAGED_BY.1);
            if ours && !wanted.iter().any(|c| c.name == name) {
                match api.delete(name, &DeleteParams::default()).await {
                    Ok(_) => {}
                    Err(kube::Error::Api(s)) if s.code == 404 => {}
                    Err(e) => return Err(cannot("delete", name, e)),
                }
            }
        }
        self.published = Some(wanted);
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_pool_per_node_named_for_any_node() {
        let contents = pool(
            "gpu-node-1",
            vec![json!({"name": "gpu-0"})],
            vec![(
                1,
                json!({"name": "gpu-1"}),
                vec![json!({"name": "gpu-1-mig-7g40gb-0"})],
            )],
        );
        assert_eq!(contents.len(), 3);
        let s = slice("gpu-node-1", &contents[0], 3, contents.len());
        assert_eq!(s["spec"]["pool"]["name"], "gpu-node-1");
        assert_eq!(s["spec"]["pool"]["generation"], 3);
        assert_eq!(s["spec"]["pool"]["resourceSliceCount"], 3);
        assert_eq!(s["spec"]["driver"], DRIVER);
        assert_eq!(s["spec"]["devices"][0]["name"], "gpu-0");
        let counters = slice("gpu-node-1", &contents[1], 3, contents.len());
        assert_eq!(counters["spec"]["sharedCounters"][0]["name"], "gpu-1");
        assert!(counters["spec"].get("devices").is_none());
        assert_eq!(counters["spec"]["nodeName"], "gpu-node-1");
        let long = "n".repeat(253);
        let name = slice_name(&long);
        assert!(
            name.len() <= 253 && crate::support::dns_name::is_dns_subdomain(&name),
            "{name}"
        );
        assert_ne!(slice_name("a"), slice_name("b"));
    }
}
