//! MIG on demand through DRA, end to end: a real API server and scheduler, a real node (kubelet,
//! containerd, runc, controller-manager) whose simulated DGX A100 is at mig-parted's
//! `all-1g.5gb`, NVIDIA's DRA kubelet plugin on the NVML stand-in (played as its DaemonSet, which
//! selects on `nvidia.com/gpu.deploy.dra-kubelet-plugin`), gpushare's DRA classes and claim
//! templates, `gpushare agent` and `gpushare controller` as their manifests' service accounts.
//!
//! 1. Claims for 1g.5gb devices, one on each GPU (a selector on the parent's UUID), and an
//!    unchanged pod asking for `nvidia.com/mig-1g.5gb` run on DRA devices.
//! 2. A claim for a 3g.20gb, which no device is, waits; the controller counts it as demand and
//!    reshapes idle instances of one GPU; the agent restarts the DRA plugin around the change,
//!    the plugin publishes the new device, the scheduler allocates the claim and its container
//!    runs on it. No instance a claim held was destroyed (the agent's journal), each is where it
//!    was, and its pod ran all through.
//!
//! Prints claim created → container running, static and with a reshape (`bench/dra-claims.sh`).

use super::agent_process::AgentProcess;
use super::controller_process::ControllerProcess;
use super::{
    CONFIGMAP, Daemon, NS, apply_agent_with_mig_parted_layouts, apply_manifests, containers,
    destroyed_instances, gpu_client_pod, play_daemonsets,
};
use crate::common;
use common::api_server::ApiServer;
use common::cluster::{Cluster, wait_for};
use common::device_plugin::{device_nodes, mig_devices};
use common::dra_plugin::{self, DraPlugin, attribute, slices};
use common::nvidia_tools::{NvidiaNode, tools};
use common::real_node::{PodClaim, RealNode, Seen, gpu_pod, holding_claim};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(180);
const DRA: &str = "nvidia.com/gpu.deploy.dra-kubelet-plugin";
const NODE: &str = "127.0.0.1";

/// A pod whose container uses one device of the claim template `template`, narrowed by `cel`.
fn claim_pod(cluster: &Cluster, name: &str, template: &str, cel: Option<String>) {
    let claim = match cel {
        // A claim of its own: the template's request with a selector added.
        Some(cel) => {
            let class = format!("{template}.gpushare.io");
            cluster.apply_documents(&[json!({
                "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                "metadata": { "name": name, "namespace": NS },
                "spec": { "devices": { "requests": [{ "name": "gpu", "exactly": {
                    "deviceClassName": class,
                    "selectors": [{ "cel": { "expression": cel } }],
                }}]}},
            })]);
            PodClaim::Claim(name)
        }
        None => PodClaim::Template(template),
    };
    cluster.create_pod(holding_claim(gpu_pod(NS, name, &[]), claim));
}

/// Each MIG device of the node by UUID: (GPU, placement start, profile).
fn places(nvidia: &NvidiaNode) -> BTreeMap<String, (u64, u64, String)> {
    mig_devices(&nvidia.detect())
        .into_iter()
        .map(|d| (d.uuid.clone(), (d.gpu, d.start, d.profile.clone())))
        .collect()
}

#[test]
fn a_pending_claim_is_served_by_a_reshape_and_held_claims_keep_their_instances() {
    let test = "agent::dra_on_demand";
    let Some(tools) = tools(test) else { return };
    let Some(program) = dra_plugin::program(test) else {
        return;
    };
    let Some(server) = ApiServer::with_scheduler(test) else {
        return;
    };
    let cluster = Cluster::connect(&server.kubeconfig);
    apply_agent_with_mig_parted_layouts(&cluster);
    let dir = tempfile::tempdir().unwrap();
    let Some(real) = RealNode::start(test, &server, NODE, true) else {
        return;
    };
    cluster.untaint(NODE);
    let nvidia = NvidiaNode::new(tools, "dgx-a100");
    nvidia.mig_apply("all-1g.5gb");
    cluster.label(
        NODE,
        &[
            (DRA, Some("true")),
            ("nvidia.com/mig.config", Some("all-1g.5gb")),
            ("gpushare.io/mig.on-demand", Some("true")),
        ],
    );
    let plugin = Arc::new(Mutex::new(DraPlugin::start(&nvidia, &real, &program, &[])));
    let daemon = Daemon {
        node: NODE.into(),
        label: DRA,
        program: plugin.clone(),
    };
    cluster.create_pod(gpu_client_pod(&daemon.pod(), NODE, DRA, false));
    let host_root = real.host_root();
    let agent_kubeconfig = dir.path().join("agent.kubeconfig");
    cluster.pod_token_kubeconfig(NS, "gpushare-agent", NODE, &agent_kubeconfig);
    let agent = AgentProcess::start_with(
        nvidia.dir.path(),
        &agent_kubeconfig,
        NODE,
        CONFIGMAP,
        &[
            "--host-root".as_ref(),
            host_root.as_os_str(),
            "--publish-every".as_ref(),
            "1".as_ref(),
        ],
    );
    let stop = Arc::new(AtomicBool::new(false));
    let daemonsets = {
        let (kubeconfig, stop) = (server.kubeconfig.clone(), stop.clone());
        std::thread::spawn(move || play_daemonsets(&kubeconfig, &[daemon], &stop))
    };

    // gpushare's DRA objects (a class and a template for every profile of the A100, 1.36's
    // extended resource names), and the controller.
    let docs = common::json(nvidia.gpushare().args([
        "manifests",
        "--target",
        "dra",
        "--k8s-version",
        "1.36",
        "--namespace",
        NS,
    ]));
    let docs: Vec<Value> = docs
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["kind"] != "Pod" && d["kind"] != "Namespace")
        .cloned()
        .collect();
    cluster.apply_documents(&docs);
    apply_manifests(&cluster, &["--target", "controller"]);
    let controller_kubeconfig = dir.path().join("controller.kubeconfig");
    cluster.service_account_kubeconfig(NS, "gpushare-controller", &controller_kubeconfig);
    wait_for("the 56 1g.5gb published and the MIG state", WAIT, || {
        let published = cluster
            .node(NODE)
            .metadata
            .annotations
            .is_some_and(|a| a.contains_key("gpushare.io/mig.state"));
        (slices(&server.kubeconfig, NODE).len() == 56 && published).then_some(())
    });

    // 1. A 1g.5gb claim on each GPU, and an unchanged extended-resource pod.
    let detect = nvidia.detect();
    let before = places(&nvidia);
    let created = Instant::now();
    let mut held = Vec::new();
    for g in detect["gpus"].as_array().unwrap() {
        let name = format!("hold-{}", g["index"]);
        let cel = format!(
            "device.attributes['gpu.nvidia.com'].parentUUID == '{}'",
            g["uuid"].as_str().unwrap()
        );
        claim_pod(&cluster, &name, "mig-1g.5gb", Some(cel));
        held.push(name);
    }
    cluster.create_pod(gpu_pod(NS, "unchanged", &[("nvidia.com/mig-1g.5gb", 1)]));
    held.push("unchanged".into());
    let seen = wait_for("the nine holders to run", WAIT, || {
        let seen: BTreeMap<String, Seen> = held
            .iter()
            .filter_map(|n| Some((n.clone(), Seen::parse(&cluster.logs(NS, n)?)?)))
            .collect();
        (seen.len() == held.len()).then_some(seen)
    });
    let static_took = created.elapsed();
    // pod → the UUID of its device, as the kubelet's pod-resources say (through its claim).
    let holders = wait_for("the agent to know the nine holders", WAIT, || {
        let detect = common::json(
            nvidia
                .gpushare()
                .args(["detect", "--host-root"])
                .arg(&host_root),
        );
        let h: BTreeMap<String, String> = detect["pods"]
            .as_array()?
            .iter()
            .filter(|h| h["namespace"] == NS && h["resource"] == "gpu.nvidia.com")
            .map(|h| {
                (
                    h["pod"].as_str().unwrap().to_string(),
                    h["mig_device"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        (h.len() == held.len()).then_some(h)
    });
    let devices = mig_devices(&detect);
    let gpus: BTreeSet<u64> = holders
        .iter()
        .filter(|(pod, _)| pod.starts_with("hold-"))
        .map(|(_, uuid)| before[uuid].0)
        .collect();
    assert_eq!(gpus.len(), 8, "one holder per GPU: {holders:?}");
    for (pod, uuid) in &holders {
        let device = devices.iter().find(|d| &d.uuid == uuid).unwrap();
        assert_eq!(seen[pod].devices, device_nodes(device), "{pod}");
    }
    let running_before = containers(&cluster);

    // 2. A 3g.20gb: none exists, so its claim waits until the controller has one made.
    let controller = ControllerProcess::start(&controller_kubeconfig, dir.path(), "dra", None);
    controller.wait_leading();
    let created = Instant::now();
    claim_pod(&cluster, "half", "mig-3g.20gb", None);
    let deadline = Instant::now() + WAIT;
    let seen = loop {
        if let Some(seen) = cluster.logs(NS, "half").and_then(|l| Seen::parse(&l)) {
            break seen;
        }
        assert!(
            Instant::now() < deadline,
            "the 3g.20gb claim's pod did not run: {}\nevents {:?}\ncontroller:\n{}\nagent:\n{}\nplugin:\n{}",
            {
                let o = std::process::Command::new("kubectl")
                    .env("KUBECONFIG", &server.kubeconfig)
                    .args(["get", "-n", NS, "pods,resourceclaims", "-o", "yaml"])
                    .output()
                    .unwrap();
                format!(
                    "{}{}",
                    String::from_utf8_lossy(&o.stdout),
                    String::from_utf8_lossy(&o.stderr)
                )
            },
            cluster.events_of(NS, "Pod", "half"),
            controller.log(),
            agent.log(),
            plugin.lock().unwrap().log()
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    let reshape_took = created.elapsed();
    let events = cluster.events_of(NS, "Pod", "half");
    assert!(
        events
            .iter()
            .any(|(r, m)| r == "MigReshaping" && m.contains(NODE)),
        "{events:?}\n{}",
        controller.log()
    );
    let after = places(&nvidia);
    let allocated = dra_plugin::claim_devices(&server.kubeconfig, NS);
    let published: BTreeMap<String, String> = slices(&server.kubeconfig, NODE)
        .iter()
        .map(|d| {
            (
                d["name"].as_str().unwrap().to_string(),
                attribute(d, "uuid"),
            )
        })
        .collect();
    let uuid = &published[&allocated["half"]];
    assert_eq!(after[uuid].2, "3g.20gb");
    let device = mig_devices(&nvidia.detect())
        .into_iter()
        .find(|d| &d.uuid == uuid)
        .unwrap();
    assert_eq!(seen.devices, device_nodes(&device));
    // The held instances: none destroyed, each where it was, every holder ran all through.
    let gone: BTreeSet<(u64, u64)> = destroyed_instances(&nvidia).into_iter().collect();
    assert!(!gone.is_empty(), "a reshape destroys idle instances");
    for (pod, uuid) in &holders {
        let (gpu, start, _) = &before[uuid];
        assert!(
            !gone.contains(&(*gpu, *start)),
            "{pod}'s {uuid} was destroyed"
        );
        assert_eq!(
            after.get(uuid),
            Some(&before[uuid]),
            "{pod}'s {uuid} moved or went"
        );
    }
    let running_after = containers(&cluster);
    for pod in &held {
        assert_eq!(
            running_after.get(pod),
            running_before.get(pod),
            "{pod} restarted"
        );
    }
    eprintln!(
        "dra claims: claim created to container running took {:.1} s for nine pods at once \
         (static), {:.1} s with a reshape",
        static_took.as_secs_f64(),
        reshape_took.as_secs_f64()
    );
    stop.store(true, Ordering::Relaxed);
    daemonsets.join().unwrap();
}
