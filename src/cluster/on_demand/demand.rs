//! The demand: pods the scheduler marked unschedulable (`PodScheduled=False`, reason
//! `Unschedulable`) that ask for MIG devices of the mixed strategy (`nvidia.com/mig-<profile>`)
//! or through claims for gpushare's MIG DeviceClasses ([`super::claims`]), and what the pods
//! already bound to a node ask for (the kubelet may not have given them their devices yet).
//!
//! Anyone who can create a pod writes these numbers: each is read as the API server's quantity
//! grammar ([`super::quantity`]) and summed with checked arithmetic, as the scheduler counts a
//! pod's requests; what cannot be read is said, never guessed.

use super::MIG_RESOURCE_PREFIX;
use super::claims::Claims;
use super::quantity::{self, QuantityError};
use k8s_openapi::api::core::v1::{Container, Pod};
use std::collections::BTreeSet;

pub(crate) use super::MigAsk;

/// A pod waiting for MIG devices.
#[derive(Debug, Clone)]
pub(crate) struct Pending<'p> {
    /// `namespace/name`.
    pub name: String,
    pub pod: &'p Pod,
    /// What it asks for; Err: why its request cannot be read.
    pub asks: Result<MigAsk, String>,
}

pub(crate) fn name_of(pod: &Pod) -> String {
    format!(
        "{}/{}",
        pod.metadata.namespace.as_deref().unwrap_or("default"),
        pod.metadata.name.as_deref().unwrap_or("?")
    )
}

/// The unschedulable pods that want MIG devices (or whose request for them cannot be read),
/// oldest first: through extended resources, or through claims for gpushare's MIG classes that
/// are not allocated yet (a claim that pods share counts once, for the oldest).
pub(crate) fn pending<'p>(pods: &'p [Pod], claims: &Claims) -> Vec<Pending<'p>> {
    let mut waiting: Vec<&Pod> = pods.iter().filter(|p| is_unschedulable(p)).collect();
    waiting.sort_by(|a, b| {
        let t = |p: &Pod| p.metadata.creation_timestamp.as_ref().map(|t| t.0);
        t(a).cmp(&t(b)).then_with(|| name_of(a).cmp(&name_of(b)))
    });
    let mut counted = BTreeSet::new();
    waiting
        .into_iter()
        .filter_map(|pod| {
            let unallocated = claims
                .of_pod(pod)
                .into_iter()
                .filter(|c| !claims.allocated(c) && counted.insert(c.clone()));
            let asks = with_claims(mig_asks(pod), claims, unallocated);
            let wants_any = asks.as_ref().map_or(true, |a| !a.is_empty());
            wants_any.then(|| Pending {
                name: name_of(pod),
                pod,
                asks,
            })
        })
        .collect()
}

/// `asks` and what the claims `keys` ask for, added up.
fn with_claims(
    asks: Result<MigAsk, String>,
    claims: &Claims,
    keys: impl Iterator<Item = String>,
) -> Result<MigAsk, String> {
    let mut asks = asks?;
    for key in keys {
        let of_claim = claims.asks(&key).map_err(|e| format!("claim {key}: {e}"))?;
        add(&mut asks, &of_claim, "its containers and claims")?;
    }
    asks.retain(|_, n| *n > 0);
    Ok(asks)
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

/// What the pods bound to `node` and not finished ask for, per profile, through extended
/// resources and claims (each claim once); a request that cannot be read counts as none: such a
/// pod is not given a MIG device either.
pub(crate) fn bound_to(pods: &[Pod], node: &str, claims: &Claims) -> MigAsk {
    let mut out = MigAsk::new();
    let mut counted = BTreeSet::new();
    for pod in pods {
        let on_node = pod.spec.as_ref().and_then(|s| s.node_name.as_deref()) == Some(node);
        let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref());
        if on_node && !matches!(phase, Some("Succeeded" | "Failed")) {
            let keys = claims
                .of_pod(pod)
                .into_iter()
                .filter(|c| counted.insert(c.clone()));
            for (profile, n) in with_claims(mig_asks(pod), claims, keys).unwrap_or_default() {
                let have = out.entry(profile).or_default();
                *have = have.saturating_add(n);
            }
        }
    }
    out
}

/// The MIG devices a pod needs, per profile, as the scheduler counts a pod's requests: its
/// containers and sidecars (init containers that keep running) summed, or more when an init
/// container, with the sidecars started before it, asks for more; plus the pod's overhead.
pub(crate) fn mig_asks(pod: &Pod) -> Result<MigAsk, String> {
    let Some(spec) = &pod.spec else {
        return Ok(MigAsk::new());
    };
    let mut sum = MigAsk::new();
    for c in &spec.containers {
        add(&mut sum, &container_asks(c)?, "its containers")?;
    }
    let mut sidecars = MigAsk::new();
    let mut init_peak = MigAsk::new();
    for c in spec.init_containers.iter().flatten() {
        let asks = container_asks(c)?;
        if c.restart_policy.as_deref() == Some("Always") {
            add(&mut sum, &asks, "its containers and sidecars")?;
            add(&mut sidecars, &asks, "its sidecars")?;
        } else {
            let mut during = sidecars.clone();
            add(&mut during, &asks, "an init container and its sidecars")?;
            for (profile, n) in during {
                let peak = init_peak.entry(profile).or_default();
                *peak = (*peak).max(n);
            }
        }
    }
    for (profile, n) in init_peak {
        let have = sum.entry(profile).or_default();
        *have = (*have).max(n);
    }
    if let Some(overhead) = &spec.overhead {
        let mut asks = MigAsk::new();
        for (key, q) in overhead {
            if let Some(profile) = key.strip_prefix(MIG_RESOURCE_PREFIX) {
                asks.insert(profile.to_string(), count(key, &q.0, "overhead")?);
            }
        }
        add(&mut sum, &asks, "its containers and overhead")?;
    }
    sum.retain(|_, n| *n > 0);
    Ok(sum)
}

/// `into += asks`, refusing a sum past `u64`.
fn add(into: &mut MigAsk, asks: &MigAsk, what: &str) -> Result<(), String> {
    for (profile, n) in asks {
        let have = into.entry(profile.clone()).or_default();
        *have = have.checked_add(*n).ok_or_else(|| {
            format!("{MIG_RESOURCE_PREFIX}{profile}: what {what} ask for adds up past any count")
        })?;
    }
    Ok(())
}

/// Requests, or limits where no request is given (the API server defaults one to the other, and
/// for extended resources they must be equal).
fn container_asks(c: &Container) -> Result<MigAsk, String> {
    let Some(r) = &c.resources else {
        return Ok(MigAsk::new());
    };
    let mut out = MigAsk::new();
    for (map, field) in [
        (r.limits.as_ref(), "limits"),
        (r.requests.as_ref(), "requests"),
    ] {
        for (key, q) in map.into_iter().flatten() {
            if let Some(profile) = key.strip_prefix(MIG_RESOURCE_PREFIX) {
                let what = format!("container {:?} resources.{field}", c.name);
                out.insert(profile.to_string(), count(key, &q.0, &what)?);
            }
        }
    }
    Ok(out)
}

fn count(key: &str, text: &str, what: &str) -> Result<u64, String> {
    quantity::whole_count(text).map_err(|e: QuantityError| {
        let shown: String = text.chars().take(40).collect();
        format!("{what} {key}: {shown:?} is {e}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::on_demand::claims::Claims;
    use serde_json::json;

    fn pod(name: &str, created: &str, spec: serde_json::Value, status: serde_json::Value) -> Pod {
        serde_json::from_value(json!({
            "metadata": { "name": name, "namespace": "ns", "creationTimestamp": created },
            "spec": spec, "status": status,
        }))
        .unwrap()
    }

    /// Each pending pod's name and what it asks for.
    fn asked<'p>(pending: &'p [Pending]) -> Vec<(&'p str, MigAsk)> {
        pending
            .iter()
            .map(|p| (p.name.as_str(), p.asks.clone().unwrap()))
            .collect()
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
        let p = pending(&pods, &Claims::default());
        let got = asked(&p);
        assert_eq!(
            got,
            [
                ("ns/a", MigAsk::from([("1g.5gb".to_string(), 1)])),
                ("ns/b", MigAsk::from([("3g.20gb".to_string(), 2)]))
            ]
        );
    }

    fn asks(spec: serde_json::Value) -> Result<MigAsk, String> {
        mig_asks(&pod("x", "2026-01-01T00:00:00Z", spec, unschedulable()))
    }

    #[test]
    fn hostile_counts_are_read_exactly_and_sums_never_wrap() {
        let one = |q: &str| {
            asks(
                json!({ "containers": [{ "name": "c", "resources": { "limits": { "nvidia.com/mig-1g.5gb": q } } }] }),
            )
        };
        assert_eq!(
            one("4294967295").unwrap()["1g.5gb"],
            4_294_967_295,
            "no truncation to 32 bits"
        );
        assert_eq!(one("1k").unwrap()["1g.5gb"], 1000);
        assert_eq!(one("1e6").unwrap()["1g.5gb"], 1_000_000);
        let e = one("500m").unwrap_err();
        assert!(e.contains("container \"c\" resources.limits nvidia.com/mig-1g.5gb: \"500m\" is not a whole number"), "{e}");
        assert!(one("-1").unwrap_err().contains("negative"));
        // Two containers of 4294967295 and 2 are 4294967297, not 1.
        let two = asks(json!({ "containers": [
            { "name": "a", "resources": { "limits": { "nvidia.com/mig-1g.5gb": "4294967295" } } },
            { "name": "b", "resources": { "limits": { "nvidia.com/mig-1g.5gb": "2" } } },
        ] }));
        assert_eq!(two.unwrap()["1g.5gb"], 4_294_967_297);
        let wraps = asks(json!({ "containers": [
            { "name": "a", "resources": { "limits": { "nvidia.com/mig-1g.5gb": "18446744073709551615" } } },
            { "name": "b", "resources": { "limits": { "nvidia.com/mig-1g.5gb": "2" } } },
        ] }));
        assert!(wraps.unwrap_err().contains("adds up past any count"));
        // An unreadable request is a pending pod (it is told why), not a pod that asks nothing.
        let pods = [pod(
            "odd",
            "2026-01-01T00:00:00Z",
            asking(json!({ "nvidia.com/mig-1g.5gb": "1.5" })),
            unschedulable(),
        )];
        assert!(pending(&pods, &Claims::default())[0].asks.is_err());
        assert!(bound_to(&pods, "gpu-1", &Claims::default()).is_empty());
    }

    #[test]
    fn sidecars_add_and_init_containers_peak_with_the_sidecars_before_them() {
        let limit = |n: u32| json!({ "limits": { "nvidia.com/mig-1g.5gb": n.to_string() } });
        let got = asks(json!({
            "initContainers": [
                { "name": "side", "restartPolicy": "Always", "resources": limit(1) },
                { "name": "init", "resources": limit(3) },
            ],
            "containers": [{ "name": "main", "resources": limit(2) }],
            "overhead": { "nvidia.com/mig-1g.5gb": "1" },
        }));
        // max(main 2 + sidecar 1, init 3 + sidecar 1) + overhead 1 = 5.
        assert_eq!(got.unwrap(), MigAsk::from([("1g.5gb".to_string(), 5)]));
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
            bound_to(std::slice::from_ref(&p), "gpu-1", &Claims::default()),
            MigAsk::from([("1g.5gb".to_string(), 3), ("2g.10gb".to_string(), 1)])
        );
        assert!(bound_to(&[p], "gpu-2", &Claims::default()).is_empty());
    }

    #[test]
    fn claims_count_once_and_only_until_allocated() {
        let claim = |name: &str, class: &str, allocated: bool| {
            let mut c = json!({
                "metadata": { "name": name, "namespace": "ns" },
                "spec": { "devices": { "requests": [
                    { "name": "gpu", "exactly": { "deviceClassName": class } }
                ]}},
            });
            if allocated {
                c["status"] = json!({ "allocation": { "devices": { "results": [] } } });
            }
            serde_json::from_value(c).unwrap()
        };
        let claims = Claims::new(&[
            claim("shared", "mig-3g.20gb.gpushare.io", false),
            claim("given", "mig-1g.5gb.gpushare.io", true),
        ]);
        let using = |claims: &[&str]| {
            let refs: Vec<_> = claims
                .iter()
                .map(|c| json!({ "name": c, "resourceClaimName": c }))
                .collect();
            json!({ "containers": [{ "name": "c" }], "resourceClaims": refs })
        };
        let mut bound = pod(
            "bound",
            "2026-01-01T00:00:00Z",
            using(&["given"]),
            json!({ "phase": "Running" }),
        );
        bound.spec.as_mut().unwrap().node_name = Some("gpu-1".into());
        let pods = vec![
            pod(
                "later",
                "2026-01-01T00:00:02Z",
                using(&["shared"]),
                unschedulable(),
            ),
            pod(
                "first",
                "2026-01-01T00:00:01Z",
                using(&["shared", "given"]),
                unschedulable(),
            ),
            bound,
        ];
        let p = pending(&pods, &claims);
        let got = asked(&p);
        assert_eq!(
            got,
            [("ns/first", MigAsk::from([("3g.20gb".to_string(), 1)]))]
        );
        assert_eq!(
            bound_to(&pods, "gpu-1", &claims),
            MigAsk::from([("1g.5gb".to_string(), 1)])
        );
    }
}
