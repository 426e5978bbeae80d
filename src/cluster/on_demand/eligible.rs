//! Whether a pod could ever go to a node, as the scheduler's filters say it: its node selector,
//! its required node affinity, and its tolerations of the node's taints. A node the pod could
//! never go to is not reshaped for it.

use k8s_openapi::api::core::v1::{Node, NodeSelectorRequirement, Pod, Taint, Toleration};
use std::collections::BTreeMap;

pub(crate) fn can_go_to(pod: &Pod, node: &Node) -> bool {
    let Some(spec) = &pod.spec else { return false };
    let none = BTreeMap::new();
    let labels = node.metadata.labels.as_ref().unwrap_or(&none);
    let name = node.metadata.name.as_deref().unwrap_or("");
    let selector_ok = spec
        .node_selector
        .iter()
        .flatten()
        .all(|(k, v)| labels.get(k) == Some(v));
    let required = spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|a| {
            a.required_during_scheduling_ignored_during_execution
                .as_ref()
        });
    // Terms are ORed, the expressions of one term ANDed; no term matches nothing.
    let affinity_ok = required.is_none_or(|r| {
        r.node_selector_terms.iter().any(|t| {
            let exprs = t.match_expressions.iter().flatten();
            let fields = t.match_fields.iter().flatten();
            let has_any = t.match_expressions.as_ref().is_some_and(|e| !e.is_empty())
                || t.match_fields.as_ref().is_some_and(|f| !f.is_empty());
            has_any
                && exprs.clone().all(|e| matches(e, labels.get(&e.key)))
                && fields.clone().all(|f| {
                    let value = (f.key == "metadata.name").then(|| name.to_string());
                    matches(f, value.as_ref())
                })
        })
    });
    let tolerated = node
        .spec
        .iter()
        .flat_map(|s| s.taints.iter().flatten())
        .filter(|t| t.effect == "NoSchedule" || t.effect == "NoExecute")
        .all(|t| {
            spec.tolerations
                .iter()
                .flatten()
                .any(|tol| tolerates(tol, t))
        });
    selector_ok && affinity_ok && tolerated
}

fn matches(e: &NodeSelectorRequirement, value: Option<&String>) -> bool {
    let values = e.values.clone().unwrap_or_default();
    let number = |s: &str| s.parse::<i64>().ok();
    match e.operator.as_str() {
        "In" => value.is_some_and(|v| values.contains(v)),
        "NotIn" => value.is_none_or(|v| !values.contains(v)),
        "Exists" => value.is_some(),
        "DoesNotExist" => value.is_none(),
        "Gt" | "Lt" => {
            let (Some(have), Some(bound)) = (
                value.and_then(|v| number(v)),
                values.first().and_then(|v| number(v)),
            ) else {
                return false;
            };
            if e.operator == "Gt" {
                have > bound
            } else {
                have < bound
            }
        }
        _ => false,
    }
}

/// The scheduler's rule: an empty key with `Exists` tolerates every taint; the effect must
/// match when given; `Exists` ignores the value, `Equal` (the default) compares it.
fn tolerates(tol: &Toleration, taint: &Taint) -> bool {
    let effect_ok = tol
        .effect
        .as_deref()
        .is_none_or(|e| e.is_empty() || e == taint.effect);
    let key = tol.key.as_deref().unwrap_or("");
    let exists = tol.operator.as_deref() == Some("Exists");
    if key.is_empty() {
        return exists && effect_ok;
    }
    effect_ok
        && key == taint.key
        && (exists || tol.value.as_deref().unwrap_or("") == taint.value.as_deref().unwrap_or(""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn node(labels: serde_json::Value, taints: serde_json::Value) -> Node {
        serde_json::from_value(json!({
            "metadata": { "name": "gpu-1", "labels": labels },
            "spec": { "taints": taints },
        }))
        .unwrap()
    }

    fn pod(spec: serde_json::Value) -> Pod {
        let mut spec = spec;
        spec["containers"] = json!([{ "name": "c" }]);
        serde_json::from_value(json!({ "metadata": { "name": "p" }, "spec": spec })).unwrap()
    }

    #[test]
    fn selectors_affinity_and_taints_decide() {
        let n = node(json!({ "pool": "a", "gpus": "8" }), json!([]));
        assert!(can_go_to(&pod(json!({})), &n));
        assert!(can_go_to(
            &pod(json!({ "nodeSelector": { "pool": "a" } })),
            &n
        ));
        assert!(!can_go_to(
            &pod(json!({ "nodeSelector": { "pool": "b" } })),
            &n
        ));
        let affinity = |exprs: serde_json::Value| {
            pod(json!({ "affinity": { "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [{ "matchExpressions": exprs }] } } } }))
        };
        assert!(can_go_to(
            &affinity(json!([{ "key": "pool", "operator": "In", "values": ["a", "b"] }])),
            &n
        ));
        assert!(!can_go_to(
            &affinity(json!([{ "key": "pool", "operator": "NotIn", "values": ["a"] }])),
            &n
        ));
        assert!(can_go_to(
            &affinity(json!([{ "key": "gpus", "operator": "Gt", "values": ["4"] }])),
            &n
        ));
        assert!(!can_go_to(
            &affinity(json!([{ "key": "gpus", "operator": "Lt", "values": ["4"] }])),
            &n
        ));
        assert!(!can_go_to(
            &affinity(json!([{ "key": "zone", "operator": "Exists" }])),
            &n
        ));
        assert!(can_go_to(
            &affinity(json!([{ "key": "zone", "operator": "DoesNotExist" }])),
            &n
        ));
        let by_name = pod(json!({ "affinity": { "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{ "matchFields": [{ "key": "metadata.name", "operator": "In", "values": ["gpu-2"] }] }] } } } }));
        assert!(!can_go_to(&by_name, &n));

        let tainted = node(
            json!({}),
            json!([{ "key": "gpu", "value": "yes", "effect": "NoSchedule" },
                                             { "key": "soft", "effect": "PreferNoSchedule" }]),
        );
        assert!(!can_go_to(&pod(json!({})), &tainted));
        let tol = |t: serde_json::Value| pod(json!({ "tolerations": [t] }));
        assert!(can_go_to(
            &tol(json!({ "key": "gpu", "value": "yes" })),
            &tainted
        ));
        assert!(!can_go_to(
            &tol(json!({ "key": "gpu", "value": "no" })),
            &tainted
        ));
        assert!(can_go_to(
            &tol(json!({ "key": "gpu", "operator": "Exists", "effect": "NoSchedule" })),
            &tainted
        ));
        assert!(!can_go_to(
            &tol(json!({ "key": "gpu", "operator": "Exists", "effect": "NoExecute" })),
            &tainted
        ));
        assert!(can_go_to(&tol(json!({ "operator": "Exists" })), &tainted));
    }
}
