//! The demand: pods the scheduler marked unschedulable (`PodScheduled=False`, reason
//! `Unschedulable`) that ask for MIG devices of the mixed strategy (`nvidia.com/mig-<profile>`),
//! and what the pods already bound to a node ask for (the kubelet may not have given them their
//! devices yet).

use super::MIG_RESOURCE_PREFIX;
use k8s_openapi::api::core::v1::{Container, Pod};
use std::collections::BTreeMap;

/// A pod waiting for MIG devices.
#[derive(Debug, Clone)]
pub(crate) struct Pending<'p> {
    /// `namespace/name`.
    pub name: String,
    pub pod: &'p Pod,
    /// One profile name per instance it needs (all on one node).
    pub wants: Vec<String>,
}

pub(crate) fn name_of(pod: &Pod) -> String {
    format!(
        "{}/{}",
        pod.metadata.namespace.as_deref().unwrap_or("default"),
        pod.metadata.name.as_deref().unwrap_or("?")
    )
}

/// The unschedulable pods that want MIG devices, oldest first.
pub(crate) fn pending(pods: &[Pod]) -> Vec<Pending<'_>> {
    let mut out: Vec<Pending> = pods
        .iter()
        .filter(|p| is_unschedulable(p))
        .filter_map(|pod| {
            let wants: Vec<String> = mig_wants(pod)
                .into_iter()
                .flat_map(|(profile, n)| std::iter::repeat_n(profile, n as usize))
                .collect();
            (!wants.is_empty()).then(|| Pending {
                name: name_of(pod),
                pod,
                wants,
            })
        })
        .collect();
    out.sort_by(|a, b| {
        let t = |p: &Pod| p.metadata.creation_timestamp.as_ref().map(|t| t.0);
        t(a.pod).cmp(&t(b.pod)).then_with(|| a.name.cmp(&b.name))
    });
    out
}

fn is_unschedulable(pod: &Pod) -> bool {
    let bound = pod.spec.as_ref().is_some_and(|s| s.node_name.is_some());
    let status = pod.status.as_ref();
    let pending = status.and_then(|s| s.phase.as_deref()) == Some("Pending");
    let unschedulable = status
        .and_then(|s| s.conditions.as_ref())
        .into_iter()
        .flatten()
        .any(|c| {
            c.type_ == "PodScheduled"
                && c.status == "False"
                && c.reason.as_deref() == Some("Unschedulable")
        });
    !bound && pending && unschedulable && pod.metadata.deletion_timestamp.is_none()
}

/// What the pods bound to `node` and not finished ask for, per profile.
pub(crate) fn bound_to(pods: &[Pod], node: &str) -> BTreeMap<String, u32> {
    let mut out = BTreeMap::new();
    for pod in pods {
        let on_node = pod.spec.as_ref().and_then(|s| s.node_name.as_deref()) == Some(node);
        let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref());
        if on_node && !matches!(phase, Some("Succeeded" | "Failed")) {
            for (profile, n) in mig_wants(pod) {
                *out.entry(profile).or_default() += n;
            }
        }
    }
    out
}

/// The MIG devices a pod needs, per profile, as the scheduler counts extended resources: the
/// sum over its containers, or more when one init container alone asks for more.
pub(crate) fn mig_wants(pod: &Pod) -> BTreeMap<String, u32> {
    let Some(spec) = &pod.spec else {
        return BTreeMap::new();
    };
    let mut out: BTreeMap<String, u32> = BTreeMap::new();
    for c in &spec.containers {
        for (profile, n) in container_wants(c) {
            *out.entry(profile).or_default() += n;
        }
    }
    for c in spec.init_containers.iter().flatten() {
        for (profile, n) in container_wants(c) {
            let have = out.entry(profile).or_default();
            *have = (*have).max(n);
        }
    }
    out.retain(|_, n| *n > 0);
    out
}

/// Limits, or requests where no limit is given (extended resources must have both equal).
fn container_wants(c: &Container) -> BTreeMap<String, u32> {
    let Some(r) = &c.resources else {
        return BTreeMap::new();
    };
    let mut out = BTreeMap::new();
    for map in [r.requests.as_ref(), r.limits.as_ref()]
        .into_iter()
        .flatten()
    {
        for (key, q) in map {
            if let Some(profile) = key.strip_prefix(MIG_RESOURCE_PREFIX)
                && let Ok(n) = q.0.parse::<u32>()
            {
                out.insert(profile.to_string(), n);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(name: &str, created: &str, spec: serde_json::Value, status: serde_json::Value) -> Pod {
        serde_json::from_value(json!({
            "metadata": { "name": name, "namespace": "ns", "creationTimestamp": created },
            "spec": spec, "status": status,
        }))
        .unwrap()
    }

    fn unschedulable() -> serde_json::Value {
        json!({ "phase": "Pending", "conditions": [{ "type": "PodScheduled", "status": "False", "reason": "Unschedulable" }] })
    }

    fn asking(resources: serde_json::Value) -> serde_json::Value {
        json!({ "containers": [{ "name": "c", "resources": { "limits": resources } }] })
    }

    #[test]
    fn unschedulable_pods_asking_for_mig_devices_oldest_first() {
        let pods = vec![
            pod(
                "b",
                "2026-01-01T00:00:02Z",
                asking(json!({ "nvidia.com/mig-3g.20gb": "2" })),
                unschedulable(),
            ),
            pod(
                "a",
                "2026-01-01T00:00:01Z",
                asking(json!({ "nvidia.com/mig-1g.5gb": "1", "cpu": "1" })),
                unschedulable(),
            ),
            pod(
                "gpu",
                "2026-01-01T00:00:00Z",
                asking(json!({ "nvidia.com/gpu": "1" })),
                unschedulable(),
            ),
            pod(
                "fresh",
                "2026-01-01T00:00:00Z",
                asking(json!({ "nvidia.com/mig-1g.5gb": "1" })),
                json!({ "phase": "Pending" }),
            ),
        ];
        let p = pending(&pods);
        let got: Vec<(&str, Vec<String>)> = p
            .iter()
            .map(|p| (p.name.as_str(), p.wants.clone()))
            .collect();
        assert_eq!(
            got,
            [
                ("ns/a", vec!["1g.5gb".to_string()]),
                ("ns/b", vec!["3g.20gb".to_string(), "3g.20gb".to_string()])
            ]
        );
    }

    #[test]
    fn init_containers_count_as_the_scheduler_counts_them() {
        let spec = json!({
            "nodeName": "gpu-1",
            "initContainers": [{ "name": "i", "resources": { "limits": { "nvidia.com/mig-1g.5gb": "3" } } }],
            "containers": [
                { "name": "a", "resources": { "limits": { "nvidia.com/mig-1g.5gb": "1" } } },
                { "name": "b", "resources": { "requests": { "nvidia.com/mig-1g.5gb": "1", "nvidia.com/mig-2g.10gb": "1" } } },
            ],
        });
        let p = pod(
            "x",
            "2026-01-01T00:00:00Z",
            spec,
            json!({ "phase": "Running" }),
        );
        assert_eq!(
            bound_to(std::slice::from_ref(&p), "gpu-1"),
            BTreeMap::from([("1g.5gb".to_string(), 3), ("2g.10gb".to_string(), 1)])
        );
        assert!(bound_to(&[p], "gpu-2").is_empty());
    }
}
