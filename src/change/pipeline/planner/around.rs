//! The node-wide steps around the changes of the GPUs (pure, like the rest of the planner):
//!
//! - GPU clients: before a change that needs a GPU reset or a MIG mode change, the listed
//!   services that are active are stopped (in the order listed), then the listed kernel modules
//!   that are loaded are unloaded; at the end, everything this plan stops and everything an
//!   earlier run stopped and never started again (the record) is started again, in reverse;
//! - mig-parted's hooks at its four points: `apply-start` first (once a run), `pre-apply-mode`
//!   right before MIG mode changes and resets, `pre-apply-config` right before MIG instances
//!   change, `apply-exit` last.
//!
//! Changes in the `End` phase come after `Later` ones, so a run that needs several passes starts
//! its clients again only in its last.

use super::super::desired::Desired;
use super::super::observe::Observed;
use crate::change::hooks::HookPoint;
use crate::change::plan::{Change, Operation, Phase, Plan};
use crate::node::clients::Client;
use crate::node::model::{HolderKind, Node};

/// Add the node-wide steps to `plan` (its GPU changes in phase order). `first`: the first plan
/// of a run, the one `apply-start` belongs to.
pub(super) fn add(plan: &mut Plan, desired: &Desired, seen: &Observed, first: bool) {
    let changes_in = |phases: &[Phase]| {
        plan.changes
            .iter()
            .any(|c| phases.contains(&c.phase) && c.operation.changes_the_node())
    };
    let needs_free = changes_in(&[Phase::MigModes, Phase::Resets]);
    let layouts = changes_in(&[Phase::MigLayouts]);
    let listed = &desired.clients_and_hooks.clients;
    let mut stops: Vec<Client> = Vec::new();
    if needs_free {
        stops.extend(
            listed
                .services
                .iter()
                .filter(|s| seen.clients.active.contains(*s))
                .map(|s| Client::Service(s.clone())),
        );
        stops.extend(
            listed
                .modules
                .iter()
                .filter(|m| seen.clients.loaded.contains(*m))
                .map(|m| Client::Module(m.clone())),
        );
    }
    // Started again: the reverse of the order they were (or will be) stopped in, services
    // first and modules after them.
    let record = &seen.clients.stopped;
    let mut stopped: Vec<Client> = record
        .services
        .iter()
        .map(|s| Client::Service(s.clone()))
        .chain(
            stops
                .iter()
                .filter(|c| matches!(c, Client::Service(_)))
                .cloned(),
        )
        .chain(record.modules.iter().map(|m| Client::Module(m.clone())))
        .chain(
            stops
                .iter()
                .filter(|c| matches!(c, Client::Module(_)))
                .cloned(),
        )
        .collect();
    let mut seen_once = std::collections::BTreeSet::new();
    stopped.retain(|c| seen_once.insert(c.clone()));

    let mut steps: Vec<Change> = Vec::new();
    let hooks = desired.clients_and_hooks.hooks.as_ref();
    let hook = |point: HookPoint| {
        let hook = hooks?.at(point)?;
        let detail = hook.describe();
        Some(Change::node_wide(Operation::Hook(Box::new(hook)), detail))
    };
    if first {
        steps.extend(hook(HookPoint::ApplyStart));
    }
    for client in &stops {
        steps.push(Change::node_wide(
            Operation::StopClient(client.clone()),
            stop_detail(client, &seen.node),
        ));
    }
    if needs_free {
        steps.extend(hook(HookPoint::PreApplyMode));
    }
    if layouts {
        steps.extend(hook(HookPoint::PreApplyConfig));
    }
    for client in stopped.iter().rev() {
        let why = if stops.contains(client) {
            "again"
        } else {
            "again: an earlier run stopped it"
        };
        steps.push(Change::node_wide(
            Operation::StartClient(client.clone()),
            format!("{client} {why}"),
        ));
    }
    steps.extend(hook(HookPoint::ApplyExit));
    plan.changes.extend(steps);
    // Stable: each phase keeps its order, and the node-wide steps theirs.
    plan.changes.sort_by_key(|c| c.phase);
}

/// `nvidia-dcgm.service (holds the GPUs: nv-hostengine (pid 88, nvidia-dcgm.service))`.
fn stop_detail(client: &Client, node: &Node) -> String {
    let holders: Vec<String> = node
        .holders
        .iter()
        .filter(|h| releases(client, h))
        .map(|h| h.describe())
        .collect();
    if holders.is_empty() {
        client.to_string()
    } else {
        format!("{client} (holds the GPUs: {})", holders.join(", "))
    }
}

/// Whether stopping `client` takes the holder away: a process of that unit, or that module.
pub(super) fn releases(client: &Client, holder: &crate::node::model::Holder) -> bool {
    match (client, holder.kind) {
        (Client::Service(unit), HolderKind::Process) => holder.unit.as_ref() == Some(unit),
        (Client::Module(module), HolderKind::Module) => holder.name.replace('-', "_") == *module,
        _ => false,
    }
}

/// The node as the MIG planner should see it: the holders that listed, running GPU clients
/// account for are gone by the time a reset needs them gone (they are stopped first).
pub(super) fn without_released_holders(node: &Node, desired: &Desired, seen: &Observed) -> Node {
    let listed = &desired.clients_and_hooks.clients;
    let running: Vec<Client> = listed
        .services
        .iter()
        .filter(|s| seen.clients.active.contains(*s))
        .map(|s| Client::Service(s.clone()))
        .chain(
            listed
                .modules
                .iter()
                .filter(|m| seen.clients.loaded.contains(*m))
                .map(|m| Client::Module(m.clone())),
        )
        .collect();
    let mut node = node.clone();
    node.holders
        .retain(|h| !running.iter().any(|c| releases(c, h)));
    node
}
