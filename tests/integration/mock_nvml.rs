//! The NVML backend (not the simulator) against NVIDIA's own mock libnvidia-ml, with every
//! config it ships and variants written here: a MIG-enabled A100 whose MIG queries answer
//! NOT_SUPPORTED (an unreadable layout), and a GPU the catalog does not know.
//!
//! `GPUSHARE_TEST_MOCK_NVML` points at the mock's `libnvidia-ml.so.1` (its configs are in
//! `configs/` beside it); `.ci/run` builds it and sets it. Without it these tests say they are
//! skipped.

use crate::common;

use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

const CONFIGS: [&str; 7] = ["a100", "h100", "b200", "gb200", "gb300", "l40s", "t4"];

const TIME_SLICING: &str =
    "[[gpus]]\nselect = \"all\"\nmode = \"time-slicing\"\ntime_slicing.replicas = 4\n";
const MPS: &str = "[[gpus]]\nselect = \"all\"\nmode = \"mps\"\nmps.clients = 4\n";
const NONE: &str = "[[gpus]]\nselect = \"all\"\nmode = \"none\"\n";
const MIG_EMPTY: &str = "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = {}\n";
const MIG_DEVICES: &str =
    "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 2 }\n";
const MIG_PARTED: &str = "version: v1
mig-configs:
  all-disabled:
    - devices: all
      mig-enabled: false
  all-enabled:
    - devices: all
      mig-enabled: true
      mig-devices: {}
";

struct Mock {
    lib: PathBuf,
    configs: PathBuf,
    dir: tempfile::TempDir,
}

/// The mock, or `None` (with a loud note) when the variable is unset.
fn mock(test: &str) -> Option<Mock> {
    let Some(lib) = std::env::var_os("GPUSHARE_TEST_MOCK_NVML").filter(|v| !v.is_empty()) else {
        eprintln!(
            "SKIPPED: {test}: GPUSHARE_TEST_MOCK_NVML is not set (NVIDIA's mock libnvidia-ml; \
             .ci/run builds it with ../shared/tools/nvidia-mock-nvml/build.sh)"
        );
        return None;
    };
    let lib = PathBuf::from(lib);
    assert!(
        lib.exists(),
        "GPUSHARE_TEST_MOCK_NVML={} does not exist",
        lib.display()
    );
    let configs = lib.parent().unwrap().join("configs");
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("ts.toml", TIME_SLICING),
        ("mps.toml", MPS),
        ("none.toml", NONE),
        ("mig-empty.toml", MIG_EMPTY),
        ("mig-devices.toml", MIG_DEVICES),
        ("mig-parted.yaml", MIG_PARTED),
    ] {
        write(dir.path(), name, text);
    }
    Some(Mock { lib, configs, dir })
}

impl Mock {
    fn config(&self, name: &str) -> PathBuf {
        self.configs.join(format!("mock-nvml-config-{name}.yaml"))
    }

    fn file(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    /// A copy of a shipped config with text replaced (a variant the mock does not ship).
    fn variant(&self, from: &str, name: &str, edits: &[(&str, &str)]) -> PathBuf {
        let mut text = std::fs::read_to_string(self.config(from)).unwrap();
        for (old, new) in edits {
            assert!(text.contains(old), "{from}: no `{old}` to replace");
            text = text.replace(old, new);
        }
        write(self.dir.path(), name, &text)
    }

    /// gpushare on the NVML backend with the mock and `config`, its state in the temp dir.
    fn cmd(&self, config: &Path, args: &[&str]) -> assert_cmd::Command {
        let mut cmd = gpushare();
        cmd.env("MOCK_NVML_CONFIG", config)
            .env_remove("MOCK_NVML_DEBUG")
            .env_remove("MOCK_NVML_STRICT")
            .arg("--nvml-lib")
            .arg(&self.lib)
            .arg("--state-root")
            .arg(self.dir.path().join("root"))
            .args(args);
        cmd
    }

    /// Exit code, stdout, stderr.
    fn run(&self, config: &Path, args: &[&str]) -> (i32, String, String) {
        let out = self.cmd(config, args).output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// Run and assert the exit code; stdout and stderr.
    fn expect(&self, config: &Path, args: &[&str], code: i32) -> (String, String) {
        let (got, stdout, stderr) = self.run(config, args);
        assert_eq!(
            got,
            code,
            "gpushare {args:?} with {}\nstdout: {stdout}\nstderr: {stderr}",
            config.display()
        );
        (stdout, stderr)
    }

    fn json(&self, config: &Path, args: &[&str]) -> Value {
        let mut all = args.to_vec();
        all.extend(["--format", "json"]);
        let (stdout, _) = self.expect(config, &all, 0);
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {stdout}"))
    }
}

/// `device_defaults` with each device's overrides merged in, as the mock does.
fn yaml_devices(config: &Path) -> (Value, Vec<Value>) {
    let text = std::fs::read_to_string(config).unwrap();
    let yaml: Value = serde_saphyr::from_str(&text).unwrap();
    let defaults = yaml["device_defaults"].clone();
    let devices = yaml["devices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let mut merged = defaults.clone();
            merge(&mut merged, d);
            merged
        })
        .collect();
    (yaml, devices)
}

fn merge(into: &mut Value, from: &Value) {
    match (into, from) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                merge(a.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
        (slot, v) => *slot = v.clone(),
    }
}

fn hex_id(v: &Value) -> String {
    match v {
        Value::Number(n) => format!("0x{:08X}", n.as_u64().unwrap()),
        Value::String(s) => format!(
            "0x{:08X}",
            u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap()
        ),
        other => panic!("device_id {other}"),
    }
}

/// `0000:07:00.0` and `00000000:07:00.0` name one bus.
fn bus(id: &str) -> String {
    let lower = id.to_ascii_lowercase();
    match lower.split_once(':') {
        Some((domain, rest)) => format!("{:08}:{rest}", domain.trim_start_matches('0')),
        None => lower,
    }
}

/// The YAML's architecture names in gpushare's words.
fn architecture(yaml: &str) -> &str {
    match yaml {
        "ada_lovelace" => "ada",
        other => other,
    }
}

/// The SM count each shipped config must get: the catalog's where it agrees with the driver,
/// unknown where the mock's PCI id belongs to another GPU in the catalog (the mock does not
/// answer `nvmlDeviceGetNumGpuCores`).
fn expected_multiprocessors(config: &str) -> Option<u64> {
    match config {
        "a100" => Some(108),
        "h100" => Some(132),
        "b200" => Some(148),
        "t4" => Some(40),
        // GB200 with the H100's PCI id, GB300 with the GB200's, L40S with the L40's.
        "gb200" | "gb300" | "l40s" => None,
        other => panic!("{other}"),
    }
}

#[test]
fn detect_matches_every_mock_config_field_by_field() {
    let Some(m) = mock("detect_matches_every_mock_config_field_by_field") else {
        return;
    };
    for name in CONFIGS {
        let config = m.config(name);
        let (yaml, devices) = yaml_devices(&config);
        let node = m.json(&config, &["detect"]);
        assert_eq!(node["source"], "nvml");
        assert_eq!(
            node["driver_version"], yaml["system"]["driver_version"],
            "{name}"
        );
        let gpus = node["gpus"].as_array().unwrap();
        assert_eq!(gpus.len(), devices.len(), "{name}: GPU count");
        for (gpu, dev) in gpus.iter().zip(&devices) {
            let at = format!("{name} GPU {}", gpu["index"]);
            assert_eq!(gpu["name"], dev["name"], "{at}");
            assert_eq!(gpu["uuid"], dev["uuid"], "{at}");
            assert_eq!(
                bus(gpu["pci_bus_id"].as_str().unwrap()),
                bus(dev["pci"]["bus_id"].as_str().unwrap()),
                "{at}"
            );
            assert_eq!(
                gpu["pci_device_id"],
                hex_id(&dev["pci"]["device_id"]),
                "{at}"
            );
            assert_eq!(
                gpu["memory_total_mib"].as_u64().unwrap(),
                dev["memory"]["total_bytes"].as_u64().unwrap() / (1024 * 1024),
                "{at}"
            );
            let cc = &dev["compute_capability"];
            assert_eq!(
                gpu["compute_capability"],
                format!("{}.{}", cc["major"], cc["minor"]),
                "{at}"
            );
            assert_eq!(
                gpu["architecture"],
                architecture(dev["architecture"].as_str().unwrap()),
                "{at}"
            );
            assert_eq!(gpu["compute_mode"], dev["compute_mode"], "{at}");
            assert_eq!(
                gpu["persistence_mode"],
                dev["persistence_mode"] == "enabled",
                "{at}"
            );
            let mig = &dev["mig"];
            let capable = mig["max_gpu_instances"].as_u64().unwrap() > 0;
            assert_eq!(gpu["mig"]["capable"], capable, "{at}: MIG capability");
            if capable {
                assert_eq!(gpu["mig"]["current"], mig["mode_current"], "{at}");
                assert_eq!(gpu["mig"]["pending"], mig["mode_pending"], "{at}");
                assert_eq!(gpu["mig"]["instances"], serde_json::json!([]), "{at}");
            }
            // The driver decides; unknown is null with a note, never 0.
            match expected_multiprocessors(name) {
                Some(n) => assert_eq!(gpu["multiprocessors"], n, "{at}"),
                None => {
                    assert_eq!(gpu["multiprocessors"], Value::Null, "{at}");
                    let notes = gpu["notes"].to_string();
                    assert!(
                        notes.contains("nvmlDeviceGetNumGpuCores") && notes.contains("catalog"),
                        "{at}: {notes}"
                    );
                }
            }
        }
    }
}

#[test]
fn every_command_of_a_users_path_ends_with_a_documented_exit_code() {
    let Some(m) = mock("every_command_of_a_users_path_ends_with_a_documented_exit_code") else {
        return;
    };
    for name in CONFIGS {
        let config = m.config(name);
        let capable = yaml_devices(&config).1[0]["mig"]["max_gpu_instances"]
            .as_u64()
            .unwrap()
            > 0;
        let (stdout, _) = m.expect(&config, &["detect"], 0);
        assert!(stdout.contains("nvml  driver"), "{name}: {stdout}");
        // doctor: 0, or 3 when a check fails (no kernel module or device nodes here); the NVML
        // check passes against the mock.
        let (code, stdout, _) = m.run(&config, &["doctor"]);
        assert!(code == 0 || code == 3, "{name}: doctor exit {code}");
        assert!(stdout.contains("PASS    nvml"), "{name}: {stdout}");
        // The whole-GPU modes plan and dry-run on every GPU, MIG-capable or not, known to the
        // catalog or not (issue: exit 2 "cannot list the MIG profiles").
        for file in ["ts.toml", "mps.toml", "none.toml"] {
            let plan = m.json(&config, &["plan", "-c", &m.file(file)]);
            assert_eq!(plan["blockers"], serde_json::json!([]), "{name} {file}");
        }
        let (_, stderr) = m.expect(
            &config,
            &["apply", "-c", &m.file("ts.toml"), "--dry-run"],
            0,
        );
        assert!(stderr.contains("nothing was changed"), "{name}: {stderr}");
        m.expect(
            &config,
            &["apply", "-c", &m.file("none.toml"), "--dry-run"],
            0,
        );
        let (stdout, _) = m.expect(&config, &["mig", "export"], 0);
        assert!(stdout.contains("mig-enabled: false"), "{name}: {stdout}");
        m.expect(
            &config,
            &[
                "mig",
                "assert",
                "-f",
                &m.file("mig-parted.yaml"),
                "-c",
                "all-disabled",
            ],
            0,
        );
        let profiles = m.json(&config, &["mig", "profiles"]);
        if capable {
            for gpu in profiles.as_array().unwrap() {
                // From the catalog where it agrees with the driver, else unknown until MIG is
                // on, with the reason: never a list with nothing in it.
                match gpu["source"].as_str() {
                    Some("catalog") => {
                        assert!(!gpu["profiles"].as_array().unwrap().is_empty(), "{name}")
                    }
                    None => {
                        assert_eq!(gpu["profiles"], Value::Null, "{name}");
                        assert!(gpu["unknown_until_enabled"].is_string(), "{name}");
                    }
                    other => panic!("{name}: source {other:?}"),
                }
            }
            // MIG on with no devices needs no profile table; the plan turns MIG on.
            let plan = m.json(&config, &["plan", "-c", &m.file("mig-empty.toml")]);
            assert_eq!(plan["changes"][0]["action"], "set_mig_mode", "{name}");
            m.expect(
                &config,
                &[
                    "mig",
                    "assert",
                    "-f",
                    &m.file("mig-parted.yaml"),
                    "-c",
                    "all-enabled",
                ],
                3,
            );
        } else {
            assert_eq!(profiles, serde_json::json!([]), "{name}");
            let (_, stderr) = m.expect(&config, &["plan", "-c", &m.file("mig-empty.toml")], 2);
            assert!(stderr.contains("non MIG-capable"), "{name}: {stderr}");
        }
        // init --dry-run writes and changes nothing, and needs no device nodes.
        let (_, stderr) = m.expect(
            &config,
            &[
                "init",
                "--dry-run",
                "--mode",
                "time-slicing",
                "--replicas",
                "2",
            ],
            0,
        );
        assert!(
            stderr.contains("dry run: nothing was written"),
            "{name}: {stderr}"
        );
        assert!(!stderr.contains("--dev-root"), "{name}: {stderr}");
    }
}

#[test]
fn a_mig_layout_the_driver_will_not_list_is_an_error_in_every_command() {
    let Some(m) = mock("a_mig_layout_the_driver_will_not_list_is_an_error_in_every_command") else {
        return;
    };
    // The mock answers the MIG mode, and NOT_SUPPORTED to every profile and instance query.
    let config = m.variant(
        "a100",
        "a100-mig.yaml",
        &[
            ("mode_current: \"disabled\"", "mode_current: \"enabled\""),
            ("mode_pending: \"disabled\"", "mode_pending: \"enabled\""),
        ],
    );
    let (stdout, stderr) = m.expect(&config, &["detect", "--format", "json"], 1);
    let node: Value = serde_json::from_str(&stdout).unwrap();
    let gpu = &node["gpus"][0];
    assert_eq!(gpu["mig"]["current"], "enabled");
    assert_eq!(gpu["mig"]["instances"], Value::Null, "unknown, not empty");
    assert_eq!(gpu["multiprocessors"], 108, "what could be read is printed");
    assert!(
        gpu["notes"]
            .to_string()
            .contains("nvmlDeviceGetGpuInstanceProfileInfo")
    );
    assert!(
        stderr.contains(
            "error: GPU 0 (NVIDIA A100-SXM4-40GB): its MIG layout is unknown: nvmlDeviceGetGpuInstanceProfileInfo"
        ),
        "{stderr}"
    );
    let (stdout, _) = m.expect(&config, &["detect"], 1);
    assert!(stdout.contains("enabled (layout unknown)"), "{stdout}");
    let yaml = m.file("mig-parted.yaml");
    let (ts, mig) = (m.file("ts.toml"), m.file("mig-empty.toml"));
    for args in [
        vec!["mig", "export"],
        vec!["mig", "profiles"],
        vec!["mig", "assert", "-f", &yaml, "-c", "all-enabled"],
        vec!["mig", "assert", "-f", &yaml, "-c", "all-disabled"],
        vec!["mig", "clear", "--dry-run"],
        vec!["mig", "clear"],
        vec![
            "mig",
            "apply",
            "-f",
            &yaml,
            "-c",
            "all-disabled",
            "--dry-run",
        ],
        vec!["plan", "-c", &ts],
        vec!["plan", "-c", &mig],
        vec!["apply", "-c", &ts, "--dry-run"],
        vec!["apply", "-c", &ts],
        vec!["manifests", "--target", "cdi"],
    ] {
        let (stdout, stderr) = m.expect(&config, &args, 1);
        assert!(
            stderr.contains("GPU 0") && stderr.contains("nvmlDeviceGetGpuInstanceProfileInfo"),
            "{args:?}: the call and the GPU are named\n{stderr}"
        );
        assert!(
            !stdout.contains("mig-enabled") && !stderr.contains("no MIG instances"),
            "{args:?}: nothing is reported as empty\n{stdout}{stderr}"
        );
    }
    // With stderr closed the error still ends with gpushare's exit code (not SIGABRT).
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "MOCK_NVML_CONFIG='{}' '{}' --nvml-lib '{}' detect 2>&-",
            config.display(),
            assert_cmd::cargo::cargo_bin!("gpushare").display(),
            m.lib.display()
        ))
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(1));
}

#[test]
fn a_gpu_the_catalog_does_not_know_still_works() {
    let Some(m) = mock("a_gpu_the_catalog_does_not_know_still_works") else {
        return;
    };
    let config = m.variant(
        "a100",
        "future.yaml",
        &[
            (
                "name: \"NVIDIA A100-SXM4-40GB\"",
                "name: \"NVIDIA Future GPU\"",
            ),
            ("device_id: 0x20B010DE", "device_id: 0x2FFF10DE"),
        ],
    );
    let node = m.json(&config, &["detect"]);
    let gpu = &node["gpus"][0];
    assert_eq!(gpu["name"], "NVIDIA Future GPU");
    assert_eq!(gpu["multiprocessors"], Value::Null);
    assert_eq!(gpu["architecture"], "ampere", "from the driver");
    assert_eq!(gpu["mig"]["capable"], true, "from the driver");
    // Its profiles are known once MIG is on, and `mig profiles` says so.
    let profiles = m.json(&config, &["mig", "profiles", "--gpu", "0"]);
    assert_eq!(profiles[0]["profiles"], Value::Null);
    assert!(
        profiles[0]["unknown_until_enabled"]
            .as_str()
            .unwrap()
            .contains("the catalog does not know NVIDIA Future GPU (0x2FFF10DE)")
    );
    // Whole-GPU modes, MIG on without devices, and MIG devices: MIG first, the instances once
    // the driver lists the profiles (a later step).
    m.expect(
        &config,
        &["apply", "-c", &m.file("ts.toml"), "--dry-run"],
        0,
    );
    let plan = m.json(&config, &["plan", "-c", &m.file("mig-empty.toml")]);
    assert!(
        plan["changes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["later"].is_null())
    );
    let plan = m.json(&config, &["plan", "-c", &m.file("mig-devices.toml")]);
    let changes: Vec<(&str, bool)> = plan["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["action"].as_str().unwrap(), c["later"] == true))
        .collect();
    assert_eq!(
        changes,
        [
            ("set_mig_mode", false),
            ("reset", false),
            ("create_gpu_instance", true)
        ]
    );
    assert!(
        plan["changes"][2]["detail"]
            .as_str()
            .unwrap()
            .contains("once MIG is on: 1g.5gb ×2"),
        "{plan}"
    );
}

#[test]
fn a_catalog_entry_that_disagrees_with_the_driver_is_not_used() {
    let Some(m) = mock("a_catalog_entry_that_disagrees_with_the_driver_is_not_used") else {
        return;
    };
    // NVIDIA's mock GB200 has the H100's PCI id: not the H100's SMs, architecture or profiles.
    let config = m.config("gb200");
    let node = m.json(&config, &["detect"]);
    let gpu = &node["gpus"][0];
    assert_eq!(gpu["architecture"], "blackwell");
    assert_eq!(gpu["multiprocessors"], Value::Null);
    let (_, stderr) = m.expect(&config, &["plan", "-c", &m.file("mig-devices.toml")], 0);
    assert!(
        stderr.contains(
            "warning: GPU 0-7: the catalog lists PCI id 0x233010DE as NVIDIA H100 80GB HBM3, but the driver calls it NVIDIA GB200"
        ),
        "{stderr}"
    );
    let profiles = m.json(&config, &["mig", "profiles", "--gpu", "0"]);
    assert_eq!(
        profiles[0]["profiles"],
        Value::Null,
        "no H100 profiles on a GB200"
    );
    // A memory mismatch: an A100 40 GB name and id with 80 GB.
    let config = m.variant(
        "a100",
        "a100-80.yaml",
        &[("total_bytes: 42949672960", "total_bytes: 85899345920")],
    );
    let (_, stderr) = m.expect(&config, &["mig", "profiles", "--gpu", "0"], 0);
    assert!(
        stderr.contains("has 40960 MiB, but the driver reports 81920 MiB"),
        "{stderr}"
    );
}
