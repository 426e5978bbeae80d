//! MIG on demand, end to end: a real API server and scheduler, four real nodes (kubelet,
//! containerd, runc) whose simulated DGX A100s are at mig-parted's `all-1g.5gb`, each with
//! NVIDIA's device plugin (mixed strategy) on the NVML stand-in and `gpushare agent`; and
//! `gpushare controller` as its manifests' service account. Pods that ask for profiles no node
//! has wait until the controller reshapes idle instances for them, then run, each container
//! seeing the MIG device the kubelet gave it; the agents' journals (the driver calls they made)
//! show that no instance a pod held was destroyed.
//!
//! 1. One pod for a 3g.20gb that may only go to the nodes of pool b is bound there, on merged
//!    idle 1g.5gb instances.
//! 2. A burst of 20 (eight 7g.40gb, twelve 3g.20gb, two of them pinned to the node whose every
//!    instance is held) is served by reshaping two nodes; the two pinned ones stay Pending with
//!    an event that says why.
//! 3. The pods go; after the grace period the nodes return to `all-1g.5gb` and the controller's
//!    layouts are removed.
//! 4. Sixteen 7g.40gb need two nodes; the leading controller stops (as a killed process) after
//!    its first write, and the second replica takes the Lease and finishes the decision; every
//!    node is whole at every step.

use super::agent_process::{AgentProcess, profiles};
use super::controller_process::ControllerProcess;
use super::{
    CONFIGMAP, DEVICE_PLUGIN, Daemon, NS, apply_agent_with_mig_parted_layouts, apply_manifests,
    destroyed_instances, held_devices, play_daemonsets, plugin_pod,
};
use crate::common::api_server::ApiServer;
use crate::common::cluster::{Cluster, wait_for};
use crate::common::device_plugin::{DevicePlugin, generated, mig_devices};
use crate::common::nvidia_tools::{NvidiaNode, tools};
use crate::common::real_node::{RealNode, Seen, gpu_pod};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(180);
const LAYOUT: &str = "gpushare.io/mig.layout";
const HOSTNAME: &str = "kubernetes.io/hostname";

/// One GPU node: the agent (dropped first), the plugin, the real node, the simulated GPUs.
struct GpuNode {
    agent: AgentProcess,
    plugin: Arc<Mutex<DevicePlugin>>,
    real: RealNode,
    nvidia: NvidiaNode,
    name: String,
}

impl GpuNode {
    fn detect(&self) -> Value {
        self.nvidia.detect()
    }

    /// `(gpu, start)` of each GPU instance the agent's runs destroyed, from its journal.
    fn destroyed(&self) -> Vec<(u64, u64)> {
        destroyed_instances(&self.nvidia)
    }
}

/// A pod the scheduler places (where `selector` allows), asking for one `profile`, running.
fn pod(name: &str, profile: &str, selector: Value) -> Value {
    let mut pod = gpu_pod(NS, name, &[(&format!("nvidia.com/mig-{profile}"), 1)]);
    pod["spec"]["nodeSelector"] = selector;
    pod
}

/// Every running pod's device on every node, as the real kubelets' pod-resources say: pod →
/// (node, device).
fn assigned(cluster: &Cluster, nodes: &[GpuNode]) -> BTreeMap<String, (String, String)> {
    let running: BTreeSet<String> = cluster.pods_in_phase(NS, "Running").into_iter().collect();
    nodes
        .iter()
        .flat_map(|n| {
            held_devices(&n.nvidia, &n.real.host_root())
                .into_iter()
                .filter(|(pod, _)| running.contains(pod))
                .map(|(pod, device)| (pod, (n.name.clone(), device)))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Once `f` holds for the running pods' devices: each of those `pods` sees, in its container,
/// exactly the MIG device the kubelet gave it.
fn wait_assigned(
    cluster: &Cluster,
    nodes: &[GpuNode],
    what: &str,
    f: impl Fn(&BTreeMap<String, (String, String)>) -> bool,
) -> BTreeMap<String, (String, String)> {
    let a = wait_for(what, WAIT, || {
        let a = assigned(cluster, nodes);
        f(&a).then_some(a)
    });
    for (pod, (_, device)) in &a {
        let seen = wait_for(&format!("{pod} to say what it got"), WAIT, || {
            Seen::parse(&cluster.logs(NS, pod)?)
        });
        assert_eq!(seen.visible(), std::slice::from_ref(device), "{pod}");
    }
    a
}

/// `(gpu, start)` of every MIG device of a node, by UUID.
fn places(node: &GpuNode) -> BTreeMap<String, (u64, u64)> {
    mig_devices(&node.detect())
        .into_iter()
        .map(|d| (d.uuid.clone(), (d.gpu, d.start)))
        .collect()
}

/// No device held in `held` was destroyed by any node's agent, and each is still there.
fn held_kept(
    nodes: &[GpuNode],
    held: &BTreeMap<String, (String, String)>,
    before: &BTreeMap<String, BTreeMap<String, (u64, u64)>>,
) {
    for n in nodes {
        let destroyed: BTreeSet<(u64, u64)> = n.destroyed().into_iter().collect();
        let now = places(n);
        for (pod, (node, uuid)) in held.iter().filter(|(_, (node, _))| *node == n.name) {
            let at = before[node][uuid];
            assert!(
                !destroyed.contains(&at),
                "{pod}'s {uuid} at {at:?} on {node} was destroyed"
            );
            assert_eq!(
                now.get(uuid),
                Some(&at),
                "{pod}'s {uuid} on {node} moved or went"
            );
        }
    }
}

#[test]
fn the_controller_reshapes_idle_instances_for_pending_pods_and_gives_them_back() {
    let test = "agent::mig_on_demand";
    let Some(tools) = tools(test) else { return };
    let Some(server) = ApiServer::with_scheduler(test) else {
        return;
    };
    let cluster = Cluster::connect(&server.kubeconfig);
    apply_agent_with_mig_parted_layouts(&cluster);
    let dir = tempfile::tempdir().unwrap();

    let mut nodes = Vec::new();
    for i in 1..=4 {
        let name = format!("127.0.0.{i}");
        let Some(real) = RealNode::start(test, &server, &name, false) else {
            return;
        };
        cluster.untaint(&name);
        let nvidia = NvidiaNode::new(tools, "dgx-a100");
        nvidia.mig_apply("all-1g.5gb");
        let (config, env, _) = generated(&nvidia, &["--mig-strategy", "mixed"]);
        let pool = if i >= 3 { "b" } else { "a" };
        cluster.label(
            &name,
            &[
                (DEVICE_PLUGIN, Some("true")),
                ("nvidia.com/mig.config", Some("all-1g.5gb")),
                ("gpushare.io/mig.on-demand", Some("true")),
                ("pool", Some(pool)),
            ],
        );
        let plugin = DevicePlugin::start(&nvidia, &real, &config, &env, &[]);
        cluster.create_pod(plugin_pod(&name));
        let host_root = real.host_root();
        // Each agent's token is bound to its own node, as a DaemonSet pod's is.
        let agent_kubeconfig = dir.path().join(format!("agent-{name}.kubeconfig"));
        cluster.pod_token_kubeconfig(NS, "gpushare-agent", &name, &agent_kubeconfig);
        let agent = AgentProcess::start_with(
            nvidia.dir.path(),
            &agent_kubeconfig,
            &name,
            CONFIGMAP,
            &[
                "--host-root".as_ref(),
                host_root.as_os_str(),
                "--publish-every".as_ref(),
                "1".as_ref(),
            ],
        );
        nodes.push(GpuNode {
            agent,
            plugin: Arc::new(Mutex::new(plugin)),
            real,
            nvidia,
            name,
        });
    }
    let stop = Arc::new(AtomicBool::new(false));
    let daemonsets = {
        let kubeconfig = server.kubeconfig.clone();
        let plugins: Vec<_> = nodes
            .iter()
            .map(|n| Daemon::device_plugin(&n.name, n.plugin.clone()))
            .collect();
        let stop = stop.clone();
        std::thread::spawn(move || play_daemonsets(&kubeconfig, &plugins, &stop))
    };

    // The controller, from its manifests, as their service account.
    apply_manifests(&cluster, &["--target", "controller"]);
    let rules = [
        cluster.rules("ClusterRole", None, "gpushare-controller"),
        cluster.rules("Role", Some(NS), "gpushare-controller"),
    ]
    .concat();
    assert!(
        !rules.iter().any(|r| r.to_string().contains('*')),
        "{rules:?}"
    );
    let controller_kubeconfig = dir.path().join("controller.kubeconfig");
    cluster.service_account_kubeconfig(NS, "gpushare-controller", &controller_kubeconfig);

    let advertised = |node: &str, resource: &str| -> usize {
        cluster
            .node(node)
            .status
            .and_then(|s| s.allocatable)
            .and_then(|a| a.get(resource).map(|q| q.0.parse().unwrap_or(0)))
            .unwrap_or(0)
    };
    for n in &nodes {
        wait_for(
            &format!("{} to advertise 56 1g.5gb and publish its state", n.name),
            WAIT,
            || {
                let published = cluster
                    .node(&n.name)
                    .metadata
                    .annotations
                    .is_some_and(|a| a.contains_key("gpushare.io/mig.state"));
                (advertised(&n.name, "nvidia.com/mig-1g.5gb") == 56 && published).then_some(())
            },
        );
    }
    // Pods hold every 1g.5gb of node 1 and one of node 4. (The kubelet picks which instance a
    // pod gets at random: more holders on node 4 would make how many nodes a burst needs a
    // matter of where they landed.)
    for i in 0..56 {
        cluster.create_pod(pod(
            &format!("hold-1-{i:02}"),
            "1g.5gb",
            json!({ HOSTNAME: "127.0.0.1" }),
        ));
    }
    cluster.create_pod(pod("hold-4-0", "1g.5gb", json!({ HOSTNAME: "127.0.0.4" })));
    let holders = wait_assigned(&cluster, &nodes, "57 holders to get their devices", |a| {
        a.len() == 57
    });
    let before: BTreeMap<String, BTreeMap<String, (u64, u64)>> =
        nodes.iter().map(|n| (n.name.clone(), places(n))).collect();
    let controller = ControllerProcess::start(&controller_kubeconfig, dir.path(), "first", None);
    controller.wait_leading();

    // 1. One 3g.20gb for pool b: bound on node 3 or 4, idle 1g.5gb merged for it.
    let created = Instant::now();
    cluster.create_pod(pod("half-b", "3g.20gb", json!({ "pool": "b" })));
    let a = wait_assigned(&cluster, &nodes, "half-b to be bound", |a| {
        a.contains_key("half-b")
    });
    let to_bound = created.elapsed();
    let (half_node, _) = a["half-b"].clone();
    assert!(
        half_node == "127.0.0.3" || half_node == "127.0.0.4",
        "{half_node}"
    );
    let events = cluster.events_of(NS, "Pod", "half-b");
    assert!(
        events
            .iter()
            .any(|(r, m)| r == "MigReshaping" && m.contains(&half_node)),
        "{events:?}"
    );
    held_kept(&nodes, &holders, &before);
    for n in nodes.iter().filter(|n| n.name != half_node) {
        assert_eq!(
            profiles(&n.agent.node()),
            vec![vec!["1g.5gb".to_string(); 7]; 8],
            "{}",
            n.name
        );
    }
    let changed: Vec<Vec<String>> = profiles(
        &nodes
            .iter()
            .find(|n| n.name == half_node)
            .unwrap()
            .agent
            .node(),
    )
    .into_iter()
    .filter(|g| g.len() != 7)
    .collect();
    assert_eq!(
        changed,
        [vec!["1g.5gb", "1g.5gb", "1g.5gb", "1g.5gb", "3g.20gb"]]
    );
    eprintln!(
        "mig on demand: a pod's creation to running with a reshape took {:.1} s",
        to_bound.as_secs_f64()
    );

    // 2. A burst of 20, once the reshaped node's cooldown is over.
    std::thread::sleep(Duration::from_secs(3));
    let shapes_before: BTreeMap<String, Vec<Vec<String>>> = nodes
        .iter()
        .map(|n| (n.name.clone(), profiles(&n.agent.node())))
        .collect();
    for i in 0..8 {
        cluster.create_pod(pod(&format!("burst-a-whole-{i}"), "7g.40gb", json!({})));
    }
    for i in 0..10 {
        cluster.create_pod(pod(&format!("burst-b-half-{i}"), "3g.20gb", json!({})));
    }
    for i in 0..2 {
        cluster.create_pod(pod(
            &format!("burst-c-pinned-{i}"),
            "3g.20gb",
            json!({ HOSTNAME: "127.0.0.1" }),
        ));
    }
    let a = wait_assigned(&cluster, &nodes, "18 of the burst to be bound", |a| {
        a.keys().filter(|p| p.starts_with("burst-")).count() == 18
    });
    assert!(!a.keys().any(|p| p.starts_with("burst-c-")), "{a:?}");
    let reshaped: BTreeSet<String> = nodes
        .iter()
        .filter(|n| profiles(&n.agent.node()) != shapes_before[&n.name])
        .map(|n| n.name.clone())
        .collect();
    assert_eq!(reshaped.len(), 2, "the burst reshaped {reshaped:?}");
    assert!(!reshaped.contains("127.0.0.1"));
    for i in 0..2 {
        let why = wait_for("the pinned pods to be told why they wait", WAIT, || {
            cluster
                .events_of(NS, "Pod", &format!("burst-c-pinned-{i}"))
                .into_iter()
                .find(|(r, _)| r == "MigNoFit")
                .map(|(_, m)| m)
        });
        assert!(
            why.contains(
                "127.0.0.1: no GPU can hold a 3g.20gb without destroying instances in use"
            ),
            "{why}"
        );
    }
    held_kept(&nodes, &holders, &before);
    for n in &reshaped {
        let events = cluster.events(n);
        assert!(events.iter().any(|(r, _)| r == "MigReshape"), "{events:?}");
    }

    // 3. The pods go: every node goes back to all-1g.5gb. Not before: while the pods run on
    // the reshaped capacity, the controller's layouts stay (the grace period has long passed
    // here, on nodes that take seconds to start containers; what is held is never given back).
    for n in &reshaped {
        let annotations = cluster.node(n).metadata.annotations.unwrap_or_default();
        assert!(
            annotations.contains_key(LAYOUT),
            "{n} given back under running pods"
        );
    }
    for p in a
        .keys()
        .filter(|p| p.starts_with("burst-") || *p == "half-b")
    {
        cluster.remove_pod(NS, p);
    }
    for i in 0..2 {
        cluster.remove_pod(NS, &format!("burst-c-pinned-{i}"));
    }
    for n in &nodes {
        wait_for(&format!("{} back at its baseline", n.name), WAIT, || {
            let annotated = cluster
                .node(&n.name)
                .metadata
                .annotations
                .is_some_and(|a| a.contains_key(LAYOUT));
            // The agent done too (its state label), as the next decision reads it.
            let done = cluster
                .labels(&n.name)
                .get(super::STATE)
                .map(String::as_str)
                == Some("success");
            (!annotated
                && done
                && profiles(&n.agent.node()) == vec![vec!["1g.5gb".to_string(); 7]; 8])
            .then_some(())
        });
    }
    held_kept(&nodes, &holders, &before);

    // 4. Two replicas; the leader stops after its first write.
    drop(controller);
    let mut crashing =
        ControllerProcess::start(&controller_kubeconfig, dir.path(), "crashing", Some(1));
    crashing.wait_leading();
    let second = ControllerProcess::start(&controller_kubeconfig, dir.path(), "second", None);
    wait_for("the second replica to wait for the lease", WAIT, || {
        second.log().contains("not leading").then_some(())
    });
    for i in 0..16 {
        cluster.create_pod(pod(&format!("whole-{i:02}"), "7g.40gb", json!({})));
    }
    let status = wait_for("the leader to stop after one write", WAIT, || {
        crashing.exited()
    });
    assert_eq!(status.code(), Some(137), "{}", crashing.log());
    // One node's layout, whole; no other written.
    let written: Vec<(String, String)> = nodes
        .iter()
        .filter_map(|n| {
            let a = cluster
                .node(&n.name)
                .metadata
                .annotations
                .unwrap_or_default();
            a.get(LAYOUT).map(|l| (n.name.clone(), l.clone()))
        })
        .collect();
    assert_eq!(written.len(), 1, "{written:?}");
    assert_eq!(
        written[0].1.matches("7g.40gb").count(),
        8,
        "{}",
        written[0].1
    );
    let a = wait_assigned(&cluster, &nodes, "all 16 to be bound", |a| {
        a.keys().filter(|p| p.starts_with("whole-")).count() == 16
    });
    assert!(
        second.log().contains("leading: this replica decides"),
        "{}",
        second.log()
    );
    let on: BTreeSet<&str> = a
        .iter()
        .filter(|(p, _)| p.starts_with("whole-"))
        .map(|(_, (n, _))| n.as_str())
        .collect();
    assert_eq!(on.len(), 2, "{on:?}");
    for n in nodes.iter().filter(|n| on.contains(n.name.as_str())) {
        assert_eq!(
            profiles(&n.agent.node()),
            vec![vec!["7g.40gb".to_string()]; 8],
            "{}",
            n.name
        );
    }
    held_kept(&nodes, &holders, &before);
    stop.store(true, Ordering::Relaxed);
    daemonsets.join().unwrap();
}
