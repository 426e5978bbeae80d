//! GPU health through DRA, end to end: a real API server and scheduler with the
//! `DRADeviceTaints` gate, a real node whose simulated DGX A100 is at `all-1g.5gb`, NVIDIA's DRA
//! kubelet plugin on the NVML stand-in, gpushare's DRA classes and `gpushare agent
//! --reset-unhealthy-gpus` as its manifests' service account.
//!
//! A fatal Xid on GPU 2, which a claim holds: the agent taints exactly GPU 2's MIG devices
//! (DeviceTaintRules the API server accepts, as the agent's service account), but for the one
//! whose rule name an administrator's rule squats, which it reports instead; a rule with its
//! label in another pool is left alone. When the holder goes, the agent resets GPU 2 through the
//! pipeline, brings its instances back and deletes its own rules, and only those.
//!
//! The scheduler's side is not asserted: this kube-scheduler 1.36, with `DRADeviceTaints` and
//! `DRADeviceTaintRules` on, still allocates a device that a DeviceTaintRule taints (the same
//! taint published in the ResourceSlice is honoured).

use super::agent_process::AgentProcess;
use super::{
    CONFIGMAP, Daemon, NS, apply_agent_with_mig_parted_layouts, gpu_client_pod, play_daemonsets,
};
use crate::common;
use common::api_server::ApiServer;
use common::cluster::{Cluster, wait_for};
use common::dra_plugin::{self, DraPlugin, slices};
use common::nvidia_tools::{NvidiaNode, tools};
use common::real_node::{PodClaim, RealNode, Seen, gpu_pod, holding_claim};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(180);
const DRA: &str = "nvidia.com/gpu.deploy.dra-kubelet-plugin";
const NODE: &str = "127.0.0.1";

/// A pod whose container uses a 1g.5gb of the GPU `parent` (a claim of its own).
fn pod_on(cluster: &Cluster, name: &str, parent: &str) {
    cluster.apply_documents(&[json!({
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": { "name": name, "namespace": NS },
        "spec": { "devices": { "requests": [{ "name": "gpu", "exactly": {
            "deviceClassName": "mig-1g.5gb.gpushare.io",
            "selectors": [{ "cel": { "expression":
                format!("device.attributes['gpu.nvidia.com'].parentUUID == '{parent}'") } }],
        }}]}},
    })]);
    let pod = holding_claim(gpu_pod(NS, name, &[]), PodClaim::Claim(name));
    cluster.create_pod(pod);
}

/// The devices of the DeviceTaintRules in the node's pool, sorted.
fn tainted(kubeconfig: &std::path::Path) -> Vec<String> {
    let list = dra_plugin::kubectl_json(
        kubeconfig,
        &["get", "devicetaintrules.v1beta2.resource.k8s.io"],
    );
    let mut names: Vec<String> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["spec"]["deviceSelector"]["pool"] == NODE)
        .map(|r| {
            assert_eq!(r["spec"]["taint"]["key"], "gpushare.io/unhealthy", "{r}");
            r["spec"]["deviceSelector"]["device"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    names.sort();
    names
}

/// The names of every DeviceTaintRule.
fn rule_names(kubeconfig: &std::path::Path) -> Vec<String> {
    let list = dra_plugin::kubectl_json(
        kubeconfig,
        &["get", "devicetaintrules.v1beta2.resource.k8s.io"],
    );
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["metadata"]["name"].as_str().unwrap().to_string())
        .collect()
}

/// The agent's label value for a node: FNV-1a of its name, as 16 hex digits.
fn node_hash(node: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in node.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// A DeviceTaintRule an administrator makes, with the agent's label and marks.
fn foreign_rule(name: &str, pool: &str, device: &str, key: &str) -> Value {
    json!({
        "apiVersion": "resource.k8s.io/v1beta2", "kind": "DeviceTaintRule",
        "metadata": {
            "name": name,
            "labels": {
                "gpushare.io/health-node": node_hash(NODE),
                "app.kubernetes.io/managed-by": "gpushare-agent",
            },
            "annotations": { "gpushare.io/health-owner": NODE },
        },
        "spec": {
            "deviceSelector": { "driver": "gpu.nvidia.com", "pool": pool, "device": device },
            "taint": { "key": key, "value": "x", "effect": "NoSchedule" },
        },
    })
}

#[test]
fn a_fatal_xid_taints_exactly_its_dra_devices_until_the_agent_resets_the_idle_gpu() {
    let test = "agent::dra_health";
    let Some(tools) = tools(test) else { return };
    let Some(program) = dra_plugin::program(test) else {
        return;
    };
    let Some(server) = ApiServer::with_feature_gates(
        test,
        "DRADeviceTaints=true,DRADeviceTaintRules=true",
        "resource.k8s.io/v1beta2=true",
    ) else {
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
            "--reset-unhealthy-gpus".as_ref(),
        ],
    );
    let stop = Arc::new(AtomicBool::new(false));
    let daemonsets = {
        let (kubeconfig, stop) = (server.kubeconfig.clone(), stop.clone());
        std::thread::spawn(move || play_daemonsets(&kubeconfig, &[daemon], &stop))
    };
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
    wait_for("the 56 1g.5gb published", WAIT, || {
        (slices(&server.kubeconfig, NODE).len() == 56).then_some(())
    });
    let detect = nvidia.detect();
    let uuid = |i: usize| detect["gpus"][i]["uuid"].as_str().unwrap().to_string();
    let running = |name: &str| cluster.logs(NS, name).and_then(|l| Seen::parse(&l));

    // Rules the agent did not make: one squats the name of the agent's rule for a device of GPU
    // 2 (selecting another pool's device), one carries the agent's label and marks in another
    // pool (which the agent may not delete). Neither is the agent's.
    let mut gpu2: Vec<String> = slices(&server.kubeconfig, NODE)
        .iter()
        .filter(|d| d["attributes"]["parentUUID"]["string"] == uuid(2).as_str())
        .map(|d| d["name"].as_str().unwrap().to_string())
        .collect();
    gpu2.sort();
    assert_eq!(gpu2.len(), 7, "{gpu2:?}");
    let squatted = gpu2[0].clone();
    let squatter = format!("gpushare-{}-{squatted}", node_hash(NODE));
    cluster.apply_documents(&[
        foreign_rule(&squatter, "other-node", "gpu-0", "example.com/maintenance"),
        foreign_rule(
            "in-another-pool",
            "other-node",
            "gpu-1",
            "gpushare.io/unhealthy",
        ),
    ]);

    // A claim holds a device of GPU 2; then a fatal Xid there.
    pod_on(&cluster, "holder", &uuid(2));
    wait_for("the holder to run", WAIT, || running("holder"));
    nvidia
        .gpushare()
        .args(["sim", "xid", "79", "--gpu", "2"])
        .assert()
        .success();
    let names = wait_for("GPU 2's six unsquatted MIG devices tainted", WAIT, || {
        let names = tainted(&server.kubeconfig);
        (names.len() == 6).then_some(names)
    });
    assert!(!names.contains(&squatted), "{names:?}");
    let said = wait_for("the squatter reported", WAIT, || {
        cluster
            .events(NODE)
            .into_iter()
            .find(|(r, m)| r == "DeviceTaintRuleNotOurs" && m.contains(&squatter))
            .map(|(_, m)| m)
    });
    assert!(
        said.contains(&squatted) && said.contains("other-node"),
        "{said}"
    );
    wait_for(
        "the condition to say why a device is untainted",
        WAIT,
        || {
            cluster
                .node(NODE)
                .status?
                .conditions?
                .into_iter()
                .find(|c| {
                    c.type_ == "GPUUnhealthy"
                        && c.reason.as_deref() == Some("DeviceTaintRuleNotOurs")
                })
        },
    );
    let minor_of_2 = names[0]
        .strip_prefix("gpu-")
        .and_then(|r| r.split_once("-mig-"))
        .map(|(m, _)| m.to_string())
        .unwrap();
    assert!(
        names
            .iter()
            .all(|n| n.starts_with(&format!("gpu-{minor_of_2}-mig-1g5gb-"))),
        "{names:?}"
    );

    assert!(
        !cluster.events(NODE).iter().any(|(r, _)| r == "GPUReset"),
        "GPU 2 was reset while a claim held it"
    );
    // The agent's service account may taint its own node's devices only.
    let foreign = dir.path().join("foreign.yaml");
    std::fs::write(
        &foreign,
        "apiVersion: resource.k8s.io/v1beta2\nkind: DeviceTaintRule\nmetadata: {name: foreign}\n\
         spec:\n  deviceSelector: {driver: gpu.nvidia.com, pool: other-node, device: gpu-0}\n  \
         taint: {key: gpushare.io/unhealthy, value: Xid79, effect: NoSchedule}\n",
    )
    .unwrap();
    let out = std::process::Command::new("kubectl")
        .env("KUBECONFIG", &agent_kubeconfig)
        .arg("create")
        .arg("-f")
        .arg(&foreign)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && said.contains("may taint only the DRA devices of the node"),
        "{said}"
    );

    // The holder goes: the agent resets GPU 2, its instances come back, the taints go.
    cluster.remove_pod(NS, "holder");
    let deadline = std::time::Instant::now() + WAIT;
    while !tainted(&server.kubeconfig).is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "the taints stayed; the agent said:\n{}",
            agent.log()
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    assert!(
        cluster.events(NODE).iter().any(|(r, _)| r == "GPUReset"),
        "{:?}",
        cluster.events(NODE)
    );
    assert_eq!(
        common::device_plugin::mig_devices(&nvidia.detect())
            .iter()
            .filter(|d| d.gpu == 2)
            .count(),
        7,
        "the layout in force brought GPU 2's instances back"
    );
    let left = rule_names(&server.kubeconfig);
    assert!(
        left.contains(&squatter) && left.contains(&"in-another-pool".to_string()),
        "the rules the agent did not make stay: {left:?}"
    );
    stop.store(true, Ordering::Relaxed);
    daemonsets.join().unwrap();
    drop(plugin);
}
