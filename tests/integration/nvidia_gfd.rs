//! NVIDIA's gpu-feature-discovery (`--oneshot`) on the NVML stand-in, strict, after
//! `gpushare mig apply`: its labels describe the layout gpushare made as `gpushare detect`
//! reports it, for the `mixed` and `single` strategies.

use crate::common;
use common::nvidia_tools::{NvidiaNode, said, tools};
use serde_json::Value;
use std::collections::BTreeMap;

/// `gpushare mig apply` of a config-default label, then GFD's labels.
fn labels_after(node: &NvidiaNode, label: &str, strategy: &str) -> BTreeMap<String, String> {
    node.mig_apply(label);
    let machine = node.path("machine-type");
    std::fs::write(&machine, "DGX\n").unwrap();
    let out_file = node.path("gfd.labels");
    let out = node
        .nvidia("gpu-feature-discovery")
        .args([
            "--oneshot",
            "--use-node-feature-api=false",
            "--mig-strategy",
            strategy,
        ])
        .arg("--output-file")
        .arg(&out_file)
        .arg("--machine-type-file")
        .arg(&machine)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", said(&out));
    std::fs::read_to_string(&out_file)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Per MIG device profile: (count, GPU-instance memory MiB, multiprocessors), from detect.
fn profiles(detect: &Value) -> BTreeMap<String, (u64, u64, u64)> {
    let mut out: BTreeMap<String, (u64, u64, u64)> = BTreeMap::new();
    for g in detect["gpus"].as_array().unwrap() {
        for gi in g["mig"]["instances"].as_array().unwrap() {
            for ci in gi["compute_instances"].as_array().unwrap() {
                let entry = out
                    .entry(ci["profile"].as_str().unwrap().to_string())
                    .or_insert((0, 0, 0));
                entry.0 += 1;
                entry.1 = gi["memory_mib"].as_u64().unwrap();
                entry.2 = ci["multiprocessors"].as_u64().unwrap();
            }
        }
    }
    out
}

#[test]
fn gfd_labels_the_mig_devices_gpushare_made_mixed_and_single() {
    let Some(tools) = tools("nvidia_gfd::gfd_labels") else {
        return;
    };
    for preset in ["dgx-a100", "dgx-h100"] {
        let node = NvidiaNode::new(tools, preset);
        let labels = labels_after(&node, "all-balanced", "mixed");
        let detect = node.detect();
        let at = |k: &str| {
            labels
                .get(k)
                .cloned()
                .unwrap_or_else(|| panic!("{preset}: no label {k}: {labels:?}"))
        };
        assert_eq!(at("nvidia.com/mig.strategy"), "mixed");
        assert_eq!(at("nvidia.com/gpu.count"), "8");
        let wanted = profiles(&detect);
        assert!(wanted.len() >= 3, "{preset}: {wanted:?}");
        for (profile, (count, memory, sms)) in &wanted {
            let key = |what: &str| format!("nvidia.com/mig-{profile}.{what}");
            assert_eq!(at(&key("count")), count.to_string(), "{preset} {profile}");
            assert_eq!(at(&key("memory")), memory.to_string(), "{preset} {profile}");
            assert_eq!(
                at(&key("multiprocessors")),
                sms.to_string(),
                "{preset} {profile}"
            );
        }
        // No label for a profile the node does not have.
        let listed: Vec<&String> = labels
            .keys()
            .filter(|k| k.starts_with("nvidia.com/mig-") && k.ends_with(".count"))
            .collect();
        assert_eq!(listed.len(), wanted.len(), "{preset}: {listed:?}");
    }
    // single: every GPU one profile; the MIG devices are the node's GPUs.
    let node = NvidiaNode::new(tools, "dgx-a100");
    let labels = labels_after(&node, "all-1g.5gb", "single");
    let (count, memory, sms) = profiles(&node.detect())["1g.5gb"];
    assert_eq!(labels["nvidia.com/mig.strategy"], "single");
    assert_eq!(labels["nvidia.com/gpu.count"], count.to_string());
    assert_eq!(count, 56);
    assert_eq!(labels["nvidia.com/gpu.memory"], memory.to_string());
    assert_eq!(labels["nvidia.com/gpu.multiprocessors"], sms.to_string());
    assert_eq!(
        labels["nvidia.com/gpu.product"],
        "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb"
    );
}
