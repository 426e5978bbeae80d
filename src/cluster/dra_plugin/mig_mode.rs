//! MIG turned on for the claim: a dynamic GPU whose MIG is off publishes its placements with
//! binding conditions ([`super::partitionable::MIG_ENABLED`]). The scheduler allocates one and
//! waits in PreBind; the plugin sees the claim, turns MIG on through the MIG planner and the
//! executor (the GPU must be idle: the planner's own rules), and sets the claim's device
//! condition: `mig-enabled` and the pod is bound, or `mig-failed` with why, and the scheduler
//! deallocates the claim and tries again, elsewhere if it can.

use super::devices::DRIVER;
use super::made::Maker;
use super::partitionable::{MIG_ENABLED, MIG_FAILED};
use crate::change::plan::PlanOptions;
use crate::node::model::Node;
use crate::sharing::mig::layout::{GpuDesire, MigLayout};
use crate::support::error::{Error, Result};
use kube::api::{Api, DynamicObject, ListParams, Patch, PatchParams};
use kube::core::{ApiResource, GroupVersionKind};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// A claim allocated a placement of a GPU whose MIG is off, not yet told.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Waiting {
    pub namespace: String,
    pub name: String,
    pub device: String,
    pub gpu: u32,
}

fn claims(client: &kube::Client) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk("resource.k8s.io", "v1", "ResourceClaim");
    Api::all_with(client.clone(), &ApiResource::from_gvk(&gvk))
}

/// The claims allocated a device of `devices` (name → its GPU) on `node`'s pool whose condition
/// is not set yet.
pub(crate) fn waiting_in(
    list: &[Value],
    node: &str,
    devices: &BTreeMap<String, u32>,
) -> Vec<Waiting> {
    let mut out = Vec::new();
    for claim in list {
        let told: Vec<&Value> = claim["status"]["devices"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|d| d["driver"] == DRIVER && d["pool"] == node)
            .collect();
        let results = claim["status"]["allocation"]["devices"]["results"].as_array();
        for r in results.into_iter().flatten() {
            if r["driver"] != DRIVER || r["pool"] != node {
                continue;
            }
            let Some(device) = r["device"].as_str() else {
                continue;
            };
            let Some(&gpu) = devices.get(device) else {
                continue;
            };
            let answered = told.iter().any(|d| {
                d["device"] == device
                    && d["conditions"].as_array().into_iter().flatten().any(|c| {
                        (c["type"] == MIG_ENABLED || c["type"] == MIG_FAILED)
                            && c["status"] == "True"
                    })
            });
            let (Some(ns), Some(name)) = (
                claim["metadata"]["namespace"].as_str(),
                claim["metadata"]["name"].as_str(),
            ) else {
                continue;
            };
            if !answered {
                out.push(Waiting {
                    namespace: ns.to_string(),
                    name: name.to_string(),
                    device: device.to_string(),
                    gpu,
                });
            }
        }
    }
    out
}

/// How often the claims are looked at while a GPU's placements wait for MIG: the scheduler
/// looks at a claim's conditions about every 5 s.
pub(crate) const LOOK_EVERY: std::time::Duration = std::time::Duration::from_secs(2);

/// The claims waiting for MIG on one of `devices`. The list is served from the API server's
/// cache (any version), and asked for only while some placement waits.
pub(crate) async fn waiting(
    client: &kube::Client,
    node: &str,
    devices: &BTreeMap<String, u32>,
) -> Result<Vec<Waiting>> {
    let list = claims(client)
        .list(&ListParams::default().match_any())
        .await
        .map_err(|e| Error::failed(format!("cannot list ResourceClaims: {e}")))?;
    let values: Vec<Value> = list
        .items
        .into_iter()
        .filter_map(|c| serde_json::to_value(c).ok())
        .collect();
    Ok(waiting_in(&values, node, devices))
}

/// Turn MIG on for GPU `gpu` of `node`, through the MIG planner (refused while anything runs on
/// the GPU) and the executor under the node lock.
pub(crate) fn turn_on(maker: &Maker, node: &Node, gpu: u32) -> Result<()> {
    let desire = GpuDesire {
        gpu,
        layout: MigLayout::Dynamic,
        profiles: Vec::new(),
        origin: "mig.dynamic".into(),
        reason: Some("a claim was allocated one of its placements".into()),
    };
    let plan = crate::change::pipeline::planner::mig::plan(node, &[desire], PlanOptions::default());
    if let Some(b) = plan.blockers.first() {
        return Err(Error::failed(b.message.clone()));
    }
    if plan.reboot_required {
        return Err(Error::failed(format!(
            "GPU {gpu}: turning MIG on waits for a reboot"
        )));
    }
    maker.change(&format!("enable MIG on GPU {gpu}"), plan.changes)?;
    // Said to the scheduler only once the driver says so.
    let now = maker.backend.snapshot()?;
    match now.gpu(gpu) {
        Some(g) if g.mig.current.is_enabled() => Ok(()),
        _ => Err(Error::failed(format!(
            "GPU {gpu}: MIG is still off after the change"
        ))),
    }
}

/// Turn MIG on where a claim was allocated a placement of `devices` (name → GPU), and tell each
/// claim how it went.
pub(crate) async fn turn_on_for_claims(
    client: &kube::Client,
    node: &str,
    maker: &Maker,
    devices: &BTreeMap<String, u32>,
) -> Result<()> {
    let waiting = waiting(client, node, devices).await?;
    let gpus: std::collections::BTreeSet<u32> = waiting.iter().map(|w| w.gpu).collect();
    for gpu in gpus {
        // The driver's calls and the node lock block: off the runtime's threads.
        let outcome = tokio::task::block_in_place(|| {
            let snapshot = maker.backend.snapshot()?;
            turn_on(maker, &snapshot, gpu)
        })
        .map_err(|e| e.message);
        crate::support::output::stderr_line(&match &outcome {
            Ok(()) => format!("gpushare dra-plugin: MIG turned on on GPU {gpu} for a claim"),
            Err(why) => format!("gpushare dra-plugin: cannot turn MIG on on GPU {gpu}: {why}"),
        });
        for w in waiting.iter().filter(|w| w.gpu == gpu) {
            tell(client, node, w, &outcome).await?;
        }
    }
    Ok(())
}

/// Set the claim's device condition: MIG is on, or why it could not be.
pub(crate) async fn tell(
    client: &kube::Client,
    node: &str,
    w: &Waiting,
    outcome: &std::result::Result<(), String>,
) -> Result<()> {
    let (kind, reason, message) = match outcome {
        Ok(()) => (
            MIG_ENABLED,
            "MigEnabled",
            format!("MIG is on on GPU {}", w.gpu),
        ),
        Err(why) => (
            MIG_FAILED,
            "MigNotEnabled",
            crate::cluster::api_client::clip(why, 1000),
        ),
    };
    let now =
        k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(k8s_openapi::jiff::Timestamp::now());
    let patch = json!({
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": { "name": w.name, "namespace": w.namespace },
        "status": { "devices": [{
            "driver": DRIVER, "pool": node, "device": w.device,
            "conditions": [{
                "type": kind, "status": "True", "reason": reason, "message": message,
                "lastTransitionTime": now,
            }],
        }]},
    });
    let gvk = GroupVersionKind::gvk("resource.k8s.io", "v1", "ResourceClaim");
    let api: Api<DynamicObject> =
        Api::namespaced_with(client.clone(), &w.namespace, &ApiResource::from_gvk(&gvk));
    api.patch_status(
        &w.name,
        &PatchParams::apply(DRIVER).force(),
        &Patch::Apply(&patch),
    )
    .await
    .map_err(|e| {
        Error::failed(format!(
            "cannot set the condition of ResourceClaim {}/{}: {e}",
            w.namespace, w.name
        ))
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claim_waits_until_its_device_has_a_condition() {
        let devices = BTreeMap::from([("gpu-2-mig-1g5gb-6".to_string(), 2)]);
        let claim = |status_devices: Value| {
            json!({
                "metadata": { "namespace": "ns", "name": "c" },
                "status": {
                    "allocation": { "devices": { "results": [
                        { "driver": DRIVER, "pool": "n", "device": "gpu-2-mig-1g5gb-6", "request": "gpu" },
                        { "driver": DRIVER, "pool": "n", "device": "gpu-1", "request": "other" },
                    ]}},
                    "devices": status_devices,
                },
            })
        };
        let w = waiting_in(&[claim(json!([]))], "n", &devices);
        assert_eq!(
            w,
            [Waiting {
                namespace: "ns".into(),
                name: "c".into(),
                device: "gpu-2-mig-1g5gb-6".into(),
                gpu: 2,
            }]
        );
        assert!(waiting_in(&[claim(json!([]))], "other-node", &devices).is_empty());
        let told = json!([{ "driver": DRIVER, "pool": "n", "device": "gpu-2-mig-1g5gb-6",
            "conditions": [{ "type": MIG_FAILED, "status": "True" }] }]);
        assert!(waiting_in(&[claim(told)], "n", &devices).is_empty());
    }
}
