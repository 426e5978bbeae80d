//! The agent in the loop, end to end on a real node: a real API server and scheduler, a real
//! kubelet, containerd and runc, NVIDIA's device plugin on the NVML stand-in, and `gpushare
//! agent` on the same simulated DGX A100, reading the real kubelet's pod-resources API.
//!
//! The node is relabelled from `all-balanced` to `all-3g.20gb` while running pods hold
//! instances. A pod whose instance the new layout destroys blocks the change, named with its
//! device; once it is gone, the agent pauses the device plugin (the test plays its DaemonSet:
//! the plugin stops and its pod leaves), changes the node, and the plugin comes back. The pods on
//! the instances the layout keeps keep them and keep running (the same containers), the Node's
//! counts change, and the pods waiting for the new slices run, each seeing its own new slice.

use super::agent_process::profiles;
use super::beside_plugin::{AgentBesidePlugin, MIG_CONFIG, NODE};
use super::{DEVICE_PLUGIN, NS, STATE, containers, held_devices};
use crate::common::cluster::{Cluster, wait_for};
use crate::common::device_plugin::generated;
use crate::common::nvidia_tools::{NvidiaNode, tools};
use crate::common::real_node::{Seen, gpu_pod};
use k8s_openapi::api::core::v1::Pod;
use kube::ResourceExt;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(120);

/// A pod the scheduler places, holding one `resource`, running.
fn pod(name: &str, resource: &str) -> Value {
    gpu_pod(NS, name, &[(resource, 1)])
}

/// When each step after the small pod's deletion was first seen on the API (every 50 ms): whose
/// time the bench's figure is.
struct Timeline {
    stop: Arc<AtomicBool>,
    seen: JoinHandle<Vec<(&'static str, Duration)>>,
}

impl Timeline {
    const STEPS: [&'static str; 4] = [
        "the agent's change made",
        "the kubelet advertises the new slices",
        "the scheduler bound the waiting pods",
        "their containers run",
    ];

    fn watch(kubeconfig: &Path, since: Instant) -> Timeline {
        let stop = Arc::new(AtomicBool::new(false));
        let cluster = Cluster::connect(kubeconfig);
        let stopped = stop.clone();
        let seen = std::thread::spawn(move || {
            let mut seen = Vec::new();
            while !stopped.load(Ordering::Relaxed) && seen.len() < Self::STEPS.len() {
                let node = cluster.node(NODE);
                let waiting: Vec<Pod> = cluster
                    .pods(NS)
                    .into_iter()
                    .filter(|p| {
                        p.metadata
                            .name
                            .as_deref()
                            .is_some_and(|n| n.starts_with("new-"))
                    })
                    .collect();
                let done = [
                    node.labels().get(STATE).map(String::as_str) == Some("success"),
                    node.status
                        .and_then(|s| s.allocatable)
                        .and_then(|a| a.get("nvidia.com/mig-3g.20gb").cloned())
                        .is_some_and(|q| q.0 == "16"),
                    waiting
                        .iter()
                        .filter(|p| p.spec.as_ref().is_some_and(|s| s.node_name.is_some()))
                        .count()
                        == 8,
                    waiting
                        .iter()
                        .filter(|p| {
                            p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running")
                        })
                        .count()
                        == 8,
                ];
                // A step is seen once it and every step before it are.
                while seen.len() < done.len() && done[..=seen.len()].iter().all(|d| *d) {
                    seen.push((Self::STEPS[seen.len()], since.elapsed()));
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            seen
        });
        Timeline { stop, seen }
    }

    /// `step at 0.4 s, …`.
    fn finish(self) -> String {
        self.stop.store(true, Ordering::Relaxed);
        let seen = self.seen.join().expect("the timeline");
        seen.iter()
            .map(|(step, at)| format!("{step} at {:.1} s", at.as_secs_f64()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[test]
fn a_relabel_keeps_the_instances_pods_hold_and_brings_new_slices_to_pending_pods() {
    let test = "agent::relabel_with_pods";
    let Some(tools) = tools(test) else { return };
    let node = NvidiaNode::new(tools, "dgx-a100");
    node.mig_apply("all-balanced");
    let (config, env, _) = generated(&node, &[]);
    let Some(e2e) = AgentBesidePlugin::start(test, &node, &config, &env, "all-balanced") else {
        return;
    };
    let (cluster, agent) = (&e2e.cluster, &e2e.agent);
    // pod → the MIG device it holds (the kubelet's pod-resources) and the container sees.
    let assigned = || -> BTreeMap<String, String> {
        let held = held_devices(&node, &e2e.host_root);
        held.into_iter()
            .filter(|(pod, device)| {
                cluster
                    .logs(NS, pod)
                    .and_then(|log| Seen::parse(&log))
                    .is_some_and(|seen| seen.visible() == [device.clone()])
            })
            .collect()
    };

    // The node has all-balanced: 8 of 3g.20gb, 16 of 1g.5gb. One pod takes a 1g.5gb, eight
    // take every 3g.20gb, eight more wait for a 3g.20gb.
    wait_for("the Node to advertise all-balanced", WAIT, || {
        (e2e.allocatable("nvidia.com/mig-3g.20gb") == 8
            && e2e.allocatable("nvidia.com/mig-1g.5gb") == 16)
            .then_some(())
    });
    cluster.create_pod(pod("small", "nvidia.com/mig-1g.5gb"));
    for i in 0..8 {
        cluster.create_pod(pod(&format!("big-{i}"), "nvidia.com/mig-3g.20gb"));
    }
    let before = wait_for("nine pods to run on their devices", WAIT, || {
        let a = assigned();
        (a.len() == 9).then_some(a)
    });
    let started = containers(cluster);
    for i in 0..8 {
        cluster.create_pod(pod(&format!("new-{i}"), "nvidia.com/mig-3g.20gb"));
    }
    let small = before["small"].clone();
    let big: BTreeMap<String, String> = before
        .iter()
        .filter(|(pod, _)| pod.starts_with("big-"))
        .map(|(pod, device)| (pod.clone(), device.clone()))
        .collect();

    // all-3g.20gb destroys the 1g.5gb the small pod holds: the agent says so, naming the pod and
    // its device, and names none of the pods on the 3g.20gb instances the layout keeps.
    let seen = cluster.event_mark(NODE);
    cluster.label(NODE, &[(MIG_CONFIG, Some("all-3g.20gb"))]);
    // (A kubelet too slow to answer pod-resources makes the agent name the pods by their
    // resources instead; its next try, 2 s later, names the devices.)
    let exact = format!("{NS}/small ({small} on GPU");
    wait_for("the agent to refuse for the small pod", WAIT, || {
        cluster
            .events_since(NODE, &seen)
            .into_iter()
            .any(|(reason, message)| reason == "LayoutFailed" && message.contains(&exact))
            .then_some(())
    });
    assert_eq!(profiles(&agent.node())[0].len(), 4, "nothing changed yet");
    // Tried again every 2 s, the blocked layout is said once: no "Applying", no repeats, and
    // never a pod on an instance the layout keeps.
    std::thread::sleep(Duration::from_secs(5));
    let told = cluster.events_since(NODE, &seen);
    let distinct: BTreeSet<&(String, String)> = told.iter().collect();
    assert_eq!(distinct.len(), told.len(), "said twice: {told:?}");
    for (reason, message) in &told {
        assert_eq!(reason, "LayoutFailed", "{told:?}");
        assert!(!message.contains("big-"), "{message}");
    }

    // The small pod goes: the agent pauses the plugin, changes the node and brings it back.
    let relabelled = Instant::now();
    let timeline = Timeline::watch(&e2e.kubeconfig, relabelled);
    cluster.remove_pod(NS, "small");
    // Cheap first: reading every container's log while they start slows the kubelet down.
    wait_for("the waiting pods to run", WAIT, || {
        let running = cluster.pods_in_phase(NS, "Running");
        (running.iter().filter(|pod| pod.starts_with("new-")).count() == 8).then_some(())
    });
    let after = wait_for("the waiting pods to run on the new slices", WAIT, || {
        let a = assigned();
        (a.keys().filter(|pod| pod.starts_with("new-")).count() == 8).then_some(a)
    });
    let first_bound = relabelled.elapsed();
    let timeline = timeline.finish();
    assert_eq!(
        profiles(&agent.node()),
        vec![vec!["3g.20gb".to_string(); 2]; 8]
    );
    // The big pods kept their instances; the new pods got the new ones, all distinct, all on the
    // node.
    let detect = node.detect();
    let on_node: BTreeSet<String> = crate::common::device_plugin::mig_devices(&detect)
        .into_iter()
        .map(|d| d.uuid)
        .collect();
    let mut held = BTreeSet::new();
    for (pod, device) in &after {
        if let Some(kept) = big.get(pod) {
            assert_eq!(device, kept, "{pod} lost its instance");
        }
        assert!(on_node.contains(device), "{pod}: {device}");
        assert!(held.insert(device.clone()), "{device} given twice");
    }
    assert_eq!(held.len(), 16);
    // The big pods' containers ran all through: the same containers, never restarted.
    let now = containers(cluster);
    for pod in big.keys() {
        assert_eq!(now.get(pod), started.get(pod), "{pod}'s container changed");
    }
    wait_for("the Node to advertise all-3g.20gb", WAIT, || {
        (e2e.allocatable("nvidia.com/mig-3g.20gb") == 16
            && e2e.allocatable("nvidia.com/mig-1g.5gb") == 0)
            .then_some(())
    });
    assert_eq!(
        cluster.labels(NODE).get(DEVICE_PLUGIN).map(String::as_str),
        Some("true")
    );
    eprintln!(
        "relabel with held instances: the small pod's deletion to the eighth new pod running on its \
         slice took {:.1} s ({timeline})",
        first_bound.as_secs_f64()
    );
    e2e.finish();
}
