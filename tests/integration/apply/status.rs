//! `gpushare status` on a simulated DGX A100: each GPU's mode and the entry that gives it, the
//! MIG instances drawn over the memory slices, time-slicing replicas, and the drift from the
//! layout in force.

use super::node::Node;

/// `status` as a person reads it (stdout).
fn screen(node: &Node, args: &[&str]) -> String {
    let out = node.cmd().arg("status").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

const LAYOUT: &str = "[[gpus]]\nselect = [0]\nmode = \"mig\"\n\
    mig.instances = [{ profile = \"3g.20gb\", start = 4 }, { profile = \"2g.10gb\", start = 0 }, \
    { profile = \"1g.5gb\", start = 2 }]\n\n\
    [[gpus]]\nselect = [1]\nmode = \"time-slicing\"\ntime_slicing.replicas = 4\n";

#[test]
fn status_draws_the_placements_and_the_drift_from_the_layout_in_force() {
    let node = Node::preset("dgx-a100");
    let file = node.write("gpushare.toml", LAYOUT);
    node.ok(&["apply", "--yes", "-c", &file]);
    // No layout in force yet: said, and nothing to compare with.
    let v = node.json(&["status"]);
    assert_eq!(v["layout"]["path"], serde_json::Value::Null, "{v}");
    assert_eq!(v["gpus"][0]["mode"], "mig");
    assert_eq!(v["gpus"][2]["mode"], "whole");

    let text = screen(&node, &["-c", &file]);
    assert!(text.contains("memory slices [aab.cccc]"), "{text}");
    assert!(text.contains("c 3g.20gb    at 4:4"), "{text}");
    assert!(text.contains("time-slicing: 4 replicas"), "{text}");
    assert!(text.contains("the node matches it"), "{text}");
    let v = node.json(&["status", "-c", &file]);
    let gpu0 = &v["gpus"][0];
    assert_eq!(gpu0["entry"], format!("{file}:1"), "{gpu0}");
    assert_eq!(gpu0["mig"]["memory_slices"], 8);
    let placements: Vec<(String, u64, u64)> = gpu0["mig"]["instances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["profile"].as_str().unwrap().to_string(),
                i["start"].as_u64().unwrap(),
                i["size"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        placements,
        [
            ("2g.10gb".to_string(), 0, 2),
            ("1g.5gb".to_string(), 2, 1),
            ("3g.20gb".to_string(), 4, 4)
        ]
    );
    assert!(
        gpu0["mig"]["instances"][0]["uuids"][0]
            .as_str()
            .unwrap()
            .starts_with("MIG-")
    );
    assert_eq!(v["gpus"][1]["time_slicing_replicas"], 4);
    assert_eq!(v["layout"]["matches"], true);

    // The node drifts: the instances cleared by hand. status says so and what apply would do,
    // and changes nothing.
    node.ok(&["mig", "clear", "--gpu", "0"]);
    let before = node.detect();
    let v = node.json(&["status", "-c", &file]);
    assert_eq!(v["layout"]["matches"], false, "{v}");
    assert_eq!(v["gpus"][0]["mig"]["map"], "........");
    let changes = v["layout"]["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 6, "{changes:?}");
    assert!(
        changes[0].as_str().unwrap().contains("create_gpu_instance"),
        "{changes:?}"
    );
    assert_eq!(node.detect(), before, "status changes nothing");
    let text = screen(&node, &["-c", &file]);
    assert!(
        text.contains("DRIFT, `gpushare apply` would make 6 change(s)"),
        "{text}"
    );
}
