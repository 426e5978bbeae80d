//! What a real driver does that a first node would hit (issue 18's NVML points), each on the
//! stand-in libnvidia-ml behaving as the driver does there: placements asked for their count first,
//! a caller without root, MIG off, codes gpushare must name, the parent GPU's compute mode with MIG
//! on, a MIG-capable GPU the catalog does not know, a driver older than the versioned calls, and
//! MIG-device fields the driver refuses.

use crate::common;

use assert_cmd::Command;
use common::json;
use common::nvml_standin::*;
use gpushare::node::backend::Backend;
use gpushare::node::backend::nvml::NvmlBackend;
use serde_json::Value;
use std::path::Path;

/// GPU 0: MIG on, a 3g.20gb instance with a process and a 1g.5gb one; GPU 1: MIG off.
const MIG_NODE: &str = r#"
[[gpus]]
model = "NVIDIA A100-SXM4-40GB"
mig = "enabled"
instances = [{ profile = "3g.20gb", start = 4 }, { profile = "1g.5gb", start = 0 }]
processes = [{ pid = 4242, name = "python", used_memory_mib = 1024, gpu_instance = 0 }]

[[gpus]]
model = "NVIDIA A100-SXM4-40GB"
"#;

/// Two A100s with MIG off.
const TWO_A100: &str = "[[gpus]]\nmodel = \"NVIDIA A100-SXM4-40GB\"\ncount = 2\n";

/// gpushare through the NVML backend with stand-in switches set.
fn nvml(node: &TwinNode, switches: &[(&str, &str)]) -> Command {
    let mut c = node.nvml();
    for (k, v) in switches {
        c.env(k, v);
    }
    c
}

/// The calls of `name` in a log.
fn calls_of<'a>(calls: &'a [Value], name: &str) -> Vec<&'a Value> {
    calls.iter().filter(|c| c["fn"] == name).collect()
}

fn notes(gpu: &Value) -> Vec<(String, String, bool)> {
    gpu["notes"]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|n| {
                    (
                        n["field"].as_str().unwrap().to_string(),
                        n["message"].as_str().unwrap().to_string(),
                        n["needs_root"] == true,
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

const CHILD_GPU_INSTANCE: &str = "GPUSHARE_TEST_CHILD_GPU_INSTANCE";
const CHILD_NVML_LIB: &str = "GPUSHARE_TEST_CHILD_NVML_LIB";

/// Point 3: a compute-instance profile can have more placements than instances, and `nvml.h`
/// says the placement buffer must hold them all. The backend asks for the count first (a null
/// buffer), then passes a buffer that holds every placement; a buffer sized by the instance count
/// would be refused (INSUFFICIENT_SIZE). No command lists compute-instance profiles from the
/// driver yet, so the backend is called from a child of this test, which gets the stand-in's
/// environment.
#[test]
fn compute_instance_placements_are_asked_for_their_count_first() {
    if let Ok(gi) = std::env::var(CHILD_GPU_INSTANCE) {
        let lib = std::env::var_os(CHILD_NVML_LIB).expect("the library to load");
        let backend = NvmlBackend::open(Some(Path::new(&lib))).expect("the stand-in loads");
        let profiles = backend
            .compute_instance_profiles(0, gi.parse().unwrap())
            .expect("the driver lists the compute-instance profiles");
        for p in profiles {
            println!("profile: {} {} {:?}", p.name, p.max_instances, p.starts);
        }
        return;
    }
    let Some(node) = TwinNode::new(MIG_NODE) else {
        return;
    };
    let seen = json(node.nvml().arg("detect"));
    let three = seen["gpus"][0]["mig"]["instances"]
        .as_array()
        .unwrap()
        .iter()
        .find(|gi| gi["profile"] == "3g.20gb")
        .unwrap()["gpu_instance_id"]
        .to_string();
    node.take_calls();
    // This test again, in a child of the test binary (the test's name is its path in the crate).
    let (_, module) = module_path!().split_once("::").unwrap();
    let name = format!("{module}::compute_instance_placements_are_asked_for_their_count_first");
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", &name, "--nocapture", "--test-threads", "1"])
        .env(CHILD_GPU_INSTANCE, &three)
        .env(CHILD_NVML_LIB, &stand_in().lib)
        .env("NVML_STANDIN_STATE", node.nvml_state())
        .env("NVML_STANDIN_LOG", node.log())
        .env("NVML_STANDIN_CI_STARTS_UNALIGNED", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.split_once("profile: ").map(|(_, p)| p))
        .collect();
    // A 3-slice GPU instance: 2c has one instance and two starts.
    assert_eq!(
        listed,
        [
            "1c.3g.20gb 3 [0, 1, 2]",
            "2c.3g.20gb 1 [0, 1]",
            "3g.20gb 1 [0]"
        ]
    );
    let calls = node.take_calls();
    let placements = calls_of(
        &calls,
        "nvmlGpuInstanceGetComputeInstancePossiblePlacements",
    );
    assert_eq!(placements.len(), 6, "count, then list, per profile");
    for pair in placements.chunks(2) {
        assert_eq!(
            pair[0]["args"]["buffer"], false,
            "the count first: {pair:?}"
        );
        assert_eq!(pair[1]["args"]["buffer"], true, "{pair:?}");
        assert_eq!(
            pair[1]["args"]["count"], pair[0]["out"]["count"],
            "a buffer that holds every placement: {pair:?}"
        );
        assert_eq!(pair[1]["ret"], "SUCCESS", "{pair:?}");
    }
}

/// Point 4: without root, `detect` on a MIG node shows everything the driver tells a user and
/// says what needs root; what plans or exports a layout fails naming the refused call.
#[test]
fn without_root_detect_degrades_per_field_and_layout_commands_name_the_call() {
    let Some(node) = TwinNode::new(MIG_NODE) else {
        return;
    };
    let non_root = [("NVML_STANDIN_NON_ROOT", "1")];
    let out = nvml(&node, &non_root)
        .args(["detect", "--format", "json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let seen: Value = serde_json::from_slice(&out.stdout).unwrap();
    let sim = json(node.sim().arg("detect"));
    let (mig, off) = (&seen["gpus"][0], &seen["gpus"][1]);
    for field in ["uuid", "name", "memory_total_mib", "compute_mode", "mig"] {
        if field != "mig" {
            assert_eq!(mig[field], sim["gpus"][0][field], "{field}");
        }
    }
    assert_eq!(mig["mig"]["current"], "enabled");
    assert_eq!(mig["mig"]["instances"], Value::Null, "unknown, not empty");
    assert_eq!(mig["processes"], Value::Null, "unknown, not empty");
    let n = notes(mig);
    assert!(
        n.iter().any(|(f, m, root)| f == "mig.instances"
            && m.contains("nvmlDeviceGetGpuInstances")
            && m.contains("Insufficient Permissions")
            && *root),
        "{n:?}"
    );
    assert!(
        n.iter().any(|(f, m, root)| f == "processes"
            && m.contains("nvmlDeviceGetComputeRunningProcesses")
            && *root),
        "{n:?}"
    );
    // MIG off: nothing needs root there.
    assert_eq!(off["mig"]["instances"], serde_json::json!([]));
    assert_eq!(off["processes"], serde_json::json!([]));
    assert!(notes(off).is_empty(), "{off}");
    assert!(
        stderr.contains("mig.instances, processes only to root; run gpushare as root"),
        "{stderr}"
    );
    // The table says so too, and succeeds.
    let (table, _) = run(nvml(&node, &non_root).arg("detect"), 0, "detect (table)");
    assert!(table.contains("enabled (layout unknown)"), "{table}");
    node.take_calls();
    // What needs the layout fails, naming the call and the GPU, and changes nothing.
    let cfg = node.write(
        "mig-parted.yaml",
        "version: v1\nmig-configs:\n  ones:\n    - devices: all\n      mig-enabled: true\n      mig-devices:\n        \"1g.5gb\": 7\n",
    );
    for args in [
        vec!["mig", "export"],
        vec!["mig", "clear"],
        vec!["mig", "apply", "-f", &cfg, "-c", "ones"],
        vec!["mig", "assert", "-f", &cfg, "-c", "ones"],
    ] {
        let (_, err) = run(nvml(&node, &non_root).args(&args), 1, &args.join(" "));
        assert!(
            err.contains("GPU 0 (NVIDIA A100-SXM4-40GB): its MIG layout is unknown: nvmlDeviceGetGpuInstances")
                && err.contains("hint: run the command as root"),
            "{args:?}: {err}"
        );
    }
    assert!(changes(&node.take_calls()).is_empty(), "nothing changed");
}

/// The profiles `mig profiles` lists for its first GPU, by profile id.
fn by_id(listed: &Value) -> Vec<Value> {
    let mut list = listed[0]["profiles"].as_array().unwrap().clone();
    list.sort_by_key(|p| p["profile_id"].as_u64());
    list
}

/// Point 5: with MIG off the versioned profile call answers NOT_SUPPORTED, but the v1 call and
/// the placements answer regardless of the mode: the driver's list is asked first, and the
/// catalog stands in only where the driver lists nothing.
#[test]
fn with_mig_off_the_driver_is_asked_for_its_profiles_before_the_catalog() {
    let Some(node) = TwinNode::new(TWO_A100) else {
        return;
    };
    let sim = json(node.sim().args(["mig", "profiles", "--gpu", "0"]));
    let listed = json(node.nvml().args(["mig", "profiles", "--gpu", "0"]));
    assert_eq!(listed[0]["source"], "driver", "{listed}");
    assert_eq!(
        by_id(&listed),
        by_id(&sim),
        "the driver's list is the catalog's here"
    );
    let count = listed[0]["profiles"].as_array().unwrap().len();
    let calls = node.take_calls();
    let versioned = calls_of(&calls, "nvmlDeviceGetGpuInstanceProfileInfoV");
    assert!(
        versioned.iter().any(|c| c["ret"] == "NOT_SUPPORTED"),
        "the versioned call first: {versioned:?}"
    );
    let v1: Vec<&Value> = calls_of(&calls, "nvmlDeviceGetGpuInstanceProfileInfo")
        .into_iter()
        .filter(|c| c["ret"] == "SUCCESS")
        .collect();
    assert_eq!(v1.len(), count, "every profile from the v1 call");
    let placements = calls_of(&calls, "nvmlDeviceGetGpuInstancePossiblePlacements_v2");
    assert_eq!(placements.len(), 2 * count, "count, then list, per profile");
    assert!(placements.iter().all(|c| c["ret"] == "SUCCESS"));

    // A driver that lists nothing while MIG is off: the catalog is the last resort, and says so.
    let listed = json(
        nvml(&node, &[("NVML_STANDIN_PROFILES_NEED_MIG", "1")])
            .args(["mig", "profiles", "--gpu", "0"]),
    );
    assert_eq!(listed[0]["source"], "catalog", "{listed}");
    assert_eq!(by_id(&listed), by_id(&sim));
    let calls = node.take_calls();
    assert!(
        calls_of(&calls, "nvmlDeviceGetGpuInstanceProfileInfo")
            .iter()
            .any(|c| c["ret"] == "NOT_SUPPORTED"),
        "the driver was asked before the catalog"
    );
}

/// Point 7 and the MIG calls' errors: INSUFFICIENT_SIZE and ARGUMENT_VERSION_MISMATCH are named,
/// and an error from a MIG call says which GPU it was about.
#[test]
fn insufficient_size_and_argument_version_mismatch_are_named_with_the_gpu() {
    let Some(node) = TwinNode::new(MIG_NODE) else {
        return;
    };
    let (_, err) = run(
        nvml(
            &node,
            &[(
                "NVML_STANDIN_FAIL",
                "nvmlDeviceGetGpuInstances:1:INSUFFICIENT_SIZE",
            )],
        )
        .args(["mig", "export"]),
        1,
        "export",
    );
    assert!(
        err.contains("GPU 0 (NVIDIA A100-SXM4-40GB): its MIG layout is unknown: nvmlDeviceGetGpuInstances (profile id")
            && err.contains("(Insufficient Size)"),
        "{err}"
    );
    let cfg = node.write(
        "mig-parted.yaml",
        "version: v1\nmig-configs:\n  gpu1:\n    - devices: [1]\n      mig-enabled: true\n      mig-devices:\n        \"1g.5gb\": 7\n",
    );
    let (_, err) = run(
        nvml(
            &node,
            &[(
                "NVML_STANDIN_FAIL",
                "nvmlDeviceCreateGpuInstanceWithPlacement:1:ARGUMENT_VERSION_MISMATCH",
            )],
        )
        .args(["mig", "apply", "-q", "-f", &cfg, "-c", "gpu1"]),
        1,
        "apply",
    );
    // The failed step names the GPU once, then the call and the code.
    assert!(
        err.contains("GPU 1: create_gpu_instance (1g.5gb at 0:1) failed: nvmlDeviceCreateGpuInstanceWithPlacement (profile id 19 at 0:1) (Argument Version Mismatch)"),
        "{err}"
    );
    run(
        node.nvml()
            .args(["mig", "apply", "-q", "-f", &cfg, "-c", "gpu1"]),
        0,
        "the re-run converges",
    );
}

/// With MIG on, only MIG devices have a compute mode; a driver that refuses the parent GPU's is
/// unknown there (null, a note), never an error or `default`.
#[test]
fn the_parent_gpus_compute_mode_refused_with_mig_on_is_unknown() {
    let Some(node) = TwinNode::new(MIG_NODE) else {
        return;
    };
    let switch = [("NVML_STANDIN_MIG_PARENT_NO_COMPUTE_MODE", "1")];
    let seen = json(nvml(&node, &switch).arg("detect"));
    let (mig, off) = (&seen["gpus"][0], &seen["gpus"][1]);
    assert_eq!(mig["compute_mode"], Value::Null, "{mig}");
    let n = notes(mig);
    assert!(
        n.iter().any(|(f, m, _)| f == "compute_mode"
            && m.contains("nvmlDeviceGetComputeMode")
            && m.contains("each MIG device has its own compute mode")),
        "{n:?}"
    );
    for gi in mig["mig"]["instances"].as_array().unwrap() {
        assert_eq!(gi["compute_instances"][0]["compute_mode"], "default");
    }
    assert_eq!(off["compute_mode"], "default", "MIG off: the GPU has one");
    let (table, _) = run(nvml(&node, &switch).arg("detect"), 0, "detect (table)");
    assert!(
        table.lines().nth(3).is_some_and(|l| l.contains(" ? ")),
        "{table}"
    );
    // Everything else still reads and plans: the layout is known.
    let (export, _) = run(nvml(&node, &switch).args(["mig", "export"]), 0, "export");
    let (sim_export, _) = run(node.sim().args(["mig", "export"]), 0, "export");
    assert_eq!(export, sim_export);
}

/// The switches that make every GPU one the catalog does not know.
const UNKNOWN_GPU: [(&str, &str); 2] = [
    ("NVML_STANDIN_GPU_NAME", "NVIDIA A100X-SXM9-40GB"),
    ("NVML_STANDIN_GPU_PCI_ID", "0x999910DE"),
];

const UNKNOWN_LAYOUT: &str = "[[gpus]]\nselect = [0, 1]\nmode = \"mig\"\n\
                              mig.devices = { \"3g.20gb\" = 1, \"2g.10gb\" = 1, \"1g.5gb\" = 2 }\n";

/// A MIG-capable GPU the catalog does not know, on a driver that lists its profiles with MIG
/// off (v1): it is MIG-capable, and a layout is planned from the driver's own list and applied.
#[test]
fn a_gpu_the_catalog_does_not_know_gets_its_layout_from_the_driver() {
    let Some(node) = TwinNode::new(TWO_A100) else {
        return;
    };
    let seen = json(nvml(&node, &UNKNOWN_GPU).arg("detect"));
    let gpu = &seen["gpus"][0];
    assert_eq!(gpu["name"], "NVIDIA A100X-SXM9-40GB");
    assert_eq!(gpu["pci_device_id"], "0x999910DE");
    assert_eq!(gpu["mig"]["capable"], true, "{gpu}");
    assert_eq!(gpu["multiprocessors"], 108, "from the driver's cores");
    let cfg = node.write("gpushare.toml", UNKNOWN_LAYOUT);
    let plan = json(nvml(&node, &UNKNOWN_GPU).args(["plan", "-c", &cfg]));
    let changes_planned = plan["changes"].as_array().unwrap();
    assert!(changes_planned.iter().all(|c| c.get("later").is_none()));
    assert_eq!(
        changes_planned
            .iter()
            .filter(|c| c["action"] == "create_gpu_instance")
            .count(),
        8
    );
    run(
        nvml(&node, &UNKNOWN_GPU).args(["apply", "-q", "-c", &cfg]),
        0,
        "apply",
    );
    run(
        node.sim().args(["apply", "-q", "-c", &cfg]),
        0,
        "apply (simulator)",
    );
    let (export, _) = run(nvml(&node, &UNKNOWN_GPU).args(["mig", "export"]), 0, "");
    let (sim_export, _) = run(node.sim().args(["mig", "export"]), 0, "");
    assert_eq!(export, sim_export);
    run(
        nvml(&node, &UNKNOWN_GPU).args(["plan", "--check", "-q", "-c", &cfg]),
        0,
        "converged",
    );
}

/// The same GPU on a driver that lists MIG profiles only with MIG on (and reports the maximum
/// MIG device count with MIG off, as NVIDIA's mock does): MIG is enabled first, and the
/// instances wait in `later` changes that are planned from the driver's list once MIG is on —
/// through `apply` and through `mig apply`.
#[test]
fn a_gpu_the_catalog_does_not_know_gets_its_instances_in_the_later_pass() {
    let switches = [
        UNKNOWN_GPU[0],
        UNKNOWN_GPU[1],
        ("NVML_STANDIN_PROFILES_NEED_MIG", "1"),
        ("NVML_STANDIN_MAX_MIG_DEVICES_ALWAYS", "1"),
    ];
    let Some(node) = TwinNode::new(TWO_A100) else {
        return;
    };
    let cfg = node.write("gpushare.toml", UNKNOWN_LAYOUT);
    let plan = json(nvml(&node, &switches).args(["plan", "-c", &cfg]));
    let later: Vec<&Value> = plan["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["later"] == true)
        .collect();
    assert_eq!(later.len(), 2, "{plan}");
    for c in &later {
        let detail = c["detail"].as_str().unwrap();
        assert!(
            detail.contains("once MIG is on: 1g.5gb ×2, 2g.10gb ×1, 3g.20gb ×1")
                && detail.contains("the catalog does not know NVIDIA A100X-SXM9-40GB"),
            "{detail}"
        );
    }
    node.take_calls();
    run(
        nvml(&node, &switches).args(["apply", "-q", "-c", &cfg]),
        0,
        "apply",
    );
    let calls = node.take_calls();
    let first_create = calls
        .iter()
        .position(|c| c["fn"] == "nvmlDeviceCreateGpuInstanceWithPlacement")
        .unwrap();
    let last_mode = calls
        .iter()
        .rposition(|c| c["fn"] == "nvmlDeviceSetMigMode")
        .unwrap();
    assert!(last_mode < first_create, "MIG first, then the instances");
    assert!(
        calls[last_mode..first_create]
            .iter()
            .any(|c| c["fn"] == "nvmlDeviceGetGpuInstanceProfileInfoV" && c["ret"] == "SUCCESS"),
        "the instances are planned from the driver's list"
    );
    run(
        node.sim().args(["apply", "-q", "-c", &cfg]),
        0,
        "apply (simulator)",
    );
    let (export, _) = run(nvml(&node, &switches).args(["mig", "export"]), 0, "");
    let (sim_export, _) = run(node.sim().args(["mig", "export"]), 0, "");
    assert_eq!(export, sim_export);

    // mig apply, on a fresh node.
    let Some(node) = TwinNode::new(TWO_A100) else {
        return;
    };
    let mig_parted = node.write(
        "mig-parted.yaml",
        "version: v1\nmig-configs:\n  ones:\n    - devices: all\n      mig-enabled: true\n      mig-devices:\n        \"1g.5gb\": 7\n",
    );
    let apply = ["mig", "apply", "-f", &mig_parted, "-c", "ones"];
    let (plan, _) = run(
        nvml(&node, &switches).args(apply).arg("--dry-run"),
        0,
        "dry run",
    );
    assert!(plan.contains("once MIG is on: 1g.5gb ×7"), "{plan}");
    run(nvml(&node, &switches).args(apply).arg("-q"), 0, "mig apply");
    run(node.sim().args(apply).arg("-q"), 0, "mig apply (simulator)");
    run(
        nvml(&node, &switches).args(["mig", "assert", "-f", &mig_parted, "-c", "ones"]),
        0,
        "assert",
    );
    let (export, _) = run(nvml(&node, &switches).args(["mig", "export"]), 0, "");
    let (sim_export, _) = run(node.sim().args(["mig", "export"]), 0, "");
    assert_eq!(export, sim_export);
}

/// A driver older than the versioned calls (`_v3`/`_v2` process lists, memory info v2, compute
/// instance info v2, placements v2, the `…ProfileInfoV` calls): each answers FUNCTION_NOT_FOUND
/// and the older call is asked. What the older calls cannot say is unknown: a compute
/// instance's start, a process's MIG instance (which then counts as in every instance).
#[test]
fn a_driver_without_the_versioned_calls_gets_the_older_ones() {
    let old = [("NVML_STANDIN_OLD_DRIVER", "1")];
    let Some(node) = TwinNode::new(TWO_A100) else {
        return;
    };
    let default = common::repo().join("tests/fixtures/mig-parted/config-default.yaml");
    let apply = [
        "mig",
        "apply",
        "-q",
        "-f",
        default.to_str().unwrap(),
        "-c",
        "all-balanced",
    ];
    run(nvml(&node, &old).args(apply), 0, "apply on an old driver");
    run(node.sim().args(apply), 0, "apply (simulator)");
    let calls = node.take_calls();
    for (new, older) in [
        (
            "nvmlDeviceGetGpuInstanceProfileInfoV",
            "nvmlDeviceGetGpuInstanceProfileInfo",
        ),
        (
            "nvmlDeviceGetGpuInstancePossiblePlacements_v2",
            "nvmlDeviceGetGpuInstancePossiblePlacements",
        ),
        ("nvmlDeviceGetMemoryInfo_v2", "nvmlDeviceGetMemoryInfo"),
        (
            "nvmlDeviceGetComputeRunningProcesses_v3",
            "nvmlDeviceGetComputeRunningProcesses",
        ),
        (
            "nvmlComputeInstanceGetInfo_v2",
            "nvmlComputeInstanceGetInfo",
        ),
        (
            "nvmlGpuInstanceGetComputeInstanceProfileInfoV",
            "nvmlGpuInstanceGetComputeInstanceProfileInfo",
        ),
    ] {
        assert!(
            calls_of(&calls, new)
                .iter()
                .all(|c| c["ret"] == "FUNCTION_NOT_FOUND"),
            "{new}"
        );
        assert!(
            calls_of(&calls, older)
                .iter()
                .any(|c| c["ret"] == "SUCCESS"),
            "{older} answers instead of {new}"
        );
    }
    let (export, _) = run(nvml(&node, &old).args(["mig", "export"]), 0, "export");
    let (sim_export, _) = run(node.sim().args(["mig", "export"]), 0, "export");
    assert_eq!(export, sim_export);
    let seen = json(nvml(&node, &old).arg("detect"));
    let gpu = &seen["gpus"][0];
    for gi in gpu["mig"]["instances"].as_array().unwrap() {
        let ci = &gi["compute_instances"][0];
        assert_eq!(ci["placement"]["start"], Value::Null, "unknown, not 0");
        assert!(ci["placement"]["size"].as_u64().unwrap() > 0);
    }
    assert!(
        notes(gpu)
            .iter()
            .any(|(f, m, _)| f == "mig.instances.placement"
                && m.contains("nvmlComputeInstanceGetInfo_v2")),
        "{gpu}"
    );
    run(nvml(&node, &old).args(apply), 0, "again");
    assert!(changes(&node.take_calls()).is_empty(), "converged");

    // A process the v1 list cannot place blocks every instance of its GPU.
    let Some(node) = TwinNode::new(MIG_NODE) else {
        return;
    };
    let seen = json(nvml(&node, &old).arg("detect"));
    let p = &seen["gpus"][0]["processes"][0];
    assert_eq!(
        (p["pid"].as_u64(), &p["gpu_instance_id"]),
        (Some(4242), &Value::Null)
    );
    let cfg = node.write(
        "gpushare.toml",
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"3g.20gb\" = 1, \"2g.10gb\" = 1 }\n",
    );
    let (_, err) = run(
        nvml(&node, &old).args(["apply", "-q", "-c", &cfg]),
        1,
        "apply over a process that could be anywhere",
    );
    assert!(
        err.contains("no layout keeps the GPU instance(s) in use (3g.20gb at 4:4, 1g.5gb at 0:1)"),
        "both instances count as in use: {err}"
    );
    assert!(changes(&node.take_calls()).is_empty(), "nothing destroyed");
}

/// A MIG device's UUID or compute mode the driver refuses is unknown (null, with a note naming
/// the call), never `""` or `default`; what addresses MIG devices by UUID refuses that one.
#[test]
fn a_refused_mig_device_uuid_or_compute_mode_is_unknown() {
    let Some(node) = TwinNode::new(MIG_NODE) else {
        return;
    };
    let refuse = [(
        "NVML_STANDIN_MIG_DEVICE_FAIL",
        "nvmlDeviceGetUUID:NO_PERMISSION,nvmlDeviceGetComputeMode:NOT_SUPPORTED",
    )];
    let seen = json(nvml(&node, &refuse).arg("detect"));
    let gpu = &seen["gpus"][0];
    assert_eq!(
        gpu["compute_mode"], "default",
        "the GPU's own still answers"
    );
    for gi in gpu["mig"]["instances"].as_array().unwrap() {
        let ci = &gi["compute_instances"][0];
        assert_eq!(ci["uuid"], Value::Null, "{gpu}");
        assert_eq!(ci["compute_mode"], Value::Null, "{gpu}");
    }
    let n = notes(gpu);
    assert!(
        n.iter().any(|(f, m, root)| f == "mig.instances.uuid"
            && m.contains("nvmlDeviceGetUUID (MIG device 0) (Insufficient Permissions)")
            && *root),
        "{n:?}"
    );
    assert!(
        n.iter().any(|(f, m, _)| f == "mig.instances.compute_mode"
            && m.contains("nvmlDeviceGetComputeMode (MIG device 0) (Not Supported)")),
        "{n:?}"
    );
    let (table, _) = run(nvml(&node, &refuse).arg("detect"), 0, "detect (table)");
    assert!(table.contains(" ?"), "{table}");
    // MPS on the MIG devices needs each one's UUID: the plan refuses, naming the device.
    let cfg = node.write(
        "gpushare.toml",
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\n\
         mig.devices = { \"3g.20gb\" = 1, \"1g.5gb\" = 1 }\nmig.mps = { clients = 2 }\n",
    );
    let (_, err) = run(
        nvml(&node, &refuse).args(["plan", "-c", &cfg]),
        1,
        "plan MPS",
    );
    assert!(
        err.contains("the UUID of MIG device") && err.contains("is unknown: compute instance"),
        "{err}"
    );
    assert!(err.contains("hint: run the command as root"), "{err}");
}
