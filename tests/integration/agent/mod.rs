//! `gpushare agent` end to end against a real kube-apiserver (`../shared/tools/kube-apiserver`):
//! the manifests of `gpushare manifests --target agent` are applied to it (validated strictly by
//! the server), the agent runs as their service account on a simulated DGX A100, and the test
//! plays what the API server lacks — the kubelet and the DaemonSet controller — by deleting the
//! GPU clients' pods when their labels are paused.
//!
//! Skipped (loudly) without the tool or etcd; `.ci/run` installs etcd and requires them.

mod agent_process;
mod beside_plugin;
mod controller_process;
mod dra_health;
mod dra_on_demand;
mod gpu_health;
mod hostile_cluster;
mod idle_load;
mod metrics;
mod mig_on_demand;
mod own_node;
mod relabel_with_pods;
use crate::common;

use agent_process::{AgentProcess, device_at, profiles};
use common::api_server::ApiServer;
use common::cluster::{Cluster, EventMark, wait_for};
use common::real_node::BUSYBOX;
use common::repo;
use serde_json::{Value, json};
use std::time::Duration;

const NS: &str = "gpushare-e2e";
const CONFIGMAP: &str = "gpushare-e2e/gpushare-layouts";
const WAIT: Duration = Duration::from_secs(60);
const STATE: &str = "gpushare.io/config.state";
const DEVICE_PLUGIN: &str = "nvidia.com/gpu.deploy.device-plugin";
const DCGM_EXPORTER: &str = "nvidia.com/gpu.deploy.dcgm-exporter";

const HALVES: &str =
    "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"3g.20gb\" = 2 }\n";
const MIG_PARTED: &str = "version: v1
mig-configs:
  all-disabled:
    - devices: all
      mig-enabled: false
  all-1g.5gb:
    - devices: all
      mig-enabled: true
      mig-devices:
        \"1g.5gb\": 7
";

/// The API server, the agent's manifests applied to it, a Node, and the agent running as the
/// manifests' service account.
struct Setup {
    // Dropped in this order: the agent, the client, the API server.
    agent: AgentProcess,
    cluster: Cluster,
    server: ApiServer,
    _dir: tempfile::TempDir,
}

fn setup(test: &str, node: &str, node_labels: &[(&str, &str)]) -> Option<Setup> {
    let server = ApiServer::start(test)?;
    let cluster = Cluster::connect(&server.kubeconfig);
    let dir = tempfile::tempdir().unwrap();
    apply_agent_manifests(&cluster);
    cluster.put_layouts(
        NS,
        "gpushare-layouts",
        &[("halves", HALVES), ("config.yaml", MIG_PARTED)],
    );
    cluster.create_node(node, node_labels);
    let kubeconfig = dir.path().join("agent.kubeconfig");
    cluster.pod_token_kubeconfig(NS, "gpushare-agent", node, &kubeconfig);
    // A blocked layout is tried again when the pod in the way goes, not by the clock.
    let agent = AgentProcess::start_with(
        dir.path(),
        &kubeconfig,
        node,
        CONFIGMAP,
        &["--retry".as_ref(), "600".as_ref()],
    );
    Some(Setup {
        agent,
        cluster,
        server,
        _dir: dir,
    })
}

/// The agent's manifests, as a user generates them, applied with strict validation.
fn apply_agent_manifests(cluster: &Cluster) {
    apply_manifests(
        cluster,
        &[
            "--target",
            "agent",
            "-c",
            "tests/fixtures/k8s/balanced.toml",
        ],
    );
}

/// The agent's manifests, and mig-parted's default config as the layouts.
fn apply_agent_with_mig_parted_layouts(cluster: &Cluster) {
    apply_agent_manifests(cluster);
    let layouts =
        std::fs::read_to_string(repo().join("tests/fixtures/mig-parted/config-default.yaml"))
            .unwrap();
    cluster.put_layouts(NS, "gpushare-layouts", &[("config.yaml", &layouts)]);
}

/// `gpushare manifests ARGS` in the test namespace, applied with strict validation.
fn apply_manifests(cluster: &Cluster, args: &[&str]) {
    let out = common::gpushare()
        .current_dir(repo())
        .args(["--sim", "dgx-a100", "--format", "json", "manifests"])
        .args(args)
        .args(["--namespace", NS])
        .args(["--image", "gpushare=registry.example.com/gpushare:0.1.0"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let docs: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    cluster.apply_documents(&docs);
}

impl Setup {
    /// Wait until the node's state label says `state`.
    fn wait_state(&self, node: &str, state: &str) {
        wait_for(&format!("{STATE}={state}"), WAIT, || {
            (self.cluster.labels(node).get(STATE).map(String::as_str) == Some(state)).then_some(())
        });
    }

    /// Wait for an event whose reason is `reason` and whose message contains `text`, made after
    /// `seen`.
    fn wait_event(&self, node: &str, seen: &EventMark, reason: &str, text: &str) -> String {
        wait_for(&format!("an event {reason} saying {text:?}"), WAIT, || {
            self.cluster
                .events_since(node, seen)
                .into_iter()
                .find(|(r, m)| r == reason && m.contains(text))
                .map(|(_, m)| m)
        })
    }
}

/// A pod bound to `node` that the kubelet runs, shaped like a GPU client's DaemonSet pod (the
/// GPU Operator's selects on `<label>: "true"`; gpushare's on `NotIn [false, paused]`).
fn gpu_client_pod(name: &str, node: &str, label: &str, operator_style: bool) -> Value {
    let placement = if operator_style {
        json!({ "nodeSelector": { label: "true" } })
    } else {
        json!({ "affinity": { "nodeAffinity": { "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{ "matchExpressions": [{
                "key": label, "operator": "NotIn", "values": ["false", "paused-for-mig-change"]
            }]}]
        }}}})
    };
    let mut spec = json!({
        "nodeName": node,
        "terminationGracePeriodSeconds": 0,
        "containers": [{
            "name": "c", "image": BUSYBOX, "imagePullPolicy": "Never",
            "command": ["sleep", "1000000"],
        }],
    });
    spec.as_object_mut()
        .unwrap()
        .extend(placement.as_object().unwrap().clone());
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": { "name": name, "namespace": NS },
        "spec": spec,
    })
}

/// The device plugin's pod on `node`, as its DaemonSet makes it.
fn plugin_pod(node: &str) -> Value {
    gpu_client_pod(&format!("device-plugin-{node}"), node, DEVICE_PLUGIN, false)
}

/// A GPU client's program, stopped and started as its DaemonSet's pod leaves and comes back.
trait Played: Send {
    fn program(&mut self) -> &mut common::device_plugin::InHost;
}

impl<T> Played for T
where
    T: std::ops::DerefMut<Target = common::device_plugin::InHost> + Send,
{
    fn program(&mut self) -> &mut common::device_plugin::InHost {
        self
    }
}

/// One node's GPU client, played as its DaemonSet would run it.
struct Daemon {
    node: String,
    /// Its `nvidia.com/gpu.deploy.<component>` label.
    label: &'static str,
    program: std::sync::Arc<std::sync::Mutex<dyn Played>>,
}

impl Daemon {
    /// The device plugin on `node`.
    fn device_plugin(
        node: &str,
        plugin: std::sync::Arc<std::sync::Mutex<common::device_plugin::DevicePlugin>>,
    ) -> Daemon {
        Daemon {
            node: node.into(),
            label: DEVICE_PLUGIN,
            program: plugin,
        }
    }

    /// Its pod's name.
    fn pod(&self) -> String {
        let component = self.label.trim_start_matches("nvidia.com/gpu.deploy.");
        format!("{component}-{}", self.node)
    }
}

/// The GPU clients' DaemonSets, played on each node: while the node's deploy label of a client
/// is paused, its program is stopped and its pod gone; otherwise both are there.
fn play_daemonsets(
    kubeconfig: &std::path::Path,
    daemons: &[Daemon],
    stop: &std::sync::atomic::AtomicBool,
) {
    let cluster = Cluster::connect(kubeconfig);
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        for d in daemons {
            let paused = cluster.labels(&d.node).get(d.label).map(String::as_str)
                == Some("paused-for-mig-change");
            let mut played = d.program.lock().unwrap();
            let program = played.program();
            if paused && program.running() {
                program.pause();
                cluster.remove_pod(NS, &d.pod());
            } else if !paused && !program.running() {
                program.resume();
                cluster.create_pod(gpu_client_pod(&d.pod(), &d.node, d.label, false));
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A user's pod on `node` holding one `resource`, running (it shows what it got, see
/// [`common::real_node::Seen`]).
fn user_pod(name: &str, node: &str, resource: &str) -> Value {
    let mut pod = common::real_node::gpu_pod(NS, name, &[(resource, 1)]);
    pod["spec"]["nodeName"] = node.into();
    pod
}

/// pod → the device it holds, in the namespace of these tests, as `gpushare detect` reads the
/// kubelet's pod-resources under `host_root`.
fn held_devices(
    node: &common::nvidia_tools::NvidiaNode,
    host_root: &std::path::Path,
) -> std::collections::BTreeMap<String, String> {
    let detect = common::json(
        node.gpushare()
            .args(["detect", "--host-root"])
            .arg(host_root),
    );
    detect["pods"]
        .as_array()
        .expect("pods known")
        .iter()
        .filter(|h| h["namespace"] == NS)
        .map(|h| {
            (
                h["pod"].as_str().unwrap().to_string(),
                h["device_id"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// `(gpu, start)` of each GPU instance the agent's runs on `node` destroyed, from its journal.
fn destroyed_instances(node: &common::nvidia_tools::NvidiaNode) -> Vec<(u64, u64)> {
    let journal = node.path("root/var/lib/gpushare/journal.jsonl");
    let text = std::fs::read_to_string(journal).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["event"] == "step")
        .filter_map(|e| {
            // `GPU 1: destroy_gpu_instance (GPU instance 7 (1g.5gb at 0:1))`
            let d = e["detail"].as_str()?.to_string();
            let (gpu, rest) = d
                .strip_prefix("GPU ")?
                .split_once(": destroy_gpu_instance")?;
            let start = rest.rsplit_once(" at ")?.1.split(':').next()?;
            Some((gpu.parse().ok()?, start.parse().ok()?))
        })
        .collect()
}

/// pod → (container id, restarts) of its first container, for the running pods of the tests'
/// namespace: a pod whose container changed or restarted did not run all through.
fn containers(cluster: &Cluster) -> std::collections::BTreeMap<String, (String, i32)> {
    cluster
        .pods(NS)
        .into_iter()
        .filter_map(|p| {
            let status = p.status?.container_statuses?.into_iter().next()?;
            Some((
                p.metadata.name?,
                (status.container_id?, status.restart_count),
            ))
        })
        .collect()
}

fn balanced() -> Vec<Vec<String>> {
    vec![
        vec![
            "1g.5gb".into(),
            "1g.5gb".into(),
            "2g.10gb".into(),
            "3g.20gb".into()
        ];
        8
    ]
}

#[test]
fn the_agent_applies_the_layout_its_label_names() {
    let node = "gpu-node-1";
    let Some(mut s) = setup(
        "the_agent_applies_the_layout_its_label_names",
        node,
        &[(DEVICE_PLUGIN, "true")],
    ) else {
        return;
    };
    let c = &s.cluster;

    // The RBAC the server holds names its verbs: no wildcard anywhere.
    let rules = [
        c.rules("ClusterRole", None, "gpushare-agent"),
        c.rules("Role", Some(NS), "gpushare-agent"),
        c.rules("Role", Some("default"), "gpushare-agent-events"),
    ]
    .concat();
    assert_eq!(rules.len(), 6, "{rules:?}");
    assert!(
        !rules.iter().any(|r| r.to_string().contains('*')),
        "{rules:?}"
    );

    // No label: nothing happens, and the agent is healthy.
    let (code, body) = s.agent.healthz();
    assert_eq!(code, 200, "{body}");
    assert!(body.contains("\"node\":\"gpu-node-1\""), "{body}");
    assert_eq!(profiles(&s.agent.node()), vec![Vec::<String>::new(); 8]);

    // 1. A label: the layout is applied, the state says so, events tell the story.
    c.label(node, &[("gpushare.io/config", Some("balanced"))]);
    s.wait_state(node, "success");
    assert_eq!(profiles(&s.agent.node()), balanced());
    let from_the_start = EventMark::default();
    s.wait_event(
        node,
        &from_the_start,
        "Applying",
        "gpushare.io/config=balanced",
    );
    s.wait_event(
        node,
        &from_the_start,
        "LayoutApplied",
        "applied gpushare.io/config=balanced",
    );
    let labels = c.labels(node);
    assert_eq!(
        labels.get(DEVICE_PLUGIN).map(String::as_str),
        Some("true"),
        "{labels:?}"
    );
    assert!(!labels.contains_key(DCGM_EXPORTER), "{labels:?}");
    let (code, body) = s.agent.healthz();
    assert_eq!(code, 200);
    assert!(body.contains("\"state\":\"success\""), "{body}");
    let kept = device_at(&s.agent.node(), 0, "3g.20gb", 4).expect("a 3g.20gb at 4");

    // 2. Another label needs instances destroyed: the GPU clients are paused first, and nothing
    // changes while their pods are on the node. The test, playing the DaemonSet controller and
    // the kubelet, removes the pods once their labels say paused; then the change is made,
    // incrementally, and the labels come back.
    c.create_pod(gpu_client_pod("device-plugin", node, DEVICE_PLUGIN, true));
    c.create_pod(gpu_client_pod("dcgm-exporter", node, DCGM_EXPORTER, false));
    let seen = c.event_mark(node);
    c.label(node, &[("gpushare.io/config", Some("halves"))]);
    wait_for("the GPU clients paused", WAIT, || {
        let l = c.labels(node);
        (l.get(DEVICE_PLUGIN).map(String::as_str) == Some("paused-for-mig-change")
            && l.get(DCGM_EXPORTER).map(String::as_str) == Some("paused-for-mig-change"))
        .then_some(())
    });
    s.wait_event(node, &seen, "GpuClientsPaused", "device-plugin");
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        c.labels(node).get(STATE).map(String::as_str),
        Some("pending")
    );
    assert_eq!(
        profiles(&s.agent.node()),
        balanced(),
        "changed with GPU clients on the node"
    );
    // A user's pod that comes while the clients leave, holding a device the change takes, is
    // found before anything is destroyed: the clients come back and nothing changes.
    c.create_pod(user_pod("late", node, "nvidia.com/mig-2g.10gb"));
    c.remove_pod(NS, "device-plugin");
    c.remove_pod(NS, "dcgm-exporter");
    s.wait_state(node, "failed");
    let m = s.wait_event(node, &seen, "LayoutFailed", "gpushare-e2e/late");
    assert!(m.contains("nvidia.com/mig-2g.10gb"), "{m}");
    assert_eq!(profiles(&s.agent.node()), balanced(), "changed under {m}");
    assert_eq!(
        c.labels(node).get(DEVICE_PLUGIN).map(String::as_str),
        Some("true"),
        "the clients are resumed"
    );
    // Once it is gone, the agent tries again at once; the clients' pods are gone already.
    c.remove_pod(NS, "late");
    s.wait_state(node, "success");
    let now = s.agent.node();
    assert_eq!(profiles(&now), vec![vec!["3g.20gb".to_string(); 2]; 8]);
    assert_eq!(
        device_at(&now, 0, "3g.20gb", 4).as_deref(),
        Some(kept.as_str()),
        "the 3g.20gb both layouts have is kept"
    );
    let labels = c.labels(node);
    assert_eq!(
        labels.get(DEVICE_PLUGIN).map(String::as_str),
        Some("true"),
        "{labels:?}"
    );
    assert!(!labels.contains_key(DCGM_EXPORTER), "{labels:?}");
    let annotations = c.node(node).metadata.annotations.unwrap_or_default();
    assert!(
        !annotations.contains_key("gpushare.io/paused-gpu-clients"),
        "{annotations:?}"
    );
    // Their DaemonSets would bring them back now; the test does.
    c.create_pod(gpu_client_pod("device-plugin", node, DEVICE_PLUGIN, true));
    c.create_pod(gpu_client_pod("dcgm-exporter", node, DCGM_EXPORTER, false));
    s.wait_event(
        node,
        &seen,
        "LayoutApplied",
        "applied gpushare.io/config=halves",
    );

    // 3. A user's pod holding a device the next layout takes away blocks it, by name; once it
    // is gone the agent tries again at once (its --retry is 600 s) and succeeds.
    c.create_pod(user_pod("training", node, "nvidia.com/mig-3g.20gb"));
    let seen = c.event_mark(node);
    c.label(node, &[("gpushare.io/config", Some("balanced"))]);
    s.wait_state(node, "failed");
    let m = s.wait_event(node, &seen, "LayoutFailed", "gpushare-e2e/training");
    assert!(m.contains("nvidia.com/mig-3g.20gb"), "{m}");
    assert_eq!(
        profiles(&s.agent.node()),
        vec![vec!["3g.20gb".to_string(); 2]; 8]
    );
    c.remove_pod(NS, "training");
    // Paused again: the clients' pods must go again.
    wait_for("the GPU clients paused again", WAIT, || {
        (c.labels(node).get(DEVICE_PLUGIN).map(String::as_str) == Some("paused-for-mig-change"))
            .then_some(())
    });
    c.remove_pod(NS, "device-plugin");
    c.remove_pod(NS, "dcgm-exporter");
    s.wait_state(node, "success");
    assert_eq!(profiles(&s.agent.node()), balanced());

    // 4. A layout the ConfigMap does not have: failed, with an event, and nothing changes.
    let before = s.agent.node();
    let seen = c.event_mark(node);
    c.label(node, &[("gpushare.io/config", Some("nonexistent"))]);
    s.wait_state(node, "failed");
    let m = s.wait_event(node, &seen, "LayoutFailed", "no layout named `nonexistent`");
    assert!(
        m.contains("halves") && m.contains("all-1g.5gb"),
        "lists what there is: {m}"
    );
    assert_eq!(s.agent.node(), before);

    // 5. The GPU Operator's label, with a label of the mig-parted config: honoured, and its
    // state mirrored in the GPU Operator's words.
    c.label(
        node,
        &[
            ("gpushare.io/config", None),
            ("nvidia.com/mig.config", Some("all-1g.5gb")),
        ],
    );
    wait_for("nvidia.com/mig.config.state=success", WAIT, || {
        let l = c.labels(node);
        (l.get("nvidia.com/mig.config.state").map(String::as_str) == Some("success")
            && l.get(STATE).map(String::as_str) == Some("success"))
        .then_some(())
    });
    assert_eq!(
        profiles(&s.agent.node()),
        vec![vec!["1g.5gb".to_string(); 7]; 8]
    );

    // SIGTERM ends it cleanly.
    let status = s.agent.stop();
    assert!(status.success(), "{status}");
    let _ = &s.server;
}

#[test]
fn the_agent_recovers_from_an_api_server_restart() {
    let node = "gpu-node-2";
    let Some(mut s) = setup("the_agent_recovers_from_an_api_server_restart", node, &[]) else {
        return;
    };
    s.cluster
        .label(node, &[("gpushare.io/config", Some("balanced"))]);
    s.wait_state(node, "success");
    assert_eq!(profiles(&s.agent.node()), balanced());

    // The API server goes away mid-watch and comes back; meanwhile the health endpoint says it
    // does not answer (within seconds, not when a watch happens to end).
    let health = s.agent.health;
    let watching = std::thread::spawn(move || {
        let mut seen = Vec::new();
        let until = std::time::Instant::now() + Duration::from_secs(6);
        while std::time::Instant::now() < until {
            seen.push(
                agent_process::healthz_at(health)
                    .1
                    .contains("\"api_reachable\":false"),
            );
            std::thread::sleep(Duration::from_millis(250));
        }
        seen
    });
    std::thread::sleep(Duration::from_millis(500));
    s.server.restart(Duration::from_secs(5));
    assert!(
        watching.join().unwrap().contains(&true),
        "/healthz said the API server answered all through its outage"
    );
    wait_for("the API server back", WAIT, || {
        s.cluster.answers().then_some(())
    });
    wait_for("/healthz to say it answers again", WAIT, || {
        s.agent
            .healthz()
            .1
            .contains("\"api_reachable\":true")
            .then_some(())
    });
    wait_for("the agent to notice the outage", WAIT, || {
        s.agent.log().contains("trying again").then_some(())
    });
    let (code, _) = s.agent.healthz();
    assert_eq!(code, 200, "an outage is no reason to restart the agent");

    // The next label is applied.
    s.cluster.label(
        node,
        &[
            ("gpushare.io/config", None),
            ("nvidia.com/mig.config", Some("all-disabled")),
        ],
    );
    wait_for("nvidia.com/mig.config.state=success", WAIT, || {
        (s.cluster
            .labels(node)
            .get("nvidia.com/mig.config.state")
            .map(String::as_str)
            == Some("success"))
        .then_some(())
    });
    let now = s.agent.node();
    for gpu in now["gpus"].as_array().unwrap() {
        assert_eq!(gpu["mig"]["current"], "disabled", "{gpu}");
    }
    wait_for(
        "the agent to say the API server answers again",
        WAIT,
        || s.agent.log().contains("answers again").then_some(()),
    );
    let status = s.agent.stop();
    assert!(status.success(), "{status}");
}
