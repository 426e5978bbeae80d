//! gpushare's cluster components as users run them: pods of the manifests `gpushare manifests`
//! writes (only `--image` set), from the image `scripts/build-image.sh` builds, on a real node
//! whose runtime is NVIDIA's and whose driver is the NVML stand-in (see `common::deployed`). The
//! pods reach the API server as a cluster's do (the `kubernetes` Service, their service
//! account's token), the kubelet probes them, and what they change is the simulated node's.

use crate::common;
use common::cluster::wait_for;
use common::deployed::{Deployed, write_on_node};
use common::device_plugin::{device_nodes, mig_devices};
use common::prometheus::{self, Prometheus};
use common::real_node::{PodClaim, Seen, gpu_pod, holding_claim};
use serde_json::json;
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

/// gpushare's DRA driver as its DaemonSet: GPU 0 is given to dynamic MIG; a claim for a
/// 3g.20gb gets an instance made for it by the plugin's pod, which the claim's container sees.
#[test]
fn the_dra_plugins_pod_makes_mig_for_a_claim() {
    let test = "deployed::dra_plugin";
    let Some(d) = Deployed::start(test, "dgx-a100") else {
        return;
    };
    let layout = "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.dynamic = true\n";
    let file = d.nvidia.apply("gpushare.toml", layout);
    write_on_node(&d.node, "/etc/gpushare/gpushare.toml", layout);
    let node = d.node.name.clone();
    d.cluster
        .label(&node, &[("nvidia.com/gpu.present", Some("true"))]);
    let mut docs = d.manifests(&[
        "--target",
        "dra-plugin",
        "--k8s-version",
        "1.36",
        "-c",
        file.to_str().unwrap(),
        "--namespace",
        NS,
    ]);
    docs.push(json!({
        "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
        "metadata": { "name": "mig.deployed.test" },
        "spec": { "selectors": [{ "cel": { "expression":
            "device.driver == 'gpu.gpushare.io' && device.attributes['gpu.gpushare.io'].type == 'mig'" } }] },
    }));
    docs.push(json!({
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
        "metadata": { "name": "a-3g", "namespace": "default" },
        "spec": { "spec": { "devices": { "requests": [{ "name": "gpu", "exactly": {
            "deviceClassName": "mig.deployed.test",
            "selectors": [{ "cel": { "expression":
                "device.attributes['gpu.gpushare.io'].profile == '3g.20gb'" } }],
        } }] } } },
    }));
    d.cluster.apply_documents(&docs);
    assert!(
        mig_devices(&d.nvidia.detect()).is_empty(),
        "no instance yet"
    );

    d.cluster.create_pod(holding_claim(
        gpu_pod("default", "train", &[]),
        PodClaim::Template("a-3g"),
    ));
    let seen = wait_for("the claim's pod to run and say what it got", WAIT, || {
        Seen::parse(&d.cluster.logs("default", "train")?)
    });
    let made = mig_devices(&d.nvidia.detect());
    assert_eq!(made.len(), 1, "{made:?}\n{}", d.pod_story(NS));
    assert_eq!((made[0].gpu, made[0].profile.as_str()), (0, "3g.20gb"));
    assert_eq!(seen.devices, device_nodes(&made[0]), "{seen:?}");

    // The pod goes: the plugin's pod unprepares the claim and removes the instance.
    d.cluster.remove_pod("default", "train");
    wait_for("the instance to go with the claim", WAIT, || {
        mig_devices(&d.nvidia.detect()).is_empty().then_some(())
    });
}

/// MIG on demand with every part a pod: the node at mig-parted's `all-1g.5gb`, gpushare's DRA
/// plugin publishing its 56 devices, the agent at its layout and the controller leading; a
/// claim for a 3g.20gb, which no device is, is served by a reshape the controller decides, the
/// agent's pod makes and the plugin's pod publishes and prepares.
#[test]
fn a_pending_claim_is_served_by_a_reshape_through_the_pods() {
    let test = "deployed::on_demand";
    let Some(d) = Deployed::start(test, "dgx-a100") else {
        return;
    };
    d.nvidia.mig_apply("all-1g.5gb");
    let mut docs = d.manifests(&[
        "--target",
        "agent",
        "-c",
        "tests/fixtures/k8s/balanced.toml",
        "--namespace",
        NS,
    ]);
    docs.extend(d.manifests(&["--target", "controller", "--namespace", NS]));
    docs.extend(d.manifests(&[
        "--target",
        "dra-plugin",
        "--k8s-version",
        "1.36",
        "--namespace",
        NS,
    ]));
    d.cluster.apply_documents(&docs);
    let layouts = std::fs::read_to_string(
        common::repo().join("tests/fixtures/mig-parted/config-default.yaml"),
    )
    .unwrap();
    d.cluster
        .put_layouts(NS, "gpushare-layouts", &[("config.yaml", &layouts)]);
    let node = d.node.name.clone();
    d.cluster.label(
        &node,
        &[
            ("nvidia.com/gpu.present", Some("true")),
            ("nvidia.com/mig.config", Some("all-1g.5gb")),
            ("gpushare.io/mig.on-demand", Some("true")),
        ],
    );
    wait_for("the 56 1g.5gb published and the MIG state", WAIT, || {
        let published = d
            .cluster
            .node(&node)
            .metadata
            .annotations
            .is_some_and(|a| a.contains_key("gpushare.io/mig.state"));
        let devices: usize = d
            .cluster
            .list_json("resource.k8s.io/v1", "ResourceSlice", "")
            .iter()
            .filter(|s| s["spec"]["driver"] == "gpu.gpushare.io")
            .map(|s| s["spec"]["devices"].as_array().map_or(0, Vec::len))
            .sum();
        (devices == 56 && published).then_some(())
    });

    d.cluster.create_pod(holding_claim(
        gpu_pod(NS, "train", &[]),
        PodClaim::Template("mig-3g.20gb"),
    ));
    let seen = d.wait("the claim's pod to run on a reshaped GPU", NS, || {
        Seen::parse(&d.cluster.logs(NS, "train")?)
    });
    let made: Vec<_> = mig_devices(&d.nvidia.detect())
        .into_iter()
        .filter(|m| m.profile == "3g.20gb")
        .collect();
    assert_eq!(made.len(), 1, "{made:?}\n{}", d.pod_story(NS));
    assert_eq!(seen.devices, device_nodes(&made[0]), "{seen:?}");
}
