//! Demand through DRA: ResourceClaims that ask for devices of gpushare's MIG DeviceClasses
//! (`mig-<profile>.gpushare.io`, [`crate::cluster::manifests::dra`]), counted per profile as the extended
//! resources are ([`super::demand`]), so that a pod whose claim cannot be allocated is served by a
//! reshape as one asking for `nvidia.com/mig-<profile>` is.
//!
//! Claims are written by anyone who can create a pod (templates are copied into them): counts
//! are checked, class names are parsed into a bounded profile name, and a request that cannot be
//! counted (`allocationMode: All`) says so rather than being guessed.

use super::MigAsk;
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::resource::v1::{DeviceSubRequest, ExactDeviceRequest, ResourceClaim};
use std::collections::BTreeMap;

const CLASS_PREFIX: &str = "mig-";
const CLASS_SUFFIX: &str = ".gpushare.io";
/// Longer than any MIG profile's resource suffix (`1g.10gb.me`, `4g.71gb`, …).
const MAX_PROFILE: usize = 32;

/// What one claim asks for.
#[derive(Debug, Clone)]
struct Claim {
    /// MIG devices per resource suffix; Err: why its requests cannot be counted.
    asks: Result<MigAsk, String>,
    allocated: bool,
}

/// The claims of the cluster, by `namespace/name`, that ask for gpushare's MIG classes.
#[derive(Debug, Default)]
pub(crate) struct Claims {
    by_name: BTreeMap<String, Claim>,
}

impl Claims {
    pub(crate) fn new(claims: &[ResourceClaim]) -> Claims {
        let by_name = claims
            .iter()
            .filter_map(|c| {
                let asks = claim_asks(c);
                if asks.as_ref().is_ok_and(|a| a.is_empty()) {
                    return None;
                }
                let ns = c.metadata.namespace.as_deref().unwrap_or("default");
                let name = c.metadata.name.as_deref()?;
                let allocated = c.status.as_ref().is_some_and(|s| s.allocation.is_some());
                Some((format!("{ns}/{name}"), Claim { asks, allocated }))
            })
            .collect();
        Claims { by_name }
    }

    /// The `namespace/name` of each claim `pod` references that asks for MIG devices (a
    /// template's claim once the cluster has made it, named in the pod's status).
    pub(crate) fn of_pod(&self, pod: &Pod) -> Vec<String> {
        let ns = pod.metadata.namespace.as_deref().unwrap_or("default");
        let made: BTreeMap<&str, &str> = pod
            .status
            .as_ref()
            .and_then(|s| s.resource_claim_statuses.as_ref())
            .into_iter()
            .flatten()
            .filter_map(|s| Some((s.name.as_str(), s.resource_claim_name.as_deref()?)))
            .collect();
        pod.spec
            .as_ref()
            .and_then(|s| s.resource_claims.as_ref())
            .into_iter()
            .flatten()
            .filter_map(|r| {
                let name = match &r.resource_claim_name {
                    Some(name) => name.as_str(),
                    None => made.get(r.name.as_str())?,
                };
                let key = format!("{ns}/{name}");
                self.by_name.contains_key(&key).then_some(key)
            })
            .collect()
    }

    /// What the claim `key` asks for.
    pub(crate) fn asks(&self, key: &str) -> Result<MigAsk, String> {
        self.by_name
            .get(key)
            .map_or_else(|| Ok(MigAsk::new()), |c| c.asks.clone())
    }

    pub(crate) fn allocated(&self, key: &str) -> bool {
        self.by_name.get(key).is_some_and(|c| c.allocated)
    }
}

/// The profile of a gpushare MIG class name (`mig-1g.5gb.gpushare.io` → `1g.5gb`).
fn profile_of_class(class: &str) -> Option<&str> {
    let profile = class
        .strip_prefix(CLASS_PREFIX)?
        .strip_suffix(CLASS_SUFFIX)?;
    let valid = !profile.is_empty()
        && profile.len() <= MAX_PROFILE
        && profile
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.');
    valid.then_some(profile)
}

/// What one claim's requests ask for of gpushare's MIG classes. Of a prioritised list
/// (`firstAvailable`) the first choice counts: it is the one the scheduler tries first.
fn claim_asks(claim: &ResourceClaim) -> Result<MigAsk, String> {
    let mut out = MigAsk::new();
    for r in claim
        .spec
        .devices
        .iter()
        .flat_map(|d| d.requests.iter().flatten())
    {
        let (class, mode, count) = match (&r.exactly, r.first_available.as_deref()) {
            (
                Some(ExactDeviceRequest {
                    device_class_name,
                    allocation_mode,
                    count,
                    ..
                }),
                _,
            )
            | (
                None,
                Some(
                    [
                        DeviceSubRequest {
                            device_class_name,
                            allocation_mode,
                            count,
                            ..
                        },
                        ..,
                    ],
                ),
            ) => (device_class_name, allocation_mode, count),
            _ => continue,
        };
        let Some(profile) = profile_of_class(class) else {
            continue;
        };
        let what = || format!("request {:?} for {class}", r.name);
        let n = match (mode.as_deref(), count) {
            (Some("All"), _) => {
                return Err(format!(
                    "{}: allocationMode All asks for every such device, which no count says",
                    what()
                ));
            }
            (_, None) => 1,
            (_, Some(n)) => u64::try_from(*n)
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("{}: count {n} is not a count of devices", what()))?,
        };
        let have = out.entry(profile.to_string()).or_default();
        *have = have
            .checked_add(n)
            .ok_or_else(|| format!("{}: the counts add up past any count", what()))?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn claim(name: &str, requests: serde_json::Value, allocated: bool) -> ResourceClaim {
        let mut c = json!({
            "metadata": { "name": name, "namespace": "ns" },
            "spec": { "devices": { "requests": requests } },
        });
        if allocated {
            c["status"] = json!({ "allocation": { "devices": { "results": [] } } });
        }
        serde_json::from_value(c).unwrap()
    }

    fn exactly(class: &str, extra: serde_json::Value) -> serde_json::Value {
        let mut e = json!({ "deviceClassName": class });
        e.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        json!({ "name": "gpu", "exactly": e })
    }

    #[test]
    fn counts_requests_for_gpushare_mig_classes_only() {
        let claims = Claims::new(&[
            claim(
                "a",
                json!([
                    exactly("mig-1g.5gb.gpushare.io", json!({})),
                    exactly("mig-3g.20gb.gpushare.io", json!({ "count": 2 })),
                    exactly("gpu.gpushare.io", json!({})),
                    exactly("mig-1g.5gb.example.com", json!({})),
                ]),
                false,
            ),
            claim(
                "whole",
                json!([exactly("gpu.gpushare.io", json!({}))]),
                false,
            ),
            claim(
                "first",
                json!([{ "name": "gpu", "firstAvailable": [
                    { "name": "big", "deviceClassName": "mig-7g.40gb.gpushare.io" },
                    { "name": "small", "deviceClassName": "mig-1g.5gb.gpushare.io" },
                ]}]),
                true,
            ),
        ]);
        assert_eq!(
            claims.asks("ns/a").unwrap(),
            MigAsk::from([("1g.5gb".into(), 1), ("3g.20gb".into(), 2)])
        );
        assert!(!claims.by_name.contains_key("ns/whole"));
        assert_eq!(
            claims.asks("ns/first").unwrap(),
            MigAsk::from([("7g.40gb".into(), 1)])
        );
        assert!(claims.allocated("ns/first") && !claims.allocated("ns/a"));
    }

    #[test]
    fn hostile_requests_are_refused_with_the_reason() {
        let class = "mig-1g.5gb.gpushare.io";
        for (extra, why) in [
            (json!({ "allocationMode": "All" }), "allocationMode All"),
            (json!({ "count": 0 }), "count 0"),
            (json!({ "count": -3 }), "count -3"),
        ] {
            let claims = Claims::new(&[claim("c", json!([exactly(class, extra)]), false)]);
            let e = claims.asks("ns/c").unwrap_err();
            assert!(e.contains(why) && e.contains(class), "{e}");
        }
        let huge = json!({ "count": i64::MAX });
        let claims = Claims::new(&[claim(
            "c",
            json!([
                exactly(class, huge.clone()),
                exactly(class, huge),
                exactly(class, json!({}))
            ]),
            false,
        )]);
        assert!(claims.asks("ns/c").is_ok(), "i64::MAX × 2 + 1 fits a u64");
        for class in [
            "mig-.gpushare.io",
            "mig-1G.5GB.gpushare.io",
            "mig-1g.5gb\n[clients].gpushare.io",
            &format!("mig-{}.gpushare.io", "1".repeat(40)),
        ] {
            assert_eq!(profile_of_class(class), None, "{class}");
        }
    }

    #[test]
    fn a_pods_claims_are_found_by_name_or_through_its_status() {
        let claims = Claims::new(&[
            claim(
                "shared",
                json!([exactly("mig-1g.5gb.gpushare.io", json!({}))]),
                false,
            ),
            claim(
                "p-gpu-x1",
                json!([exactly("mig-2g.10gb.gpushare.io", json!({}))]),
                false,
            ),
        ]);
        let pod: Pod = serde_json::from_value(json!({
            "metadata": { "name": "p", "namespace": "ns" },
            "spec": { "containers": [], "resourceClaims": [
                { "name": "a", "resourceClaimName": "shared" },
                { "name": "gpu", "resourceClaimTemplateName": "mig-2g.10gb" },
                { "name": "later", "resourceClaimTemplateName": "mig-2g.10gb" },
            ]},
            "status": { "resourceClaimStatuses": [{ "name": "gpu", "resourceClaimName": "p-gpu-x1" }] },
        }))
        .unwrap();
        assert_eq!(claims.of_pod(&pod), ["ns/shared", "ns/p-gpu-x1"]);
    }
}
