//! Every MIG change through the real NVML backend: gpushare loads the stand-in libnvidia-ml
//! (tests/nvml-standin, built by these tests) with `--nvml-lib`, and the same commands run on a
//! twin node through the simulator backend. The two must agree on `detect` and `mig export`
//! after every step, and the stand-in's call log shows the NVML calls themselves: compute
//! instances destroyed before their GPU instance, no call on a kept instance, one MIG mode
//! change per GPU, GPU instances created at the planned placements.

use crate::common;

use common::nvml_standin::*;
use common::{json, repo};
use gpushare::node::model::catalog::catalog;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

fn mig_parted_config() -> PathBuf {
    repo().join("tests/fixtures/mig-parted/config-default.yaml")
}

/// `mig VERB -q -f config-default.yaml -c LABEL`.
fn mig_parted(verb: &str, label: &str) -> Vec<String> {
    let cfg = mig_parted_config();
    ["mig", verb, "-q", "-f", cfg.to_str().unwrap(), "-c", label]
        .map(String::from)
        .to_vec()
}

/// The labels of mig-parted's config-default.yaml, in file order.
fn labels() -> Vec<String> {
    let text = std::fs::read_to_string(mig_parted_config()).unwrap();
    let mut out = Vec::new();
    let mut in_configs = false;
    for line in text.lines() {
        if line.starts_with("mig-configs:") {
            in_configs = true;
        } else if in_configs
            && let Some(label) = line.strip_prefix("  ").and_then(|l| l.strip_suffix(':'))
            && !label.starts_with(' ')
            && !label.starts_with('#')
        {
            out.push(label.to_string());
        }
    }
    out
}

fn nvml_detect(node: &TwinNode) -> Value {
    json(node.nvml().arg("detect"))
}

/// `detect` and `mig export` agree between the NVML backend and the simulator.
fn assert_same_node(node: &TwinNode, what: &str) {
    let nvml = comparable_detect(nvml_detect(node));
    let sim = comparable_detect(json(node.sim().arg("detect")));
    assert_eq!(
        nvml, sim,
        "{what}: detect differs between NVML and the simulator"
    );
    let (nvml_export, _) = run(node.nvml().args(["mig", "export"]), 0, what);
    let (sim_export, _) = run(node.sim().args(["mig", "export"]), 0, what);
    assert_eq!(
        nvml_export, sim_export,
        "{what}: mig export differs between NVML and the simulator"
    );
    node.take_calls();
}

fn arg(call: &Value, key: &str) -> Option<u64> {
    call["args"][key].as_u64()
}

/// The order rules every changing run must keep: a compute instance is destroyed before its GPU
/// instance (and the driver refuses the GPU instance while one is left); at most one MIG mode
/// change per GPU; every changing call succeeds.
fn assert_call_order(calls: &[Value], what: &str) {
    let mut modes: BTreeMap<u64, u32> = BTreeMap::new();
    for (i, c) in changes(calls).into_iter().enumerate() {
        assert_eq!(c["ret"], "SUCCESS", "{what}: changing call {i} failed: {c}");
        match c["fn"].as_str().unwrap() {
            "nvmlDeviceSetMigMode" => *modes.entry(arg(c, "gpu").unwrap()).or_default() += 1,
            "nvmlGpuInstanceDestroy" => {
                let (gpu, gi) = (arg(c, "gpu"), arg(c, "gi"));
                let later_ci = calls.iter().skip_while(|x| !std::ptr::eq(*x, c)).any(|x| {
                    x["fn"] == "nvmlComputeInstanceDestroy"
                        && arg(x, "gpu") == gpu
                        && arg(x, "gi") == gi
                });
                assert!(
                    !later_ci,
                    "{what}: a compute instance of GPU instance {gpu:?}:{gi:?} was destroyed after it"
                );
            }
            _ => {}
        }
    }
    for (gpu, n) in modes {
        assert_eq!(n, 1, "{what}: {n} MIG mode changes on GPU {gpu}");
    }
}

/// (gpu, profile id, start, size) of the GPU instances a plan creates, by GPU in plan order.
fn planned_creates(plan: &Value, detect: &Value) -> Vec<(u64, u64, u64, u64)> {
    let mut out = Vec::new();
    for c in plan["changes"].as_array().unwrap() {
        if c["action"] != "create_gpu_instance" {
            continue;
        }
        let gpu = c["gpu"].as_u64().unwrap();
        // "3g.20gb at 4:4"
        let detail = c["detail"].as_str().unwrap();
        let (name, at) = detail.split_once(" at ").unwrap();
        let (start, size) = at.split_once(':').unwrap();
        let model = detect["gpus"][gpu as usize]["name"].as_str().unwrap();
        let table = catalog()
            .mig_table(catalog().model(model).unwrap())
            .unwrap();
        let id = table.profile(name).unwrap().id;
        out.push((
            gpu,
            u64::from(id),
            start.parse().unwrap(),
            size.parse().unwrap(),
        ));
    }
    out.sort_by_key(|c| c.0);
    out
}

/// (gpu, profile id, start, size) of the GPU instances created, by GPU: the GPUs change at
/// once, each in plan order.
fn logged_creates(calls: &[Value]) -> Vec<(u64, u64, u64, u64)> {
    let mut out: Vec<_> = calls
        .iter()
        .filter(|c| c["fn"] == "nvmlDeviceCreateGpuInstanceWithPlacement")
        .map(|c| {
            (
                arg(c, "gpu").unwrap(),
                arg(c, "profileId").unwrap(),
                arg(c, "start").unwrap(),
                arg(c, "size").unwrap(),
            )
        })
        .collect();
    out.sort_by_key(|c| c.0);
    out
}

/// GPU instances (gpu, id) that are the same before and after: same profile, placement and
/// compute instances with the same MIG UUIDs.
fn kept_instances(before: &Value, after: &Value) -> Vec<(u64, u64)> {
    let mut kept = Vec::new();
    for (b, a) in before["gpus"]
        .as_array()
        .unwrap()
        .iter()
        .zip(after["gpus"].as_array().unwrap())
    {
        let gpu = b["index"].as_u64().unwrap();
        for gi in b["mig"]["instances"].as_array().unwrap() {
            let same = a["mig"]["instances"]
                .as_array()
                .unwrap()
                .iter()
                .any(|x| x == gi);
            if same {
                kept.push((gpu, gi["gpu_instance_id"].as_u64().unwrap()));
            }
        }
    }
    kept
}

fn assert_kept_untouched(calls: &[Value], kept: &[(u64, u64)], what: &str) {
    for c in changes(calls) {
        if let (Some(gpu), Some(gi)) = (arg(c, "gpu"), arg(c, "gi")) {
            assert!(
                !kept.contains(&(gpu, gi)),
                "{what}: a changing call on the kept GPU instance {gpu}:{gi}: {c}"
            );
        }
    }
}

/// Every label of mig-parted's default config, one after the other on the same node, through
/// both backends.
fn every_label_through_both_backends(preset: &str) {
    let Some(node) = TwinNode::new(preset) else {
        return;
    };
    let (mut applied, mut refused) = (0, 0);
    let mut before = nvml_detect(&node);
    for label in labels() {
        let what = format!("{preset} {label}");
        let apply = mig_parted("apply", &label);
        let sim_code = node
            .sim()
            .args(&apply)
            .output()
            .unwrap()
            .status
            .code()
            .unwrap();
        assert!(
            sim_code == 0 || sim_code == 2,
            "{what}: simulator exit {sim_code}"
        );
        node.take_calls();

        let mut dry = node.nvml();
        dry.args(&apply).args(["--dry-run", "--format", "json"]);
        let (plan, _) = run(&mut dry, sim_code, &format!("{what}: dry run"));
        assert!(
            changes(&node.take_calls()).is_empty(),
            "{what}: the dry run changed something"
        );

        run(
            node.nvml().args(&apply),
            sim_code,
            &format!("{what}: apply"),
        );
        let calls = node.take_calls();
        if sim_code != 0 {
            assert!(
                changes(&calls).is_empty(),
                "{what}: a refused apply made changing calls: {:?}",
                changes(&calls)
            );
            refused += 1;
            continue;
        }
        applied += 1;
        assert_call_order(&calls, &what);
        let plan: Value = serde_json::from_str(&plan).unwrap();
        assert_eq!(
            logged_creates(&calls),
            planned_creates(&plan, &before),
            "{what}: GPU instances were not created at the planned placements"
        );
        let after = nvml_detect(&node);
        assert_kept_untouched(&calls, &kept_instances(&before, &after), &what);

        run(node.nvml().args(&apply), 0, &format!("{what}: again"));
        let again = node.take_calls();
        assert!(
            changes(&again).is_empty(),
            "{what}: the second apply made changing calls: {:?}",
            changes(&again)
        );
        let check = mig_parted("assert", &label);
        run(
            node.nvml().args(&check),
            0,
            &format!("{what}: assert (NVML)"),
        );
        run(
            node.sim().args(&check),
            0,
            &format!("{what}: assert (simulator)"),
        );
        assert_same_node(&node, &what);
        before = after;
    }
    assert!(
        applied >= 9 && refused > 0,
        "{applied} applied, {refused} refused"
    );
}

#[test]
fn every_mig_parted_label_on_a_dgx_a100_through_nvml() {
    every_label_through_both_backends("dgx-a100");
}

#[test]
fn every_mig_parted_label_on_a_dgx_h100_through_nvml() {
    every_label_through_both_backends("dgx-h100");
}

#[test]
fn mig_clear_through_nvml_destroys_compute_instances_first() {
    let Some(node) = TwinNode::new("dgx-a100") else {
        return;
    };
    let apply = mig_parted("apply", "all-balanced");
    run(node.nvml().args(&apply), 0, "apply (NVML)");
    run(node.sim().args(&apply), 0, "apply (simulator)");
    node.take_calls();
    run(node.nvml().args(["mig", "clear", "-q"]), 0, "clear (NVML)");
    run(
        node.sim().args(["mig", "clear", "-q"]),
        0,
        "clear (simulator)",
    );
    let calls = node.take_calls();
    assert_call_order(&calls, "clear");
    let destroyed = |f: &str| calls.iter().filter(|c| c["fn"] == f).count();
    // all-balanced on an A100-40GB: 2g.10gb + 1g.5gb ×2 + 3g.20gb on each of 8 GPUs.
    assert_eq!(destroyed("nvmlComputeInstanceDestroy"), 32);
    assert_eq!(destroyed("nvmlGpuInstanceDestroy"), 32);
    assert_eq!(destroyed("nvmlDeviceSetMigMode"), 0, "MIG stays enabled");
    let detect = nvml_detect(&node);
    for gpu in detect["gpus"].as_array().unwrap() {
        assert_eq!(gpu["mig"]["current"], "enabled");
        assert!(gpu["mig"]["instances"].as_array().unwrap().is_empty());
    }
    assert_same_node(&node, "after mig clear");
}

const BUSY_NODE: &str = r#"
[[gpus]]
model = "NVIDIA A100-SXM4-40GB"
count = 2
mig = "enabled"
instances = [{ profile = "3g.20gb", start = 4 }, { profile = "1g.5gb", start = 0 }]
processes = [{ pid = 4242, name = "python", used_memory_mib = 1024, gpu_instance = 0 }]
"#;

#[test]
fn an_apply_that_would_destroy_a_busy_instance_is_refused_and_destroys_nothing() {
    let Some(node) = TwinNode::new(BUSY_NODE) else {
        return;
    };
    assert_same_node(&node, "a node with a process in a GPU instance");
    let cfg = mig_parted_config();
    let apply = [
        "mig",
        "apply",
        "-f",
        cfg.to_str().unwrap(),
        "-c",
        "all-1g.5gb",
    ];
    let (_, nvml_err) = run(node.nvml().args(apply), 1, "apply (NVML)");
    let (_, sim_err) = run(node.sim().args(apply), 1, "apply (simulator)");
    assert!(
        nvml_err.contains("in use") && nvml_err.contains("3g.20gb at 4:4"),
        "{nvml_err}"
    );
    assert_eq!(nvml_err, without_sim_notice(&sim_err));
    let calls = node.take_calls();
    assert!(
        changes(&calls).is_empty(),
        "nothing may change: {:?}",
        changes(&calls)
    );
    // The processes came through NVML with their GPU and compute instance ids.
    let detect = nvml_detect(&node);
    let process = &detect["gpus"][0]["processes"][0];
    assert_eq!(process["pid"], 4242);
    assert_eq!(process["name"], "python");
    assert!(process["gpu_instance_id"].is_u64() && process["compute_instance_id"].is_u64());
    // Each GPU instance's memory in use, as NVML answers for its MIG device: the process's
    // in the 3g.20gb, none in the 1g.5gb.
    let used: Vec<(&str, u64)> = detect["gpus"][0]["mig"]["instances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|gi| {
            (
                gi["profile"].as_str().unwrap(),
                gi["memory_used_mib"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(used, [("3g.20gb", 1024), ("1g.5gb", 0)]);
    assert_same_node(&node, "after the refusal");
}

/// A driver call fails in the middle of an apply; the next apply continues from the node as it
/// is and ends where one clean apply would. The simulator backend gets the same fault.
fn fails_midway_then_converges(from: Option<&str>, to: &str, nvml_fault: &str, sim_fault: &str) {
    let Some(node) = TwinNode::new("dgx-a100") else {
        return;
    };
    if let Some(label) = from {
        let apply = mig_parted("apply", label);
        run(node.nvml().args(&apply), 0, "first layout (NVML)");
        run(node.sim().args(&apply), 0, "first layout (simulator)");
    }
    let apply = mig_parted("apply", to);
    // One GPU after another, so that the n-th call is the same call on both nodes; the re-run
    // changes every GPU at once.
    let mut nvml = node.nvml();
    nvml.env("NVML_STANDIN_FAIL", nvml_fault)
        .args(&apply)
        .args(["--jobs", "1"]);
    let (_, err) = run(&mut nvml, 1, "apply with a failing call (NVML)");
    assert!(err.contains("Unknown Error"), "{err}");
    let mut sim = node.sim();
    sim.env("GPUSHARE_SIM_FAIL", sim_fault)
        .args(&apply)
        .args(["--jobs", "1"]);
    run(&mut sim, 1, "apply with a failing call (simulator)");
    let failed: Vec<Value> = node
        .take_calls()
        .into_iter()
        .filter(|c| c["ret"] != "SUCCESS" && c["changing"] == true)
        .collect();
    assert_eq!(failed.len(), 1, "one failing changing call: {failed:?}");
    assert_same_node(&node, "after the failed apply");

    let before = nvml_detect(&node);
    node.take_calls();
    run(node.nvml().args(&apply), 0, "apply again (NVML)");
    run(node.sim().args(&apply), 0, "apply again (simulator)");
    let calls = node.take_calls();
    assert_call_order(&calls, "the re-run");
    let after = nvml_detect(&node);
    assert_kept_untouched(&calls, &kept_instances(&before, &after), "the re-run");
    let check = mig_parted("assert", to);
    run(node.nvml().args(&check), 0, "assert");
    assert_same_node(&node, "after the re-run");
}

#[test]
fn a_create_failing_midway_then_the_rerun_converges() {
    fails_midway_then_converges(
        None,
        "all-balanced",
        "nvmlDeviceCreateGpuInstanceWithPlacement:11",
        "create_gpu_instance:11",
    );
}

/// The same through NVML with every GPU changing at once: the other GPUs' workers finish the
/// calls they are in and start no more, the error says what each GPU got, and the next apply
/// converges. (Which calls ran before the failure depends on the threads, so the simulator is
/// not asked for the same node here.)
#[test]
fn a_create_failing_while_every_gpu_changes_then_the_rerun_converges() {
    let Some(node) = TwinNode::new("dgx-a100") else {
        return;
    };
    let apply = mig_parted("apply", "all-balanced");
    let mut nvml = node.nvml();
    nvml.env(
        "NVML_STANDIN_FAIL",
        "nvmlDeviceCreateGpuInstanceWithPlacement:11",
    )
    .args(&apply)
    .args(["--jobs", "8"]);
    let (_, err) = run(&mut nvml, 1, "apply with a failing call");
    assert!(err.contains("Unknown Error"), "{err}");
    for gpu in 0..8 {
        assert!(
            err.contains(&format!("\n  GPU {gpu}: ")),
            "GPU {gpu} is reported: {err}"
        );
    }
    let calls = node.take_calls();
    let failed: Vec<&Value> = changes(&calls)
        .into_iter()
        .filter(|c| c["ret"] != "SUCCESS")
        .collect();
    assert_eq!(failed.len(), 1, "one failing changing call: {failed:?}");
    // 8 mode changes, the reset, then GPU instances: the 11th create fails; with at most one call
    // in flight on each of the other GPUs, at most 11 + 7 creates were made in all.
    let creates = calls
        .iter()
        .filter(|c| c["fn"] == "nvmlDeviceCreateGpuInstanceWithPlacement")
        .count();
    assert!((11..=18).contains(&creates), "{creates} creates");

    run(node.nvml().args(&apply), 0, "apply again");
    let calls = node.take_calls();
    assert_call_order(&calls, "the re-run");
    let check = mig_parted("assert", "all-balanced");
    run(node.nvml().args(&check), 0, "assert");
    run(node.nvml().args(&apply), 0, "a third apply");
    assert!(
        changes(&node.take_calls()).is_empty(),
        "the node had converged"
    );
}

#[test]
fn a_destroy_failing_midway_then_the_rerun_converges() {
    fails_midway_then_converges(
        Some("all-balanced"),
        "all-1g.5gb",
        "nvmlGpuInstanceDestroy:6",
        "destroy_gpu_instance:6",
    );
}

#[test]
fn apply_with_mps_inside_mig_devices_through_nvml() {
    let Some(node) = TwinNode::new("dgx-a100") else {
        return;
    };
    let cfg = node.write(
        "gpushare.toml",
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"3g.20gb\" = 1, \"2g.10gb\" = 1, \"1g.5gb\" = 2 }\nmig.mps = { clients = 2 }\n\n\
         [[gpus]]\nselect = [2]\nmode = \"mig\"\nmig.devices = { \"7g.40gb\" = 1 }\n",
    );
    let (out, _) = run(
        node.nvml().args(["apply", "-c", &cfg, "--format", "json"]),
        0,
        "apply (NVML)",
    );
    run(
        node.sim().args(["apply", "-q", "-c", &cfg]),
        0,
        "apply (simulator)",
    );
    let made: Value = serde_json::from_str(&out).unwrap();
    assert!(
        made["changes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["action"] == "start_mps_daemon"),
        "{made}"
    );
    let calls = node.take_calls();
    assert_call_order(&calls, "apply with MPS");
    // One MPS daemon per MIG device of GPU 0, each on its MIG UUID.
    let detect = nvml_detect(&node);
    let mut uuids: Vec<String> = Vec::new();
    for gpu in &detect["gpus"].as_array().unwrap()[..1] {
        for gi in gpu["mig"]["instances"].as_array().unwrap() {
            for ci in gi["compute_instances"].as_array().unwrap() {
                uuids.push(ci["uuid"].as_str().unwrap().to_string());
            }
        }
    }
    assert_eq!(uuids.len(), 4);
    let mut served: Vec<String> = detect["mps"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|d| d["devices"].as_array().unwrap().clone())
        .map(|u| u.as_str().unwrap().to_string())
        .collect();
    served.sort();
    uuids.sort();
    assert_eq!(served, uuids);
    let again = node
        .nvml()
        .args(["apply", "-q", "-c", &cfg])
        .output()
        .unwrap();
    assert!(again.status.success(), "{again:?}");
    assert!(
        changes(&node.take_calls()).is_empty(),
        "the second apply changed something"
    );
    assert_same_node(&node, "MIG with MPS");
    run(
        node.nvml().args(["mps", "stop", "-q"]),
        0,
        "mps stop (NVML)",
    );
    run(
        node.sim().args(["mps", "stop", "-q"]),
        0,
        "mps stop (simulator)",
    );
}

/// Leave a MIG enable pending on every GPU, as an earlier run on a busy node would.
fn enable_pending(node: &TwinNode) {
    node.edit_state(|s| {
        for gpu in s["gpus"].as_array_mut().unwrap() {
            gpu["mig_pending"] = "enabled".into();
        }
    });
}

/// A pending MIG mode is applied with one reset of all the GPUs. The driver refuses to reset a
/// GPU that any NVML client holds, so gpushare must let go of NVML first and open it again,
/// with fresh handles, after (as mig-parted does).
#[test]
fn a_pending_mig_mode_is_applied_by_a_reset_with_nvml_released() {
    let Some(node) = TwinNode::new("dgx-a100") else {
        return;
    };
    enable_pending(&node);
    assert_same_node(&node, "MIG pending on every GPU");
    let apply = mig_parted("apply", "all-balanced");
    run(node.nvml().args(&apply), 0, "apply (NVML)");
    run(node.sim().args(&apply), 0, "apply (simulator)");
    let calls = node.take_calls();
    assert_call_order(&calls, "apply with a reset");
    let resets: Vec<usize> = (0..calls.len())
        .filter(|&i| calls[i]["fn"] == "nvidia-smi")
        .collect();
    assert_eq!(resets.len(), 1, "one reset for all GPUs");
    let reset = &calls[resets[0]];
    assert_eq!(reset["ret"], "SUCCESS", "{reset}");
    let argv = reset["args"]["argv"].to_string();
    assert!(
        argv.contains("-r") && argv.matches("00000000:").count() == 8,
        "{argv}"
    );
    // gpushare's own NVML session ends before the reset and a new one starts after it.
    let gpushare_pid = calls[0]["pid"].clone();
    let before = &calls[..resets[0]];
    let last_nvml = before
        .iter()
        .rev()
        .find(|c| c["pid"] == gpushare_pid)
        .unwrap();
    assert_eq!(
        last_nvml["fn"], "nvmlShutdown",
        "NVML is released before the reset"
    );
    let after = &calls[resets[0] + 1..];
    assert_eq!(
        after[0]["fn"], "nvmlInit_v2",
        "NVML is opened again after the reset"
    );
    assert!(
        after
            .iter()
            .any(|c| c["fn"] == "nvmlDeviceCreateGpuInstanceWithPlacement"),
        "the layout is created after the reset"
    );
    assert!(
        calls.iter().all(|c| !c["detail"]
            .as_str()
            .is_some_and(|d| d.contains("earlier session"))),
        "no handle from before the reset is used after it"
    );
    assert_same_node(&node, "after the reset");
}

/// Another NVML client (a monitoring agent) keeps the reset from happening: the apply fails
/// with the driver's reason and changes nothing else; once the client is gone it converges.
#[test]
fn another_nvml_client_blocks_the_reset() {
    let Some(node) = TwinNode::new("dgx-a100") else {
        return;
    };
    enable_pending(&node);
    let cfg = mig_parted_config();
    let apply = [
        "mig",
        "apply",
        "-f",
        cfg.to_str().unwrap(),
        "-c",
        "all-balanced",
    ];
    let mut client = node.nvml_client();
    let (_, err) = run(
        node.nvml().args(apply),
        1,
        "apply while a client holds NVML",
    );
    assert!(err.contains("In use by another client"), "{err}");
    let calls = node.take_calls();
    let made: Vec<&Value> = changes(&calls)
        .into_iter()
        .filter(|c| c["fn"] != "nvidia-smi")
        .collect();
    assert!(made.is_empty(), "nothing but the reset was tried: {made:?}");
    drop(client.stdin.take());
    assert!(client.wait().unwrap().success());
    run(node.nvml().args(apply), 0, "apply once the client is gone");
    run(node.sim().args(apply), 0, "apply (simulator)");
    assert_same_node(&node, "after the reset");
}

/// Compute-instance profile ids are not their `NVML_COMPUTE_INSTANCE_PROFILE_*` index on every
/// GPU: gpushare must look the id up in the GPU instance's profile info before it creates a
/// compute instance, and read instances back by index, as mig-parted does.
#[test]
fn compute_instance_profile_ids_that_differ_from_their_indices() {
    let Some(node) = TwinNode::new("dgx-a100") else {
        return;
    };
    let cfg = node.write(
        "gpushare.toml",
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"1c.4g.20gb\" = 1, \"3g.20gb\" = 1 }\n\n\
         [[gpus]]\nselect = [1]\nmode = \"mig\"\nmig.devices = { \"2g.10gb\" = 3, \"1g.5gb\" = 1 }\n\n\
         [[gpus]]\nselect = [2]\nmode = \"mig\"\nmig.devices = { \"2c.7g.40gb\" = 1 }\n",
    );
    let offset = 3;
    let nvml = || {
        let mut c = node.nvml();
        c.env("NVML_STANDIN_CI_PROFILE_ID_OFFSET", offset.to_string());
        c
    };
    run(nvml().args(["apply", "-q", "-c", &cfg]), 0, "apply (NVML)");
    run(
        node.sim().args(["apply", "-q", "-c", &cfg]),
        0,
        "apply (simulator)",
    );
    let calls = node.take_calls();
    let created: Vec<(u64, u64)> = calls
        .iter()
        .filter(|c| c["fn"] == "nvmlGpuInstanceCreateComputeInstance")
        .map(|c| {
            (
                arg(c, "profileId").unwrap(),
                c["out"]["profile"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(created.len(), 7, "{created:?}");
    for (id, index) in &created {
        assert_eq!(
            *id,
            index + offset,
            "the id of index {index} is {}",
            index + offset
        );
    }
    run(
        nvml().args(["apply", "-q", "-c", &cfg]),
        0,
        "apply again (NVML)",
    );
    assert!(
        changes(&node.take_calls()).is_empty(),
        "the second apply changed something"
    );
    run(
        nvml().args(["plan", "--check", "-q", "-c", &cfg]),
        0,
        "plan --check",
    );
    let mut detect = nvml();
    detect.arg("detect");
    assert_eq!(
        comparable_detect(json(&mut detect)),
        comparable_detect(json(node.sim().arg("detect")))
    );
    let (export, _) = run(nvml().args(["mig", "export"]), 0, "export");
    let (sim_export, _) = run(node.sim().args(["mig", "export"]), 0, "export");
    assert_eq!(export, sim_export);
}

/// A compute instance of `NVML_COMPUTE_INSTANCE_PROFILE_7_SLICE_NVL` (0x8) must not make its GPU
/// instance look empty: the layout change destroys it before its GPU instance, where the driver
/// would answer IN_USE to a GPU instance destroyed with it inside.
#[test]
fn a_compute_instance_of_the_nvl_profile_is_seen_and_destroyed_first() {
    let Some(node) = TwinNode::new("dgx-h100") else {
        return;
    };
    node.edit_state(|s| {
        let gpu = &mut s["gpus"][0];
        gpu["mig_current"] = "enabled".into();
        gpu["mig_pending"] = "enabled".into();
        gpu["instances"] = serde_json::json!([{
            "id": 0, "profile_id": 0, "start": 0,
            "compute_instances": [{
                "id": 0, "profile_id": 8, "start": 0, "compute_mode": "default",
                "uuid": "MIG-5d1c1a2e-0000-4000-8000-000000000008"
            }]
        }]);
    });
    let nvl = |c: &mut assert_cmd::Command| {
        c.env("NVML_STANDIN_CI_NVL", "1");
    };
    let mut detect = node.nvml();
    nvl(&mut detect);
    let seen = json(detect.arg("detect"));
    let cis = &seen["gpus"][0]["mig"]["instances"][0]["compute_instances"];
    assert_eq!(cis[0]["profile_id"], 8, "{seen}");
    let cfg = node.write(
        "gpushare.toml",
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"1g.10gb\" = 7 }\n",
    );
    let mut apply = node.nvml();
    nvl(&mut apply);
    run(
        apply.args(["apply", "-q", "-c", &cfg]),
        0,
        "apply over the NVL compute instance",
    );
    assert_call_order(&node.take_calls(), "apply over the NVL compute instance");
}
