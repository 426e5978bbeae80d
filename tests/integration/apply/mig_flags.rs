//! `mig apply --mode-only` and `--skip-reset` (and their `MIG_PARTED_*` variables), with
//! mig-parted's meaning: only the MIG mode; the mode without a reset.

use super::common::*;
use super::node::Node;

fn config() -> String {
    repo()
        .join("tests/fixtures/mig-parted/config-default.yaml")
        .display()
        .to_string()
}

#[test]
fn mode_only_changes_the_mode_and_never_the_instances() {
    let node = Node::preset("dgx-a100");
    let cfg = config();
    node.ok(&[
        "mig",
        "apply",
        "-f",
        &cfg,
        "-c",
        "all-1g.5gb",
        "--mode-only",
    ]);
    let detect = node.detect();
    assert!(
        detect["gpus"]
            .as_array()
            .unwrap()
            .iter()
            .all(|g| g["mig"]["current"] == "enabled"),
        "{detect}"
    );
    assert!(node.devices().values().all(|d| d.is_empty()));
    node.fails(&["mig", "assert", "-f", &cfg, "-c", "all-1g.5gb"], 3);
    node.ok(&["mig", "apply", "-f", &cfg, "-c", "all-1g.5gb"]);
    assert_eq!(node.devices()[&0].len(), 7);
    // The mode is right already: another layout changes nothing with --mode-only.
    let e = node.ok(&["mig", "apply", "-m", "-f", &cfg, "-c", "all-3g.20gb"]);
    assert!(e.contains("nothing to change"), "{e}");
    assert_eq!(node.devices()[&0].len(), 7);
    node.cmd()
        .env("MIG_PARTED_MODE_CHANGE_ONLY", "true")
        .args(["mig", "apply", "-f", &cfg, "-c", "all-disabled"])
        .assert()
        .success();
    assert!(node.devices().is_empty(), "MIG is off everywhere");
}

#[test]
fn skip_reset_leaves_a_busy_gpus_mode_pending_until_a_reboot() {
    let node = Node::file(
        "holders = [{ name = \"nvidia-persistenced\", pid = 1834 }]\n\
         [[gpus]]\nmodel = \"NVIDIA A100-SXM4-40GB\"\n",
    );
    let cfg = config();
    // Without it the reset the change needs is blocked.
    node.fails(&["mig", "apply", "-f", &cfg, "-c", "all-1g.5gb"], 1);
    let e = node.fails(
        &[
            "mig",
            "apply",
            "-f",
            &cfg,
            "-c",
            "all-1g.5gb",
            "--skip-reset",
        ],
        5,
    );
    assert!(e.contains("reboot required"), "{e}");
    let gpu = node.detect()["gpus"][0].clone();
    assert_eq!(gpu["mig"]["current"], "disabled");
    assert_eq!(gpu["mig"]["pending"], "enabled");
    let again = fails_with(
        node.cmd().env("MIG_PARTED_SKIP_RESET", "1").args([
            "mig",
            "apply",
            "-f",
            &cfg,
            "-c",
            "all-1g.5gb",
        ]),
        5,
    );
    assert!(!again.contains("FAILED"), "{again}");
    node.ok(&["sim", "reboot"]);
    node.ok(&["mig", "apply", "-f", &cfg, "-c", "all-1g.5gb"]);
    assert_eq!(node.devices()[&0].len(), 7);
}

#[test]
fn skip_reset_on_an_idle_gpu_applies_the_mode_and_then_the_layout() {
    let node = Node::preset("dgx-a100");
    let cfg = config();
    let plan = node.json(&[
        "mig",
        "apply",
        "--dry-run",
        "-s",
        "-f",
        &cfg,
        "-c",
        "all-3g.20gb",
    ]);
    let text = plan.to_string();
    assert!(!text.contains("\"reset\""), "no reset is planned: {plan}");
    assert!(text.contains("--skip-reset: no reset"), "{plan}");
    node.ok(&["mig", "apply", "-s", "-f", &cfg, "-c", "all-3g.20gb"]);
    assert_eq!(node.devices()[&0], ["3g.20gb", "3g.20gb"]);
    assert!(!node.journal().contains("reset ("), "{}", node.journal());
}
