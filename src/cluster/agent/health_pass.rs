//! The agent's part in GPU health (see [`super::device_health`] for what the cluster is told):
//! look again when the watch heard something or a recoverable cause ends, publish the MIG state
//! with the unhealthy devices, restart the device plugins once every device is healthy again
//! (they learn of faults only from the events they hear, so a restart forgets them), and with
//! `--reset-unhealthy-gpus` reset a GPU a fatal fault left unhealthy once nothing holds it,
//! through the pipeline of `gpushare recover`.

use super::device_taints;
use super::gpu_clients::{self, Originals};
use super::reconcile::{Agent, Report, node_change};
use crate::change::pipeline::converge::Converged;
use crate::change::pipeline::desired::DesiredSource;
use crate::change::pipeline::planner::changes_anything;
use crate::cluster::api_client::EventType;
use crate::node::gpu_health::listener::Listener;
use crate::node::gpu_health::policy::Policy;
use crate::node::model::selector::GpuSelector;
use crate::support::error::{Error, Result};
use kube::ResourceExt;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// A look that failed (the API server did not answer) is tried again after this.
const RETRY: Duration = Duration::from_secs(5);
/// A rule someone else made in the way of the agent's is looked at again after this.
const SQUAT_RECHECK: Duration = Duration::from_secs(30);
const SQUATTED: &str = "DeviceTaintRuleNotOurs";

impl Agent<'_> {
    /// The health record was changed by someone else since the last look.
    pub(crate) fn record_changed(&mut self) -> bool {
        self.record_seen.changed(&self.ctx.paths)
    }

    /// A recoverable cause is over, or a failed look is due again.
    pub(crate) fn health_due(&self) -> bool {
        self.health_at
            .is_some_and(|t| crate::support::clock::unix_now() >= t)
    }

    /// Look at the GPUs' health and act on what changed; a failure is logged and tried again.
    pub(crate) fn look_at_health(&mut self) {
        self.health_at = None;
        if let Err(e) = self.try_look_at_health() {
            self.ctx
                .out
                .warn(format!("cannot report the GPUs' health: {}", e.message));
            self.health_at = Some(crate::support::clock::unix_now() + RETRY.as_secs_f64());
        }
    }

    fn try_look_at_health(&mut self) -> Result<()> {
        let policy = self.policy();
        // A reset runs at most once a look; what it cleared is told at once.
        for first in [true, false] {
            self.ctx.reopen_backend();
            let snapshot = self.ctx.snapshot()?;
            let looked = self
                .told
                .look(&self.ctx.paths, &snapshot, &policy, self.cluster)?;
            self.health_at = looked.next_change;
            if looked.changed {
                self.publish();
                self.taints_due = true;
            }
            // The rules are tried again later when they could not be made to match; that
            // never stops the plugins' restart or a reset.
            if self.taints_due
                && let Some(unhealthy) = &looked.unhealthy
            {
                let again = match self.sync_device_taints(&snapshot, unhealthy, looked.changed) {
                    Ok(true) => None,
                    Ok(false) => Some(SQUAT_RECHECK),
                    Err(e) => {
                        self.ctx.out.warn(format!(
                            "cannot taint the unhealthy DRA devices: {}",
                            e.message
                        ));
                        Some(RETRY)
                    }
                };
                self.taints_due = again.is_some();
                if let Some(after) = again {
                    let at = crate::support::clock::unix_now() + after.as_secs_f64();
                    self.health_at = Some(self.health_at.map_or(at, |t| t.min(at)));
                }
            }
            if looked.restart_plugins {
                self.restart_device_plugins()?;
            }
            let reset = first
                && self.settings.reset_unhealthy_gpus
                && looked.unhealthy.as_ref().is_some_and(|u| !u.is_empty())
                && self.reset_unhealthy(policy.clone())?;
            if !reset {
                break;
            }
        }
        Ok(())
    }

    /// Make the node's DeviceTaintRules say which DRA devices are unhealthy (see
    /// [`super::device_taints`]); nothing where the cluster serves none. Whether they are
    /// settled: false while a rule someone else made holds the name of one the agent needs.
    /// `retold`: the condition was just written from the health, so any squatter is told again.
    fn sync_device_taints(
        &mut self,
        snapshot: &crate::node::model::Node,
        unhealthy: &BTreeMap<super::device_health::Device, String>,
        retold: bool,
    ) -> Result<bool> {
        let api = match self.taint_api {
            Some(api) => api,
            None => {
                let api = self.cluster.device_taint_api()?;
                if api.is_none() {
                    self.ctx.out.note(
                        "the cluster serves no DeviceTaintRules (resource.k8s.io, the DRADeviceTaints gate): unhealthy DRA devices are not tainted",
                    );
                }
                self.taint_api = Some(api);
                api
            }
        };
        let Some(api) = api else { return Ok(true) };
        let node = self.cluster.node.clone();
        let minors = self
            .settings
            .pod_resources_root
            .as_deref()
            .map(|root| crate::node::model::minor::minors(snapshot, root))
            .unwrap_or_default();
        let want = device_taints::tainted(snapshot, &minors, unhealthy);
        let label = format!(
            "{}={}",
            device_taints::NODE_LABEL,
            device_taints::node_hash(&node)
        );
        // Only the rules exactly as the agent makes them are its own; the rest are left alone.
        let ours: BTreeMap<String, String> = self
            .cluster
            .device_taint_rules(api, &label)?
            .iter()
            .filter_map(|r| {
                let device = device_taints::owned_device(r, &node)?;
                Some((device, r["metadata"]["name"].as_str()?.to_string()))
            })
            .collect();
        // Every create and delete is tried, whatever another one answered.
        let mut failed = Vec::new();
        let mut squatted = BTreeMap::new();
        for (device, value) in want.iter().filter(|(d, _)| !ours.contains_key(*d)) {
            let rule = device_taints::rule(api, &node, device, value);
            let name = device_taints::rule_name(&node, device);
            let existing = match self.cluster.create_device_taint_rule(api, &rule) {
                Ok(true) => continue,
                Ok(false) => self.cluster.device_taint_rule(api, &name),
                Err(e) => Err(e),
            };
            match existing {
                Ok(Some(r)) if device_taints::owned_device(&r, &node).as_ref() == Some(device) => {}
                Ok(Some(r)) => {
                    squatted.insert(name, (device.clone(), device_taints::describe_selector(&r)));
                }
                Ok(None) => failed.push(format!("{name} went while it was made")),
                Err(e) => failed.push(e.message),
            }
        }
        for (_, name) in ours.iter().filter(|(d, _)| !want.contains_key(*d)) {
            if let Err(e) = self.cluster.delete_device_taint_rule(api, name) {
                failed.push(e.message);
            }
        }
        let settled = squatted.is_empty();
        self.report_squatters(squatted, retold)?;
        if !failed.is_empty() {
            return Err(Error::failed(format!(
                "the DeviceTaintRules: {}",
                failed.join("; ")
            )));
        }
        Ok(settled)
    }

    /// Tell the cluster of rules that have the name of the agent's rule for an unhealthy device
    /// but are someone else's (the device stays untainted): a Warning event for each new one,
    /// and the reason `DeviceTaintRuleNotOurs` on the `GPUUnhealthy` condition while any is
    /// left (again when `retold`). When none is left the condition is told again as the health
    /// has it.
    fn report_squatters(
        &mut self,
        squatted: BTreeMap<String, (String, String)>,
        retold: bool,
    ) -> Result<()> {
        let names: BTreeSet<String> = squatted.keys().cloned().collect();
        if names == self.squatters && (!retold || names.is_empty()) {
            return Ok(());
        }
        if squatted.is_empty() {
            self.squatters.clear();
            self.told.retell();
            self.health_at = Some(crate::support::clock::unix_now());
            return Ok(());
        }
        let node = self.cluster.get_node()?;
        let mut untainted = Vec::new();
        for (name, (device, selects)) in &squatted {
            let said = format!(
                "the DeviceTaintRule {name} has the name of the agent's rule for the unhealthy device {device} but is not the agent's (it selects {selects}): {device} is not tainted; delete or rename that rule"
            );
            untainted.push(said.clone());
            if !self.squatters.contains(name) {
                self.ctx.out.warn(format!("{SQUATTED}: {said}"));
                self.cluster
                    .record(&node, EventType::Warning, SQUATTED, &said)?;
            }
        }
        let condition = serde_json::json!({
            "type": super::device_health::CONDITION,
            "status": "True",
            "reason": SQUATTED,
            "message": crate::cluster::api_client::clip(&untainted.join("; "), 1024),
            "lastHeartbeatTime": k8s_openapi::jiff::Timestamp::now().to_string(),
        });
        self.cluster
            .patch_node_status(&serde_json::json!({"status": {"conditions": [condition]}}))?;
        self.squatters = names;
        Ok(())
    }

    /// The health policy of the layout in force (the defaults without one).
    pub(crate) fn policy(&self) -> Policy {
        Policy::of(self.chosen.as_ref().and_then(|c| c.file.health.as_deref()))
    }

    /// Restart the device plugins (NVIDIA's and its DRA kubelet plugin): they mark a device
    /// unhealthy for good, and offer it again only when they start.
    fn restart_device_plugins(&mut self) -> Result<()> {
        let node = self.cluster.get_node()?;
        let originals: Originals = gpu_clients::to_pause(node.labels())
            .into_iter()
            .filter(|(l, _)| {
                gpu_clients::DEVICE_PLUGINS
                    .iter()
                    .any(|c| *l == gpu_clients::deploy_label(c))
            })
            .collect();
        match self.pause(&node, originals)? {
            Ok(originals) => self.resume(&originals),
            Err(e) => Err(e),
        }
    }

    /// Reset the GPUs a fatal fault left unhealthy that nothing holds: planned as `gpushare
    /// recover` plans it, the GPU clients paused around it; whether a reset ran.
    fn reset_unhealthy(&mut self, policy: Policy) -> Result<bool> {
        let source = DesiredSource::Recover {
            gpus: GpuSelector::All,
            policy,
        };
        let sysfs = self.settings.sysfs_root.clone();
        let plan = match node_change(self.ctx, source.clone(), &sysfs, true)? {
            Converged::DryRun(plan) => plan,
            Converged::Applied(_) => return Ok(false),
        };
        if !changes_anything(&plan) {
            return Ok(false);
        }
        // The device plugins restart around the reset and then offer every device: a GPU a
        // recoverable fault left unhealthy waits for its quiet period first.
        let resets: std::collections::BTreeSet<u32> = plan.changes.iter().map(|c| c.gpu).collect();
        if !self.told.unhealthy_gpus().is_subset(&resets) {
            return Ok(false);
        }
        let what = "a reset of the unhealthy GPUs";
        let node = self.cluster.get_node()?;
        if !plan.blockers.is_empty() || self.blocked_by_pods(&plan, what)?.is_some() {
            // Tried again at the next look: when a pod on the node changes, or an event comes.
            return Ok(false);
        }
        let gpus: Vec<String> = plan.changes.iter().map(|c| c.detail.clone()).collect();
        let originals = match self.pause(&node, gpu_clients::to_pause(node.labels()))? {
            Ok(originals) => originals,
            Err(e) => {
                self.ctx.out.warn(format!("{what} waits: {}", e.message));
                return Ok(false);
            }
        };
        let listener = self.listener;
        let watch_closed = listener.map(Listener::pause);
        let result = node_change(self.ctx, source, &sysfs, false);
        drop(watch_closed);
        self.resume(&originals)?;
        self.told.plugins_restarted();
        let report = match result {
            Ok(Converged::Applied(applied)) if applied.error.is_none() => Report::new(
                EventType::Normal,
                "GPUReset",
                format!(
                    "reset the GPUs a fatal fault left unhealthy: {}",
                    gpus.join("; ")
                ),
            ),
            Ok(Converged::Applied(applied)) => Report::new(
                EventType::Warning,
                "GPUResetFailed",
                format!(
                    "{what} failed: {}",
                    applied.error.map(|e| e.message).unwrap_or_default()
                ),
            ),
            Ok(Converged::DryRun(_)) => return Ok(false),
            Err(e) => Report::new(
                EventType::Warning,
                "GPUResetFailed",
                format!("{what} failed: {}", e.message),
            ),
        };
        let reset = report.reason == "GPUReset";
        let node = self.cluster.get_node()?;
        self.record(&node, &report)?;
        if reset {
            // A reset takes the GPU's MIG instances with it: the layout in force brings them back.
            self.pass();
        }
        Ok(reset)
    }
}
