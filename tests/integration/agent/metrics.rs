//! The metrics, end to end: a real Prometheus scrapes `gpushare agent` (on its health address)
//! and `gpushare metrics --listen` on a simulated DGX A100 that NVIDIA's device plugin serves
//! to a real kubelet, after the agent applied a layout, a running pod took a slice and the probe
//! ran; queries through Prometheus's HTTP API answer for every slice's memory, the pod that
//! holds one, the agent's state and the probe's verdict; Prometheus loads the generated rules,
//! and promtool finds nothing to say about a scrape.

use super::beside_plugin::{AgentBesidePlugin, NODE};
use super::{NS, held_devices, user_pod};
use crate::common::cluster::wait_for;
use crate::common::cuda_standin::with_standin;
use crate::common::device_plugin::generated;
use crate::common::nvidia_tools::{NvidiaNode, tools};
use crate::common::prometheus::{self, Prometheus, Sample, get, get_with, promtool};
use std::net::SocketAddr;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(120);
const MIB: f64 = 1024.0 * 1024.0;

/// `gpushare metrics --listen 127.0.0.1:0` on the node; the child and the address it serves.
fn serve_metrics(
    node: &NvidiaNode,
    host_root: &std::path::Path,
    cgroup_root: &str,
) -> (Child, SocketAddr) {
    let log = node.path("metrics.log");
    let file = std::fs::File::create(&log).unwrap();
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin!("gpushare"));
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("GPUSHARE_") {
            cmd.env_remove(key);
        }
    }
    cmd.args(["--sim", "dgx-a100", "--sim-state"])
        .arg(node.state())
        .arg("--state-root")
        .arg(node.path("root"))
        .args(["metrics", "--listen", "127.0.0.1:0", "--host-root"])
        .arg(host_root)
        .args(["--kubelet-cgroup-root", cgroup_root])
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(file.try_clone().unwrap())
        .stderr(file);
    let mut child = cmd.spawn().expect("gpushare metrics starts");
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if let Some(addr) = text
            .split("metrics at http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
        {
            return (child, addr.parse().unwrap());
        }
        assert!(
            Instant::now() < deadline,
            "gpushare metrics did not start:\n{text}"
        );
        if let Some(status) = child.try_wait().unwrap() {
            panic!("gpushare metrics exited ({status}):\n{text}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn one(samples: &[Sample]) -> f64 {
    assert_eq!(samples.len(), 1, "{samples:?}");
    samples[0].value
}

#[test]
fn prometheus_scrapes_the_agent_and_gpushare_metrics_and_answers_for_every_slice() {
    let test = "agent::metrics";
    let Some(prometheus_bin) = prometheus::tool(test, "prometheus") else {
        return;
    };
    let Some(promtool_bin) = prometheus::tool(test, "promtool") else {
        return;
    };
    let Some(tools) = tools(test) else { return };
    let node = NvidiaNode::new(tools, "dgx-a100");
    node.mig_apply("all-1g.5gb");
    // Mixed: the plugin it starts with serves the balanced layout the agent makes too.
    let (config, env, _) = generated(&node, &["--mig-strategy", "mixed"]);
    let Some(e2e) = AgentBesidePlugin::start(test, &node, &config, &env, "all-balanced") else {
        return;
    };
    let (cluster, agent, host_root) = (&e2e.cluster, &e2e.agent, &e2e.host_root);

    // The agent brings all-1g.5gb to all-balanced; a pod takes a 3g.20gb; the probe runs.
    let deadline = Instant::now() + WAIT;
    while e2e.allocatable("nvidia.com/mig-3g.20gb") != 8 {
        assert!(
            Instant::now() < deadline,
            "the Node did not advertise all-balanced; the agent said:\n{}",
            agent.log()
        );
        std::thread::sleep(Duration::from_millis(250));
    }
    cluster.create_pod(user_pod("holder", NODE, "nvidia.com/mig-3g.20gb"));
    let held = wait_for("the pod to hold a 3g.20gb", WAIT, || {
        held_devices(&node, host_root).remove("holder")
    });
    let probe = with_standin(node.gpushare(), &node.detect())
        .args(["probe", "--quick", "--buffer", "2M"])
        .output()
        .unwrap();
    assert!(
        probe.status.success(),
        "{}",
        String::from_utf8_lossy(&probe.stderr)
    );
    // The holder's container runs CUDA on its slice: the driver lists its host PID there.
    let pid = e2e.node.container_pid(&cluster.container_id(NS, "holder"));
    let (gpu, mig_device) = node.detect()["gpus"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|g| {
            g["mig"]["instances"].as_array()?.iter().find_map(|gi| {
                let ci = gi["compute_instances"]
                    .as_array()?
                    .iter()
                    .find(|ci| ci["uuid"] == held.as_str())?;
                Some((
                    g["index"].to_string(),
                    format!("{}:{}", gi["gpu_instance_id"], ci["compute_instance_id"]),
                ))
            })
        })
        .unwrap();
    node.start_process(
        &["--gpu", &gpu, "--mig-device", &mig_device],
        pid,
        1024,
        false,
    );
    let (mut metrics, metrics_addr) = serve_metrics(&node, host_root, &e2e.cgroup_root);

    let rules = node
        .gpushare()
        .args(["manifests", "--target", "prometheus-rules"])
        .output()
        .unwrap();
    assert!(rules.status.success());
    let rules = String::from_utf8(rules.stdout).unwrap();
    let prom = Prometheus::start(
        &prometheus_bin,
        &[("agent", agent.health), ("node", metrics_addr)],
        &rules,
    );
    prom.wait_for(r#"up{job=~"agent|node"} == 1"#, |s| s.len() == 2);

    // Who holds the slice, and its memory, from the agent and from `gpushare metrics`.
    for job in ["agent", "node"] {
        let holder = prom.wait_for(
            &format!(r#"gpushare_mig_device_held{{job="{job}",pod="holder"}}"#),
            |s| s.len() == 1,
        );
        let l = &holder[0].labels;
        assert_eq!(holder[0].value, 1.0);
        assert_eq!(l["mig_uuid"], held, "{l:?}");
        assert_eq!(
            (l["namespace"].as_str(), l["profile"].as_str()),
            (NS, "3g.20gb")
        );
        assert_eq!(l["model"], "NVIDIA A100-SXM4-40GB");
        // Whose the slice's memory is: the agent names the pod from the API, `gpushare
        // metrics` from the kubelet's logs; both read the container's cgroup.
        let used = prom.wait_for(
            &format!(r#"gpushare_owner_memory_used_bytes{{job="{job}",owner="pod",pod="holder"}}"#),
            |s| s.len() == 1,
        );
        let l = &used[0].labels;
        assert_eq!(used[0].value, 1024.0 * MIB, "{l:?}");
        assert_eq!(
            (
                l["namespace"].as_str(),
                l["container"].as_str(),
                l["mig_uuid"].as_str()
            ),
            (NS, "cuda", held.as_str())
        );
        let memory = prom.query(&format!(
            r#"gpushare_mig_device_memory_total_bytes{{job="{job}",mig_uuid="{held}"}}"#
        ));
        assert_eq!(one(&memory), 19968.0 * MIB);
        let devices = prom.query(&format!(
            r#"count(gpushare_mig_device_memory_total_bytes{{job="{job}"}})"#
        ));
        assert_eq!(one(&devices), 32.0, "8 GPUs × 4 MIG devices");
        let free = prom.query(&format!(
            r#"count(gpushare_mig_device_held{{job="{job}"}} == 0)"#
        ));
        assert_eq!(one(&free), 31.0);
        // The probe's verdict: every one of the 32 MIG devices kept its promises.
        let passed = prom.query(&format!(r#"gpushare_probe_passed{{job="{job}"}}"#));
        assert_eq!(one(&passed), 1.0);
        let targets = prom.query(&format!(
            r#"count(gpushare_probe_target_passed{{job="{job}"}} == 1)"#
        ));
        assert_eq!(one(&targets), 32.0);
        // The agent's change, from the journal.
        let created = prom.query(&format!(
            r#"gpushare_changes_applied_total{{job="{job}",operation="create_gpu_instance"}}"#
        ));
        assert!(one(&created) >= 8.0, "{created:?}");
    }
    // The agent's own state: success, and the node has its layout.
    let state = prom.query(r#"gpushare_agent_state{job="agent"} == 1"#);
    assert_eq!(state.len(), 1, "{state:?}");
    assert_eq!(state[0].labels["state"], "success");
    assert_eq!(
        one(&prom.query(r#"gpushare_layout_unmatched_seconds{job="agent"}"#)),
        0.0
    );
    assert!(prom.query(r#"gpushare_agent_state{job="node"}"#).is_empty());

    // The generated Grafana dashboard: every panel's query answers with series here.
    let docs =
        crate::common::json(
            node.gpushare()
                .args(["manifests", "--target", "grafana-dashboard"]),
        );
    let config_map = &docs[0];
    assert_eq!(config_map["metadata"]["labels"]["grafana_dashboard"], "1");
    let dashboard: serde_json::Value =
        serde_json::from_str(config_map["data"]["gpushare.json"].as_str().unwrap()).unwrap();
    let queries: Vec<String> = dashboard["panels"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["targets"].as_array().cloned().unwrap_or_default())
        .map(|t| t["expr"].as_str().unwrap().replace("$__range", "1h"))
        .collect();
    assert!(queries.len() >= 10, "{queries:?}");
    for expr in &queries {
        prom.wait_for(expr, |s| !s.is_empty());
    }

    // The generated rules load, and none fires on this healthy node.
    let loaded = prom.api("/api/v1/rules");
    let rules: Vec<&serde_json::Value> = loaded["data"]["groups"][0]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .collect();
    assert_eq!(rules.len(), 6, "{loaded}");
    assert!(rules.iter().all(|r| r["health"] == "ok"), "{loaded}");
    assert!(prom.query(r#"ALERTS{alertstate="firing"}"#).is_empty());

    // promtool's lint has nothing to say about a scrape; OpenMetrics when asked for.
    let (code, scrape) = get(agent.health, "/metrics").unwrap();
    assert_eq!(code, 200);
    let (ok, said) = promtool(&promtool_bin, &["check", "metrics"], &scrape);
    assert!(
        ok && said.trim().is_empty(),
        "promtool check metrics: {said}"
    );
    let (_, open) = get_with(
        agent.health,
        "/metrics",
        "Accept: application/openmetrics-text;version=1.0.0\r\n",
    )
    .unwrap();
    assert!(open.ends_with("# EOF\n"), "{open}");

    let _ = metrics.kill();
    let _ = metrics.wait();
    e2e.finish();
}
