//! Devices claims share (`mps.shares`, `mig.mps.shares` in gpushare.toml): a whole GPU or a MIG
//! device published with `allowMultipleAllocations` and consumable capacity — `memory` (MiB),
//! `compute` (percent of its multiprocessors) and `clients` (MPS clients; the device's cap) —
//! each with the operator's request policy. The scheduler gives each claim a share (its own
//! `shareID` and `consumedCapacity`) and refuses one that does not fit.
//!
//! Each share is an MPS client of the device's own daemon, which the plugin starts through the
//! pipeline for the first share, keeps running while any share is recorded
//! ([`crate::sharing::mps::shared`]), and stops after the last. A share's limits are its client's
//! `CUDA_MPS_PINNED_DEVICE_MEM_LIMIT` and `CUDA_MPS_ACTIVE_THREAD_PERCENTAGE`: MPS lets a
//! client lower the daemon's limits, never raise them, so the daemon holds what the policy's
//! `max` allows (the whole device without one), and a container that rewrites its own
//! environment can take up to that, not more.

use super::devices::{DraDevice, int, string};
use super::made::Maker;
use crate::node::config::shares::{Range, SharePolicy};
use crate::node::model::Node;
use crate::sharing::mps::limits::{self, MpsRequest};
use crate::sharing::mps::settings::{DaemonSpec, DirChoice};
use crate::sharing::mps::shared::{self, Share};
use crate::support::error::{Error, Result};
use serde_json::{Value, json};

/// How a share's limits hold, for the claim's status (and as the docs say it).
const ENFORCEMENT: &str = "MPS client limits (CUDA_MPS_PINNED_DEVICE_MEM_LIMIT, \
    CUDA_MPS_ACTIVE_THREAD_PERCENTAGE) in the container's environment: MPS lets a client lower \
    the daemon's limits, not raise them, so a process that rewrites its own environment can \
    reach the daemon's (the policy's max), not more";

/// The claim's device condition a share's prepare sets.
pub(crate) const SHARE_LIMITED: &str = "gpu.gpushare.io/share-limited";

fn policy_json(range: &Range, unit: &str) -> Value {
    let q = |v: u64| format!("{v}{unit}");
    let mut valid = json!({ "min": q(range.min), "step": q(range.step) });
    if let Some(max) = range.max {
        valid["max"] = json!(q(max));
    }
    json!({ "default": q(range.default), "validRange": valid })
}

/// Publish `device` (`memory_mib` of memory, `client_cap` MPS clients) as shared by claims.
pub(crate) fn publish(device: &mut DraDevice, policy: SharePolicy, memory_mib: u64, cap: u32) {
    device.shared = Some(policy);
    let p = &mut device.published;
    p["allowMultipleAllocations"] = json!(true);
    p["attributes"]["sharing"] = string("mps");
    p["attributes"]["mpsClients"] = int(u64::from(cap));
    // Every capacity of a shared device is consumed: one without a policy would be taken whole.
    p["capacity"] = json!({
        "memory": {
            "value": format!("{memory_mib}Mi"),
            "requestPolicy": policy_json(&policy.memory_mib, "Mi"),
        },
        "compute": {
            "value": "100",
            "requestPolicy": policy_json(&policy.compute_percent, ""),
        },
        "clients": {
            "value": cap.to_string(),
            "requestPolicy": { "default": "1", "validRange": { "min": "1", "step": "1" } },
        },
    });
}

/// A Kubernetes quantity (`10Gi`, `10737418240`, `25`, `1500M`) as a whole number of base
/// units; None when it is not one.
pub(crate) fn quantity(text: &str) -> Option<u128> {
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(split);
    let factor: u128 = match suffix {
        "" => 1,
        "k" => 1_000,
        "M" => 1_000_000,
        "G" => 1_000_000_000,
        "T" => 1_000_000_000_000,
        "Ki" => 1 << 10,
        "Mi" => 1 << 20,
        "Gi" => 1 << 30,
        "Ti" => 1 << 40,
        _ => return None,
    };
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && fraction.is_empty() || fraction.len() > 9 {
        return None;
    }
    let digits = |d: &str| -> Option<u128> {
        if d.is_empty() {
            Some(0)
        } else {
            d.parse::<u128>().ok()
        }
    };
    let scale = 10u128.pow(fraction.len() as u32);
    let scaled = digits(whole)?
        .checked_mul(scale)?
        .checked_add(digits(fraction)?)?
        .checked_mul(factor)?;
    // Rounded up, as Kubernetes rounds a quantity to whole units.
    Some(scaled.div_ceil(scale))
}

/// What a share was given.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Granted {
    /// The driver's device name.
    pub device: String,
    pub share_id: String,
    pub memory_mib: u64,
    pub thread_percentage: u32,
}

/// A share given, and the MPS daemon whose client it is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Given {
    pub share: Granted,
    pub daemon: String,
}

/// The share the scheduler counted for `device` (`consumed`: its `consumedCapacity`); what it
/// did not count is the policy's default, as the scheduler's own default.
pub(crate) fn granted(
    device: &DraDevice,
    policy: &SharePolicy,
    share_id: &str,
    consumed: &Value,
) -> Result<Granted> {
    let read = |key: &str, per: u128, default: u64| -> Result<u64> {
        match consumed.get(key) {
            None | Some(Value::Null) => Ok(default),
            Some(v) => v
                .as_str()
                .and_then(quantity)
                .map(|q| q.div_ceil(per))
                .and_then(|q| u64::try_from(q).ok())
                .ok_or_else(|| {
                    Error::failed(format!(
                        "device {}: consumedCapacity.{key} {v} is not a quantity",
                        device.name
                    ))
                }),
        }
    };
    let memory_mib = read("memory", 1 << 20, policy.memory_mib.default)?;
    let percent = read("compute", 1, policy.compute_percent.default)?;
    if memory_mib == 0 || !(1..=100).contains(&percent) {
        return Err(Error::failed(format!(
            "device {}: a share of {memory_mib} MiB and {percent}% of the multiprocessors cannot be given",
            device.name
        )));
    }
    Ok(Granted {
        device: device.name.clone(),
        share_id: share_id.to_string(),
        memory_mib,
        thread_percentage: percent as u32,
    })
}

/// The daemon a shared device gets: its own, holding the policy's max for each client.
pub(crate) fn daemon_for(
    node: &Node,
    device: &DraDevice,
    policy: &SharePolicy,
    paths: &crate::support::paths::Paths,
) -> Result<DaemonSpec> {
    let gpu = node
        .gpu(device.gpu)
        .ok_or_else(|| Error::failed(format!("GPU {} is gone", device.gpu)))?;
    let request = MpsRequest {
        clients: None,
        thread_percentage: policy
            .compute_percent
            .max
            .filter(|m| *m < 100)
            .map(|m| m as u32),
        memory_limit_mib: policy.memory_mib.max,
    };
    let dirs = DirChoice {
        paths,
        pipe_dir: None,
        log_dir: None,
    };
    match device.mig {
        None => Ok(DaemonSpec::for_gpus(
            &[(gpu, limits::gpu_target(node, gpu))],
            &request,
            dirs,
            false,
        )),
        Some((gi_id, ci_id)) => {
            let gi = gpu
                .instance(gi_id)
                .ok_or_else(|| Error::failed(format!("device {} is gone", device.name)))?;
            let ci = gi
                .compute_instances
                .iter()
                .find(|c| c.compute_instance_id == ci_id)
                .ok_or_else(|| Error::failed(format!("device {} is gone", device.name)))?;
            let target = limits::mig_target(node, gpu, gi, ci);
            DaemonSpec::for_mig_device(gpu, gi, ci, &target, &request, dirs, false)
        }
    }
}

fn running(spec: &DaemonSpec) -> bool {
    crate::sharing::mps::control::daemon_pid(&spec.pipe_dir)
        .is_some_and(crate::sharing::mps::process::alive)
}

/// Start `spec` through the pipeline unless a daemon serving its device runs; the daemon that
/// serves it then.
fn start(maker: &Maker, spec: &DaemonSpec, what: &str) -> Result<DaemonSpec> {
    let records = crate::sharing::mps::settings::load_all(&maker.paths)?;
    let uuid = &spec.devices[0].uuid;
    if let Some(r) = records
        .iter()
        .find(|r| r.devices.iter().any(|d| &d.uuid == uuid) && running(r))
    {
        return Ok(r.clone());
    }
    let steps = crate::change::pipeline::planner::mps::start(
        std::slice::from_ref(spec),
        &records,
        &running,
    );
    if let Some(b) = steps.blockers.first() {
        let e = Error::failed(b.message.clone());
        return Err(match &b.hint {
            Some(h) => e.with_hint(h.clone()),
            None => e,
        });
    }
    maker.change(what, steps.changes)?;
    crate::sharing::mps::settings::load_all(&maker.paths)?
        .into_iter()
        .find(|r| r.name == spec.name && running(r))
        .ok_or_else(|| Error::failed(format!("the MPS daemon `{}` did not start", spec.name)))
}

/// Whose share: the claim's UID, `namespace/name`, and the pods it is reserved for.
pub(crate) struct Holder<'a> {
    pub uid: &'a str,
    pub claim: &'a str,
    pub pods: &'a [String],
}

/// Give `holder` its share of `device`: recorded first, then the device's daemon running; the
/// daemon.
pub(crate) fn take(
    maker: &Maker,
    node: &Node,
    holder: &Holder,
    device: &DraDevice,
    policy: &SharePolicy,
    granted: &Granted,
) -> Result<DaemonSpec> {
    let (uid, claim) = (holder.uid, holder.claim);
    let spec = daemon_for(node, device, policy, &maker.paths)?;
    let mut record = shared::recorded(&maker.paths, uid)?;
    let share = Share {
        claim: claim.to_string(),
        device: device.name.clone(),
        uuid: device.uuid.clone(),
        daemon: spec.name.clone(),
        share_id: granted.share_id.clone(),
        memory_mib: granted.memory_mib,
        thread_percentage: granted.thread_percentage,
        pods: holder.pods.to_vec(),
    };
    if !record.contains(&share) {
        record.retain(|s| s.device != share.device || s.share_id != share.share_id);
        record.push(share);
        shared::record(&maker.paths, uid, &record)?;
    }
    start(maker, &spec, &format!("prepare {claim}"))
}

/// End claim `uid`'s shares: each daemon no other claim shares stops, then its record goes (a
/// stop that fails leaves the record, and the kubelet's next unprepare tries again).
pub(crate) fn end(maker: &Maker, uid: &str, claim: &str) -> Result<()> {
    let record = shared::recorded(&maker.paths, uid)?;
    if record.is_empty() {
        return Ok(());
    }
    let others: Vec<(String, Share)> = shared::all(&maker.paths)?
        .into_iter()
        .filter(|(u, _)| u != uid)
        .collect();
    let records = crate::sharing::mps::settings::load_all(&maker.paths)?;
    let mut changes = Vec::new();
    for share in &record {
        if others.iter().any(|(_, s)| s.daemon == share.daemon) {
            continue;
        }
        if let Some(r) = records.iter().find(|r| r.name == share.daemon) {
            let stop = crate::change::pipeline::planner::mps::stop(r);
            if !changes.contains(&stop) {
                changes.push(stop);
            }
        }
    }
    maker.change(&format!("unprepare {claim}"), changes)?;
    shared::record(&maker.paths, uid, &[])
}

/// Start again every daemon a share is recorded of that does not run (it was killed, or the
/// host restarted): the shares' next clients find it.
pub(crate) fn keep(maker: &Maker) -> Result<()> {
    let held = shared::all(&maker.paths)?;
    if held.is_empty() {
        return Ok(());
    }
    let records = crate::sharing::mps::settings::load_all(&maker.paths)?;
    for (_, share) in &held {
        let Some(r) = records.iter().find(|r| r.name == share.daemon) else {
            continue;
        };
        if !running(r) {
            let mut spec = r.clone();
            for d in &mut spec.devices {
                d.previous_compute_mode = None;
            }
            start(maker, &spec, &format!("keep {}", share.claim))?;
            crate::support::output::stderr_line(&format!(
                "gpushare dra-plugin: the MPS daemon `{}` of {}'s share had stopped; started again",
                r.name, share.claim
            ));
        }
    }
    Ok(())
}

/// Tell the claim `namespace/name` what each of its shares was given and how it holds: a
/// device status per share (`data`: the limits and the daemon; a condition saying how they are
/// enforced), as `kubectl get resourceclaim -o yaml` shows it.
pub(crate) async fn tell(
    client: &kube::Client,
    node: &str,
    namespace: &str,
    name: &str,
    shares: &[Given],
) -> Result<()> {
    use kube::api::{Api, DynamicObject, Patch, PatchParams};
    use kube::core::{ApiResource, GroupVersionKind};
    let now =
        k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(k8s_openapi::jiff::Timestamp::now());
    let devices: Vec<Value> = shares
        .iter()
        .map(|Given { share: g, daemon }| {
            json!({
                "driver": super::DRIVER, "pool": node, "device": g.device, "shareID": g.share_id,
                "data": {
                    "memory": format!("{}Mi", g.memory_mib),
                    "threadPercentage": g.thread_percentage,
                    "mpsDaemon": daemon,
                    "enforcement": ENFORCEMENT,
                },
                "conditions": [{
                    "type": SHARE_LIMITED, "status": "True", "reason": "MpsClientLimits",
                    "message": format!(
                        "{} MiB of device memory and {}% of the multiprocessors, as an MPS client of daemon {daemon}",
                        g.memory_mib, g.thread_percentage
                    ),
                    "lastTransitionTime": now,
                }],
            })
        })
        .collect();
    let patch = json!({
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": { "name": name, "namespace": namespace },
        "status": { "devices": devices },
    });
    let gvk = GroupVersionKind::gvk("resource.k8s.io", "v1", "ResourceClaim");
    let api: Api<DynamicObject> =
        Api::namespaced_with(client.clone(), namespace, &ApiResource::from_gvk(&gvk));
    // A field manager of its own: the binding conditions' are left as they are.
    api.patch_status(
        name,
        &PatchParams::apply("gpu.gpushare.io-shares").force(),
        &Patch::Apply(&patch),
    )
    .await
    .map_err(|e| {
        Error::failed(format!(
            "cannot set the share status of ResourceClaim {namespace}/{name}: {e}"
        ))
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_as_the_api_server_writes_them() {
        for (text, want) in [
            ("10Gi", Some(10u128 << 30)),
            ("1536Mi", Some(1536 << 20)),
            ("10737418240", Some(10737418240)),
            ("25", Some(25)),
            ("1500M", Some(1_500_000_000)),
            ("1.5Gi", Some(3 << 29)),
            ("0.1", Some(1)),
            ("", None),
            ("Gi", None),
            ("10Gb", None),
            ("-1", None),
            ("1e3", None),
        ] {
            assert_eq!(quantity(text), want, "{text}");
        }
    }

    fn device() -> DraDevice {
        DraDevice {
            name: "gpu-7".into(),
            gpu: 7,
            mig: None,
            uuid: "GPU-7".into(),
            placed: None,
            shared: None,
            published: json!({ "name": "gpu-7", "attributes": {}, "capacity": {
                "memory": { "value": "40960Mi" }, "multiprocessors": { "value": "108" } } }),
        }
    }

    fn policy() -> SharePolicy {
        SharePolicy {
            memory_mib: Range {
                default: 1024,
                min: 1024,
                step: 1024,
                max: Some(20480),
            },
            compute_percent: Range {
                default: 10,
                min: 5,
                step: 5,
                max: None,
            },
        }
    }

    #[test]
    fn a_shared_device_is_published_with_every_capacity_consumable() {
        let mut d = device();
        publish(&mut d, policy(), 40960, 48);
        let p = &d.published;
        assert_eq!(p["allowMultipleAllocations"], true);
        assert_eq!(p["attributes"]["sharing"]["string"], "mps");
        assert_eq!(
            p["capacity"]["memory"],
            json!({ "value": "40960Mi", "requestPolicy": { "default": "1024Mi",
                "validRange": { "min": "1024Mi", "step": "1024Mi", "max": "20480Mi" } } })
        );
        assert_eq!(p["capacity"]["compute"]["requestPolicy"]["default"], "10");
        assert_eq!(p["capacity"]["clients"]["value"], "48");
        assert!(p["capacity"].get("multiprocessors").is_none());
        assert_eq!(d.shared, Some(policy()));
    }

    #[test]
    fn a_share_is_what_the_scheduler_counted_or_the_default() {
        let d = device();
        let g = granted(
            &d,
            &policy(),
            "s1",
            &json!({ "memory": "10Gi", "compute": "25" }),
        )
        .unwrap();
        assert_eq!((g.memory_mib, g.thread_percentage), (10240, 25));
        let g = granted(&d, &policy(), "s1", &json!({})).unwrap();
        assert_eq!((g.memory_mib, g.thread_percentage), (1024, 10));
        for bad in [
            json!({ "memory": "lots" }),
            json!({ "compute": "101" }),
            json!({ "memory": 5 }),
        ] {
            assert!(granted(&d, &policy(), "s1", &bad).is_err(), "{bad}");
        }
    }
}
