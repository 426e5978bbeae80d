//! Each device's health as the health record and the policy say (see [`crate::node::gpu_health`]):
//! an unhealthy device carries the taint `gpushare.io/unhealthy=<cause>:NoSchedule` in the
//! slice (exactly the devices a fault names: a GPU's fault all its devices, a MIG device's only
//! it), and the kubelet hears the same through the `DRAResourceHealth` stream. Unknown health
//! (no watch listens) taints nothing and is told as unknown.

use super::devices::DraDevice;
use super::proto::health::dra_resource_health_server::DraResourceHealth;
use super::proto::health::{
    DeviceHealth, DeviceIdentifier, HealthStatus, NodeWatchResourcesRequest,
    NodeWatchResourcesResponse,
};
use crate::node::gpu_health::NodeHealth;
use crate::node::gpu_health::policy::Class;
use crate::node::model::Node;
use crate::support::paths::Paths;
use std::collections::BTreeMap;
use std::pin::Pin;
use std::time::Duration;
use tonic::{Request, Response, Status};

use crate::node::gpu_health::TAINT_KEY;

/// How often the stream looks at the health again.
const LOOK_EVERY: Duration = Duration::from_secs(2);

fn node_health(paths: &Paths, node: &Node) -> NodeHealth {
    let (policy, _) = crate::node::gpu_health::node_policy(paths);
    NodeHealth::read(paths, node, &policy, crate::support::clock::unix_now()).unwrap_or_else(|e| {
        NodeHealth {
            gpus: node
                .gpus
                .iter()
                .map(|g| (g.index, Err(e.message.clone())))
                .collect(),
        }
    })
}

/// Why a device is unhealthy.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Unhealthy {
    pub why: String,
    /// A cause the policy calls fatal is among them: the GPU needs a reset.
    pub fatal: bool,
}

/// The taint's effect: `NoExecute` for a fatal cause when the operator asked, else `NoSchedule`.
pub(crate) fn effect(bad: &Unhealthy, evict_on_fatal: bool) -> &'static str {
    if evict_on_fatal && bad.fatal {
        "NoExecute"
    } else {
        "NoSchedule"
    }
}

/// Each device known to be unhealthy, with why.
pub(crate) fn unhealthy(
    paths: &Paths,
    node: &Node,
    offered: &[DraDevice],
) -> BTreeMap<String, Unhealthy> {
    let health = node_health(paths, node);
    offered
        .iter()
        .filter_map(|d| {
            let h = health.gpus.get(&d.gpu)?.as_ref().ok()?;
            let ok = match d.mig {
                None => h.healthy,
                Some(m) => h.mig_device_healthy(m),
            };
            if ok {
                return None;
            }
            // The reasons that make this device unhealthy: its GPU's, and its own.
            let mut reasons: Vec<_> = h
                .reasons
                .iter()
                .filter(|r| r.mig_device.is_none() || r.mig_device == d.mig)
                .collect();
            if reasons.is_empty() {
                reasons = h.reasons.iter().collect();
            }
            let why: Vec<String> = reasons.iter().map(|r| r.describe()).collect();
            let fatal = reasons.iter().any(|r| r.class == Class::Fatal.as_str());
            Some((
                d.name.clone(),
                Unhealthy {
                    why: why.join(", "),
                    fatal,
                },
            ))
        })
        .collect()
}

/// The device as the slice lists it, tainted when unhealthy.
pub(crate) fn with_taint(
    device: &DraDevice,
    bad: Option<&Unhealthy>,
    evict_on_fatal: bool,
) -> serde_json::Value {
    let mut listed = device.published.clone();
    if let Some(bad) = bad {
        listed["taints"] = serde_json::json!([{
            "key": TAINT_KEY,
            "value": crate::node::gpu_health::taint_value(&bad.why),
            "effect": effect(bad, evict_on_fatal),
        }]);
    }
    listed
}

/// The health stream: the node through its backend, the health record under `paths`.
#[derive(Clone)]
pub(crate) struct Watch {
    pub backend: crate::node::backend::SharedBackend,
    pub paths: Paths,
    pub node: String,
}

/// Every device's health now.
fn look(plugin: &Watch) -> Vec<DeviceHealth> {
    let Ok(node) = plugin.backend.snapshot() else {
        return Vec::new();
    };
    let Ok(offered) = super::devices::devices(&node) else {
        return Vec::new();
    };
    let health = node_health(&plugin.paths, &node);
    let bad = unhealthy(&plugin.paths, &node, &offered);
    offered
        .iter()
        .map(|d| {
            let known = health.gpus.get(&d.gpu).is_some_and(|h| h.is_ok());
            let (status, message) = match bad.get(&d.name) {
                Some(bad) => (HealthStatus::Unhealthy, bad.why.clone()),
                None if known => (HealthStatus::Healthy, String::new()),
                None => (HealthStatus::Unknown, "no health watch listens".into()),
            };
            DeviceHealth {
                device: Some(DeviceIdentifier {
                    pool_name: plugin.node.clone(),
                    device_name: d.name.clone(),
                }),
                health: status as i32,
                last_updated_time: crate::support::clock::unix_now() as i64,
                health_check_timeout_seconds: 0,
                message,
            }
        })
        .collect()
}

type Stream = Pin<
    Box<dyn futures::Stream<Item = std::result::Result<NodeWatchResourcesResponse, Status>> + Send>,
>;

#[tonic::async_trait]
impl DraResourceHealth for Watch {
    type NodeWatchResourcesStream = Stream;

    async fn node_watch_resources(
        &self,
        _: Request<NodeWatchResourcesRequest>,
    ) -> std::result::Result<Response<Stream>, Status> {
        let plugin = self.clone();
        // The whole list first, then each change.
        let stream = futures::stream::unfold(
            (plugin, None::<Vec<(String, i32)>>),
            |(plugin, told)| async move {
                loop {
                    let now = look(&plugin);
                    let key: Vec<(String, i32)> = now
                        .iter()
                        .map(|d| {
                            (
                                d.device
                                    .as_ref()
                                    .map(|i| i.device_name.clone())
                                    .unwrap_or_default(),
                                d.health,
                            )
                        })
                        .collect();
                    if told.as_ref() != Some(&key) {
                        return Some((
                            Ok(NodeWatchResourcesResponse { devices: now }),
                            (plugin, Some(key)),
                        ));
                    }
                    tokio::time::sleep(LOOK_EVERY).await;
                }
            },
        );
        Ok(Response::new(Box::pin(stream)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fatal_cause_evicts_only_when_the_operator_asked() {
        let device = DraDevice {
            name: "gpu-0".into(),
            gpu: 0,
            mig: None,
            uuid: "GPU-0".into(),
            placed: None,
            shared: None,
            published: serde_json::json!({ "name": "gpu-0" }),
        };
        let bad = |fatal| Unhealthy {
            why: "Xid 79 (fatal)".into(),
            fatal,
        };
        let effect_of = |bad: &Unhealthy, evict| {
            with_taint(&device, Some(bad), evict)["taints"][0]["effect"].clone()
        };
        assert_eq!(effect_of(&bad(true), false), "NoSchedule");
        assert_eq!(effect_of(&bad(true), true), "NoExecute");
        assert_eq!(effect_of(&bad(false), true), "NoSchedule");
        assert!(with_taint(&device, None, true).get("taints").is_none());
        assert_eq!(
            with_taint(&device, Some(&bad(true)), true)["taints"][0]["key"],
            TAINT_KEY
        );
    }
}
