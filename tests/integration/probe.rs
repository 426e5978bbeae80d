//! `gpushare probe` end to end: the real binary and its worker processes against a stand-in
//! libcuda (tests/support/libcuda_standin.c, built here with cc) on simulated nodes.

use crate::common;
use common::cuda_standin::*;
use common::*;
use std::path::Path;

/// Whether the machine has a real libcuda the loader would find without LD_LIBRARY_PATH.
fn system_libcuda() -> bool {
    std::process::Command::new("sh")
        .args(["-c", "ldconfig -p 2>/dev/null | grep -q 'libcuda\\.so'"])
        .status()
        .is_ok_and(|s| s.success())
}

/// A DGX A100 whose 8 GPUs have the mig-parted `all-balanced` layout for A100-40GB:
/// 1g.5gb ×2, 2g.10gb, 3g.20gb.
fn all_balanced(dir: &Path) -> String {
    write(
        dir,
        "dgx-a100-balanced.toml",
        r#"
[[gpus]]
model = "NVIDIA A100-SXM4-40GB"
count = 8
instances = [
  { profile = "1g.5gb", start = 0 },
  { profile = "1g.5gb", start = 1 },
  { profile = "2g.10gb", start = 2 },
  { profile = "3g.20gb", start = 4 },
]
"#,
    )
    .to_string_lossy()
    .into_owned()
}

#[test]
fn without_libcuda_the_probe_exits_4_with_one_clear_line() {
    if system_libcuda() {
        eprintln!("skipped: this machine has a real libcuda");
        return;
    }
    let empty = tempfile::tempdir().unwrap();
    let err = fails_with(
        sim("dgx-a100")
            .env("LD_LIBRARY_PATH", empty.path())
            .arg("probe"),
        4,
    );
    // Past the note that the node is simulated.
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| !l.starts_with("simulated node"))
        .collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert_eq!(
        lines[0],
        "error: no CUDA driver: libcuda.so.1 cannot be loaded"
    );
    assert!(
        lines[1].starts_with("hint: install the NVIDIA driver"),
        "{err}"
    );
}

#[test]
fn every_field_of_the_contract_for_every_mig_device_of_an_all_balanced_dgx_a100() {
    let dir = tempfile::tempdir().unwrap();
    let node = all_balanced(dir.path());
    let v = report(&mut probe(&node), 0);
    assert_eq!(v["verdict"], "pass", "{:?}", failures(&v));
    assert_eq!(v["failures"], serde_json::json!([]));
    assert_eq!(v["d2d_counts"], "read_and_write");
    let targets = v["targets"].as_array().unwrap();
    assert_eq!(targets.len(), 32, "8 GPUs × 4 MIG devices");
    let mut per_gpu = [0; 8];
    for t in targets {
        for key in [
            "kind",
            "gpu",
            "uuid",
            "memory",
            "bandwidth_gbps",
            "launch_latency_us",
            "multiprocessors",
            "clients",
            "error",
        ] {
            assert!(t.get(key).is_some(), "missing {key}: {t}");
        }
        assert_eq!(t["kind"], "mig");
        assert!(t["uuid"].as_str().unwrap().starts_with("MIG-"));
        assert!(t["error"].is_null(), "{t}");
        assert_eq!(t["clients"], 1);
        per_gpu[t["gpu"].as_u64().unwrap() as usize] += 1;
        let (memory, sms) = match t["name"].as_str().unwrap() {
            "1g.5gb" => (4864, 14),
            "2g.10gb" => (9856, 28),
            "3g.20gb" => (19968, 42),
            other => panic!("unexpected MIG device {other}"),
        };
        let m = &t["memory"];
        assert_eq!(m["total_mib"], memory, "{t}");
        assert!(m["free_mib"].as_u64().unwrap() < memory);
        assert_eq!(m["limit_mib"], memory);
        assert_eq!(m["limit_enforced"], true);
        for key in ["h2d", "d2h", "d2d"] {
            assert!(
                t["bandwidth_gbps"][key].as_f64().unwrap() > 0.0,
                "{key}: {t}"
            );
        }
        let (p50, p99) = (
            t["launch_latency_us"]["p50"].as_f64().unwrap(),
            t["launch_latency_us"]["p99"].as_f64().unwrap(),
        );
        assert!(p50 >= 0.0 && p99 >= p50, "{t}");
        assert_eq!(t["multiprocessors"], sms);
        assert_eq!(t["sms_observed"], sms);
    }
    assert_eq!(per_gpu, [4; 8]);
}

#[test]
fn an_ignored_memory_cap_fails_the_verdict_with_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    let node = all_balanced(dir.path());
    let v = report(probe(&node).env("STANDIN_CUDA_CAP", "ignore"), 3);
    assert_eq!(v["verdict"], "fail");
    let f = failures(&v);
    assert_eq!(f.len(), 32, "{f:?}");
    for (check, message) in &f {
        assert_eq!(check, "memory_limit");
        assert!(message.contains("the limit is not enforced"), "{message}");
    }
    assert!(
        v["targets"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["memory"]["limit_enforced"] == false)
    );
    // The table says so too.
    let out = probe(&node)
        .env("STANDIN_CUDA_CAP", "ignore")
        .args(["--target", "3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("4864 NOT HELD"), "{text}");
    assert!(text.contains("verdict: FAIL (4 failures)"), "{text}");
    // D2D says how it counts: not comparable with nvbandwidth's copy-engine figure as is.
    assert!(
        text.contains("D2D: an SM copy kernel, bytes read + bytes written (about 2x nvbandwidth's device_local_copy"),
        "{text}"
    );
}

#[test]
fn whole_gpus_alone_and_with_clients_at_once() {
    let v = report(
        probe("dgx-a100").args(["--target", "2", "--clients", "3", "--compare"]),
        0,
    );
    let t = &v["targets"][0];
    assert_eq!(
        (t["kind"].as_str(), t["gpu"].as_u64()),
        (Some("gpu"), Some(2))
    );
    assert_eq!(t["clients"], 3);
    assert_eq!(t["memory"]["total_mib"], 40960);
    assert_eq!(t["multiprocessors"], 108);
    let clients = t["per_client"].as_array().unwrap();
    assert_eq!(clients.len(), 3);
    let sum: f64 = clients
        .iter()
        .map(|c| c["bandwidth_gbps"]["h2d"].as_f64().unwrap())
        .sum();
    // Together: their bytes over the span of their samples (host time, so here, where the
    // stand-in copies on the host, well under the sum of their event-timed figures).
    let total = t["bandwidth_gbps"]["h2d"].as_f64().unwrap();
    assert!(
        total > 0.0 && total <= 1.5 * sum,
        "together {total}, each alone summed {sum}"
    );
    assert!(t["solo"]["bandwidth_gbps"]["d2d"].as_f64().unwrap() > 0.0);
    assert!(t["slowdown"]["h2d"].as_f64().unwrap() > 0.0);
    assert!(t["slowdown"]["roundtrip_p50"].is_number());

    let err = fails_with(probe("dgx-a100").arg("--compare"), 2);
    assert!(err.contains("--compare"), "{err}");
}

#[test]
fn promised_clients_run_on_each_time_sliced_mig_device() {
    let dir = tempfile::tempdir().unwrap();
    let node = all_balanced(dir.path());
    let config = write(
        dir.path(),
        "gpushare.toml",
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 2, \"2g.10gb\" = 1, \"3g.20gb\" = 1 }\nmig.time_slicing.replicas = 3\n",
    );
    let v = report(
        probe(&node)
            .args(["--target", "0,1", "--clients", "promised", "-c"])
            .arg(&config),
        0,
    );
    let targets = v["targets"].as_array().unwrap();
    assert_eq!(targets.len(), 8, "2 GPUs × 4 MIG devices");
    for t in targets {
        let (clients, per_client) = match t["gpu"].as_u64().unwrap() {
            // Promised to 3: three clients at once, each reported.
            0 => (3, Some(3)),
            // Not in the file: promised nothing, probed alone.
            _ => (1, None),
        };
        assert_eq!(t["clients"], clients, "{t}");
        assert_eq!(t["per_client"].as_array().map(Vec::len), per_client, "{t}");
    }
    let err = fails_with(probe(&node).args(["--clients", "some"]), 2);
    assert!(err.contains("or `promised`"), "{err}");
}

#[test]
fn a_crashing_or_hanging_driver_costs_one_target_not_the_probe() {
    let detect = json(sim("t4x4").arg("detect"));
    let uuid = |i: usize| detect["gpus"][i]["uuid"].as_str().unwrap().to_string();
    let v = report(
        probe("t4x4").env("STANDIN_CUDA_FAULT", format!("crash:{}", uuid(1))),
        3,
    );
    let t = v["targets"].as_array().unwrap();
    assert_eq!(t.len(), 4);
    let err = t[1]["error"].as_str().unwrap();
    assert!(
        err.contains("killed by signal 11 (SIGSEGV) while host-to-device copies"),
        "{err}"
    );
    assert!(t[0]["error"].is_null() && t[2]["error"].is_null() && t[3]["error"].is_null());
    assert_eq!(failures(&v).len(), 1);

    let v = report(
        probe("t4x4")
            .env("STANDIN_CUDA_FAULT", format!("hang:{}", &uuid(2)[..12]))
            .args(["--timeout", "2", "--target", "2,3"]),
        3,
    );
    let err = v["targets"][0]["error"].as_str().unwrap();
    assert!(
        err.contains("timed out after 2 s while host-to-device copies"),
        "{err}"
    );
    assert!(v["targets"][1]["error"].is_null());
}

#[test]
fn a_driver_without_the_calls_the_probe_needs_exits_4() {
    let detect = json(sim("t4x4").arg("detect"));
    let err = fails_with(
        sim("t4x4")
            .env("LD_LIBRARY_PATH", standin("old-driver"))
            .env("STANDIN_CUDA_DEVICES", devices_of(&detect))
            .args(["probe", "--quick"]),
        4,
    );
    assert!(
        err.contains("the NVIDIA driver is too old: libcuda lacks cuDeviceGetUuid_v2"),
        "{err}"
    );
}

#[test]
fn a_device_the_driver_does_not_show_is_no_device_not_no_driver() {
    // The driver works, but CUDA_VISIBLE_DEVICES names no device it has: CUDA_ERROR_NO_DEVICE
    // for every target, a failed verdict (exit 3), not "no driver" (exit 4).
    let v = report(
        probe("t4x4").env(
            "STANDIN_CUDA_DEVICES",
            "GPU-00000000-0000-0000-0000-000000000000=1024:1",
        ),
        3,
    );
    let f = failures(&v);
    assert_eq!(f.len(), 4, "{f:?}");
    for (check, message) in &f {
        assert_eq!(check, "probe");
        assert!(
            message.contains("cuInit failed: CUDA_ERROR_NO_DEVICE"),
            "{message}"
        );
    }
}

#[test]
fn bad_input_is_exit_2_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let config = write(
        dir.path(),
        "gpushare.toml",
        "[[gpus]]\nselect = [0]\nmode = \"mps\"\nmps.thread_percentage = 150\n",
    );
    let err = fails_with(probe("t4x4").arg("-c").arg(&config), 2);
    assert!(
        err.contains("gpushare.toml:4:25: thread_percentage = 150"),
        "{err}"
    );
    let err = fails_with(probe("t4x4").args(["--target", "7"]), 2);
    assert!(err.contains("no GPU matches `7`"), "{err}");
    let err = fails_with(probe("t4x4").args(["--target", "MIG-0"]), 2);
    assert!(err.contains("no MIG device matches `MIG-0`"), "{err}");
    let err = fails_with(sim("t4x4").args(["probe", "--buffer", "4X"]), 2);
    assert!(err.contains("unknown unit"), "{err}");
    let err = fails_with(probe("t4x4").args(["--clients", "0"]), 2);
    assert!(err.contains("--clients"), "{err}");
}

#[test]
fn the_report_names_whom_each_device_was_shared_with() {
    // Two processes on GPU 1 of a simulated node: an MPS client in a pod's container and a
    // process of the host, whose cgroups a host tree gives.
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("node.json");
    let host = dir.path().join("host");
    let uid = "0b9f1c6e-3d4a-4f5b-8c7d-123456789abc";
    let id = "5f2c9a1e7b3d4c6f8a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f";
    for (pid, cgroup) in [
        (4242, format!("0::/kubepods/besteffort/pod{uid}/{id}\n")),
        (
            4343,
            "0::/system.slice/nvidia-cuda-mps-server.service\n".into(),
        ),
    ] {
        std::fs::create_dir_all(host.join(format!("proc/{pid}"))).unwrap();
        std::fs::write(host.join(format!("proc/{pid}/cgroup")), cgroup).unwrap();
    }
    std::fs::create_dir_all(host.join(format!("var/log/pods/ml_trainer-0_{uid}"))).unwrap();
    std::fs::create_dir_all(host.join("var/log/containers")).unwrap();
    std::fs::write(
        host.join(format!("var/log/containers/trainer-0_ml_cuda-{id}.log")),
        "",
    )
    .unwrap();
    let on_node = || {
        let mut cmd = sim("t4x4");
        cmd.arg("--sim-state").arg(&state);
        cmd
    };
    for (pid, mib, mps) in [("4343", "64", false), ("4242", "1024", true)] {
        let mut start = on_node();
        start.args(["sim", "process", "start", "--gpu", "1", "--name", "python"]);
        start.args(["--pid", pid, "--memory-mib", mib]);
        if mps {
            start.arg("--mps-client");
        }
        start.assert().success();
    }
    let detect = json(on_node().arg("detect"));
    let probe = || {
        let mut cmd = with_standin(on_node(), &detect);
        cmd.args([
            "probe",
            "--quick",
            "--buffer",
            "2M",
            "--target",
            "1",
            "--host-root",
        ])
        .arg(&host);
        cmd
    };
    let v = report(&mut probe(), 0);
    let shared = &v["targets"][0]["shared_with"];
    assert_eq!(
        shared[0]["owner"],
        serde_json::json!({"kind": "host"}),
        "{shared}"
    );
    assert_eq!(
        shared[1]["owner"],
        serde_json::json!({"kind": "pod", "namespace": "ml", "pod": "trainer-0", "pod_uid": uid, "container": "cuda", "container_id": id}),
        "{shared}"
    );
    assert_eq!(
        (shared[1]["pid"].as_u64(), shared[1]["kind"].as_str()),
        (Some(4242), Some("mps-client"))
    );
    assert_eq!(shared.as_array().unwrap().len(), 2);
    let table = probe().assert().success();
    let table = String::from_utf8_lossy(&table.get_output().stdout).into_owned();
    assert!(
        table.contains(
            "shared with: host (pid 4343, 64 MiB), ml/trainer-0/cuda (pid 4242, 1024 MiB)"
        ),
        "{table}"
    );
    // Without the host tree, a simulated node's PIDs are not read: owners unknown, not guessed.
    let v = report(
        with_standin(on_node(), &detect)
            .args(["probe", "--quick", "--buffer", "2M", "--target", "1"]),
        0,
    );
    assert_eq!(
        v["targets"][0]["shared_with"][1]["owner"],
        serde_json::Value::Null
    );
}
