//! `gpushare metrics` after an apply: every mode's series in one scrape, which promtool's lint
//! accepts, as it accepts the generated alerting rules; and the metrics unit, which
//! `systemd-analyze` accepts and whose `ExecStart` serves the scrape.

use super::boot::{assert_enabled, verify};
use super::node::Node;
use crate::common::nvml_standin::{TwinNode, run};
use crate::common::prometheus::{self, get, promtool};
use std::io::Read;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

const LAYOUT: &str = r#"
[[gpus]]
select = [0, 1]
mode = "mig"
mig.devices = { "1g.5gb" = 7 }

[[gpus]]
select = [2]
mode = "mps"
mps.clients = 4

[[gpus]]
select = [3]
mode = "time-slicing"
time_slicing.replicas = 4

[[gpus]]
select = [4]
mode = "mig"
mig.devices = { "3g.20gb" = 2 }
mig.time_slicing.replicas = 2
"#;

/// The address a `gpushare metrics --listen` child (its stderr piped) says it serves.
fn address_of(service: &mut Child) -> String {
    let mut stderr = service.stderr.take().unwrap();
    let mut said = String::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let mut chunk = [0u8; 256];
        let n = stderr.read(&mut chunk).unwrap();
        said.push_str(&String::from_utf8_lossy(&chunk[..n]));
        if let Some(addr) = said
            .split("metrics at http://")
            .nth(1)
            .and_then(|r| r.split_once('/'))
        {
            return addr.0.to_string();
        }
        assert!(
            n > 0 && Instant::now() < deadline,
            "gpushare metrics did not serve: {said}"
        );
    }
}

/// The values of the series `name` whose labels include every one of `labels`.
fn values(scrape: &str, name: &str, labels: &[(&str, &str)]) -> Vec<f64> {
    scrape
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let (series, value) = l.rsplit_once(' ')?;
            let (n, rest) = series.split_once('{').unwrap_or((series, ""));
            (n == name
                && labels
                    .iter()
                    .all(|(k, v)| rest.contains(&format!("{k}=\"{v}\""))))
            .then(|| value.parse().unwrap())
        })
        .collect()
}

#[test]
fn a_scrape_after_an_apply_holds_every_mode_and_promtool_accepts_it_and_the_rules() {
    let test = "apply::metrics";
    let Some(promtool_bin) = prometheus::tool(test, "promtool") else {
        return;
    };
    let node = Node::preset("dgx-a100");
    let config = node.write("gpushare.toml", LAYOUT);
    node.ok(&["apply", "--yes", "-c", &config]);
    let out = node
        .cmd()
        .args(["metrics", "-c", &config])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let scrape = String::from_utf8(out.stdout).unwrap();
    let (ok, said) = promtool(&promtool_bin, &["check", "metrics"], &scrape);
    assert!(
        ok && said.trim().is_empty(),
        "promtool check metrics: {said}\n{scrape}"
    );

    let gpu0 = [("gpu", "0"), ("profile", "1g.5gb")];
    assert_eq!(values(&scrape, "gpushare_gpu_mig_instances", &gpu0), [7.0]);
    assert_eq!(
        values(&scrape, "gpushare_mig_device_memory_total_bytes", &[]).len(),
        16
    );
    assert_eq!(
        values(
            &scrape,
            "gpushare_gpu_mig_enabled",
            &[("gpu", "1"), ("mode", "current")]
        ),
        [1.0]
    );
    assert_eq!(values(&scrape, "gpushare_mps_daemon_up", &[]), [1.0]);
    assert_eq!(
        values(&scrape, "gpushare_mps_client_thread_percentage", &[]),
        [25.0]
    );
    assert_eq!(
        values(
            &scrape,
            "gpushare_mps_client_pinned_memory_limit_bytes",
            &[("gpu", "2")]
        ),
        [10240.0 * 1024.0 * 1024.0]
    );
    assert_eq!(
        values(&scrape, "gpushare_time_slicing_replicas", &[("gpu", "3")]),
        [4.0]
    );
    assert!(values(&scrape, "gpushare_time_slicing_replicas", &[("gpu", "2")]).is_empty());
    let sliced = values(
        &scrape,
        "gpushare_mig_device_time_slicing_replicas",
        &[("gpu", "4"), ("profile", "3g.20gb")],
    );
    assert_eq!(sliced, [2.0, 2.0]);
    assert_eq!(
        values(&scrape, "gpushare_mig_device_time_slicing_replicas", &[]).len(),
        2,
        "only GPU 4's MIG devices are time-sliced"
    );
    let created = [("operation", "create_gpu_instance")];
    assert_eq!(
        values(&scrape, "gpushare_changes_applied_total", &created),
        [16.0]
    );
    assert_eq!(
        values(&scrape, "gpushare_changes_failed_total", &created),
        [0.0]
    );
    assert_eq!(
        values(
            &scrape,
            "gpushare_last_apply_success",
            &[("command", "apply")]
        ),
        [1.0]
    );
    // No agent here, no probe report yet: none of their series, not zeros.
    assert!(values(&scrape, "gpushare_agent_state", &[]).is_empty());
    assert!(values(&scrape, "gpushare_probe_passed", &[]).is_empty());
    // OpenMetrics on request.
    let open = node
        .cmd()
        .args(["metrics", "--openmetrics"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&open.stdout).ends_with("# EOF\n"));

    let rules = node
        .cmd()
        .args(["manifests", "--target", "prometheus-rules"])
        .output()
        .unwrap();
    let file = node.write(
        "gpushare-rules.yaml",
        &String::from_utf8(rules.stdout).unwrap(),
    );
    let (ok, said) = promtool(&promtool_bin, &["check", "rules", &file], "");
    assert!(
        ok && said.contains("SUCCESS: 6 rules found"),
        "promtool check rules: {said}"
    );
}

#[test]
fn bad_addresses_are_refused_before_anything_is_served() {
    let node = Node::preset("dgx-a100");
    let e = node.fails(&["metrics", "--listen", "127.0.0.1:99999"], 2);
    assert!(e.contains("--listen"), "{e}");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let e = node.fails(&["metrics", "--listen", &addr], 1);
    assert!(
        e.contains(&format!("cannot listen on {addr}")) && e.contains("--listen"),
        "{e}"
    );
}

#[test]
fn the_metrics_unit_installs_verifies_and_serves_the_scrape() {
    let node = Node::preset("dgx-a100");
    let root = node.root();
    node.ok(&["unit", "--metrics", "--listen", "127.0.0.1:0", "--install"]);
    let path = root.join("etc/systemd/system/gpushare-metrics.service");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\nType=simple\n") && text.contains("\nRestart=on-failure\n"));
    assert_enabled(&node, "gpushare-metrics.service");
    verify(&path);

    let exec = text
        .lines()
        .find_map(|l| l.strip_prefix("ExecStart="))
        .unwrap();
    let words: Vec<&str> = exec.split(' ').collect();
    assert_eq!(&words[3..], ["metrics", "--listen", "127.0.0.1:0"]);
    let mut service = std::process::Command::new(words[0])
        .args(&words[1..])
        .env("GPUSHARE_SIM", "dgx-a100")
        .env("GPUSHARE_SIM_STATE", node.state())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let addr = address_of(&mut service);
    let (code, body) = get(addr.parse().unwrap(), "/metrics").unwrap();
    assert_eq!(code, 200);
    assert!(
        body.contains("gpushare_gpu_memory_total_bytes{gpu=\"7\""),
        "{body}"
    );
    // It answers the liveness probe as the agent does.
    let (code, body) = get(addr.parse().unwrap(), "/healthz").unwrap();
    assert_eq!(code, 200, "{body}");
    assert!(body.contains("\"state\":\"serving\""), "{body}");
    // SIGTERM stops it, as systemd does.
    // SAFETY: kill(2) on the pid of a child this test spawned and has not reaped.
    unsafe { libc::kill(service.id() as i32, libc::SIGTERM) };
    assert!(service.wait().unwrap().success());

    node.ok(&["unit", "--metrics", "--uninstall"]);
    assert!(!path.exists());
}

/// One scrape reads the driver once: through the NVML backend on the stand-in, a scrape of a
/// DGX A100 with 32 MIG devices asks for the device count once and makes no NVML call more often
/// than one `detect` makes it.
#[test]
fn a_scrape_reads_the_driver_once() {
    let Some(node) = TwinNode::new("dgx-a100") else {
        return;
    };
    let balanced = node.write(
        "balanced.toml",
        "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"3g.20gb\" = 1, \"2g.10gb\" = 1, \"1g.5gb\" = 2 }\n",
    );
    run(
        node.nvml().args(["apply", "--yes", "-c", &balanced]),
        0,
        "apply",
    );
    node.take_calls();
    run(
        node.nvml().args(["detect", "--format", "json"]),
        0,
        "detect",
    );
    let detect = counts(&node.take_calls());
    let mut serve = node.nvml();
    serve.args(["metrics", "--listen", "127.0.0.1:0", "-c", &balanced]);
    let mut service = spawned(&serve);
    let addr = address_of(&mut service);
    // The health watch opens its own session and waits on the driver's events: once it
    // listens, its waits are left out of the scrape's calls.
    watch_listening(&node);
    node.take_calls();
    let (code, body) = get(addr.parse().unwrap(), "/metrics").unwrap();
    let scrape = counts(
        &node
            .take_calls()
            .into_iter()
            .filter(|c| c["fn"] != "nvmlEventSetWait_v2")
            .collect::<Vec<_>>(),
    );
    let _ = service.kill();
    let _ = service.wait();
    assert_eq!(code, 200);
    assert_eq!(
        values(&body, "gpushare_mig_device_memory_total_bytes", &[]).len(),
        32,
        "{body}"
    );
    assert_eq!(scrape.get("nvmlDeviceGetCount_v2"), Some(&1), "{scrape:?}");
    for (call, n) in &scrape {
        assert!(
            detect.get(call).is_some_and(|d| n <= d),
            "a scrape called {call} {n} times, detect {:?}",
            detect.get(call)
        );
    }
}

/// Wait until the health watch of a `metrics --listen` on `node`'s stand-in waits on events.
fn watch_listening(node: &TwinNode) {
    let deadline = Instant::now() + Duration::from_secs(20);
    let log = node.log();
    while !std::fs::read_to_string(&log).is_ok_and(|t| t.contains("nvmlEventSetWait_v2")) {
        assert!(
            Instant::now() < deadline,
            "the health watch never waited on events"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The health watch of `gpushare metrics --listen`, through NVML on the stand-in: each Xid and
/// ECC event raised on the simulated driver is heard, attributed to its GPU or MIG device
/// (the event's GPU- and compute-instance ids) and weighed by the policy; `detect`, the scrape
/// and `doctor` say which device and why.
#[test]
fn the_health_watch_hears_each_fault_through_nvml_and_every_reader_names_the_device() {
    let Some(node) = TwinNode::new("dgx-a100") else {
        return;
    };
    let layout = node.write(
        "gpushare.toml",
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"3g.20gb\" = 2 }\n\n[health]\nrecover_after_seconds = 3600\n",
    );
    run(
        node.nvml().args(["apply", "--yes", "-c", &layout]),
        0,
        "apply",
    );
    let detect = |what: &str| -> serde_json::Value {
        let (out, _) = run(node.nvml().args(["detect", "--format", "json"]), 0, what);
        serde_json::from_str(&out).unwrap()
    };
    let before = detect("detect");
    assert!(
        before["health"][0]["state"].is_null(),
        "no watch, no health: {}",
        before["health"][0]
    );
    let mig = &before["gpus"][0]["mig"]["instances"][1];
    let (gi, ci) = (
        mig["gpu_instance_id"].as_u64().unwrap(),
        mig["compute_instances"][0]["compute_instance_id"]
            .as_u64()
            .unwrap(),
    );
    let sick_mig = mig["compute_instances"][0]["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let mut serve = node.nvml();
    serve.args(["metrics", "--listen", "127.0.0.1:0", "-c", &layout]);
    let mut service = spawned(&serve);
    let addr = address_of(&mut service);
    watch_listening(&node);
    let raise = |args: &[&str]| {
        let mut cmd = crate::common::gpushare();
        cmd.arg("--sim-state")
            .arg(node.nvml_state())
            .arg("sim")
            .args(args);
        run(&mut cmd, 0, "sim");
    };
    raise(&["xid", "13", "--gpu", "1"]);
    raise(&["xid", "79", "--gpu", "2"]);
    raise(&["ecc", "--gpu", "3", "--double-bit"]);
    raise(&["ecc", "--gpu", "4"]);
    raise(&[
        "xid",
        "62",
        "--gpu",
        "0",
        "--mig-device",
        &format!("{gi}:{ci}"),
    ]);
    let deadline = Instant::now() + Duration::from_secs(20);
    let health = loop {
        let d = detect("detect");
        if d["health"][0]["state"] == "mig-devices-unhealthy" {
            break d["health"].clone();
        }
        assert!(
            Instant::now() < deadline,
            "the watch did not hear the MIG device's Xid: {}",
            d["health"]
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    let _ = service.kill();
    let _ = service.wait();
    assert_eq!(
        health[0]["unhealthy_mig_devices"],
        serde_json::json!([[gi, ci]])
    );
    assert_eq!(health[0]["healthy"], true, "the GPU itself is fine");
    assert_eq!(health[0]["reasons"][0]["class"], "recoverable");
    assert_eq!(
        health[1]["state"], "healthy",
        "Xid 13 is the application's: {}",
        health[1]
    );
    assert_eq!(health[1]["recent"][0]["cause"]["xid"], 13);
    assert_eq!(health[2]["state"], "unhealthy");
    assert_eq!(health[2]["reasons"][0]["cause"]["xid"], 79);
    assert_eq!(health[2]["reasons"][0]["class"], "fatal");
    assert_eq!(health[3]["reasons"][0]["cause"], "ecc-double-bit");
    assert_eq!(
        health[4]["state"], "healthy",
        "a corrected ECC error is recorded only"
    );
    for i in 5..8 {
        assert_eq!(health[i]["state"], "healthy", "{}", health[i]);
        assert!(health[i]["recent"].is_null(), "nothing heard of GPU {i}");
    }

    // A second listener reads the record the first wrote: the scrape says the same.
    let mut serve = node.nvml();
    serve.args(["metrics", "--listen", "127.0.0.1:0", "-c", &layout]);
    let mut service = spawned(&serve);
    let addr2 = address_of(&mut service);
    let _ = addr;
    let (code, body) = get(addr2.parse().unwrap(), "/metrics").unwrap();
    let _ = service.kill();
    let _ = service.wait();
    assert_eq!(code, 200);
    assert_eq!(
        values(&body, "gpushare_gpu_healthy", &[("gpu", "2")]),
        [0.0],
        "{body}"
    );
    assert_eq!(
        values(&body, "gpushare_gpu_healthy", &[("gpu", "1")]),
        [1.0]
    );
    assert_eq!(
        values(
            &body,
            "gpushare_xid_errors_total",
            &[("gpu", "2"), ("xid", "79")]
        ),
        [1.0]
    );
    assert_eq!(
        values(
            &body,
            "gpushare_xid_errors_total",
            &[("gpu", "1"), ("xid", "13")]
        ),
        [1.0]
    );
    assert_eq!(
        values(
            &body,
            "gpushare_ecc_errors_total",
            &[("gpu", "3"), ("type", "double_bit")]
        ),
        [1.0]
    );
    assert_eq!(
        values(
            &body,
            "gpushare_ecc_errors_total",
            &[("gpu", "4"), ("type", "single_bit")]
        ),
        [1.0]
    );
    assert_eq!(
        values(
            &body,
            "gpushare_mig_device_healthy",
            &[("mig_uuid", &sick_mig)]
        ),
        [0.0]
    );
    assert_eq!(
        values(&body, "gpushare_mig_device_healthy", &[("gpu", "0")])
            .iter()
            .sum::<f64>(),
        1.0,
        "only that MIG device of GPU 0 is unhealthy"
    );
    let (out, _) = run(node.nvml().args(["doctor"]), 3, "doctor");
    let line = out
        .lines()
        .find(|l| l.contains("gpu-health"))
        .unwrap_or_default();
    assert!(
        line.contains("FAIL") && line.contains("GPU 2: Xid 79 (fatal)"),
        "{out}"
    );
}

/// `cmd` started in the background, its stderr piped (assert_cmd's commands only run to the end).
fn spawned(cmd: &assert_cmd::Command) -> Child {
    let mut std = std::process::Command::new(cmd.get_program());
    std.args(cmd.get_args());
    for (key, value) in cmd.get_envs() {
        match value {
            Some(v) => std.env(key, v),
            None => std.env_remove(key),
        };
    }
    std.stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// How many times each NVML function was called.
fn counts(calls: &[serde_json::Value]) -> std::collections::BTreeMap<String, usize> {
    let mut out = std::collections::BTreeMap::new();
    for c in calls {
        *out.entry(c["fn"].as_str().unwrap_or("?").to_string())
            .or_default() += 1;
    }
    out
}
