//! The boot unit: `unit --install` writes `gpushare-apply.service` and enables it (the stand-in
//! systemctl, under the state root), `systemd-analyze verify` accepts it, its `ExecStart` applies
//! the layout, `doctor` sees it, and `unit --uninstall` takes it away.

use super::node::Node;
use std::process::Command;

const LAYOUT: &str = "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"3g.20gb\" = 2 }\n";

fn boot_check(node: &Node) -> serde_json::Value {
    let out = node
        .cmd()
        .args(["doctor", "--format", "json", "--host-root"])
        .arg(node.root())
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "boot-unit")
        .unwrap()
        .clone()
}

/// `systemd-analyze verify` of the unit file: no complaint about it (the man page it names is
/// installed by install.sh, not here: `--man=no`). `.ci/run` installs the tool; elsewhere a
/// test without it says so and checks the file's shape only.
/// The systemctl stand-in was asked to enable `unit` under the node's root.
pub(super) fn assert_enabled(node: &Node, unit: &str) {
    let log = node.standin_log();
    let call = format!("systemctl --root={} enable {unit}", node.root().display());
    assert!(log.contains(&call), "{log:?}");
}

pub(super) fn verify(path: &std::path::Path) {
    let Ok(out) = Command::new("systemd-analyze")
        .args(["verify", "--man=no"])
        .arg(path)
        .output()
    else {
        eprintln!("SKIPPED: systemd-analyze is not installed; the unit was only parsed");
        return;
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let name = path.file_name().unwrap().to_string_lossy();
    assert!(
        !stderr.lines().any(|l| l.contains(name.as_ref())),
        "systemd-analyze complains about the unit:\n{stderr}"
    );
}

#[test]
fn the_boot_unit_installs_verifies_and_runs_apply() {
    let node = Node::preset("dgx-a100");
    let root = node.root();
    let etc = root.join("etc/gpushare");
    std::fs::create_dir_all(&etc).unwrap();
    std::fs::write(etc.join("gpushare.toml"), LAYOUT).unwrap();
    assert_eq!(boot_check(&node)["status"], "warn");

    node.ok(&["unit", "--install"]);
    let path = root.join("etc/systemd/system/gpushare-apply.service");
    let text = std::fs::read_to_string(&path).unwrap();
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&path).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o644);
    assert_enabled(&node, "gpushare-apply.service");
    assert!(
        std::fs::symlink_metadata(
            root.join("etc/systemd/system/multi-user.target.wants/gpushare-apply.service")
        )
        .is_ok()
    );
    assert_eq!(boot_check(&node)["status"], "pass");

    // The file: sections and keys systemd knows, the ordering, exit 5 not a failure.
    let keys: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty() && !l.starts_with('['))
        .map(|l| l.split_once('=').expect("key=value").0)
        .collect();
    assert_eq!(
        keys,
        [
            "Description",
            "Documentation",
            "After",
            "Before",
            "ConditionPathExists",
            "Type",
            "RemainAfterExit",
            "ExecStart",
            "SuccessExitStatus",
            "TimeoutStartSec",
            "WantedBy",
        ]
    );
    assert!(text.contains("\nAfter=systemd-modules-load.service nvidia-persistenced.service"));
    assert!(text.contains("kubelet.service\n"));
    assert!(text.contains("\nSuccessExitStatus=5\n"));
    verify(&path);

    // What the unit runs at boot applies the layout (the simulated node stands for the GPUs).
    let exec = text
        .lines()
        .find_map(|l| l.strip_prefix("ExecStart="))
        .unwrap();
    let words: Vec<&str> = exec.split(' ').collect();
    assert_eq!(&words[1..3], ["--state-root", &root.display().to_string()]);
    assert_eq!(&words[3..6], ["apply", "--yes", "-c"]);
    let boot = || {
        Command::new(words[0])
            .args(&words[1..])
            .env("GPUSHARE_SIM", "dgx-a100")
            .env("GPUSHARE_SIM_STATE", node.state())
            .output()
            .unwrap()
    };
    let out = boot();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(node.devices()[&0], ["3g.20gb", "3g.20gb"]);
    // The next boot: MIG instances are gone, the unit brings them back.
    node.ok(&["sim", "reboot"]);
    assert!(node.devices()[&0].is_empty());
    assert!(boot().status.success());
    assert_eq!(node.devices()[&0], ["3g.20gb", "3g.20gb"]);

    node.clear_log();
    node.ok(&["unit", "--uninstall"]);
    assert!(!path.exists());
    assert_eq!(
        node.standin_log(),
        [format!(
            "systemctl --root={} disable gpushare-apply.service",
            root.display()
        )]
    );
    assert_eq!(boot_check(&node)["status"], "warn");
    let e = node.ok(&["unit", "--uninstall"]);
    assert!(e.contains("not installed"), "{e}");
}

#[test]
fn a_layout_file_with_an_error_installs_nothing() {
    let node = Node::preset("dgx-a100");
    let etc = node.root().join("etc/gpushare");
    std::fs::create_dir_all(&etc).unwrap();
    std::fs::write(
        etc.join("gpushare.toml"),
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\n",
    )
    .unwrap();
    let e = node.fails(&["unit", "--install"], 2);
    assert!(e.contains("gpushare.toml:3:"), "{e}");
    assert!(!node.root().join("etc/systemd/system").exists());
    // Printed, it is the unit's text.
    std::fs::write(etc.join("gpushare.toml"), LAYOUT).unwrap();
    let out = node.cmd().args(["unit"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("[Service]\nType=oneshot\n"), "{text}");
    assert!(node.standin_log().is_empty(), "printing runs nothing");
}
