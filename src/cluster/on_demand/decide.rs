//! The decision: which nodes and GPUs change for the pending pods, and which idle capacity goes
//! back to its node's baseline. Pure: the controller gathers the views, this decides, the
//! controller writes.
//!
//! Each pending pod, oldest first, is first matched with idle instances of its profiles on a
//! node it can go to (ones already there, or coming in a reshape under way): then it only
//! waits. Otherwise every node it can go to that may change now is tried: each instance it
//! needs takes an idle instance of its profile there or is added where it destroys the fewest
//! idle ones, never one a pod holds, a process uses or another pod was promised. The node
//! chosen is one already changing in this decision when it can be (the fewest nodes touched),
//! then the one that destroys the fewest idle instances, then the first by name.

use super::ceiling::Ceiling;
use super::demand::Pending;
use super::eligible::can_go_to;
use super::layout::NodeOffer;
use super::reshape::{Addition, GpuShape};
use k8s_openapi::api::core::v1::Node;
use std::collections::{BTreeMap, BTreeSet};

/// Where a node stands for the controller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Status {
    /// At its layout and free to change.
    Ready,
    /// Its agent has not reached the layout written for it yet (or is changing the node).
    Reshaping,
    /// Changed recently: no new change for this many seconds.
    Cooling(u64),
}

/// A node that opts in, as the controller sees it.
#[derive(Debug, Clone)]
pub(crate) struct NodeView<'n> {
    pub name: String,
    pub node: &'n Node,
    /// Its GPUs as they are, or as the layout under way makes them.
    pub gpus: Vec<GpuShape>,
    pub status: Status,
    /// The controller's layout is on it.
    pub has_layout: bool,
    /// No pod needed its reshaped capacity for the grace period: idle capacity may go back.
    pub give_back_due: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Idle instances on this node are there (or coming) for it.
    Waiting { node: String },
    /// This node is being reshaped for it.
    Reshaping {
        node: String,
        gpus: Vec<u32>,
        destroyed: usize,
    },
    /// Nothing can be done now; why.
    NoFit(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Change {
    /// Write this layout; the message says why.
    Layout(NodeOffer, String),
    /// The node has its baseline again: remove the controller's layout.
    Baseline,
}

#[derive(Debug, Default)]
pub(crate) struct Decision {
    pub changes: BTreeMap<String, Change>,
    /// Per pending pod (`namespace/name`).
    pub verdicts: Vec<(String, Verdict)>,
}

pub(crate) struct Limits {
    /// At most this many nodes reshaping at once.
    pub max_reshaping: usize,
}

/// A pending pod with what it needs, one resource suffix per instance (bounded by the
/// [`Ceiling`]).
struct Wanting {
    name: String,
    wants: Vec<String>,
}

/// What one node would do for one pod: the steps, in order, on its GPUs.
#[derive(Clone)]
struct Offer {
    steps: Vec<(usize, Step)>,
    changed: BTreeSet<u32>,
    destroyed: usize,
}

#[derive(Clone)]
enum Step {
    /// Take an idle instance of this profile.
    Promise(usize),
    Add(Addition),
}

impl Offer {
    /// Make the steps on the node's GPUs (the state they were weighed on).
    fn make(&self, gpus: &mut [GpuShape], pod: &str) {
        for (g, step) in &self.steps {
            match step {
                Step::Promise(p) => {
                    gpus[*g].promise_idle(*p, pod);
                }
                Step::Add(a) => gpus[*g].add(a, pod),
            }
        }
    }
}

pub(crate) fn decide(nodes: &mut [NodeView], pending: &[Pending], limits: &Limits) -> Decision {
    let mut decision = Decision::default();
    let mut changed: BTreeMap<usize, (BTreeSet<u32>, usize, Vec<String>)> = BTreeMap::new();
    let in_flight = nodes
        .iter()
        .filter(|n| n.status == Status::Reshaping)
        .count();
    let mut wanted_on: BTreeSet<usize> = BTreeSet::new();
    // A node's offer for one instance of a profile, until the node changes: pods of one
    // profile mostly weigh the same nodes again.
    let mut offers: BTreeMap<(usize, String), Result<Offer, String>> = BTreeMap::new();
    let ceiling = Ceiling::of(nodes.iter().map(|n| n.gpus.as_slice()));
    for pending_pod in pending {
        let eligible: Vec<usize> = (0..nodes.len())
            .filter(|&i| can_go_to(pending_pod.pod, nodes[i].node))
            .collect();
        wanted_on.extend(&eligible);
        let pod = pending_pod;
        if eligible.is_empty() {
            let why = format!(
                "no node that opts in to MIG on demand ({}=true) matches its node selector, \
                 affinity and tolerations",
                super::OPT_IN_LABEL
            );
            decision
                .verdicts
                .push((pod.name.clone(), Verdict::NoFit(why)));
            continue;
        }
        // What it asks for, bounded by what a node could ever hold, before any list is made.
        let wants = match pending_pod
            .asks
            .as_ref()
            .map_err(|why| format!("its request for MIG devices cannot be read: {why}"))
            .and_then(|asks| ceiling.wants(asks))
        {
            Ok(wants) => wants,
            Err(why) => {
                decision
                    .verdicts
                    .push((pod.name.clone(), Verdict::NoFit(why)));
                continue;
            }
        };
        let pod = &Wanting {
            name: pending_pod.name.clone(),
            wants,
        };
        if let Some(&i) = eligible
            .iter()
            .find(|&&i| promise_idle(&mut nodes[i].gpus, pod))
        {
            offers.retain(|(n, _), _| *n != i);
            let node = nodes[i].name.clone();
            decision
                .verdicts
                .push((pod.name.clone(), Verdict::Waiting { node }));
            continue;
        }
        let mut best: Option<(usize, Offer)> = None;
        let mut refusals = Vec::new();
        for &i in &eligible {
            let n = &nodes[i];
            let already = changed.contains_key(&i);
            if !already {
                match n.status {
                    Status::Reshaping => {
                        refusals.push(format!("{}: being reshaped already", n.name));
                        continue;
                    }
                    // The seconds left stay out of the words: the pod is told once, not each turn.
                    Status::Cooling(_) => {
                        refusals.push(format!("{}: changed recently (cooling down)", n.name));
                        continue;
                    }
                    Status::Ready if in_flight + changed.len() >= limits.max_reshaping => {
                        refusals.push(format!(
                            "{}: at most {} node(s) reshape at once",
                            n.name, limits.max_reshaping
                        ));
                        continue;
                    }
                    Status::Ready => {}
                }
            }
            let weighed = match pod.wants.as_slice() {
                [one] => offers
                    .entry((i, one.clone()))
                    .or_insert_with(|| offer(&n.gpus, pod))
                    .clone(),
                _ => offer(&n.gpus, pod),
            };
            match weighed {
                Ok(o) => {
                    let better = best.as_ref().is_none_or(|(b, bo)| {
                        let key = |i: usize, o: &Offer| (!changed.contains_key(&i), o.destroyed);
                        key(i, &o) < key(*b, bo)
                    });
                    if better {
                        best = Some((i, o));
                    }
                }
                Err(why) => refusals.push(format!("{}: {why}", n.name)),
            }
        }
        match best {
            Some((i, o)) => {
                let mut gpus = nodes[i].gpus.clone();
                o.make(&mut gpus, &pod.name);
                // The solver's word on what changes, before anything is written.
                if let Some(e) = gpus
                    .iter()
                    .filter(|g| o.changed.contains(&g.index))
                    .find_map(|g| g.check().err())
                {
                    let why = format!(
                        "{}: the placement solver refuses the layout: {e}",
                        nodes[i].name
                    );
                    decision
                        .verdicts
                        .push((pod.name.clone(), Verdict::NoFit(why)));
                    continue;
                }
                nodes[i].gpus = gpus;
                offers.retain(|(n, _), _| *n != i);
                let entry = changed.entry(i).or_default();
                entry.0.extend(&o.changed);
                entry.1 += o.destroyed;
                entry.2.push(pod.name.clone());
                decision.verdicts.push((
                    pod.name.clone(),
                    Verdict::Reshaping {
                        node: nodes[i].name.clone(),
                        gpus: o.changed.into_iter().collect(),
                        destroyed: o.destroyed,
                    },
                ));
            }
            None => {
                let why = format!("no node can hold it now: {}", refusals.join("; "));
                decision
                    .verdicts
                    .push((pod.name.clone(), Verdict::NoFit(why)));
            }
        }
    }
    for (&i, (gpus, destroyed, pods)) in &changed {
        let n = &nodes[i];
        let why = format!(
            "reshaping GPU(s) {} for {}: {} idle instance(s) replaced",
            crate::change::plan::join(&gpus.iter().copied().collect::<Vec<_>>()),
            pods.join(", "),
            destroyed
        );
        decision
            .changes
            .insert(n.name.clone(), Change::Layout(layout_of(&n.gpus), why));
    }
    give_back(
        nodes,
        &wanted_on,
        &changed,
        in_flight,
        limits,
        &mut decision,
    );
    decision
}

/// Idle capacity nobody waits for goes back to the baseline: GPU by GPU where the held
/// instances allow; once the whole node is back, the controller's layout goes.
fn give_back(
    nodes: &mut [NodeView],
    wanted_on: &BTreeSet<usize>,
    changed: &BTreeMap<usize, (BTreeSet<u32>, usize, Vec<String>)>,
    in_flight: usize,
    limits: &Limits,
    decision: &mut Decision,
) {
    let mut reshaping = in_flight + changed.len();
    for (i, n) in nodes.iter_mut().enumerate() {
        if changed.contains_key(&i)
            || wanted_on.contains(&i)
            || n.status != Status::Ready
            || !n.give_back_due
            || !n.has_layout
        {
            continue;
        }
        if n.gpus.iter().all(GpuShape::is_baseline) {
            decision.changes.insert(n.name.clone(), Change::Baseline);
            continue;
        }
        if reshaping >= limits.max_reshaping {
            continue;
        }
        let mut back = Vec::new();
        for g in n.gpus.iter_mut().filter(|g| !g.is_baseline()) {
            if let Some(slots) = g.back_to_baseline() {
                g.slots = slots;
                back.push(g.index);
            }
        }
        if back.is_empty() {
            continue;
        }
        reshaping += 1;
        let why = format!(
            "returning GPU(s) {} to the node's baseline layout: no pod waits for their idle \
             instances",
            crate::change::plan::join(&back)
        );
        decision
            .changes
            .insert(n.name.clone(), Change::Layout(layout_of(&n.gpus), why));
    }
}

/// Promise idle instances of every profile the pod needs on one node, or none.
fn promise_idle(gpus: &mut [GpuShape], pod: &Wanting) -> bool {
    let mut trial = gpus.to_vec();
    for want in &pod.wants {
        let found = trial.iter_mut().any(|g| {
            g.profile_for_resource(want)
                .is_some_and(|p| g.promise_idle(p, &pod.name))
        });
        if !found {
            return false;
        }
    }
    gpus.clone_from_slice(&trial);
    true
}

/// Where the pod's instances would go on a node: idle ones taken first, then additions where
/// they destroy the fewest idle instances. Weighed without copying the node unless the pod needs
/// several instances (each step then sees the ones before it).
fn offer(gpus: &[GpuShape], pod: &Wanting) -> Result<Offer, String> {
    let mut o = Offer {
        steps: Vec::new(),
        changed: BTreeSet::new(),
        destroyed: 0,
    };
    let mut copy: Option<Vec<GpuShape>> = None;
    for want in &pod.wants {
        let now: &[GpuShape] = copy.as_deref().unwrap_or(gpus);
        let idle = now.iter().enumerate().find_map(|(gi, g)| {
            let p = g.profile_for_resource(want)?;
            g.slots
                .iter()
                .any(|s| s.profile == p && s.pinned.is_none())
                .then_some((gi, Step::Promise(p)))
        });
        let step = match idle {
            Some(step) => step,
            None => {
                let best = now
                    .iter()
                    .enumerate()
                    .filter_map(|(gi, g)| {
                        let p = g.profile_for_resource(want)?;
                        g.best_addition(p).map(|a| (gi, a))
                    })
                    .min_by_key(|(gi, a)| (a.destroys.len(), *gi));
                let Some((gi, a)) = best else {
                    let offered = gpus.iter().any(|g| g.profile_for_resource(want).is_some());
                    return Err(if offered {
                        format!("no GPU can hold a {want} without destroying instances in use")
                    } else {
                        format!("its GPUs have no MIG profile {want}")
                    });
                };
                o.destroyed += a.destroys.len();
                o.changed.insert(now[gi].index);
                (gi, Step::Add(a))
            }
        };
        if pod.wants.len() > 1 {
            let shapes = copy.get_or_insert_with(|| gpus.to_vec());
            let one = Offer {
                steps: vec![step],
                changed: BTreeSet::new(),
                destroyed: 0,
            };
            one.make(shapes, &pod.name);
            o.steps.extend(one.steps);
        } else {
            o.steps.push(step);
        }
    }
    Ok(o)
}

pub(crate) fn layout_of(gpus: &[GpuShape]) -> NodeOffer {
    gpus.iter().map(|g| (g.index, g.layout())).collect()
}

#[cfg(test)]
mod tests;
