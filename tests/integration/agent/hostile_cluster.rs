//! What anyone in a shared cluster can write, against `gpushare controller` on a real API server
//! and scheduler: pods asking for 4294967295 MIG devices (or two containers whose sum wraps 32
//! bits, or a thousand, or a million), a node whose published MIG state has a profile of no size,
//! one whose profile name carries a TOML section, and a Lease renewed in the year 9999. The
//! controller stays up through all of it (the same process, healthy), tells each pod why it
//! waits, writes no layout for what it refused, and still reshapes a good node for a good pod.

use super::controller_process::ControllerProcess;
use super::{NS, apply_manifests};
use crate::common::api_server::ApiServer;
use crate::common::cluster::{Cluster, wait_for};
use serde_json::{Value, json};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(120);
const A100: &str = "NVIDIA A100-SXM4-40GB";
const LAYOUT: &str = "gpushare.io/mig.layout";

/// The A100 40GB's profiles as an agent publishes them; `first` names the first one.
fn profiles(first: &str, first_size: u32) -> Value {
    json!([
        { "name": first, "slices": 1, "max_instances": 7, "starts": [0, 1, 2, 3, 4, 5, 6], "size": first_size },
        { "name": "2g.10gb", "slices": 2, "max_instances": 3, "starts": [0, 2, 4], "size": 2 },
        { "name": "3g.20gb", "slices": 3, "max_instances": 2, "starts": [0, 4], "size": 4 },
        { "name": "7g.40gb", "slices": 7, "max_instances": 1, "starts": [0], "size": 8 },
    ])
}

/// A published state: two A100s at seven idle `first` instances each.
fn state(first: &str, first_size: u32) -> String {
    let gpu = |index: u32| {
        json!({
            "index": index, "model": A100,
            "instances": (0..7).map(|s| json!({ "profile": first, "start": s, "size": first_size })).collect::<Vec<_>>(),
            "baseline": (0..7).map(|_| json!({ "profile": first })).collect::<Vec<_>>(),
        })
    };
    json!({
        "version": 1, "holders_known": true,
        "profiles": { A100: profiles(first, first_size) },
        "gpus": [gpu(0), gpu(1)],
    })
    .to_string()
}

/// A pod whose containers ask for these counts of `nvidia.com/mig-<profile>`.
fn pod(name: &str, profile: &str, counts: &[&str]) -> Value {
    let containers: Vec<Value> = counts
        .iter()
        .enumerate()
        .map(|(i, n)| {
            json!({
                "name": format!("c{i}"), "image": "registry.example.com/cuda:12",
                "resources": { "limits": { format!("nvidia.com/mig-{profile}"): n } },
            })
        })
        .collect();
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": { "name": name, "namespace": NS },
        "spec": { "terminationGracePeriodSeconds": 0, "containers": containers },
    })
}

#[test]
fn hostile_pods_states_and_leases_neither_crash_nor_steer_the_controller() {
    let test = "agent::hostile_cluster";
    let Some(mut server) = ApiServer::with_scheduler(test) else {
        return;
    };
    let cluster = Cluster::connect(&server.kubeconfig);
    apply_manifests(&cluster, &["--target", "controller"]);
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("controller.kubeconfig");
    cluster.service_account_kubeconfig(NS, "gpushare-controller", &kubeconfig);

    // Nodes that opt in, with what their agents would publish (or what someone wrote there).
    let injection = "1g.5gb\", start = 0 }]\n[clients]\nsystemd = [\"kubelet.service\"]\n#";
    for (node, published) in [
        ("good", state("1g.5gb", 1)),
        ("no-size", state("1g.5gb", 0)),
        ("injected", state(injection, 1)),
    ] {
        cluster.create_node(node, &[("gpushare.io/mig.on-demand", "true")]);
        cluster.make_ready(node, &[]);
        cluster.annotate(node, &[("gpushare.io/mig.state", Some(&published))]);
    }
    // A Lease someone renewed in the year 9999: no replica can read it as a time.
    cluster.apply_documents(&[json!({
        "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
        "metadata": { "name": "gpushare-controller", "namespace": NS },
        "spec": {
            "holderIdentity": "ghost", "leaseDurationSeconds": 15,
            "renewTime": "9999-12-31T23:59:59.000000Z", "acquireTime": "9999-12-31T23:59:59.000000Z",
        },
    })]);
    for p in [
        pod("max", "1g.5gb", &["4294967295"]),
        pod("wraps", "1g.5gb", &["4294967295", "2"]),
        pod("thousand", "1g.5gb", &["1000"]),
        pod("million", "1g.5gb", &["1M"]),
        pod("fits", "3g.20gb", &["1"]),
    ] {
        cluster.create_pod(p);
    }

    let mut controller = ControllerProcess::start(&kubeconfig, dir.path(), "only", None);
    controller.wait_leading();
    let told = |pod: &str, reason: &str| {
        wait_for(&format!("{reason} for {pod}"), WAIT, || {
            cluster
                .events_of(NS, "Pod", pod)
                .into_iter()
                .find(|(r, _)| r == reason)
                .map(|(_, m)| m)
        })
    };
    for (pod, n) in [
        ("max", "4294967295"),
        ("wraps", "4294967297"),
        ("thousand", "1000"),
        ("million", "1000000"),
    ] {
        let why = told(pod, "MigNoFit");
        assert!(
            why.starts_with(&format!(
                "it asks for {n} nvidia.com/mig-1g.5gb; the most any node that opts in could hold is 14"
            )),
            "{pod}: {why}"
        );
        // The nodes it could not plan for are named, with why.
        assert!(why.contains("not planned for: "), "{why}");
        assert!(why.contains("no-size: its MIG state cannot be read: profiles[\"NVIDIA A100-SXM4-40GB\"]: profile 1g.5gb: size = 0"), "{why}");
        assert!(
            why.contains("injected: its MIG state cannot be read:"),
            "{why}"
        );
        assert!(
            !why.contains('\n'),
            "the hostile name is quoted, not copied: {why}"
        );
    }
    // The good pod gets the good node.
    let reshaping = told("fits", "MigReshaping");
    assert!(reshaping.contains("node good"), "{reshaping}");
    let layout = wait_for("the good node's layout", WAIT, || {
        cluster
            .node("good")
            .metadata
            .annotations
            .and_then(|a| a.get(LAYOUT).cloned())
    });
    assert!(layout.contains("profile = \"3g.20gb\""), "{layout}");
    assert!(!layout.contains("[clients]"), "{layout}");
    for refused in ["no-size", "injected"] {
        let annotations = cluster
            .node(refused)
            .metadata
            .annotations
            .unwrap_or_default();
        assert!(
            !annotations.contains_key(LAYOUT),
            "{refused}: {annotations:?}"
        );
    }

    // Still the same process, and healthy: nothing crashed it, nothing restarted it.
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(controller.exited(), None, "{}", controller.log());
    let (code, body) = controller.healthz();
    assert_eq!(code, 200, "{body}");
    assert!(body.contains("\"state\":\"leading\""), "{body}");
    assert!(
        !controller.log().contains("panicked"),
        "{}",
        controller.log()
    );

    // While the API server is away the Lease is not renewed: within its renew deadline the
    // replica no longer says it leads, and it leads again once the server is back.
    let health = controller.healthz_addr();
    let watching = std::thread::spawn(move || {
        let mut states = Vec::new();
        let until = std::time::Instant::now() + Duration::from_secs(6);
        while std::time::Instant::now() < until {
            states.push(super::agent_process::healthz_at(health).1);
            std::thread::sleep(Duration::from_millis(250));
        }
        states
    });
    std::thread::sleep(Duration::from_millis(500));
    server.restart(Duration::from_secs(5));
    let states = watching.join().unwrap();
    assert!(
        states.iter().any(|s| s.contains("\"state\":\"standby\"")),
        "{states:?}"
    );
    wait_for("the controller to lead again", WAIT, || {
        controller
            .healthz()
            .1
            .contains("\"state\":\"leading\"")
            .then_some(())
    });
    assert_eq!(controller.exited(), None, "{}", controller.log());
}
