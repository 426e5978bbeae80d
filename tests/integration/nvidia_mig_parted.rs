//! NVIDIA's nvidia-mig-parted and gpushare side by side on one simulated node, which the NVML
//! stand-in serves to mig-parted (strict: a call it does not answer aborts mig-parted, named)
//! and gpushare reads through its simulator: every label of mig-parted's own
//! `config-default.yaml` on a DGX A100, a DGX H100 and a DGX B200.
//!
//! For each label: what one tool applies, the other asserts; both see the same instances at the
//! same placements; both exports are byte-identical. A label gpushare refuses (a profile the GPU
//! does not have) mig-parted refuses too. Then a chain of labels, each tool continuing where the
//! other left.

use crate::common;
use common::nvidia_tools::{NvidiaNode, said, tools};
use std::path::{Path, PathBuf};

fn config() -> PathBuf {
    common::repo().join("tests/fixtures/mig-parted/config-default.yaml")
}

fn labels() -> Vec<String> {
    let text = std::fs::read_to_string(config()).unwrap();
    let raw: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    raw["mig-configs"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect()
}

fn file() -> String {
    config().display().to_string()
}

/// `gpushare mig assert|apply -f config-default.yaml -c LABEL`: its exit code and stderr.
fn gpushare_mig(node: &NvidiaNode, verb: &str, label: &str) -> (Option<i32>, String) {
    let out = node
        .gpushare()
        .args(["mig", verb, "-f", &file(), "-c", label])
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn mig_parted_ok(node: &NvidiaNode, verb: &str, label: &str) {
    let out = node.mig_parted(&[verb, "-f", &file(), "-c", label]);
    assert!(
        out.status.success(),
        "{} {label}: nvidia-mig-parted {verb}: {}",
        node.preset,
        said(&out)
    );
}

/// `export` of both tools, which must be byte-identical.
fn exports_agree(node: &NvidiaNode, after: &str) {
    let theirs = node.mig_parted(&["export"]);
    assert!(theirs.status.success(), "{after}: {}", said(&theirs));
    let ours = node.gpushare().args(["mig", "export"]).output().unwrap();
    assert!(ours.status.success());
    assert_eq!(
        String::from_utf8_lossy(&ours.stdout),
        String::from_utf8_lossy(&theirs.stdout),
        "{after}: gpushare's export, then mig-parted's"
    );
}

/// What one preset gave: labels both tools applied, labels gpushare refused, and of those the
/// ones mig-parted reported applied while its own `assert` then failed.
struct Outcome {
    applied: usize,
    refused: usize,
    false_successes: Vec<String>,
}

fn every_label(tools: &Path, preset: &str) -> Outcome {
    let (mut applied, mut refused) = (0, 0);
    let mut false_successes = Vec::new();
    for label in labels() {
        let at = format!("{preset} {label}");
        // By mig-parted first.
        let theirs = NvidiaNode::new(tools, preset);
        let (code, err) = gpushare_mig(&theirs, "assert", &label);
        if code == Some(2) {
            // gpushare refuses before any change. mig-parted, where it does not refuse too,
            // either changes nothing (a label that matches no GPU: gpushare calls that a
            // mistake) or reports a success that its own `assert` then denies (a profile the
            // GPU does not have: it enables MIG and makes no such device). Never does it make a
            // layout it then asserts.
            let before = theirs.layout();
            let apply = theirs.mig_parted(&["apply", "-f", &file(), "-c", &label]);
            let assert = theirs.mig_parted(&["assert", "-f", &file(), "-c", &label]);
            let changed = theirs.layout() != before;
            assert!(
                !(apply.status.success() && assert.status.success() && changed),
                "{at}: gpushare refuses the label ({err}) but mig-parted applies and asserts it: {}",
                said(&apply)
            );
            if apply.status.success() && !assert.status.success() {
                false_successes.push(label.clone());
            }
            refused += 1;
            continue;
        }
        mig_parted_ok(&theirs, "apply", &label);
        let (code, err) = gpushare_mig(&theirs, "assert", &label);
        assert_eq!(
            code,
            Some(0),
            "{at}: gpushare asserts what mig-parted applied: {err}"
        );
        exports_agree(&theirs, &format!("{at}, applied by mig-parted"));
        // By gpushare first.
        let ours = NvidiaNode::new(tools, preset);
        let (code, err) = gpushare_mig(&ours, "apply", &label);
        assert_eq!(code, Some(0), "{at}: gpushare mig apply: {err}");
        mig_parted_ok(&ours, "assert", &label);
        exports_agree(&ours, &format!("{at}, applied by gpushare"));
        assert_eq!(
            ours.layout(),
            theirs.layout(),
            "{at}: the same instances at the same placements"
        );
        applied += 1;
    }
    Outcome {
        applied,
        refused,
        false_successes,
    }
}

#[test]
fn every_label_of_config_default_agrees_with_mig_parted_on_a100_h100_and_b200() {
    let Some(tools) = tools("nvidia_mig_parted::every_label") else {
        return;
    };
    let results: Vec<(&str, Outcome)> = std::thread::scope(|s| {
        let handles: Vec<_> = ["dgx-a100", "dgx-h100", "dgx-b200"]
            .into_iter()
            .map(|preset| s.spawn(move || (preset, every_label(tools, preset))))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (preset, o) in results {
        eprintln!(
            "{preset}: {} labels applied and asserted by both tools; {} refused by gpushare, of which mig-parted reported {} applied that its own assert then denied ({})",
            o.applied,
            o.refused,
            o.false_successes.len(),
            o.false_successes.join(", ")
        );
        // all-disabled, all-enabled and the GPU's own profiles at least.
        assert!(o.applied >= 6, "{preset}: {} labels applied", o.applied);
        assert!(
            o.refused > 0,
            "{preset}: the other GPUs' labels are refused"
        );
    }
}

/// A chain of labels on one node, the tools taking turns: each applies over what the other
/// left (instances kept where the next layout has them) and the other asserts it.
#[test]
fn each_tool_continues_where_the_other_left() {
    let Some(tools) = tools("nvidia_mig_parted::each_tool_continues") else {
        return;
    };
    let chain = [
        "all-1g.5gb",
        "all-balanced",
        "all-3g.20gb",
        "all-balanced",
        "all-2g.10gb",
        "all-7g.40gb",
        "all-enabled",
        "all-1g.5gb.me",
        "all-4g.20gb",
        "all-3g.20gb",
        "all-disabled",
        "all-1g.5gb",
    ];
    let node = NvidiaNode::new(tools, "dgx-a100");
    for (i, pair) in chain.windows(2).enumerate() {
        let (from, to) = (pair[0], pair[1]);
        let at = format!("{from} → {to}");
        if i == 0 {
            mig_parted_ok(&node, "apply", from);
        }
        let before = node.detect();
        if i % 2 == 0 {
            let (code, err) = gpushare_mig(&node, "apply", to);
            assert_eq!(code, Some(0), "{at}: gpushare after mig-parted: {err}");
            mig_parted_ok(&node, "assert", to);
        } else {
            mig_parted_ok(&node, "apply", to);
            let (code, err) = gpushare_mig(&node, "assert", to);
            assert_eq!(code, Some(0), "{at}: gpushare asserts mig-parted's: {err}");
        }
        exports_agree(&node, &at);
        if (from, to) == ("all-3g.20gb", "all-balanced") {
            // all-balanced on an A100-40GB holds one 3g.20gb: the one at 0:4 stays (same UUID).
            let uuid = |v: &serde_json::Value| {
                v["gpus"][0]["mig"]["instances"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|gi| gi["profile"] == "3g.20gb")
                    .map(|gi| gi["compute_instances"][0]["uuid"].clone())
                    .collect::<Vec<_>>()
            };
            let kept = uuid(&node.detect());
            assert!(
                uuid(&before).iter().any(|u| kept.contains(u)),
                "{at}: a 3g.20gb instance is kept"
            );
        }
    }
}
