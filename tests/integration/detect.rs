//! `gpushare detect` on simulated nodes, node files and a machine without a driver.

use crate::common;
use common::*;

#[test]
fn dgx_a100_has_eight_mig_capable_a100s_with_distinct_uuids() {
    let v = json(sim("dgx-a100").arg("detect"));
    assert_eq!(v["source"], "sim:dgx-a100");
    let gpus = v["gpus"].as_array().unwrap();
    assert_eq!(gpus.len(), 8);
    let mut uuids = std::collections::BTreeSet::new();
    for (i, g) in gpus.iter().enumerate() {
        assert_eq!(g["index"], i);
        assert_eq!(g["name"], "NVIDIA A100-SXM4-40GB");
        assert_eq!(g["memory_total_mib"], 40960);
        assert_eq!(g["pci_device_id"], "0x20B010DE");
        assert_eq!(g["mig"]["capable"], true);
        assert_eq!(g["mig"]["current"], "disabled");
        assert!(g["uuid"].as_str().unwrap().starts_with("GPU-"));
        uuids.insert(g["uuid"].as_str().unwrap().to_string());
    }
    assert_eq!(uuids.len(), 8);
}

#[test]
fn the_json_contract_has_every_field() {
    let v = json(sim("mixed").arg("detect"));
    for key in ["source", "driver_version", "cuda_driver_version", "gpus"] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    for g in v["gpus"].as_array().unwrap() {
        for key in [
            "index",
            "uuid",
            "name",
            "pci_bus_id",
            "pci_device_id",
            "memory_total_mib",
            "memory_used_mib",
            "compute_capability",
            "multiprocessors",
            "architecture",
            "compute_mode",
            "persistence_mode",
            "mig",
            "processes",
        ] {
            assert!(g.get(key).is_some(), "missing gpus[].{key}");
        }
        for key in ["capable", "current", "pending", "instances"] {
            assert!(g["mig"].get(key).is_some(), "missing mig.{key}");
        }
    }
    assert_eq!(v["gpus"][2]["name"], "Tesla T4");
    assert_eq!(v["gpus"][2]["mig"]["capable"], false);
    assert_eq!(v["gpus"][2]["compute_capability"], "7.5");
}

#[test]
fn an_error_ends_with_its_exit_code_when_stderr_is_closed() {
    // `eprintln!` panics on a closed stderr, and a panic while reporting one aborts (134).
    let root = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "exec '{}' --sim t4x4 detect --gpu 9 2>&-",
            assert_cmd::cargo::cargo_bin!("gpushare").display()
        ))
        .env("GPUSHARE_ROOT", root.path())
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert_eq!(
        status.code(),
        Some(2),
        "bad input, even with nowhere to say so"
    );
}

#[test]
fn every_preset_detects() {
    let out = gpushare()
        .args(["sim", "presets", "--format", "json"])
        .output()
        .unwrap();
    let presets: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for p in presets.as_array().unwrap() {
        let name = p["name"].as_str().unwrap();
        let expected: u64 = p["gpus"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["count"].as_u64().unwrap())
            .sum();
        let v = json(sim(name).arg("detect"));
        assert_eq!(
            v["gpus"].as_array().unwrap().len() as u64,
            expected,
            "{name}"
        );
        sim(name).arg("detect").assert().success();
    }
}

#[test]
fn a_node_file_with_mig_instances_and_processes() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "lab.toml",
        r#"
[[gpus]]
model = "NVIDIA H100 80GB HBM3"
mig = "enabled"
instances = [{ profile = "3g.40gb", start = 4 }, { profile = "1g.10gb", start = 0 }]
processes = [{ pid = 4242, name = "python", used_memory_mib = 1024, gpu_instance = 0 }]
"#,
    );
    let v = json(gpushare().arg("--sim").arg(&file).arg("detect"));
    assert_eq!(v["source"], "sim:lab");
    let gpu = &v["gpus"][0];
    let instances = gpu["mig"]["instances"].as_array().unwrap();
    assert_eq!(instances.len(), 2);
    let three = instances
        .iter()
        .find(|i| i["profile"] == "3g.40gb")
        .unwrap();
    assert_eq!(three["placement"]["start"], 4);
    assert_eq!(three["placement"]["size"], 4);
    assert_eq!(three["memory_mib"], 40448);
    assert_eq!(three["profile_id"], 9);
    let ci = &three["compute_instances"][0];
    assert!(ci["uuid"].as_str().unwrap().starts_with("MIG-"));
    assert_eq!(ci["profile"], "3g.40gb");
    let p = &gpu["processes"][0];
    assert_eq!(p["pid"], 4242);
    assert_eq!(p["gpu_instance_id"], three["gpu_instance_id"]);
    assert_eq!(p["compute_instance_id"], ci["compute_instance_id"]);

    let table = sim(file.to_str().unwrap()).arg("detect").output().unwrap();
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(text.contains("GI 2 3g.40gb @4:4"), "{text}");
    assert!(text.contains("4242"), "{text}");
}

#[test]
fn gpu_selection_and_yaml() {
    let v = json(sim("dgx-h100").args(["detect", "--gpu", "1,3-4"]));
    let idx: Vec<u64> = v["gpus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["index"].as_u64().unwrap())
        .collect();
    assert_eq!(idx, [1, 3, 4]);
    let out = sim("t4x4")
        .args(["detect", "--format", "yaml"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("name: Tesla T4"), "{text}");
    let err = fails_with(sim("t4x4").args(["detect", "--gpu", "7"]), 2);
    assert!(err.contains("no GPU matches `7`"), "{err}");
}

#[test]
fn the_environment_can_name_the_simulated_node() {
    let v = json(gpushare().env("GPUSHARE_SIM", "l4x2").arg("detect"));
    assert_eq!(v["gpus"][1]["name"], "NVIDIA L4");
}

#[test]
fn a_state_file_is_created_and_reused() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("s.json");
    let first = json(sim("a30x4").arg("--sim-state").arg(&state).arg("detect"));
    assert!(state.exists());
    let again = json(gpushare().arg("--sim-state").arg(&state).arg("detect"));
    assert_eq!(first, again);
    let err = fails_with(sim("t4x4").arg("--sim-state").arg(&state).arg("detect"), 2);
    assert!(err.contains("holds the simulated node `a30x4`"), "{err}");
}

#[test]
fn no_driver_exits_4_with_one_line_and_a_hint() {
    let err = fails_with(
        gpushare().args(["--nvml-lib", "/nonexistent/libnvidia-ml.so.1", "detect"]),
        4,
    );
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(lines[0].starts_with("error: no NVIDIA driver"), "{err}");
    assert!(
        lines[1].starts_with("hint:") && lines[1].contains("--sim dgx-a100"),
        "{err}"
    );
}

#[test]
fn a_library_that_reports_driver_not_loaded_exits_4() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "fake.c",
        "int nvmlInit_v2(void) { return 9; }\nint nvmlInitWithFlags(unsigned f) { (void)f; return 9; }\nint nvmlShutdown(void) { return 0; }\n",
    );
    let lib = dir.path().join("libnvidia-ml.so.1");
    let status = std::process::Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&lib)
        .arg(&src)
        .status()
        .expect("a C compiler (cc) is needed to build the stand-in NVML");
    assert!(status.success());
    let err = fails_with(gpushare().arg("--nvml-lib").arg(&lib).arg("detect"), 4);
    assert!(err.contains("nvidia kernel module is not loaded"), "{err}");
    let err = fails_with(gpushare().env("GPUSHARE_NVML_LIB", &lib).arg("detect"), 4);
    assert!(err.contains("not loaded"), "{err}");
}

#[test]
fn bad_input_exits_2_naming_file_line_and_value() {
    let err = fails_with(sim("dgx-a101").arg("detect"), 2);
    assert!(err.contains("unknown simulated node `dgx-a101`"), "{err}");
    assert!(err.contains("hint: presets: dgx-a100"), "{err}");

    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "n.toml", "[[gpus]]\nmodel = \"NVIDIA Z9000\"\n");
    let err = fails_with(gpushare().arg("--sim").arg(&file).arg("detect"), 2);
    assert!(
        err.contains("n.toml:2:9: unknown GPU model `NVIDIA Z9000`"),
        "{err}"
    );
    assert!(err.contains("hint: known models:"), "{err}");

    let file = write(dir.path(), "broken.toml", "[[gpus]]\nmodel = \"Tesla T4\n");
    let err = fails_with(gpushare().arg("--sim").arg(&file).arg("detect"), 2);
    assert!(err.contains("broken.toml:2:"), "{err}");

    let state = write(dir.path(), "state.json", "{\"version\": 1,");
    let err = fails_with(gpushare().arg("--sim-state").arg(&state).arg("detect"), 2);
    assert!(err.contains("state.json:1:"), "{err}");

    let err = fails_with(
        gpushare().args(["--sim", "/no/such/node.toml", "detect"]),
        2,
    );
    assert!(err.contains("cannot read /no/such/node.toml"), "{err}");

    let err = fails_with(gpushare().args(["--format", "xml", "detect"]), 2);
    assert!(err.contains("xml"), "{err}");
}

#[test]
fn tables_have_no_colour_with_no_color() {
    let out = sim("t4x4")
        .args(["detect", "--color", "auto"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains('\x1b'));
    let out = sim("t4x4")
        .args(["detect", "--color", "always"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains('\x1b'));
}

#[test]
fn a_vgpu_host_gpu_reports_its_host_mode() {
    let dir = tempfile::tempdir().unwrap();
    let node = write(
        dir.path(),
        "kvm.toml",
        "[[gpus]]\nmodel = \"NVIDIA L40S\"\nvgpu_host_mode = \"sriov\"\n[[gpus]]\nmodel = \"Tesla T4\"\n",
    );
    let v = json(gpushare().arg("--sim").arg(&node).arg("detect"));
    assert_eq!(v["gpus"][0]["vgpu_host_mode"], "sriov");
    assert!(v["gpus"][1].get("vgpu_host_mode").is_none());
    let out = gpushare()
        .arg("--sim")
        .arg(&node)
        .arg("detect")
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("vGPU host mode"), "{table}");
    assert!(table.contains("GPU 0 (SR-IOV)"), "{table}");
    let bad = write(
        dir.path(),
        "bad.toml",
        "[[gpus]]\nmodel = \"NVIDIA L40S\"\nvgpu_host_mode = \"yes\"\n",
    );
    let err = fails_with(gpushare().arg("--sim").arg(&bad).arg("detect"), 2);
    assert!(err.contains("bad.toml:3:18"), "{err}");
}

#[test]
fn detect_says_when_the_kubelet_cannot_say_who_holds_the_devices() {
    let dir = tempfile::tempdir().unwrap();
    let sim = |extra: &[&std::ffi::OsStr]| {
        let mut cmd = gpushare();
        cmd.args(["--sim", "dgx-a100", "detect", "--format", "json"])
            .args(extra);
        cmd.output().unwrap()
    };
    // A simulated node asks no kubelet unless told where one is: unknown, and quiet about it.
    let out = sim(&[]);
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(json["pods"].is_null(), "{json}");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("kubelet"));

    // No socket: unknown, with a note; detect still succeeds.
    let out = sim(&["--host-root".as_ref(), dir.path().as_os_str()]);
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(json["pods"].is_null(), "{json}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no kubelet socket at"), "{stderr}");

    // A socket that hangs up on every caller: unknown, with a warning that says why.
    let sockets = dir.path().join("var/lib/kubelet/pod-resources");
    std::fs::create_dir_all(&sockets).unwrap();
    let listener = std::os::unix::net::UnixListener::bind(sockets.join("kubelet.sock")).unwrap();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            drop(conn);
        }
    });
    let out = sim(&["--host-root".as_ref(), dir.path().as_os_str()]);
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(json["pods"].is_null(), "{json}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("did not say which pods hold the devices"),
        "{stderr}"
    );
}
