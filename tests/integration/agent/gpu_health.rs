//! GPU health on a real node, end to end: NVIDIA's device plugin and `gpushare agent` hear the
//! same Xid events from the simulated driver (the plugin through the NVML stand-in, the agent
//! through the simulator). A fatal Xid takes exactly its GPU out of the Node's allocatable (the
//! real kubelet's count), and the agent tells the cluster which and why (the `GPUUnhealthy`
//! condition, events, its metrics); an application Xid changes nothing. Recovery needs nobody:
//! a recoverable Xid's quiet period ends, then the agent (`--reset-unhealthy-gpus`) resets the
//! GPU a fatal Xid left unhealthy, with the plugin paused around it, and every GPU is back.
//!
//! Prints Xid → event, condition and allocatable, and reset → allocatable back
//! (`bench/gpu-health.sh`).
//!
//! Whole GPUs: on MIG GPUs NVIDIA's device plugin (v0.20) keeps one MIG device per GPU in its
//! health check (`parentToDeviceMap`), so it cannot take out exactly the MIG device an Xid names;
//! gpushare's own attribution to MIG devices is checked through NVML in `apply::metrics`.

use super::beside_plugin::{AgentBesidePlugin, NODE};
use super::{NS, WAIT};
use crate::common::cluster::wait_for;
use crate::common::device_plugin::generated;
use crate::common::nvidia_tools::{NvidiaNode, tools};
use crate::common::prometheus::get;
use std::time::{Duration, Instant};

const GPU: &str = "nvidia.com/gpu";
/// The recoverable Xid's quiet period: long enough to see the devices gone, short for a test.
const QUIET_SECONDS: u64 = 40;

/// The layout in force: the GPUs unshared (as they are), and a short quiet period.
fn layout() -> String {
    format!(
        "[[gpus]]\nselect = \"all\"\nmode = \"none\"\n\n\
         [health]\nrecover_after_seconds = {QUIET_SECONDS}\n"
    )
}

/// The agent's `GPUUnhealthy` condition: (status, reason, message).
fn condition(e2e: &AgentBesidePlugin) -> Option<(String, String, String)> {
    let node = e2e.cluster.node(NODE);
    node.status?
        .conditions?
        .into_iter()
        .find(|c| c.type_ == "GPUUnhealthy")
        .map(|c| {
            (
                c.status,
                c.reason.unwrap_or_default(),
                c.message.unwrap_or_default(),
            )
        })
}

#[test]
fn a_fatal_xid_takes_exactly_its_gpu_out_and_a_recovered_gpu_comes_back_by_itself() {
    let test = "agent::gpu_health";
    let Some(tools) = tools(test) else { return };
    let node = NvidiaNode::new(tools, "t4x4");
    let (config, env, _) = generated(&node, &[]);
    // No layout from mig-parted's label: the agent's is gpushare's, below.
    let Some(e2e) =
        AgentBesidePlugin::start_with(test, &node, &config, &env, "", &["--reset-unhealthy-gpus"])
    else {
        return;
    };
    let (cluster, agent) = (&e2e.cluster, &e2e.agent);
    cluster.put_layouts(NS, "gpushare-layouts", &[("healthy", &layout())]);
    cluster.label(NODE, &[("gpushare.io/config", Some("healthy"))]);
    let allocatable = || e2e.allocatable(GPU);
    let wait_allocatable = |n: usize, what: &str| {
        let deadline = Instant::now() + WAIT;
        while allocatable() != n {
            assert!(
                Instant::now() < deadline,
                "{what}: the Node has {} {GPU}, not {n}; the agent said:\n{}\nthe plugin said:\n{}",
                allocatable(),
                agent.log(),
                e2e.plugin_log()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    };
    wait_allocatable(4, "the plugin's four GPUs");
    wait_for("the agent to say every GPU is healthy", WAIT, || {
        condition(&e2e).filter(|c| c.0 == "False" && c.1 == "GPUsHealthy")
    });
    let detect = node.detect();
    let uuid = |i: usize| detect["gpus"][i]["uuid"].as_str().unwrap().to_string();
    let raise = |args: &[&str]| {
        node.gpushare().arg("sim").args(args).assert().success();
    };
    let events_before = cluster.event_mark(NODE);
    let event = |reason: &str, text: &str| {
        wait_for(&format!("a {reason} event naming {text}"), WAIT, || {
            cluster
                .events_since(NODE, &events_before)
                .into_iter()
                .find(|(r, m)| r == reason && m.contains(text))
                .map(|(_, m)| m)
        })
    };
    let metrics = || {
        get(agent.health, "/metrics")
            .map(|(_, body)| body)
            .unwrap_or_default()
    };

    // An application's Xid: recorded, nothing leaves.
    raise(&["xid", "13", "--gpu", "0"]);
    wait_for("the agent to count Xid 13", WAIT, || {
        metrics()
            .contains(&format!(
                "gpushare_xid_errors_total{{gpu=\"0\",uuid=\"{}\"",
                uuid(0)
            ))
            .then_some(())
    });

    // A recoverable Xid on GPU 1: it leaves until the quiet period ends.
    let recoverable_at = Instant::now();
    raise(&["xid", "62", "--gpu", "1"]);
    let said = event("GPUUnhealthy", &uuid(1));
    assert!(
        said.contains("Xid 62") && said.contains("recoverable"),
        "{said}"
    );
    wait_allocatable(3, "GPU 1 leaves");

    // A fatal Xid on GPU 2: it leaves, and stays.
    let raised = Instant::now();
    raise(&["xid", "79", "--gpu", "2"]);
    let said = event("GPUUnhealthy", &uuid(2));
    let told = raised.elapsed();
    wait_for("the condition to name GPU 2", WAIT, || {
        condition(&e2e).filter(|c| c.2.contains(&uuid(2)))
    });
    let conditioned = raised.elapsed();
    assert!(said.contains("Xid 79") && said.contains("fatal"), "{said}");
    wait_allocatable(2, "GPU 2 leaves too");
    let dropped = raised.elapsed();
    let (status, reason, message) = condition(&e2e).unwrap();
    assert_eq!(
        (status.as_str(), reason.as_str()),
        ("True", "GPUFault"),
        "{message}"
    );
    assert!(
        message.contains(&format!("GPU 1 ({})", uuid(1)))
            && message.contains(&format!("GPU 2 ({})", uuid(2))),
        "{message}"
    );
    assert!(
        !message.contains("GPU 0"),
        "Xid 13 left GPU 0 healthy: {message}"
    );
    let body = metrics();
    for (gpu, healthy) in [(0, 1), (1, 0), (2, 0), (3, 1)] {
        assert!(
            body.contains(&format!(
                "gpushare_gpu_healthy{{gpu=\"{gpu}\",uuid=\"{}\",model=\"Tesla T4\"}} {healthy}",
                uuid(gpu)
            )),
            "GPU {gpu} healthy = {healthy}:\n{body}"
        );
    }

    // GPU 2 is not reset while GPU 1 waits for its quiet period: the plugin, restarted around
    // the reset, would offer GPU 1 again.
    let said = event("GPUHealthy", &uuid(1));
    assert!(
        recoverable_at.elapsed() >= Duration::from_secs(QUIET_SECONDS),
        "GPU 1 came back before its quiet period ended"
    );
    assert!(
        said.contains(&format!("once GPU 2 ({}) recover", uuid(2))),
        "{said}"
    );
    assert!(
        !cluster.events(NODE).iter().any(|(r, _)| r == "GPUReset"),
        "GPU 2 was reset while GPU 1 was still unhealthy"
    );
    // Then GPU 2, idle, is reset through the pipeline; the plugin comes back with every GPU.
    let said = event("GPUReset", "Xid 79");
    let reset = Instant::now();
    assert!(
        said.contains("GPU 2") || said.contains("reset: Xid 79"),
        "{said}"
    );
    wait_allocatable(4, "every GPU comes back");
    // The figures of bench/gpu-health.sh.
    println!(
        "xid 79 to event {:.1} s, to condition {:.1} s, to allocatable down {:.1} s; reset to allocatable back {:.1} s",
        told.as_secs_f64(),
        conditioned.as_secs_f64(),
        dropped.as_secs_f64(),
        reset.elapsed().as_secs_f64()
    );
    wait_for("the condition to say every GPU is healthy", WAIT, || {
        condition(&e2e).filter(|c| c.0 == "False")
    });
    let journal =
        std::fs::read_to_string(node.dir.path().join("root/var/lib/gpushare/journal.jsonl"))
            .unwrap_or_default();
    assert!(
        journal.contains("\"command\":\"agent\"") && journal.contains("reset_unhealthy"),
        "the reset went through the pipeline's journal:\n{journal}"
    );
    let body = metrics();
    assert!(
        body.contains(&format!(
            "gpushare_gpu_healthy{{gpu=\"2\",uuid=\"{}\",model=\"Tesla T4\"}} 1",
            uuid(2)
        )),
        "{body}"
    );

    // A fatal Xid on GPU 3 while a process runs there: the agent cannot reset it. The process
    // ends and `gpushare recover` is run by hand: the agent learns of the reset from the
    // health record alone (no event comes), says GPU 3 is healthy and offers it again.
    raise(&[
        "process",
        "start",
        "--gpu",
        "3",
        "--pid",
        "4242",
        "--memory-mib",
        "100",
        "--name",
        "py",
    ]);
    raise(&["xid", "79", "--gpu", "3"]);
    wait_for("the condition to name GPU 3", WAIT, || {
        condition(&e2e).filter(|c| c.0 == "True" && c.2.contains(&uuid(3)))
    });
    wait_allocatable(3, "GPU 3 leaves");
    raise(&["process", "end", "--pid", "4242"]);
    let resets = || {
        cluster
            .events(NODE)
            .iter()
            .filter(|(r, _)| r == "GPUReset")
            .count()
    };
    let agent_resets = resets();
    node.gpushare().arg("recover").assert().success();
    wait_for("the agent to see GPU 3 recovered by hand", WAIT, || {
        condition(&e2e).filter(|c| c.0 == "False")
    });
    wait_allocatable(4, "GPU 3 comes back after the reset by hand");
    assert_eq!(resets(), agent_resets, "the agent reset nothing itself");
    e2e.finish();
}
