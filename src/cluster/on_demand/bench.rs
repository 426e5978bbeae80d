//! A synthetic cluster for `cargo bench --bench on_demand`: what one turn of the controller
//! computes (every node's view from its published state, then the decision) without the API
//! calls around it. Public for the bench alone.

use super::claims::Claims;
use super::decide::{self, Limits};
use super::demand;
use super::published::{GpuState, Instance, MigState, Profile, Wanted};
use super::view::{self, Timing};
use k8s_openapi::api::core::v1::{Node, Pod};
use serde_json::json;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// What one decision took and did.
pub struct Figures {
    /// Building the views and deciding.
    pub took: Duration,
    pub nodes_reshaped: usize,
    pub pods_served: usize,
}

/// `nodes` DGX A100 nodes at seven 1g.5gb per GPU (on every other node every fifth instance
/// held), `gpus` each,
/// and `pending` pods asking for 3g.20gb, 2g.10gb and 7g.40gb in turn.
pub fn decision(nodes: usize, gpus: u32, pending: usize) -> Figures {
    let cluster: Vec<Node> = (0..nodes)
        .map(|n| {
            let state = a100_state(
                (0..gpus)
                    .map(|g| a100_sevens(g, |start| n % 2 == 0 && (g + start) % 5 == 0))
                    .collect(),
            );
            serde_json::from_value(json!({
                "metadata": {
                    "name": format!("gpu-node-{n:03}"),
                    "labels": { super::OPT_IN_LABEL: "true" },
                    "annotations": { super::STATE_ANNOTATION: state.to_json() },
                },
            }))
            .expect("a node")
        })
        .collect();
    let profiles = ["3g.20gb", "2g.10gb", "7g.40gb"];
    let pods: Vec<Pod> = (0..pending)
        .map(|i| {
            serde_json::from_value(json!({
                "metadata": { "name": format!("p-{i:04}"), "namespace": "ns" },
                "spec": { "containers": [{ "name": "c", "resources": { "limits": {
                    format!("{}{}", super::MIG_RESOURCE_PREFIX, profiles[i % 3]): "1" } } }] },
                "status": { "phase": "Pending", "conditions": [{
                    "type": "PodScheduled", "status": "False", "reason": "Unschedulable" }] },
            }))
            .expect("a pod")
        })
        .collect();
    let timing = Timing {
        now: 0,
        cooldown: 60,
    };
    let started = Instant::now();
    let claims = Claims::default();
    let waiting = demand::pending(&pods, &claims);
    let mut node_views: Vec<_> = cluster
        .iter()
        .filter_map(|n| view::view(n, &pods, &claims, &timing, false).ok())
        .collect();
    let decision = decide::decide(
        &mut node_views,
        &waiting,
        &Limits {
            max_reshaping: nodes,
        },
    );
    Figures {
        took: started.elapsed(),
        nodes_reshaped: decision.changes.len(),
        pods_served: decision
            .verdicts
            .iter()
            .filter(|(_, v)| !matches!(v, decide::Verdict::NoFit(_)))
            .count(),
    }
}

const A100: &str = "NVIDIA A100-SXM4-40GB";

/// The published state of A100 40GB GPUs.
pub(crate) fn a100_state(gpus: Vec<GpuState>) -> MigState {
    MigState {
        version: super::published::VERSION,
        holders_known: true,
        profiles: BTreeMap::from([(A100.to_string(), a100_40gb())]),
        gpus,
    }
}

/// An A100 40GB at seven 1g.5gb (its baseline too), those whose start `held` says held by a
/// pod.
pub(crate) fn a100_sevens(index: u32, held: impl Fn(u32) -> bool) -> GpuState {
    GpuState {
        index,
        model: A100.into(),
        instances: (0..7)
            .map(|start| Instance {
                profile: "1g.5gb".into(),
                start,
                size: 1,
                held_by: if held(start) {
                    vec![format!("ns/held-{index}-{start}")]
                } else {
                    vec![]
                },
                busy: false,
                unhealthy: None,
            })
            .collect(),
        baseline: Some(vec![
            Wanted {
                profile: "1g.5gb".into(),
                start: None,
            };
            7
        ]),
        unhealthy: None,
    }
}

/// The A100 40GB's profiles (without the `+me` ones), as an agent publishes them; the unit
/// tests use them too.
pub(crate) fn a100_40gb() -> Vec<Profile> {
    vec![
        profile("1g.5gb", 1, 7, &[0, 1, 2, 3, 4, 5, 6], 1),
        profile("2g.10gb", 2, 3, &[0, 2, 4], 2),
        profile("3g.20gb", 3, 2, &[0, 4], 4),
        profile("4g.20gb", 4, 1, &[0], 4),
        profile("7g.40gb", 7, 1, &[0], 8),
    ]
}

fn profile(name: &str, slices: u32, max_instances: u32, starts: &[u32], size: u32) -> Profile {
    Profile {
        name: name.into(),
        slices,
        max_instances,
        starts: starts.to_vec(),
        size,
    }
}
