//! The agent in the loop, end to end: a real API server and scheduler, NVIDIA's device plugin on
//! the NVML stand-in, the stand-in kubelet as the node, and `gpushare agent` on the same
//! simulated DGX A100, reading the kubelet's pod-resources API.
//!
//! The node is relabelled from `all-balanced` to `all-3g.20gb` while pods hold instances. A pod
//! whose instance the new layout destroys blocks the change, named with its device; once it is
//! gone, the agent pauses the device plugin (the test plays its DaemonSet: the plugin stops and
//! its pod leaves), changes the node, and the plugin comes back. The pods on the instances the
//! layout keeps keep them, the Node's counts change, and the pods waiting for the new slices
//! bind.

use super::agent_process::profiles;
use super::beside_plugin::{AgentBesidePlugin, MIG_CONFIG, NODE};
use super::{DEVICE_PLUGIN, NS};
use crate::common::cluster::wait_for;
use crate::common::device_plugin::generated;
use crate::common::nvidia_tools::{NvidiaNode, tools};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(120);

/// A pod the scheduler places, holding one `resource`.
fn pod(name: &str, resource: &str) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": { "name": name, "namespace": NS },
        "spec": {
            "terminationGracePeriodSeconds": 0,
            "containers": [{
                "name": "cuda", "image": "registry.example.com/cuda:12",
                "resources": { "limits": { resource: "1" } },
            }],
        },
    })
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
    let assigned = || e2e.plugin.lock().unwrap().kubelet.assigned();

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
    let before = wait_for("nine pods to get their devices", WAIT, || {
        let a = assigned();
        (a.len() == 9).then_some(a)
    });
    for i in 0..8 {
        cluster.create_pod(pod(&format!("new-{i}"), "nvidia.com/mig-3g.20gb"));
    }
    let small = before.iter().find(|a| a.pod == "small").unwrap().devices[0].clone();
    let big: BTreeMap<String, String> = before
        .iter()
        .filter(|a| a.pod.starts_with("big-"))
        .map(|a| (a.pod.clone(), a.devices[0].clone()))
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
    let after = wait_for("the waiting pods to get the new slices", WAIT, || {
        let a = assigned();
        (a.iter().filter(|a| a.pod.starts_with("new-")).count() == 8).then_some(a)
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
    for a in &after {
        if let Some(kept) = big.get(&a.pod) {
            assert_eq!(&a.devices[0], kept, "{} lost its instance", a.pod);
        }
        assert!(on_node.contains(&a.devices[0]), "{a:?}");
        assert!(
            held.insert(a.devices[0].clone()),
            "{} given twice",
            a.devices[0]
        );
    }
    assert_eq!(held.len(), 16);
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
        "relabel with held instances: the small pod's deletion to the eighth new pod holding its \
         slice took {:.1} s",
        first_bound.as_secs_f64()
    );
    e2e.finish();
}
