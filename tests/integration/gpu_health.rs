//! GPU health as the driver reports it, on a real node: `gpushare sim xid` raises an Xid on the
//! simulated node, the NVML stand-in hands it to every NVML client that waits for events, and
//! NVIDIA's device plugin (its own health check, on the stand-in) takes exactly that GPU out of
//! the Node's allocatable, as the real kubelet counts it; an application Xid (13) changes
//! nothing.

use crate::common;
use common::api_server::ApiServer;
use common::cluster::{Cluster, wait_for};
use common::device_plugin::{DevicePlugin, generated};
use common::nvidia_tools::{NvidiaNode, tools};
use common::real_node::RealNode;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(60);

#[test]
fn a_fatal_xid_takes_its_gpu_out_of_the_nodes_allocatable() {
    let test = "gpu_health";
    let Some(tools) = tools(test) else { return };
    let nvidia = NvidiaNode::new(tools, "t4x4");
    let (config, env, _) = generated(&nvidia, &[]);
    let Some(server) = ApiServer::start(test) else {
        return;
    };
    let Some(node) = RealNode::start(test, &server, "127.0.0.1", true) else {
        return;
    };
    let cluster = Cluster::connect(&server.kubeconfig);
    let plugin = DevicePlugin::start(&nvidia, &node, &config, &env, &[]);
    let gpus = || -> Option<u64> {
        let node = cluster.node("127.0.0.1");
        node.status?
            .allocatable?
            .get("nvidia.com/gpu")?
            .0
            .parse()
            .ok()
    };
    wait_for("the plugin's four GPUs", WAIT, || {
        (gpus() == Some(4)).then_some(())
    });
    let detect = nvidia.detect();
    let uuid = |i: usize| detect["gpus"][i]["uuid"].as_str().unwrap().to_string();
    let xid = |xid: &str, gpu: &str| {
        nvidia
            .gpushare()
            .args(["sim", "xid", xid, "--gpu", gpu])
            .assert()
            .success();
    };

    // An application's Xid: the plugin sees it and leaves the GPU healthy.
    xid("13", "1");
    wait_for("the plugin to see Xid 13", WAIT, || {
        plugin.log().contains("EventData:13 ").then_some(())
    });
    // A fatal one on GPU 2: that GPU goes, the others stay.
    xid("79", "2");
    let deadline = std::time::Instant::now() + WAIT;
    while gpus() != Some(3) {
        assert!(
            std::time::Instant::now() < deadline,
            "the Node's allocatable did not lose a GPU:\n{}",
            plugin.log()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(
        gpus(),
        Some(3),
        "no more GPUs went: the application Xid left GPU 1 healthy"
    );
    let log = plugin.log();
    let unhealthy: Vec<&str> = log
        .lines()
        .filter(|l| l.to_lowercase().contains("unhealthy"))
        .collect();
    assert!(
        unhealthy.iter().any(|l| l.contains(&uuid(2))),
        "GPU 2 ({}) marked unhealthy:\n{log}",
        uuid(2)
    );
    for i in [0, 1, 3] {
        assert!(
            !unhealthy.iter().any(|l| l.contains(&uuid(i))),
            "GPU {i} stays healthy:\n{log}"
        );
    }
}

/// `gpushare recover` on a simulated node whose health record (as a watch writes it) holds a
/// fatal Xid 79 on GPU 2: a reset the driver refuses is exit 1 and the GPU stays unhealthy; one
/// it makes clears the fault (`detect` says so) and a second run has nothing to do. Without a
/// record it says no watch left one.
#[test]
fn recover_resets_the_gpu_a_fatal_xid_left_unhealthy_and_says_when_it_could_not() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("node.json");
    let root = dir.path().join("root");
    let run = || {
        let mut cmd = common::sim("dgx-a100");
        cmd.arg("--sim-state")
            .arg(&state)
            .arg("--state-root")
            .arg(&root);
        cmd
    };
    let out = run().arg("recover").output().unwrap();
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no health record on this node"),
        "{out:?}"
    );
    let uuid = common::json(run().arg("detect"))["gpus"][2]["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    common::fatal_xid_record(&root, &uuid, 2, common::unix_now(), &[]);
    let state_of = |i: usize| common::json(run().arg("detect"))["health"][i]["state"].clone();
    assert_eq!(state_of(2), "unhealthy");

    let said = common::fails_with(run().env("GPUSHARE_SIM_FAIL", "reset:1").arg("recover"), 1);
    assert!(said.contains("reset"), "{said}");
    assert_eq!(state_of(2), "unhealthy", "a refused reset clears nothing");

    let out = run().arg("recover").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(
        stdout.contains("reset_unhealthy") && stdout.contains("Xid 79 (fatal)"),
        "{stdout}"
    );
    assert_eq!(state_of(2), "healthy");
    let out = run().arg("recover").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "no changes");
}
