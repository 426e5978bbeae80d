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
use super::{DEVICE_PLUGIN, NS, containers, held_devices};
use crate::common::cluster::wait_for;
use crate::common::device_plugin::generated;
use crate::common::nvidia_tools::{NvidiaNode, tools};
use crate::common::real_node::{Seen, gpu_pod};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(120);

/// A pod the scheduler places, holding one `resource`, running.
fn pod(name: &str, resource: &str) -> Value {
    gpu_pod(NS, name, &[(resource, 1)])
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
    let seen = cluster.events(NODE).len();
    cluster.label(NODE, &[(MIG_CONFIG, Some("all-3g.20gb"))]);
    let refused = wait_for("the agent to refuse for the small pod", WAIT, || {
        cluster
            .events(NODE)
            .into_iter()
            .skip(seen)
            .find(|(reason, _)| reason == "LayoutFailed")
            .map(|(_, message)| message)
    });
    assert!(
        refused.contains(&format!("{NS}/small ({small} on GPU")),
        "{refused}"
    );
    assert!(!refused.contains("big-"), "{refused}");
    assert_eq!(profiles(&agent.node())[0].len(), 4, "nothing changed yet");
    // Tried again every 2 s, the blocked layout is one failure: no "Applying", no repeats.
    std::thread::sleep(Duration::from_secs(5));
    let told: Vec<String> = cluster
        .events(NODE)
        .into_iter()
        .skip(seen)
        .map(|(reason, _)| reason)
        .collect();
    assert_eq!(told, ["LayoutFailed"], "{told:?}");

    // The small pod goes: the agent pauses the plugin, changes the node and brings it back.
    let relabelled = Instant::now();
    cluster.remove_pod(NS, "small");
    let after = wait_for("the waiting pods to run on the new slices", WAIT, || {
        let a = assigned();
        (a.keys().filter(|pod| pod.starts_with("new-")).count() == 8).then_some(a)
    });
    let first_bound = relabelled.elapsed();
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
         slice took {:.1} s",
        first_bound.as_secs_f64()
    );
    e2e.finish();
}
