//! One pass of the agent: read the node's labels and the layouts, and bring the node to the
//! chosen layout through the pipeline of `gpushare apply`, reporting the state in node labels and
//! Kubernetes events.
//!
//! pending (a change is decided; GPU clients are paused and leave) → applying (the changes run)
//! → success | failed | reboot-required. A layout that is missing or invalid, or does not fit the
//! node, is `failed` with an event, and nothing changes. What a pass decided is remembered with
//! what it was decided from (the label and the layout's text), so a pass that finds the same
//! inputs does nothing but check the node still has the layout; a failed run is tried again
//! after `--retry` seconds, and one that pods held up also as soon as a pod on the node changes.

use super::cluster::Cluster;
use super::device_health::Told;
use super::gpu_clients::{self, Originals};
use super::labels::{self, Choice, State};
use super::layouts::{self, Found};
use crate::change::pipeline::converge::{Converge, Converged, converge, take_guard};
use crate::change::pipeline::desired::DesiredSource;
use crate::change::pipeline::planner::changes_anything;
use crate::change::pipeline::signals::Trap;
use crate::change::plan::PlanOptions;
use crate::change::plan::join;
use crate::change::plan::{Plan, Status};
use crate::cluster::api_client::EventType;
use crate::cluster::on_demand;
use crate::node::Context;
use crate::node::gpu_health::listener::Listener;
use crate::observe::liveness::Liveness;
use crate::observe::pod_resources::{self, Holders};
use crate::support::error::{Error, Exit, Result};
use k8s_openapi::api::core::v1::Node;
use kube::ResourceExt;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The agent's options.
pub(crate) struct Settings {
    pub sysfs_root: PathBuf,
    /// How long GPU clients get to leave the node.
    pub pause_timeout: Duration,
    /// When a failed run is tried again.
    pub retry: Duration,
    /// The host root of the kubelet to ask which pods hold which devices; None: not asked.
    pub pod_resources_root: Option<PathBuf>,
    /// How often the MIG state is published for the controller (on a node that opts in).
    pub publish_every: Duration,
    /// Reset GPUs a fatal fault left unhealthy once nothing holds them.
    pub reset_unhealthy_gpus: bool,
}

/// How a pass ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Success,
    /// Bad input: tried again only when the label or the layout changes.
    Invalid,
    /// The run failed: tried again after `--retry`.
    Failed,
    RebootRequired,
}

/// What a pass was decided from.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Key {
    choice: Choice,
    /// The layout's text, or the error finding it gave.
    layout: std::result::Result<String, String>,
}

pub(crate) struct Agent<'a> {
    pub(super) ctx: &'a mut Context,
    pub(super) cluster: &'a Cluster,
    pub(super) settings: Settings,
    liveness: Arc<Liveness>,
    trap: &'a Trap,
    last: Option<(Key, Outcome)>,
    retry_at: Option<Instant>,
    /// No pass has finished since the agent started.
    first_pass: bool,
    /// When the MIG state was last published.
    published_at: Option<Instant>,
    /// The gpushare.toml of the layout being brought about (None for mig-parted's).
    pub(super) chosen: Option<Arc<crate::node::config::Config>>,
    /// The last event a pass ended with.
    last_report: Option<(&'static str, String)>,
    /// The last run waits for pods to let go of devices: a pod's change tries it again.
    held_by_pods: bool,
    /// The GPU health watch, closed around runs that reset GPUs.
    pub(super) listener: Option<&'a Listener>,
    /// What the cluster was last told of the GPUs' health.
    pub(super) told: Told,
    /// When to look at the health again (a recoverable cause ends, or a look failed).
    pub(super) health_at: Option<f64>,
    /// The DeviceTaintRules' apiVersion, once asked; None inside where the cluster has none.
    pub(super) taint_api: Option<Option<&'static str>>,
    /// The DeviceTaintRules are to be made to match the health (a sync failed, or it changed).
    pub(super) taints_due: bool,
    /// Rules someone else made under the names of the agent's, as last reported.
    pub(super) squatters: std::collections::BTreeSet<String>,
    /// The health record as last seen, to notice changes made outside the agent.
    pub(super) record_seen: crate::node::gpu_health::record::RecordSeen,
}

/// A failure of a pass that is not about the layout (the API server did not answer): the pass
/// is tried again soon.
const API_RETRY: Duration = Duration::from_secs(5);

impl<'a> Agent<'a> {
    pub(crate) fn new(
        ctx: &'a mut Context,
        cluster: &'a Cluster,
        settings: Settings,
        liveness: Arc<Liveness>,
        trap: &'a Trap,
        listener: Option<&'a Listener>,
    ) -> Self {
        Agent {
            ctx,
            cluster,
            settings,
            liveness,
            trap,
            last: None,
            retry_at: None,
            first_pass: true,
            published_at: None,
            chosen: None,
            last_report: None,
            held_by_pods: false,
            listener,
            told: Told::default(),
            health_at: None,
            taint_api: None,
            taints_due: false,
            squatters: Default::default(),
            record_seen: Default::default(),
        }
    }

    /// A failed pass waits to be tried again and its time has come.
    pub(crate) fn retry_due(&self) -> bool {
        self.retry_at.is_some_and(|t| Instant::now() >= t)
    }

    /// The MIG state is due to be published again.
    pub(crate) fn publish_due(&self) -> bool {
        self.published_at
            .is_none_or(|t| t.elapsed() >= self.settings.publish_every)
    }

    /// Publish the node's MIG state for the controller; a failure is logged and tried again
    /// at the next turn.
    pub(crate) fn publish(&mut self) {
        self.published_at = Some(Instant::now());
        if let Err(e) = self.try_publish() {
            self.ctx
                .out
                .warn(format!("cannot publish the MIG state: {}", e.message));
        }
    }

    fn try_publish(&mut self) -> Result<()> {
        let root = self.settings.pod_resources_root.clone();
        let policy = self.policy();
        super::publish::publish(
            self.ctx,
            self.cluster,
            root.as_deref(),
            &self.settings.sysfs_root,
            &policy,
        )
    }

    /// A pod on the node changed: a run that pods held up is tried again at once (they may
    /// have let go of their devices); otherwise the MIG state, which says which pods hold
    /// which instances, is published. With `--reset-unhealthy-gpus` the health is looked at
    /// too.
    pub(crate) fn pods_changed(&mut self) {
        if self.held_by_pods && self.retry_at.is_some() {
            self.retry_at = Some(Instant::now());
            self.pass();
        } else {
            self.publish();
        }
        // A pod that let go of an unhealthy GPU lets it be reset.
        if self.settings.reset_unhealthy_gpus {
            self.look_at_health();
        }
    }

    /// One pass; what goes wrong is logged, reported on the node when it can be, and retried.
    pub(crate) fn pass(&mut self) {
        self.liveness.update(|s| s.busy = true);
        let result = self.try_pass();
        self.publish();
        if result.is_ok() {
            self.first_pass = false;
        }
        self.liveness.update(|s| s.busy = false);
        self.liveness.turn();
        if let Err(e) = result {
            self.ctx.out.warn(format!(
                "{}; trying again in {} s",
                e.message,
                API_RETRY.as_secs()
            ));
            self.retry_at = Some(Instant::now() + API_RETRY);
        }
    }

    fn try_pass(&mut self) -> Result<()> {
        let node = self.cluster.get_node()?;
        let node = self.restore_left_paused(node)?;
        let Some(choice) = labels::choose(node.labels(), node.annotations()) else {
            self.liveness.update(|s| {
                s.state = "idle".into();
                s.layout = None;
            });
            self.last = None;
            self.retry_at = None;
            return Ok(());
        };
        self.liveness.update(|s| s.layout = Some(choice.describe()));
        let found = match node.annotations().get(on_demand::LAYOUT_ANNOTATION) {
            Some(text) if choice.label == on_demand::LAYOUT_ANNOTATION => {
                layouts::on_demand(&self.cluster.node, text)
            }
            _ => {
                let data = self.cluster.layouts_data()?;
                layouts::find(&self.cluster.layouts, data.as_ref(), &choice.name)
            }
        };
        let key = Key {
            choice: choice.clone(),
            layout: match &found {
                Ok(f) => Ok(f.text.clone()),
                Err(e) => Err(format!("{} {:?}", e.message, e.hint)),
            },
        };
        let before = self
            .last
            .as_ref()
            .filter(|(k, _)| *k == key)
            .map(|(_, o)| *o);
        let found = match found {
            Ok(f) => f,
            Err(e) if before.is_none() => {
                let what = choice.describe();
                return self.finish(&node, key, Outcome::Invalid, failure(&what, &e));
            }
            // Reported already.
            Err(_) => return Ok(()),
        };
        let due = self.retry_at.is_none_or(|t| Instant::now() >= t);
        match before {
            Some(Outcome::Invalid | Outcome::RebootRequired) => return Ok(()),
            Some(Outcome::Failed) if !due => return Ok(()),
            _ => {}
        }
        self.converge(&node, key, found, before == Some(Outcome::Success))
    }

    /// Plan; when the node differs, pause the GPU clients if the change needs the GPUs free,
    /// apply, and bring the clients back.
    fn converge(&mut self, node: &Node, key: Key, found: Found, had_it: bool) -> Result<()> {
        let what = format!("{} ({})", key.choice.describe(), found.source.describe());
        self.chosen = match &found.source {
            DesiredSource::Gpushare(config) => Some(Arc::new(config.clone())),
            _ => None,
        };
        self.held_by_pods = false;
        // Look at the node afresh, as a new command would.
        self.ctx.reopen_backend();
        let plan = match node_change(
            self.ctx,
            found.source.clone(),
            &self.settings.sysfs_root,
            true,
        ) {
            Ok(Converged::DryRun(plan)) => plan,
            Ok(Converged::Applied(_)) => {
                return Err(Error::failed("a dry run changed the node"));
            }
            Err(e) => {
                let outcome = outcome_of(&e);
                return self.finish(node, key, outcome, failure(&what, &e));
            }
        };
        if !changes_anything(&plan) && plan.blockers.is_empty() {
            if plan.reboot_required {
                let message = reboot_message(&what, &plan.reboot_gpus);
                return self.finish(node, key, Outcome::RebootRequired, message);
            }
            // Nothing to report when this agent said so already, or when it just started and
            // the labels say so (a restart, or a watch made again, is no news).
            let state_ok = labels::has_state(node.labels(), &key.choice, State::Success);
            if state_ok && (had_it || self.first_pass) {
                self.last = Some((key, Outcome::Success));
                self.matched();
                return Ok(());
            }
            let message = Report::new(
                EventType::Normal,
                "LayoutApplied",
                format!("the node has {what}: nothing to change"),
            );
            return self.finish(node, key, Outcome::Success, message);
        }
        // Pods that block it are known before anything is said to be applied: a blocked layout
        // tried again every --retry is one failure, not an "Applying" each time.
        let needs_gpus_free = gpu_clients::needs_gpus_free(&plan);
        if needs_gpus_free && let Some(blocked) = self.blocked_by_pods(&plan, &what)? {
            self.held_by_pods = true;
            return self.finish(node, key, Outcome::Failed, failure(&what, &blocked));
        }
        self.set_state(&key.choice, State::Pending)?;
        self.record(
            node,
            &Report::new(
                EventType::Normal,
                "Applying",
                format!("applying {what}: {}", summary(&plan)),
            ),
        )?;
        let paused = if gpu_clients::restarts_clients(&plan) {
            match self.pause(node, gpu_clients::to_pause(node.labels()))? {
                Ok(originals) => Some(originals),
                Err(e) => return self.finish(node, key, Outcome::Failed, failure(&what, &e)),
            }
        } else {
            None
        };
        // A pod may have come while the clients left: look again before taking devices.
        if let Some(originals) = &paused
            && needs_gpus_free
            && let Some(blocked) = self.blocked_by_pods(&plan, &what)?
        {
            self.resume(originals)?;
            self.held_by_pods = true;
            return self.finish(node, key, Outcome::Failed, failure(&what, &blocked));
        }
        self.set_state(&key.choice, State::Applying)?;
        // The driver resets no GPU that an NVML client holds, the health watch included.
        let listener = self.listener;
        let watch_closed = needs_gpus_free.then(|| listener.map(Listener::pause));
        let result = node_change(self.ctx, found.source, &self.settings.sysfs_root, false);
        drop(watch_closed);
        if let Some(originals) = &paused {
            self.resume(originals)?;
        }
        let (outcome, report) = match result {
            Ok(Converged::Applied(applied)) => match applied.error {
                Some(e) => (outcome_of(&e), failure(&what, &e)),
                None if applied.made.reboot_required => (
                    Outcome::RebootRequired,
                    reboot_message(&what, &applied.made.reboot_gpus),
                ),
                None => (
                    Outcome::Success,
                    Report::new(
                        EventType::Normal,
                        "LayoutApplied",
                        format!("applied {what}: {}", made(&applied.made)),
                    ),
                ),
            },
            Ok(Converged::DryRun(_)) => (
                Outcome::Failed,
                failure(&what, &Error::failed("the run only planned")),
            ),
            Err(e) => (outcome_of(&e), failure(&what, &e)),
        };
        let node = self.cluster.get_node()?;
        self.finish(&node, key, outcome, report)
    }

    /// User pods that hold what the plan takes away, as an error naming them.
    pub(super) fn blocked_by_pods(&mut self, plan: &Plan, what: &str) -> Result<Option<Error>> {
        let snapshot = self.ctx.snapshot()?;
        // What the kubelet allocated says exactly which devices are held; without it, the
        // pods' resource names say which may be.
        let held = self
            .settings
            .pod_resources_root
            .as_deref()
            .map(|root| pod_resources::read(&snapshot, root));
        let blocking = match held {
            Some(Holders::Known(held)) => gpu_clients::blocking_holders(&held, plan, &snapshot),
            _ => {
                let pods = self.cluster.pods_on_node_now()?;
                gpu_clients::blocking_pods(&pods, &gpu_clients::taken(plan, &snapshot))
            }
        };
        if blocking.is_empty() {
            return Ok(None);
        }
        Ok(Some(
            Error::failed(format!(
                "pods on this node hold GPU devices that {what} takes away: {}",
                blocking.join(", ")
            ))
            .with_hint(format!(
                "delete or move them, or choose a layout that keeps their devices; the agent \
                 tries again when a pod on the node changes, and every {} s",
                self.settings.retry.as_secs()
            )),
        ))
    }

    /// Pause the GPU clients and wait for their pods to leave; on a timeout (or a signal) they
    /// come back and the error says which pods stayed. The outer error is the API's.
    pub(super) fn pause(&mut self, node: &Node, originals: Originals) -> Result<Result<Originals>> {
        if originals.is_empty() {
            return Ok(Ok(originals));
        }
        let (l, a) = gpu_clients::pause(&originals);
        self.cluster
            .patch_node(&crate::cluster::api_client::merge_patch(&l, &a))?;
        let names: Vec<&str> = originals
            .keys()
            .map(|l| l.trim_start_matches("nvidia.com/gpu.deploy."))
            .collect();
        self.record(
            node,
            &Report::new(
                EventType::Normal,
                "GpuClientsPaused",
                format!(
                    "paused {} (nvidia.com/gpu.deploy.*={}); waiting up to {} s for their pods to leave",
                    names.join(", "),
                    gpu_clients::PAUSED,
                    self.settings.pause_timeout.as_secs()
                ),
            ),
        )?;
        let keys: BTreeSet<String> = originals.keys().cloned().collect();
        let deadline = Instant::now() + self.settings.pause_timeout;
        loop {
            let mut changes = self.cluster.pod_changes();
            let pods = self.cluster.pods_on_node()?;
            let left: Vec<String> = gpu_clients::paused_pods(&pods, &keys)
                .into_iter()
                .map(gpu_clients::name_of)
                .collect();
            if left.is_empty() {
                return Ok(Ok(originals));
            }
            let why = if let Some(signal) = self.trap.received() {
                Some(Error::failed(format!(
                    "stopped by {signal} while GPU clients were leaving"
                )))
            } else if Instant::now() >= deadline {
                Some(
                    Error::failed(format!(
                        "the paused GPU clients did not leave the node within {} s: {}",
                        self.settings.pause_timeout.as_secs(),
                        left.join(", ")
                    ))
                    .with_hint(
                        "their DaemonSets must select on nvidia.com/gpu.deploy.<component> (the \
                         generated ones do); or raise --pause-timeout",
                    ),
                )
            } else {
                None
            };
            if let Some(e) = why {
                self.resume(&originals)?;
                return Ok(Err(e));
            }
            // A pod leaving wakes this at once; signals and the deadline are looked at each second.
            changes.wait(Duration::from_secs(1));
        }
    }

    /// Put the GPU clients' labels back as they were.
    pub(super) fn resume(&mut self, originals: &Originals) -> Result<()> {
        let (l, a) = gpu_clients::restore(originals);
        self.cluster
            .patch_node(&crate::cluster::api_client::merge_patch(&l, &a))?;
        self.ctx
            .out
            .note("the GPU clients' labels are back as they were");
        Ok(())
    }

    /// A previous agent stopped with the GPU clients paused (the annotation says how they
    /// were): bring them back before anything else.
    fn restore_left_paused(&mut self, node: Node) -> Result<Node> {
        let Some(originals) = gpu_clients::recorded(node.annotations()) else {
            return Ok(node);
        };
        self.ctx
            .out
            .warn("the GPU clients were left paused by an earlier run; bringing them back");
        self.resume(&originals)?;
        self.cluster.get_node()
    }

    /// The node was just found as the chosen layout says (the metrics' time since it matched,
    /// and the layout in force).
    fn matched(&mut self) {
        let now = crate::support::clock::unix_now();
        let config = self.chosen.clone();
        self.liveness.update(|s| {
            s.matched_at = Some(now);
            s.config = config;
        });
    }

    fn set_state(&mut self, choice: &Choice, state: State) -> Result<()> {
        let labels: BTreeMap<String, Option<String>> = labels::state_labels(choice, state)
            .into_iter()
            .map(|(k, v)| (k.to_string(), Some(v.to_string())))
            .collect();
        self.cluster
            .patch_node(&crate::cluster::api_client::merge_patch(
                &labels,
                &BTreeMap::new(),
            ))?;
        self.liveness.update(|s| s.state = state.as_str().into());
        self.ctx.out.note(format!(
            "node {}: {} {}",
            self.cluster.node,
            labels::STATE_LABEL,
            state.as_str()
        ));
        Ok(())
    }

    pub(super) fn record(&mut self, node: &Node, report: &Report) -> Result<()> {
        match report.kind {
            EventType::Normal => self
                .ctx
                .out
                .note(format!("{}: {}", report.reason, report.message)),
            EventType::Warning => self
                .ctx
                .out
                .warn(format!("{}: {}", report.reason, report.message)),
        }
        self.cluster
            .record(node, report.kind, report.reason, &report.message)
    }

    /// The end of a pass: the state label, the event, and what to remember.
    fn finish(&mut self, node: &Node, key: Key, outcome: Outcome, report: Report) -> Result<()> {
        let state = match outcome {
            Outcome::Success => State::Success,
            Outcome::Invalid | Outcome::Failed => State::Failed,
            Outcome::RebootRequired => State::RebootRequired,
        };
        if labels::has_state(node.labels(), &key.choice, state) {
            self.liveness.update(|s| s.state = state.as_str().into());
        } else {
            self.set_state(&key.choice, state)?;
        }
        if outcome == Outcome::Success {
            self.matched();
        }
        // The same failure again (a retry that found the same pods in the way) is said once.
        let said = (report.reason, report.message.clone());
        if self.last_report.as_ref() != Some(&said) {
            self.record(node, &report)?;
            self.last_report = Some(said);
        }
        self.retry_at = (outcome == Outcome::Failed).then(|| Instant::now() + self.settings.retry);
        self.last = Some((key, outcome));
        Ok(())
    }
}

/// The one call through which the agent plans (`dry_run`) and changes the node: the pipeline of
/// `gpushare apply` (check, plan, run under the node lock and journal), never asking.
pub(super) fn node_change(
    ctx: &mut Context,
    source: DesiredSource,
    sysfs_root: &Path,
    dry_run: bool,
) -> Result<Converged> {
    let mut guard = take_guard(ctx, "agent", dry_run)?;
    let how = Converge {
        sysfs_root,
        options: PlanOptions::default(),
        dry_run,
        yes: true,
        clients_and_hooks: Default::default(),
    };
    converge(ctx, source, &how, guard.as_mut(), &mut |_| Ok(()))
}

/// An event to record.
pub(super) struct Report {
    kind: EventType,
    pub(super) reason: &'static str,
    message: String,
}

impl Report {
    pub(super) fn new(kind: EventType, reason: &'static str, message: String) -> Self {
        Report {
            kind,
            reason,
            message,
        }
    }
}

fn failure(what: &str, e: &Error) -> Report {
    let mut message = format!("cannot apply {what}: {}", e.message);
    if let Some(hint) = &e.hint {
        message.push_str(&format!(" (hint: {hint})"));
    }
    Report::new(EventType::Warning, "LayoutFailed", message)
}

fn reboot_message(what: &str, gpus: &[u32]) -> Report {
    Report::new(
        EventType::Warning,
        "RebootRequired",
        format!(
            "{what}: the MIG mode of GPU(s) {} changes at the next reboot; the agent finishes the layout after it",
            join(gpus)
        ),
    )
}

/// Bad input is not tried again until it changes.
fn outcome_of(e: &Error) -> Outcome {
    if e.exit == Exit::Usage {
        Outcome::Invalid
    } else {
        Outcome::Failed
    }
}

/// `12 change(s) on GPU(s) 0, 1: create_gpu_instance ×6, create_compute_instance ×6`.
fn summary(plan: &Plan) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for c in plan
        .changes
        .iter()
        .filter(|c| c.operation.changes_the_node() || c.later)
    {
        match counts.iter_mut().find(|(a, _)| *a == c.action) {
            Some((_, n)) => *n += 1,
            None => counts.push((c.action, 1)),
        }
    }
    let total: usize = counts.iter().map(|(_, n)| n).sum();
    let list: Vec<String> = counts.iter().map(|(a, n)| format!("{a} ×{n}")).collect();
    let mut s = format!("{total} change(s) on {}: {}", plan.scope(), list.join(", "));
    if !plan.blockers.is_empty() {
        s.push_str(&format!(
            "; in the way: {}",
            plan.blockers
                .iter()
                .map(|b| format!("GPU {}: {}", b.gpu, b.message))
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    s
}

/// What a run made: `7 change(s) on GPU(s) 0, 1: …`.
fn made(plan: &Plan) -> String {
    let done = Plan {
        changes: plan
            .changes
            .iter()
            .filter(|c| c.status == Some(Status::Done))
            .cloned()
            .collect(),
        ..Plan::default()
    };
    if done.changes.is_empty() {
        return "nothing to change".into();
    }
    summary(&done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::change::plan::{Change, Operation};

    #[test]
    fn summaries_count_each_action() {
        let gi = |gpu| {
            Change::new(
                gpu,
                Operation::DestroyGpuInstance { gpu_instance_id: 1 },
                "x",
            )
        };
        let plan = Plan {
            changes: vec![gi(0), gi(1), Change::new(1, Operation::AwaitReboot, "r")],
            ..Plan::default()
        };
        assert_eq!(
            summary(&plan),
            "2 change(s) on GPU(s) 0, 1: destroy_gpu_instance ×2"
        );
        let mut done = plan.clone();
        done.changes[0].status = Some(Status::Done);
        assert_eq!(
            made(&done),
            "1 change(s) on GPU(s) 0: destroy_gpu_instance ×1"
        );
        assert_eq!(made(&plan), "nothing to change");
    }

    #[test]
    fn bad_input_waits_for_a_change_and_failures_are_retried() {
        assert_eq!(outcome_of(&Error::usage("x")), Outcome::Invalid);
        assert_eq!(outcome_of(&Error::failed("x")), Outcome::Failed);
        assert_eq!(outcome_of(&Error::new(Exit::Differs, "x")), Outcome::Failed);
    }
}
