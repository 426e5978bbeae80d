//! Unhealthy devices as DRA `DeviceTaintRule`s (`resource.k8s.io/v1beta2`, Kubernetes 1.36 with
//! the `DRADeviceTaints` gate): one rule per device of NVIDIA's DRA driver (`gpu.nvidia.com`,
//! pool = the node) that a fault left unhealthy, with the taint `gpushare.io/unhealthy` (its
//! value the cause) and the effect NoSchedule, so that the scheduler allocates it to no new
//! claim. A healthy device's rule is deleted. Exactly the devices: a whole GPU's fault taints
//! each of its MIG devices, a MIG device's only it.
//!
//! The rules of a node carry the label [`NODE_LABEL`] (a hash of the node's name, as names may
//! be longer than a label value) and the owner mark [`OWNER_ANNOTATION`] (the node's name): the
//! agent lists them by the label and owns only those that are exactly what it would have made
//! ([`owned_device`]). Anyone may make a rule with its name or its label: such a rule is not
//! the agent's, and it neither trusts nor deletes it.

use super::device_health::Device;
use crate::node::model::Node;
use std::collections::BTreeMap;

pub(crate) const DRIVER: &str = "gpu.nvidia.com";
use crate::node::gpu_health::TAINT_KEY;
pub(crate) const NODE_LABEL: &str = "gpushare.io/health-node";
pub(crate) const OWNER_ANNOTATION: &str = "gpushare.io/health-owner";
const MANAGED_BY: &str = "gpushare-agent";

/// The DRA driver's name of every device a fault touches: `gpu-<minor>` for a GPU without MIG,
/// `gpu-<minor>-mig-<profile without dots>-<GI profile id>-<placement start>` for each MIG
/// device (all of a GPU's for a fault on the whole GPU); with the cause as the taint's value.
pub(crate) fn tainted(
    node: &Node,
    minors: &BTreeMap<u32, u32>,
    unhealthy: &BTreeMap<Device, String>,
) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (&(index, mig), why) in unhealthy {
        let Some(gpu) = node.gpu(index) else { continue };
        let minor = minors.get(&index).copied().unwrap_or(index);
        let instances = gpu.mig.instances.as_deref().unwrap_or_default();
        if !gpu.mig.current.is_enabled() {
            out.insert(
                format!("gpu-{minor}"),
                crate::node::gpu_health::taint_value(why),
            );
            continue;
        }
        for gi in instances {
            let hit = match mig {
                None => true,
                Some((g, c)) => {
                    gi.gpu_instance_id == g
                        && gi
                            .compute_instances
                            .iter()
                            .any(|ci| ci.compute_instance_id == c)
                }
            };
            if hit {
                let name = format!(
                    "gpu-{minor}-mig-{}-{}-{}",
                    gi.profile.replace('.', ""),
                    gi.profile_id,
                    gi.placement.start
                );
                out.insert(name, crate::node::gpu_health::taint_value(why));
            }
        }
    }
    out
}

/// The rule's name for a device of `node`: `gpushare-<node hash>-<device>` (a DNS subdomain).
pub(crate) fn rule_name(node: &str, device: &str) -> String {
    format!("gpushare-{}-{device}", node_hash(node))
}

/// The node's name as a label value (see [`crate::cluster::api_client::short_hash`]).
pub(crate) fn node_hash(node: &str) -> String {
    crate::cluster::api_client::short_hash(node)
}

/// The rule for `device` of `node`, tainted with `value`.
pub(crate) fn rule(api_version: &str, node: &str, device: &str, value: &str) -> serde_json::Value {
    serde_json::json!({
        "apiVersion": api_version,
        "kind": "DeviceTaintRule",
        "metadata": {
            "name": rule_name(node, device),
            "labels": {NODE_LABEL: node_hash(node), "app.kubernetes.io/managed-by": MANAGED_BY},
            "annotations": {OWNER_ANNOTATION: node},
        },
        "spec": {
            "deviceSelector": {"driver": DRIVER, "pool": node, "device": device},
            "taint": {"key": TAINT_KEY, "value": value, "effect": "NoSchedule"},
        },
    })
}

/// The device a rule taints for `node`, when the rule is the agent's own: named as the agent
/// names that device's rule, marked as the agent's for this node (label, owner annotation,
/// managed-by), selecting exactly that device of NVIDIA's driver in the node's pool and nothing
/// else, with the agent's taint key. Anything else is someone else's, whatever its name.
pub(crate) fn owned_device(rule: &serde_json::Value, node: &str) -> Option<String> {
    let meta = &rule["metadata"];
    let spec = &rule["spec"];
    let selector = spec["deviceSelector"].as_object()?;
    let device = selector.get("device")?.as_str()?;
    let ours = meta["name"].as_str() == Some(rule_name(node, device).as_str())
        && meta["labels"][NODE_LABEL].as_str() == Some(node_hash(node).as_str())
        && meta["labels"]["app.kubernetes.io/managed-by"].as_str() == Some(MANAGED_BY)
        && meta["annotations"][OWNER_ANNOTATION].as_str() == Some(node)
        && selector.len() == 3
        && selector.get("driver").and_then(|v| v.as_str()) == Some(DRIVER)
        && selector.get("pool").and_then(|v| v.as_str()) == Some(node)
        && spec["taint"]["key"].as_str() == Some(TAINT_KEY);
    ours.then(|| device.to_string())
}

/// What a rule that is not the agent's selects, for the agent's report.
pub(crate) fn describe_selector(rule: &serde_json::Value) -> String {
    let s = &rule["spec"]["deviceSelector"];
    let field = |k: &str| s[k].as_str().unwrap_or("*").to_string();
    format!(
        "driver {}, pool {}, device {}",
        field("driver"),
        field("pool"),
        field("device")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::backend::Backend;
    use crate::node::backend::sim::SimBackend;

    #[test]
    fn a_whole_gpu_taints_each_of_its_mig_devices_and_a_mig_device_only_itself() {
        let sim = SimBackend::from_preset("dgx-a100").unwrap();
        sim.set_mig_mode(1, crate::node::model::MigMode::Enabled)
            .unwrap();
        for start in [0, 4] {
            let at = crate::node::model::Placement { start, size: 4 };
            let gi = sim.create_gpu_instance(1, 9, at).unwrap();
            sim.create_compute_instance(1, gi, 2).unwrap();
        }
        let node = sim.snapshot().unwrap();
        let gis = node.gpus[1].mig.instances.clone().unwrap();
        let minors = BTreeMap::from([(0, 0), (1, 5)]);
        let whole = BTreeMap::from([((1, None), "Xid 79 (fatal)".to_string())]);
        let names: Vec<String> = tainted(&node, &minors, &whole).into_keys().collect();
        assert_eq!(names, ["gpu-5-mig-3g20gb-9-0", "gpu-5-mig-3g20gb-9-4"]);
        let one = BTreeMap::from([(
            (1, Some((gis[1].gpu_instance_id, 0))),
            "Xid 62 on MIG device (recoverable)".to_string(),
        )]);
        assert_eq!(
            tainted(&node, &minors, &one),
            BTreeMap::from([("gpu-5-mig-3g20gb-9-4".to_string(), "Xid62".to_string())])
        );
        let gpu0 = BTreeMap::from([((0, None), "double-bit ECC error (fatal)".to_string())]);
        assert_eq!(
            tainted(&node, &minors, &gpu0),
            BTreeMap::from([("gpu-0".to_string(), "EccDoubleBit".to_string())])
        );
    }

    #[test]
    fn only_a_rule_exactly_as_the_agent_makes_it_is_the_agents() {
        let node = "gpu-node-1";
        let device = "gpu-3-mig-1g5gb-19-6";
        let made = rule("resource.k8s.io/v1beta2", node, device, "Xid79");
        assert_eq!(owned_device(&made, node).as_deref(), Some(device));
        type Change = fn(&mut serde_json::Value);
        let squats: [(&str, Change); 11] = [
            ("the name, another device", |r| {
                r["spec"]["deviceSelector"]["device"] = "gpu-0".into()
            }),
            ("the name, another pool", |r| {
                r["spec"]["deviceSelector"]["pool"] = "other".into()
            }),
            ("the name, another driver", |r| {
                r["spec"]["deviceSelector"]["driver"] = "x.io".into()
            }),
            ("the name, every device of the pool", |r| {
                r["spec"]["deviceSelector"]
                    .as_object_mut()
                    .unwrap()
                    .remove("device");
            }),
            ("a wider selector", |r| {
                r["spec"]["deviceSelector"]["deviceClassName"] = "c".into()
            }),
            ("another taint key", |r| {
                r["spec"]["taint"]["key"] = "x.io/evict".into()
            }),
            ("no owner mark", |r| {
                r["metadata"].as_object_mut().unwrap().remove("annotations");
            }),
            ("another node's owner mark", |r| {
                r["metadata"]["annotations"][OWNER_ANNOTATION] = "gpu-node-2".into()
            }),
            ("another manager", |r| {
                r["metadata"]["labels"]["app.kubernetes.io/managed-by"] = "me".into()
            }),
            ("the label alone, another name", |r| {
                r["metadata"]["name"] = "mine".into()
            }),
            ("a name not a string", |r| r["metadata"]["name"] = 7.into()),
        ];
        for (what, change) in squats {
            let mut r = made.clone();
            change(&mut r);
            assert_eq!(owned_device(&r, node), None, "{what}: {r}");
        }
        // Another node's own rule, by its label and mark, is not this node's.
        let other = rule("resource.k8s.io/v1beta2", "gpu-node-2", device, "Xid79");
        assert_eq!(owned_device(&other, node), None);
        assert_eq!(owned_device(&serde_json::json!(null), node), None);
        assert_eq!(owned_device(&serde_json::json!({"spec": []}), node), None);
    }

    #[test]
    fn rule_names_are_dns_subdomains_for_any_node() {
        let long = "n".repeat(253);
        let name = rule_name(&long, "gpu-7-mig-1g5gb-19-6");
        assert!(name.len() <= 253 && name.starts_with("gpushare-"), "{name}");
        assert_eq!(node_hash("a"), node_hash("a"));
        assert_ne!(node_hash("a"), node_hash("b"));
    }
}
