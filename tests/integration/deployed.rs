//! gpushare's cluster components as users run them: pods of the manifests `gpushare manifests`
//! writes (only `--image` set), from the image `scripts/build-image.sh` builds, on a real node
//! whose runtime is NVIDIA's and whose driver is the NVML stand-in (see `common::deployed`). The
//! pods reach the API server as a cluster's do (the `kubernetes` Service, their service
//! account's token), the kubelet probes them, and what they change is the simulated node's.

use crate::common;
use common::cluster::wait_for;
use common::deployed::Deployed;
use common::device_plugin::mig_devices;
use common::prometheus::{self, Prometheus};
use std::time::Duration;

const NS: &str = "gpushare-deployed";
const WAIT: Duration = Duration::from_secs(180);
const HALVES: &str =
    "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"3g.20gb\" = 2 }\n";

/// The agent's DaemonSet: a relabel brings the node to the layout, and an Xid on a GPU reaches
/// the Node through the agent's pod.
#[test]
fn the_agents_pod_relabels_its_node_and_hears_an_xid() {
    let test = "deployed::agent";
    let Some(d) = Deployed::start(test, "dgx-a100") else {
        return;
    };
    let docs = d.manifests(&[
        "--target",
        "agent",
        "-c",
        "tests/fixtures/k8s/balanced.toml",
        "--namespace",
        NS,
    ]);
    d.cluster.apply_documents(&docs);
    d.cluster
        .put_layouts(NS, "gpushare-layouts", &[("halves", HALVES)]);
    let node = d.node.name.clone();
    d.cluster
        .label(&node, &[("gpushare.io/config", Some("halves"))]);

    // The DaemonSet's pod runs, ready by its probe, and brings the node to the layout.
    wait_for("the agent's pod to be ready", WAIT, || {
        d.cluster.pods(NS).into_iter().find(|p| {
            p.status
                .as_ref()
                .and_then(|s| s.conditions.as_ref())
                .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
        })
    });
    let state = || {
        d.cluster
            .labels(&node)
            .get("gpushare.io/config.state")
            .cloned()
    };
    let deadline = std::time::Instant::now() + WAIT;
    while state().as_deref() != Some("success") {
        assert!(
            std::time::Instant::now() < deadline,
            "the node is {:?}, not success:\n{}",
            state(),
            d.pod_story(NS)
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    let detect = d.nvidia.detect();
    let devices = mig_devices(&detect);
    for gpu in 0..8 {
        let profiles: Vec<&str> = devices
            .iter()
            .filter(|m| m.gpu == gpu)
            .map(|m| m.profile.as_str())
            .collect();
        assert_eq!(profiles, ["3g.20gb", "3g.20gb"], "GPU {gpu}: {devices:?}");
    }

    // Prometheus finds the agent's pod by its annotations and scrapes it through the pod
    // network: the 16 MIG devices the pod made.
    let pods = d.cluster.pods(NS);
    let agent_pod = pods[0].metadata.name.clone().unwrap();
    if let Some(program) = prometheus::tool(test, "prometheus") {
        let prom = Prometheus::scraping_pods(&program, &pods);
        prom.wait_for(
            &format!(r#"count(gpushare_mig_device_memory_total_bytes{{pod="{agent_pod}"}})"#),
            |s| s.first().is_some_and(|s| s.value == 16.0),
        );
    }

    // A fatal Xid on GPU 2, raised in the simulated driver: the agent's pod hears it through
    // NVML and tells the Node.
    let uuid = detect["gpus"][2]["uuid"].as_str().unwrap().to_string();
    d.nvidia
        .gpushare()
        .args(["sim", "xid", "79", "--gpu", "2"])
        .assert()
        .success();
    wait_for("the GPUUnhealthy condition to name GPU 2", WAIT, || {
        d.cluster
            .node(&node)
            .status?
            .conditions?
            .into_iter()
            .find(|c| c.type_ == "GPUUnhealthy" && c.status == "True")
            .filter(|c| c.message.as_deref().is_some_and(|m| m.contains(&uuid)))
    });
}

/// The controller's Deployment: two replicas, one leading through the Lease; the leader's pod
/// gone, the other takes the Lease.
#[test]
fn the_controllers_second_replica_takes_over_when_the_leaders_pod_goes() {
    let test = "deployed::controller";
    let Some(d) = Deployed::start(test, "dgx-a100") else {
        return;
    };
    let docs = d.manifests(&["--target", "controller", "--namespace", NS]);
    d.cluster.apply_documents(&docs);
    let ready = || -> Vec<String> {
        d.cluster
            .pods(NS)
            .into_iter()
            .filter(|p| p.metadata.deletion_timestamp.is_none())
            .filter(|p| {
                p.status
                    .as_ref()
                    .and_then(|s| s.conditions.as_ref())
                    .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
            })
            .filter_map(|p| p.metadata.name)
            .collect()
    };
    let holder = || -> Option<String> {
        d.cluster
            .list_json("coordination.k8s.io/v1", "Lease", NS)
            .iter()
            .find(|l| l["metadata"]["name"] == "gpushare-controller")?["spec"]["holderIdentity"]
            .as_str()
            .map(str::to_string)
    };
    let leader = wait_for("both replicas ready and one leading", WAIT, || {
        let pods = ready();
        let leader = holder()?;
        (pods.len() == 2 && pods.contains(&leader)).then_some(leader)
    });
    d.cluster.remove_pod(NS, &leader);
    let next = wait_for("the other replica to lead", WAIT, || {
        holder().filter(|h| *h != leader)
    });
    assert!(
        d.cluster
            .pods(NS)
            .iter()
            .any(|p| p.metadata.name.as_deref() == Some(&next)),
        "{next} leads but is no pod:\n{}",
        d.pod_story(NS)
    );
}
