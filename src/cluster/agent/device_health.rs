//! The node's GPU health, told to the cluster: the Node condition `GPUUnhealthy` (True with the
//! devices and causes, False when all are healthy, Unknown while no watch listens), a Warning
//! event for each device that turns unhealthy and a Normal one for each that recovers. What
//! changed is worked out here, and whether the device plugins may restart (see [`Looked`]); the
//! agent acts on it (`super::health_pass`).

use super::cluster::Cluster;
use crate::cluster::api_client::EventType;
use crate::node::gpu_health::NodeHealth;
use crate::node::gpu_health::policy::Policy;
use crate::node::model::Node;
use crate::support::clock::unix_now;
use crate::support::error::Result;
use crate::support::paths::Paths;
use std::collections::BTreeMap;

pub(crate) const CONDITION: &str = "GPUUnhealthy";

/// A device: a whole GPU, or one of its MIG devices.
pub(crate) type Device = (u32, Option<(u32, u32)>);

/// What the cluster was last told: each unhealthy device and why; None while unknown.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Told {
    unhealthy: Option<BTreeMap<Device, String>>,
    /// The condition's status as last written; None before the first.
    status: Option<&'static str>,
    /// A device recovered while others were unhealthy: the plugins restart once none is.
    restart_waiting: bool,
    /// The plugins were restarted since (around a reset): no restart is due for what recovered.
    restarted: bool,
}

/// What one look found.
pub(crate) struct Looked {
    /// The cluster was told something new (the MIG state is due too).
    pub changed: bool,
    /// Devices that were unhealthy are healthy again, and none is unhealthy now: the device
    /// plugins may restart (a restart while a device is unhealthy would offer it again, as
    /// they learn of faults only from the events they hear).
    pub restart_plugins: bool,
    /// When a recoverable cause is next over.
    pub next_change: Option<f64>,
    /// Each unhealthy device and why; None while the health is unknown.
    pub unhealthy: Option<BTreeMap<Device, String>>,
}

/// Each unhealthy device and why, or None when no GPU's health is known.
fn unhealthy_devices(health: &NodeHealth) -> Option<BTreeMap<Device, String>> {
    if health.gpus.values().all(|h| h.is_err()) {
        return None;
    }
    let mut out = BTreeMap::new();
    for (gpu, h) in health.unhealthy() {
        let why = |mig: Option<(u32, u32)>| {
            h.reasons
                .iter()
                .filter(|r| r.mig_device.is_none() || r.mig_device == mig)
                .map(|r| r.describe())
                .collect::<Vec<_>>()
                .join(", ")
        };
        if !h.healthy {
            out.insert((gpu, None), why(None));
        }
        for &d in &h.unhealthy_mig_devices {
            out.insert((gpu, Some(d)), why(Some(d)));
        }
    }
    Some(out)
}

/// `GPU 1 (GPU-…)` or `MIG device 1:0 of GPU 2 (MIG-…)`.
fn name(node: &Node, device: Device) -> String {
    let gpu = node.gpus.iter().find(|g| g.index == device.0);
    match device.1 {
        None => format!(
            "GPU {} ({})",
            device.0,
            gpu.map_or("?", |g| g.uuid.as_str())
        ),
        Some((gi, ci)) => {
            let uuid = gpu
                .and_then(|g| g.mig.instances.as_ref())
                .into_iter()
                .flatten()
                .filter(|i| i.gpu_instance_id == gi)
                .flat_map(|i| &i.compute_instances)
                .find(|c| c.compute_instance_id == ci)
                .and_then(|c| c.uuid.clone())
                .unwrap_or_else(|| "?".into());
            format!("MIG device {gi}:{ci} of GPU {} ({uuid})", device.0)
        }
    }
}

impl Told {
    /// The GPUs that are unhealthy in part or in whole, as last told.
    pub(crate) fn unhealthy_gpus(&self) -> std::collections::BTreeSet<u32> {
        self.unhealthy
            .iter()
            .flatten()
            .map(|((gpu, _), _)| *gpu)
            .collect()
    }

    /// The next look tells the condition again, as the health has it, even when unchanged.
    pub(crate) fn retell(&mut self) {
        self.status = None;
    }

    /// The device plugins restarted (around a reset): what recovers by it needs no restart.
    pub(crate) fn plugins_restarted(&mut self) {
        self.restarted = true;
    }

    /// Look at the health now and tell the cluster what changed.
    pub(crate) fn look(
        &mut self,
        paths: &Paths,
        node: &Node,
        policy: &Policy,
        cluster: &Cluster,
    ) -> Result<Looked> {
        let health = NodeHealth::read(paths, node, policy, unix_now())?;
        let now = unhealthy_devices(&health);
        let next_change = health.next_change();
        if now == self.unhealthy && self.status.is_some() {
            return Ok(Looked {
                changed: false,
                restart_plugins: false,
                next_change,
                unhealthy: now,
            });
        }
        let k8s_node = cluster.get_node()?;
        let (status, reason, message) = match &now {
            None => (
                "Unknown",
                "NoHealthWatch",
                health
                    .gpus
                    .values()
                    .find_map(|h| h.as_ref().err().cloned())
                    .unwrap_or_default(),
            ),
            Some(devices) if devices.is_empty() => (
                "False",
                "GPUsHealthy",
                "every GPU and MIG device is healthy".into(),
            ),
            Some(devices) => (
                "True",
                "GPUFault",
                devices
                    .iter()
                    .map(|(d, why)| format!("{}: {why}", name(node, *d)))
                    .collect::<Vec<_>>()
                    .join("; "),
            ),
        };
        let at = k8s_openapi::jiff::Timestamp::now().to_string();
        let mut condition = serde_json::json!({
            "type": CONDITION,
            "status": status,
            "reason": reason,
            "message": crate::cluster::api_client::clip(&message, 1024),
            "lastHeartbeatTime": at,
        });
        if self.status != Some(status) {
            condition["lastTransitionTime"] = at.into();
        }
        cluster.patch_node_status(&serde_json::json!({"status": {"conditions": [condition]}}))?;
        let before = self.unhealthy.clone().unwrap_or_default();
        let after = now.clone().unwrap_or_default();
        let mut recovered = false;
        for (d, why) in &after {
            if !before.contains_key(d) {
                cluster.record(
                    &k8s_node,
                    EventType::Warning,
                    "GPUUnhealthy",
                    &format!("{}: {why}; out of service", name(node, *d)),
                )?;
            }
        }
        // Only what is known healthy now has recovered (not what turned unknown).
        if now.is_some() {
            let left: Vec<String> = after.keys().map(|d| name(node, *d)).collect();
            for d in before.keys().filter(|d| !after.contains_key(d)) {
                recovered = true;
                let then = if left.is_empty() {
                    "the device plugins restart to offer it again".to_string()
                } else {
                    format!(
                        "the device plugins restart once {} recover too (a restart now would offer them again)",
                        left.join(", ")
                    )
                };
                cluster.record(
                    &k8s_node,
                    EventType::Normal,
                    "GPUHealthy",
                    &format!("{} is healthy again; {then}", name(node, *d)),
                )?;
            }
        }
        // Recovered now or earlier, while others were unhealthy, and now none is.
        let due = (recovered || self.restart_waiting) && !std::mem::take(&mut self.restarted);
        let restart_plugins = due && now.as_ref().is_some_and(BTreeMap::is_empty);
        self.restart_waiting = due && !restart_plugins;
        self.unhealthy = now.clone();
        self.status = Some(status);
        Ok(Looked {
            changed: true,
            restart_plugins,
            next_change,
            unhealthy: now,
        })
    }
}
