//! `gpushare mig …` through the real binary on simulated nodes kept in state files.

use crate::common;
use common::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn config_default() -> PathBuf {
    repo().join("tests/fixtures/mig-parted/config-default.yaml")
}

/// gpushare on a simulated node kept in `state`.
fn on(preset: &str, state: &Path) -> assert_cmd::Command {
    let mut cmd = sim(preset);
    cmd.arg("--sim-state").arg(state);
    cmd
}

fn detect(preset: &str, state: &Path) -> Value {
    json(on(preset, state).arg("detect"))
}

/// GPU index → a field of each MIG device (compute instance), sorted.
fn mig_field(node: &Value, field: &str) -> BTreeMap<u64, Vec<String>> {
    node["gpus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let mut list: Vec<String> = g["mig"]["instances"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|gi| gi["compute_instances"].as_array().unwrap().clone())
                .map(|ci| ci[field].as_str().unwrap().to_string())
                .collect();
            list.sort();
            (g["index"].as_u64().unwrap(), list)
        })
        .collect()
}

/// GPU index → sorted MIG device profiles.
fn devices(node: &Value) -> BTreeMap<u64, Vec<String>> {
    mig_field(node, "profile")
}

/// Every MIG UUID of the node, by GPU.
fn uuids(node: &Value) -> BTreeMap<u64, Vec<String>> {
    mig_field(node, "uuid")
}

#[test]
fn all_balanced_on_a_dgx_a100_then_a_second_run_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("node.json");
    let plan = json(
        on("dgx-a100", &state)
            .args(["mig", "apply", "-f"])
            .arg(config_default())
            .args(["-c", "all-balanced"]),
    );
    assert_eq!(plan["reboot_required"], false);
    assert!(plan["changes"].as_array().unwrap().len() >= 64);
    assert!(
        plan["changes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["status"] == "done" || c["status"] == "not_needed")
    );
    let node = detect("dgx-a100", &state);
    for (gpu, list) in devices(&node) {
        assert_eq!(
            list,
            ["1g.5gb", "1g.5gb", "2g.10gb", "3g.20gb"],
            "GPU {gpu}"
        );
    }
    let out = on("dgx-a100", &state)
        .args(["mig", "apply", "-f"])
        .arg(config_default())
        .args(["-c", "all-balanced", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let again: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(again["changes"], serde_json::json!([]));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing to change"));
    assert_eq!(
        detect("dgx-a100", &state),
        node,
        "nothing changed, same MIG UUIDs"
    );
    // mig assert agrees.
    on("dgx-a100", &state)
        .args(["mig", "assert", "-f"])
        .arg(config_default())
        .args(["-c", "all-balanced"])
        .assert()
        .success();
}

#[test]
fn dry_run_prints_the_plan_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("node.json");
    let before = detect("dgx-h100", &state);
    let plan = json(
        on("dgx-h100", &state)
            .args(["mig", "apply", "--dry-run", "-f"])
            .arg(config_default())
            .args(["-c", "all-1g.10gb"]),
    );
    let changes = plan["changes"].as_array().unwrap();
    assert_eq!(
        changes
            .iter()
            .filter(|c| c["action"] == "create_gpu_instance")
            .count(),
        56
    );
    assert!(changes.iter().all(|c| c.get("status").is_none()));
    for key in ["gpu", "action", "detail"] {
        assert!(changes[0].get(key).is_some(), "changes[].{key}");
    }
    assert_eq!(plan["blockers"], serde_json::json!([]));
    assert_eq!(detect("dgx-h100", &state), before);
}

#[test]
fn assert_exits_3_until_the_layout_is_applied() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("node.json");
    let err = fails_with(
        on("dgx-a100", &state)
            .args(["mig", "assert", "-f"])
            .arg(config_default())
            .args(["-c", "all-3g.20gb"]),
        3,
    );
    assert!(
        err.contains("selected configuration not currently applied"),
        "{err}"
    );
    on("dgx-a100", &state)
        .args(["mig", "apply", "-q", "-f"])
        .arg(config_default())
        .args(["-c", "all-3g.20gb"])
        .assert()
        .success();
    on("dgx-a100", &state)
        .args(["mig", "assert", "-f"])
        .arg(config_default())
        .args(["-c", "all-3g.20gb"])
        .assert()
        .success();
}

#[test]
fn changing_one_gpu_leaves_the_others_and_the_kept_uuids_alone() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("node.json");
    on("dgx-h100", &state)
        .args(["mig", "apply", "-q", "-f"])
        .arg(config_default())
        .args(["-c", "all-balanced"])
        .assert()
        .success();
    let before = detect("dgx-h100", &state);
    let toml = write(
        dir.path(),
        "gpushare.toml",
        r#"
[[gpus]]
select = [3]
mode = "mig"
mig.devices = { "1g.10gb" = 4, "3g.40gb" = 1 }

[[gpus]]
select = [0, 1, 2, 4, 5, 6, 7]
mode = "mig"
mig.devices = { "1g.10gb" = 2, "2g.20gb" = 1, "3g.40gb" = 1 }
"#,
    );
    let plan = json(
        on("dgx-h100", &state)
            .args(["mig", "apply", "-f"])
            .arg(&toml),
    );
    let changes = plan["changes"].as_array().unwrap();
    assert!(changes.iter().all(|c| c["gpu"] == 3), "only GPU 3 changes");
    // The 2g.20gb goes; two 1g.10gb come: nothing else is touched.
    let actions: Vec<&str> = changes
        .iter()
        .map(|c| c["action"].as_str().unwrap())
        .collect();
    assert_eq!(
        actions,
        [
            "destroy_compute_instance",
            "destroy_gpu_instance",
            "create_gpu_instance",
            "create_compute_instance",
            "create_gpu_instance",
            "create_compute_instance"
        ]
    );
    let after = detect("dgx-h100", &state);
    let (b, a) = (uuids(&before), uuids(&after));
    for g in [0, 1, 2, 4, 5, 6, 7] {
        assert_eq!(b[&g], a[&g], "GPU {g} untouched");
    }
    let kept = b[&3].iter().filter(|u| a[&3].contains(u)).count();
    assert_eq!(kept, 3, "the 3g.40gb and both 1g.10gb kept their MIG UUIDs");
    assert_eq!(
        devices(&after)[&3],
        ["1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "3g.40gb"]
    );
}

#[test]
fn export_round_trips_through_apply_and_assert() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("node.json");
    on("mixed", &state)
        .args(["mig", "apply", "-q", "-f"])
        .arg(config_default())
        .args(["-c", "all-balanced"])
        .assert()
        .success();
    let out = on("mixed", &state)
        .args(["mig", "export"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let yaml = String::from_utf8(out.stdout).unwrap();
    assert!(
        yaml.contains("version: v1") && yaml.contains("current:"),
        "{yaml}"
    );
    let exported = write(dir.path(), "current.yaml", &yaml);
    // Without -c: the file has one label.
    on("mixed", &state)
        .args(["mig", "assert", "-f"])
        .arg(&exported)
        .assert()
        .success();
    let plan = json(
        on("mixed", &state)
            .args(["mig", "apply", "-f"])
            .arg(&exported),
    );
    assert_eq!(plan["changes"], serde_json::json!([]));
    let v = json(on("mixed", &state).args(["mig", "export", "-l", "now"]));
    let entries = v["mig-configs"]["now"].as_array().unwrap();
    let enabled = entries.iter().find(|e| e["mig-enabled"] == true).unwrap();
    // Both A100s have the layout: `all` GPUs of that filter, as mig-parted writes it.
    assert_eq!(enabled["devices"], "all");
    assert_eq!(enabled["device-filter"], "0x20B510DE");
    assert_eq!(enabled["mig-devices"]["1g.10gb"], 2);
}

#[test]
fn clear_destroys_every_instance_and_keeps_mig_on() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("node.json");
    on("a30x4", &state)
        .args(["mig", "apply", "-q", "-f"])
        .arg(config_default())
        .args(["-c", "all-1g.6gb"])
        .assert()
        .success();
    let plan = json(on("a30x4", &state).args(["mig", "clear", "--gpu", "1,2", "--dry-run"]));
    assert_eq!(plan["changes"].as_array().unwrap().len(), 16);
    on("a30x4", &state)
        .args(["mig", "clear", "-q", "--gpu", "1,2"])
        .assert()
        .success();
    let node = detect("a30x4", &state);
    let d = devices(&node);
    assert!(d[&1].is_empty() && d[&2].is_empty());
    assert_eq!(d[&0].len(), 4);
    assert_eq!(node["gpus"][1]["mig"]["current"], "enabled");
}

#[test]
fn profiles_follow_the_json_contract() {
    let v = json(sim("mixed").args(["mig", "profiles"]));
    let gpus = v.as_array().unwrap();
    assert_eq!(gpus.len(), 2, "the T4s have no MIG");
    assert_eq!(gpus[0]["gpu"], 0);
    assert_eq!(gpus[0]["name"], "NVIDIA A100 80GB PCIe");
    let p = gpus[0]["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "3g.40gb")
        .unwrap();
    assert_eq!(p["profile_id"], 9);
    assert_eq!(p["slices"], 3);
    assert_eq!(p["memory_mib"], 40192);
    assert_eq!(p["max_instances"], 2);
    assert_eq!(p["free_instances"], 0, "MIG is disabled");
    assert_eq!(
        p["placements"],
        serde_json::json!([{"start": 0, "size": 4}, {"start": 4, "size": 4}])
    );
    let out = sim("rtx-pro-6000x2")
        .args(["mig", "profiles", "--gpu", "1"])
        .output()
        .unwrap();
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.contains("1g.24gb+me.all  65"), "{table}");
    assert!(table.contains("{0,3,6,9}:3"), "{table}");
}

#[test]
fn bad_input_exits_2_before_anything_changes() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("node.json");
    let before = detect("dgx-a100", &state);
    let apply = |args: &[&str], file: &Path| {
        let mut cmd = on("dgx-a100", &state);
        cmd.args(["mig", "apply", "-f"]).arg(file).args(args);
        cmd
    };
    let e = fails_with(&mut apply(&["-c", "nope"], &config_default()), 2);
    assert!(e.contains("selected mig-config not present: nope"), "{e}");
    assert!(e.contains("all-balanced"), "the labels are listed: {e}");
    let e = fails_with(&mut apply(&[], &config_default()), 2);
    assert!(e.contains("selected-config"), "{e}");
    let e = fails_with(&mut apply(&["-c", "all-1g.10gb.me"], &config_default()), 2);
    assert!(e.contains("has no MIG profile `1g.10gb+me`"), "{e}");
    assert!(e.contains("1g.5gb+me"), "valid profiles listed: {e}");
    let yaml = write(
        dir.path(),
        "bad.yaml",
        "version: v1\nmig-configs:\n  x:\n    - devices: all\n      mig-enabled: maybe\n",
    );
    let e = fails_with(&mut apply(&[], &yaml), 2);
    assert!(e.contains("bad.yaml:5:20:"), "{e}");
    let toml = write(
        dir.path(),
        "bad.toml",
        "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"3g.20gb\" = 2, \"1g.5gb\" = 1 }\n",
    );
    let e = fails_with(&mut apply(&[], &toml), 2);
    assert!(
        e.contains("bad.toml:4:1:")
            && e.contains("3g.20gb ×2 fills all 8 memory slices; 1g.5gb needs one more"),
        "{e}"
    );
    let toml = write(
        dir.path(),
        "none.toml",
        "[[gpus]]\nselect = { model = \"NVIDIA H100*\" }\nmode = \"none\"\n",
    );
    let e = fails_with(&mut apply(&[], &toml), 2);
    assert!(e.contains("matches no GPU"), "{e}");
    let toml = write(
        dir.path(),
        "label.toml",
        "[[gpus]]\nselect = \"all\"\nmode = \"none\"\n",
    );
    let e = fails_with(&mut apply(&["-c", "x"], &toml), 2);
    assert!(e.contains("is a gpushare.toml"), "{e}");
    let e = fails_with(&mut apply(&[], &dir.path().join("missing.yaml")), 2);
    assert!(e.contains("cannot read"), "{e}");
    assert_eq!(detect("dgx-a100", &state), before);
}

#[test]
fn a_file_on_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("node.json");
    on("a30x4", &state)
        .args(["mig", "apply", "-q", "-f", "-", "-c", "all-2g.12gb"])
        .write_stdin(std::fs::read_to_string(config_default()).unwrap())
        .assert()
        .success();
    assert_eq!(
        devices(&detect("a30x4", &state))[&0],
        ["2g.12gb", "2g.12gb"]
    );
}

const BUSY_NODE: &str = r#"
holders = [{ name = "nvidia-persistenced", pid = 1834 }]

[[gpus]]
model = "NVIDIA A100-SXM4-40GB"
instances = [{ profile = "3g.20gb", start = 4 }, { profile = "2g.10gb", start = 0 }]
processes = [{ pid = 4242, name = "python", used_memory_mib = 1024, gpu_instance = 0 }]

[[gpus]]
model = "NVIDIA A100-SXM4-40GB"
"#;

#[test]
fn busy_gpus_block_until_forced_then_wait_for_a_reboot() {
    let dir = tempfile::tempdir().unwrap();
    let node = write(dir.path(), "busy.toml", BUSY_NODE);
    let state = dir.path().join("node.json");
    let run = |args: &[&str]| {
        let mut cmd = gpushare();
        cmd.arg("--sim")
            .arg(&node)
            .arg("--sim-state")
            .arg(&state)
            .args(args);
        cmd
    };
    let toml = write(
        dir.path(),
        "gpushare.toml",
        "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"3g.20gb\" = 2 }\n",
    );
    let f = toml.to_str().unwrap();
    // GPU 1 must enable MIG, but nvidia-persistenced blocks the reset: refused, nothing changed.
    let e = fails_with(&mut run(&["mig", "apply", "-f", f]), 1);
    assert!(
        e.contains("nothing was changed") && e.contains("nvidia-persistenced (pid 1834)"),
        "{e}"
    );
    assert!(e.contains("systemctl stop nvidia-persistenced"), "{e}");
    // The busy 3g.20gb on GPU 0 stays; the idle 2g.10gb makes room for the second 3g.20gb.
    let e = fails_with(&mut run(&["mig", "apply", "--force", "-f", f]), 5);
    assert!(e.contains("reboot required"), "{e}");
    let v = json(&mut run(&["detect"]));
    assert_eq!(v["gpus"][1]["mig"]["pending"], "enabled");
    assert_eq!(v["gpus"][0]["processes"][0]["pid"], 4242);
    assert_eq!(devices(&v)[&0], ["3g.20gb", "3g.20gb"]);
    // Until the reboot, the same command says so (exit 5) without --force.
    fails_with(&mut run(&["mig", "apply", "-f", f]), 5);
    run(&["sim", "reboot"]).assert().success();
    run(&["mig", "apply", "-q", "-f", f]).assert().success();
    run(&["mig", "assert", "-f", f]).assert().success();
}

#[test]
fn after_an_injected_failure_the_same_command_converges() {
    let node = r#"
[[gpus]]
model = "NVIDIA A100-SXM4-40GB"
instances = [{ profile = "3g.20gb", start = 4 }, { profile = "1g.10gb", start = 0 }]
processes = [{ pid = 4242, name = "python", used_memory_mib = 1024, gpu_instance = 0 }]

[[gpus]]
model = "NVIDIA A100-SXM4-40GB"
"#;
    let config = "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"3g.20gb\" = 1, \"2g.10gb\" = 2 }\n";
    // One change after another, and both GPUs at once.
    for (jobs, fault) in ["1", "8"].into_iter().flat_map(|jobs| {
        [
            "set_mig_mode:1",
            "destroy_compute_instance:1",
            "destroy_gpu_instance:1",
            "create_gpu_instance:1",
            "create_gpu_instance:3",
            "create_compute_instance:2",
            "create_compute_instance:4",
        ]
        .map(|fault| (jobs, fault))
    }) {
        let dir = tempfile::tempdir().unwrap();
        let node_file = write(dir.path(), "node.toml", node);
        let toml = write(dir.path(), "gpushare.toml", config);
        let state = dir.path().join("state.json");
        let run = || {
            let mut cmd = gpushare();
            cmd.env("GPUSHARE_JOBS", jobs)
                .arg("--sim")
                .arg(&node_file)
                .arg("--sim-state")
                .arg(&state);
            cmd.args(["mig", "apply", "-q", "-f"]).arg(&toml);
            cmd
        };
        let e = fails_with(run().env("GPUSHARE_SIM_FAIL", fault), 1);
        assert!(
            e.contains("injected failure") && e.contains("run the same command again"),
            "{fault}: {e}"
        );
        run().assert().success();
        let v = json(gpushare().arg("--sim-state").arg(&state).arg("detect"));
        let busy = v["gpus"][0]["mig"]["instances"]
            .as_array()
            .unwrap()
            .iter()
            .find(|gi| gi["profile"] == "3g.20gb")
            .unwrap();
        assert_eq!(
            busy["placement"]["start"], 4,
            "{fault}: the busy instance stays"
        );
        assert_eq!(
            v["gpus"][0]["processes"][0]["gpu_instance_id"],
            busy["gpu_instance_id"]
        );
        for (gpu, list) in devices(&v) {
            assert_eq!(
                list,
                ["2g.10gb", "2g.10gb", "3g.20gb"],
                "{fault}: GPU {gpu}"
            );
        }
    }
}

#[test]
fn mig_changes_wait_for_the_node_lock_like_apply() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let lock = root.join("run/gpushare/lock");
    let (held, _) = gpushare::change::lock::NodeLock::acquire(
        &lock,
        "apply",
        std::time::Duration::from_secs(1),
    )
    .unwrap();
    let err = fails_with(
        sim("dgx-a100").arg("--state-root").arg(&root).args([
            "--lock-timeout",
            "0.3",
            "mig",
            "clear",
        ]),
        1,
    );
    assert!(err.contains("holds") && err.contains("(apply)"), "{err}");
    // A dry run changes nothing and takes no lock.
    sim("dgx-a100")
        .arg("--state-root")
        .arg(&root)
        .args(["--lock-timeout", "0.3", "mig", "clear", "--dry-run"])
        .assert()
        .success();
    drop(held);
    sim("dgx-a100")
        .arg("--state-root")
        .arg(&root)
        .args(["mig", "clear"])
        .assert()
        .success();
}
