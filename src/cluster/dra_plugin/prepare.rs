//! Prepare and unprepare a claim's devices: the kubelet names the claim, the API server says
//! which of this driver's devices it was allocated, gpushare's CDI generator gives their device
//! nodes, driver files and hooks, and one CDI spec per claim (`<cdi root>/gpu.gpushare.io-<claim
//! UID>.json`, written atomically) names them for the runtime. That file is the checkpoint: a
//! plugin killed after a prepare finds it when it starts again, prepares the same claim to the
//! same CDI id, and its unprepare removes it.

use super::devices::{DRIVER, DraDevice};
use super::record::PreparedClaim;
use crate::change::cdi;
use crate::change::cdi::spec::{ContainerEdits, Device, Spec};
pub(crate) use crate::sharing::mig::claimed::is_uid;
use crate::support::error::{Error, Result};
use kube::api::{Api, DynamicObject};
use kube::core::{ApiResource, GroupVersionKind};
use std::path::{Path, PathBuf};

/// The CDI kind of the claims' specs.
pub(crate) const CDI_KIND: &str = "k8s.gpu.gpushare.io/claim";

/// A claim as the kubelet names it.
#[derive(Debug, Clone)]
pub(crate) struct ClaimRef {
    pub namespace: String,
    pub name: String,
    pub uid: String,
}

/// One allocated device of a claim: the requests it serves and the device's name.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Allocated {
    pub requests: Vec<String>,
    pub device: String,
    /// The effects of the taint of an unhealthy device the allocation tolerates (whatever
    /// its value: the scheduler matched it).
    pub tolerates: Vec<&'static str>,
    /// A share of a device claims share (`allowMultipleAllocations`): the scheduler's share ID
    /// and what it counted the share to consume (`consumedCapacity`).
    pub share: Option<(String, serde_json::Value)>,
}

/// The effects of the taint `gpushare.io/unhealthy` an allocation result's tolerations take.
fn tolerated_effects(result: &serde_json::Value) -> Vec<&'static str> {
    let mut effects = Vec::new();
    for t in result["tolerations"].as_array().into_iter().flatten() {
        let key = t["key"].as_str().unwrap_or("");
        let exists = t["operator"].as_str() == Some("Exists");
        if key != crate::node::gpu_health::TAINT_KEY && !(key.is_empty() && exists) {
            continue;
        }
        for effect in ["NoSchedule", "NoExecute"] {
            let takes = t["effect"]
                .as_str()
                .is_none_or(|e| e.is_empty() || e == effect);
            if takes && !effects.contains(&effect) {
                effects.push(effect);
            }
        }
    }
    effects
}

/// A claim's spec file under `cdi_root`.
pub(crate) fn spec_path(cdi_root: &Path, uid: &str) -> PathBuf {
    cdi_root.join(format!("{DRIVER}-{uid}.json"))
}

/// The CDI device id of a prepared claim.
pub(crate) fn cdi_id(uid: &str) -> String {
    format!("{CDI_KIND}={uid}")
}

/// This driver's devices in the claim's allocation on `node`'s pool, from the claim as the API
/// server has it; an error when it is not the claim the kubelet named (another UID) or has no
/// allocation of ours.
pub(crate) fn allocated(
    claim: &serde_json::Value,
    wanted: &ClaimRef,
    node: &str,
) -> Result<Vec<Allocated>> {
    let uid = claim["metadata"]["uid"].as_str().unwrap_or_default();
    if uid != wanted.uid {
        return Err(Error::failed(format!(
            "ResourceClaim {}/{} has UID {uid}, not {}: it was replaced",
            wanted.namespace, wanted.name, wanted.uid
        )));
    }
    let results = claim["status"]["allocation"]["devices"]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut out: Vec<Allocated> = Vec::new();
    for r in &results {
        if r["driver"] != DRIVER || r["pool"] != node {
            continue;
        }
        let (Some(device), Some(request)) = (r["device"].as_str(), r["request"].as_str()) else {
            return Err(Error::failed(format!(
                "ResourceClaim {}/{}: an allocation result without a device or request",
                wanted.namespace, wanted.name
            )));
        };
        let tolerates = tolerated_effects(r);
        // A share ID is a UID the scheduler made; anything else is not recorded or passed on.
        let share = match r["shareID"].as_str() {
            None => None,
            Some(id) if is_uid(id) => Some((id.to_string(), r["consumedCapacity"].clone())),
            Some(id) => {
                return Err(Error::failed(format!(
                    "ResourceClaim {}/{}: device {device} has share ID {:?}, not a UID",
                    wanted.namespace,
                    wanted.name,
                    crate::cluster::api_client::clip(id, 80)
                )));
            }
        };
        match out.iter_mut().find(|a| {
            a.device == device && a.share.as_ref().map(|s| &s.0) == share.as_ref().map(|s| &s.0)
        }) {
            // Every request that got the device must tolerate it.
            Some(a) => {
                a.requests.push(request.to_string());
                a.tolerates.retain(|e| tolerates.contains(e));
            }
            None => out.push(Allocated {
                requests: vec![request.to_string()],
                device: device.to_string(),
                tolerates,
                share,
            }),
        }
    }
    if out.is_empty() {
        return Err(Error::failed(format!(
            "ResourceClaim {}/{} is allocated no device of {DRIVER} on node {node}",
            wanted.namespace, wanted.name
        )));
    }
    Ok(out)
}

/// The pods a claim is reserved for, as the API server has it.
pub(crate) fn reserved_pods(claim: &serde_json::Value) -> Vec<String> {
    claim["status"]["reservedFor"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["resource"] == "pods" && r["apiGroup"].as_str().unwrap_or("").is_empty())
        .filter_map(|r| r["name"].as_str().map(str::to_string))
        .collect()
}

/// The claim's CDI spec: one device named after the claim, with the device nodes of every
/// device it was allocated, and the driver's files and hooks for the container, from the node's
/// spec `full`; its annotations record the claim ([`PreparedClaim`]).
pub(crate) fn claim_spec(
    full: &Spec,
    offered: &[DraDevice],
    allocated: &[Allocated],
    record: &PreparedClaim,
    uid: &str,
) -> Result<Spec> {
    let mut edits = ContainerEdits::default();
    for a in allocated {
        // Allocated earlier, gone or changed since: refused, the kubelet says why on the pod.
        let device = offered.iter().find(|d| d.name == a.device).ok_or_else(|| {
            Error::failed(format!(
                "device {} is no longer on the node as it was allocated (MIG changed, or the GPU went)",
                a.device
            ))
        })?;
        let described = full
            .devices
            .iter()
            .find(|d| d.name == device.uuid)
            .ok_or_else(|| Error::failed(format!("no CDI device for {}", device.uuid)))?;
        for n in &described.container_edits.device_nodes {
            if !edits.device_nodes.contains(n) {
                edits.device_nodes.push(n.clone());
            }
        }
    }
    let mut spec = Spec {
        cdi_version: String::new(),
        annotations: record.annotations(),
        kind: CDI_KIND.into(),
        devices: vec![Device {
            name: uid.to_string(),
            container_edits: edits,
        }],
        container_edits: full.container_edits.clone(),
    };
    spec.cdi_version = cdi::spec::minimum_version(&spec).into();
    let problems = cdi::spec::validate(&spec);
    if !problems.is_empty() {
        return Err(Error::failed(format!(
            "the claim's CDI spec is invalid: {}",
            problems.join("; ")
        )));
    }
    Ok(spec)
}

/// Read the claim from the API server.
pub(crate) async fn read_claim(
    client: &kube::Client,
    claim: &ClaimRef,
) -> Result<serde_json::Value> {
    let gvk = GroupVersionKind::gvk("resource.k8s.io", "v1", "ResourceClaim");
    let api: Api<DynamicObject> = Api::namespaced_with(
        client.clone(),
        &claim.namespace,
        &ApiResource::from_gvk(&gvk),
    );
    let found = api.get(&claim.name).await.map_err(|e| {
        Error::failed(format!(
            "cannot read ResourceClaim {}/{}: {e}",
            claim.namespace, claim.name
        ))
    })?;
    serde_json::to_value(found).map_err(|e| Error::failed(format!("a ResourceClaim: {e}")))
}

/// Write the claim's spec (atomically, 0644: runtimes read it unprivileged).
pub(crate) fn write_spec(cdi_root: &Path, uid: &str, spec: &Spec) -> Result<()> {
    if !is_uid(uid) {
        return Err(Error::failed(format!("claim UID {uid:?} is not a UID")));
    }
    let text = crate::support::output::to_safe_json(spec)?;
    let path = spec_path(cdi_root, uid);
    crate::support::fsutil::write_atomic(&path, text.as_bytes(), 0o644)
        .map_err(|e| Error::failed(format!("cannot write {}: {e}", path.display())))
}

/// Remove the claim's spec; one already gone is as good.
pub(crate) fn remove_spec(cdi_root: &Path, uid: &str) -> Result<()> {
    if !is_uid(uid) {
        return Err(Error::failed(format!("claim UID {uid:?} is not a UID")));
    }
    let path = spec_path(cdi_root, uid);
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::failed(format!(
            "cannot remove {}: {e}",
            path.display()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::change::cdi::DeviceSource;
    use crate::node::backend::Backend;
    use crate::node::backend::sim::SimBackend;
    use serde_json::json;

    fn claim() -> ClaimRef {
        ClaimRef {
            namespace: "ml".into(),
            name: "c".into(),
            uid: "0b9f1c6e-3d4a-4f5b-8c7d-123456789abc".into(),
        }
    }

    #[test]
    fn only_this_drivers_devices_on_this_node_of_the_named_claim() {
        let c = claim();
        let object = json!({
            "metadata": { "uid": c.uid },
            "status": { "allocation": { "devices": { "results": [
                { "driver": DRIVER, "pool": "n1", "device": "gpu-1", "request": "a" },
                { "driver": DRIVER, "pool": "n1", "device": "gpu-1", "request": "b" },
                { "driver": DRIVER, "pool": "n2", "device": "gpu-0", "request": "a" },
                { "driver": "gpu.nvidia.com", "pool": "n1", "device": "gpu-0", "request": "a" },
            ]}}},
        });
        assert_eq!(
            allocated(&object, &c, "n1").unwrap(),
            [Allocated {
                requests: vec!["a".into(), "b".into()],
                device: "gpu-1".into(),
                tolerates: Vec::new(),
                share: None,
            }]
        );
        let mut shared = object.clone();
        shared["status"]["allocation"]["devices"]["results"][0]["shareID"] =
            "0b6f0c9e-3a51-4c55-9a5e-1f0e0d8c7b6a".into();
        assert!(allocated(&shared, &c, "n1").unwrap()[0].share.is_some());
        shared["status"]["allocation"]["devices"]["results"][0]["shareID"] = "../../x".into();
        assert!(
            allocated(&shared, &c, "n1")
                .unwrap_err()
                .message
                .contains("not a UID")
        );
        assert!(
            allocated(&object, &c, "n3")
                .unwrap_err()
                .message
                .contains("no device")
        );
        let mut replaced = object.clone();
        replaced["metadata"]["uid"] = "other".into();
        assert!(
            allocated(&replaced, &c, "n1")
                .unwrap_err()
                .message
                .contains("replaced")
        );
    }

    #[test]
    fn a_claims_spec_has_exactly_its_devices_nodes() {
        let node = SimBackend::from_preset("t4x4").unwrap().snapshot().unwrap();
        let offered = super::super::devices::devices(&node).unwrap();
        let c = claim();
        let wanted = [Allocated {
            requests: vec!["gpu".into()],
            device: "gpu-2".into(),
            tolerates: Vec::new(),
            share: None,
        }];
        let record = PreparedClaim {
            namespace: c.namespace.clone(),
            name: c.name.clone(),
            devices: vec!["gpu-2".into()],
            pods: vec!["p".into()],
        };
        let (full, _) = cdi::spec_for(&node, &DeviceSource::default()).unwrap();
        let spec = claim_spec(&full, &offered, &wanted, &record, &c.uid).unwrap();
        assert_eq!(spec.annotations, record.annotations());
        let nodes: Vec<&str> = spec.devices[0]
            .container_edits
            .device_nodes
            .iter()
            .map(|n| n.path.as_str())
            .collect();
        assert_eq!(nodes, ["/dev/nvidia2"]);
        assert_eq!(spec.devices[0].name, c.uid);
        let gone = [Allocated {
            requests: vec!["gpu".into()],
            device: "gpu-9".into(),
            tolerates: Vec::new(),
            share: None,
        }];
        let e = claim_spec(&full, &offered, &gone, &record, &c.uid).unwrap_err();
        assert!(e.message.contains("no longer on the node"), "{}", e.message);
        let dir = tempfile::tempdir().unwrap();
        write_spec(dir.path(), &c.uid, &spec).unwrap();
        let back: Spec =
            serde_json::from_str(&std::fs::read_to_string(spec_path(dir.path(), &c.uid)).unwrap())
                .unwrap();
        assert_eq!(back, spec);
        assert_eq!(
            super::super::record::prepared_claims(dir.path()).unwrap(),
            [record]
        );
        remove_spec(dir.path(), &c.uid).unwrap();
        remove_spec(dir.path(), &c.uid).unwrap();
        assert!(write_spec(dir.path(), "../../etc/x", &spec).is_err());
    }

    #[test]
    fn the_pods_a_claim_is_reserved_for() {
        let claim = json!({ "status": { "reservedFor": [
            { "resource": "pods", "name": "a", "uid": "1" },
            { "apiGroup": "example.com", "resource": "pods", "name": "x", "uid": "2" },
            { "resource": "pods", "name": "b", "uid": "3" },
        ]}});
        assert_eq!(reserved_pods(&claim), ["a", "b"]);
        assert!(reserved_pods(&json!({})).is_empty());
    }

    #[test]
    fn a_toleration_of_the_unhealthy_taint_is_seen_with_its_effects() {
        let r = |t: serde_json::Value| json!({ "tolerations": [t] });
        let both = ["NoSchedule", "NoExecute"];
        assert_eq!(
            tolerated_effects(&r(
                json!({"key": "gpushare.io/unhealthy", "operator": "Exists"})
            )),
            both
        );
        assert_eq!(tolerated_effects(&r(json!({"operator": "Exists"}))), both);
        assert_eq!(
            tolerated_effects(&r(
                json!({"key": "gpushare.io/unhealthy", "value": "Xid79", "effect": "NoSchedule"})
            )),
            ["NoSchedule"]
        );
        assert_eq!(
            tolerated_effects(&r(
                json!({"key": "gpushare.io/unhealthy", "effect": "NoExecute"})
            )),
            ["NoExecute"]
        );
        assert!(tolerated_effects(&r(json!({"key": "other", "operator": "Exists"}))).is_empty());
        assert!(tolerated_effects(&json!({})).is_empty());
    }
}
