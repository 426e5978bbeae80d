//! `gpushare probe` end to end: the real binary and its worker processes against a stand-in
//! libcuda (tests/support/libcuda_standin.c, built here with cc) on simulated nodes.

mod common;
use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Build the stand-in once per variant: a directory holding libcuda.so.1 (and libcuda.so).
fn standin(variant: &'static str) -> &'static Path {
    static PLAIN: OnceLock<PathBuf> = OnceLock::new();
    static OLD: OnceLock<PathBuf> = OnceLock::new();
    let (cell, defines): (&OnceLock<PathBuf>, &[&str]) = match variant {
        "old-driver" => (&OLD, &["-DSTANDIN_OMIT_UUID_V2"]),
        _ => (&PLAIN, &[]),
    };
    cell.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("standin-cuda-{variant}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let lib = dir.join("libcuda.so.1");
        let status = std::process::Command::new("cc")
            .args(["-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-o"])
            .arg(&lib)
            .args(defines)
            .arg(repo().join("tests/support/libcuda_standin.c"))
            .status()
            .expect("a C compiler (cc) is needed to build the stand-in libcuda");
        assert!(status.success(), "the stand-in libcuda does not compile");
        let _ = std::os::unix::fs::symlink("libcuda.so.1", dir.join("libcuda.so"));
        dir
    })
}

/// Whether the machine has a real libcuda the loader would find without LD_LIBRARY_PATH.
fn system_libcuda() -> bool {
    std::process::Command::new("sh")
        .args(["-c", "ldconfig -p 2>/dev/null | grep -q 'libcuda\\.so'"])
        .status()
        .is_ok_and(|s| s.success())
}

/// `STANDIN_CUDA_DEVICES` for a node as `detect` shows it: every GPU with MIG off, every MIG
/// device with its GPU instance's memory and its compute instance's SMs.
fn devices_of(detect: &Value) -> String {
    let mut out = Vec::new();
    for g in detect["gpus"].as_array().unwrap() {
        if g["mig"]["current"] == "enabled" {
            for gi in g["mig"]["instances"].as_array().unwrap() {
                for ci in gi["compute_instances"].as_array().unwrap() {
                    out.push(format!(
                        "{}={}:{}",
                        ci["uuid"].as_str().unwrap(),
                        gi["memory_mib"],
                        ci["multiprocessors"]
                    ));
                }
            }
        } else {
            out.push(format!(
                "{}={}:{}",
                g["uuid"].as_str().unwrap(),
                g["memory_total_mib"],
                g["multiprocessors"]
            ));
        }
    }
    out.join(",")
}

/// `gpushare --sim NODE probe --quick --buffer 2M` with the stand-in as the node's driver.
fn probe(node: &str) -> assert_cmd::Command {
    let detect = json(sim(node).arg("detect"));
    let mut cmd = sim(node);
    cmd.env("LD_LIBRARY_PATH", standin("plain"))
        .env("STANDIN_CUDA_DEVICES", devices_of(&detect))
        .env_remove("CUDA_VISIBLE_DEVICES")
        .env_remove("CUDA_MPS_PIPE_DIRECTORY")
        .args(["probe", "--quick", "--buffer", "2M"]);
    cmd
}

/// Run and parse the JSON report, asserting the exit code.
fn report(cmd: &mut assert_cmd::Command, code: i32) -> Value {
    let out = cmd.args(["--format", "json"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "stderr: {stderr}");
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
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

fn failures(v: &Value) -> Vec<(String, String)> {
    v["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["check"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
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
    let total = t["bandwidth_gbps"]["h2d"].as_f64().unwrap();
    assert!(
        (sum - total).abs() < 0.05,
        "aggregate {total} is the sum {sum}"
    );
    assert!(t["solo"]["bandwidth_gbps"]["d2d"].as_f64().unwrap() > 0.0);
    assert!(t["slowdown"]["h2d"].as_f64().unwrap() > 0.0);
    assert!(t["slowdown"]["roundtrip_p50"].is_number());

    let err = fails_with(probe("dgx-a100").arg("--compare"), 2);
    assert!(err.contains("--compare"), "{err}");
}

/// An MPS daemon's pipe directory as the stand-in checks it (the `control` socket's path).
fn pipe_dir(dir: &Path) -> PathBuf {
    let pipe = dir.join("pipe");
    std::fs::create_dir_all(&pipe).unwrap();
    std::fs::write(pipe.join("control"), "").unwrap();
    pipe
}

#[test]
fn mps_clients_through_a_pipe_dir_with_limits_from_gpushare_toml() {
    let dir = tempfile::tempdir().unwrap();
    let pipe = pipe_dir(dir.path());
    let config = write(
        dir.path(),
        "gpushare.toml",
        "[[gpus]]\nselect = [0]\nmode = \"mps\"\nmps.clients = 4\n",
    );
    let mps = |cmd: &mut assert_cmd::Command| {
        cmd.arg("-c").arg(&config).arg("--mps-pipe-dir").arg(&pipe);
    };
    // T4: 15360 MiB, 40 SMs; four clients get 3840 MiB and 25% (10 SMs) each.
    let mut cmd = probe("t4x4");
    mps(&mut cmd);
    cmd.env("STANDIN_CUDA_MPS_MEM_MIB", "3840")
        .env("STANDIN_CUDA_MPS_SMS", "10")
        .args(["--target", "0,1", "--clients", "2"]);
    let v = report(&mut cmd, 0);
    let t = &v["targets"][0];
    assert_eq!(t["kind"], "mps");
    assert_eq!(t["memory"]["limit_mib"], 3840);
    assert_eq!(t["memory"]["limit_enforced"], true);
    assert_eq!(t["multiprocessors"], 10);
    assert_eq!(t["promised"]["thread_percentage"], 25);
    assert_eq!(t["per_client"].as_array().unwrap().len(), 2);
    assert_eq!(v["targets"][1]["kind"], "gpu", "GPU 1 is not under MPS");

    // The daemon applied neither limit (the UUID-keyed limit bug): both checks fail.
    let mut cmd = probe("t4x4");
    mps(&mut cmd);
    let v = report(cmd.args(["--target", "0"]), 3);
    let checks: Vec<String> = failures(&v).into_iter().map(|(c, _)| c).collect();
    assert!(checks.contains(&"memory_limit".to_string()), "{checks:?}");
    assert!(
        checks.contains(&"multiprocessors".to_string()),
        "{checks:?}"
    );

    // No daemon behind the pipe dir: the driver's MPS error, with what to check.
    std::fs::remove_file(pipe.join("control")).unwrap();
    let mut cmd = probe("t4x4");
    mps(&mut cmd);
    let v = report(cmd.args(["--target", "0"]), 3);
    let t = &v["targets"][0];
    assert!(
        t["error"]
            .as_str()
            .unwrap()
            .contains("CUDA_ERROR_MPS_CONNECTION_FAILED"),
        "{t}"
    );
    assert!(
        t["hint"].as_str().unwrap().contains("--mps-pipe-dir"),
        "{t}"
    );
    assert_eq!(v["failures"][0]["check"], "probe");
    assert!(
        v["failures"][0]["hint"]
            .as_str()
            .unwrap()
            .contains("--mps-pipe-dir")
    );

    // A pipe dir for devices gpushare.toml does not put under MPS is said to be unused.
    let out = probe("t4x4")
        .arg("-c")
        .arg(&config)
        .arg("--mps-pipe-dir")
        .arg(&pipe)
        .args(["--target", "2", "--quiet"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--mps-pipe-dir is not used"), "{stderr}");
}

#[test]
fn mps_daemons_are_found_through_their_settings_files() {
    let dir = tempfile::tempdir().unwrap();
    let pipe = pipe_dir(dir.path());
    let detect = json(sim("t4x4").arg("detect"));
    let uuid = detect["gpus"][3]["uuid"].as_str().unwrap();
    let daemon = dir.path().join("root/run/gpushare/mps/gpu3");
    std::fs::create_dir_all(&daemon).unwrap();
    std::fs::write(
        daemon.join("settings.json"),
        format!(
            r#"{{"version": 1, "name": "gpu3", "pipe_dir": "{}", "log_dir": "/tmp/log", "multiuser": false,
                 "clients": 2, "thread_percentage": 50,
                 "devices": [{{"ordinal": 0, "gpu": 3, "uuid": "{uuid}", "name": "Tesla T4", "mig": null,
                               "memory_mib": 15360, "memory_limit_mib": 7680, "client_cap": 48}}]}}"#,
            pipe.display()
        ),
    )
    .unwrap();
    let v = report(
        probe("t4x4")
            .arg("--state-root")
            .arg(dir.path().join("root"))
            .args(["--target", "3"])
            .env("STANDIN_CUDA_MPS_MEM_MIB", "7680")
            .env("STANDIN_CUDA_MPS_SMS", "20"),
        0,
    );
    let t = &v["targets"][0];
    assert_eq!(t["kind"], "mps");
    assert_eq!(t["memory"]["limit_mib"], 7680);
    assert_eq!(
        t["promised"]["memory_from"],
        "MPS memory limit (MPS daemon gpu3)"
    );
    assert_eq!(t["promised"]["max_multiprocessors"], 20);

    std::fs::write(daemon.join("settings.json"), "{\"pipe_dir\": ").unwrap();
    let err = fails_with(
        probe("t4x4")
            .arg("--state-root")
            .arg(dir.path().join("root")),
        2,
    );
    assert!(err.contains("gpu3/settings.json:1:"), "{err}");
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
        err.contains("killed by signal 11 (SIGSEGV) while device-to-device copies"),
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
fn no_visible_device_is_exit_4_too() {
    let err = fails_with(
        probe("t4x4").env(
            "STANDIN_CUDA_DEVICES",
            "GPU-00000000-0000-0000-0000-000000000000=1024:1",
        ),
        4,
    );
    assert!(err.contains("CUDA_ERROR_NO_DEVICE"), "{err}");
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
