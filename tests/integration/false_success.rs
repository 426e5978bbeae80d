//! A success is true: exit 0 and "the node has it" only for what was checked against the node.
//! Each test here is a case where gpushare once said so falsely.

use crate::common;
use common::*;
use std::path::Path;

fn config_default() -> std::path::PathBuf {
    repo().join("tests/fixtures/mig-parted/config-default.yaml")
}

fn on(preset: &str, state: &Path) -> assert_cmd::Command {
    let mut cmd = sim(preset);
    cmd.arg("--sim-state").arg(state);
    cmd
}

/// The node as `detect` shows it.
fn node(preset: &str, state: &Path) -> serde_json::Value {
    json(on(preset, state).arg("detect"))
}

/// mig-parted's `assert` fails on a GPU without MIG that a label enables MIG on; so does
/// gpushare, for `assert` and `apply` alike (exit 2: the file asks what the GPU cannot do), and
/// the node is not touched. `mig-enabled: false` there stays a success.
#[test]
fn a_mig_label_on_gpus_without_mig_is_an_error_naming_the_gpu() {
    let dir = tempfile::tempdir().unwrap();
    for (preset, gpu) in [("t4x4", "GPU 0 (Tesla T4)"), ("mixed", "GPU 2 (Tesla T4)")] {
        let state = dir.path().join(format!("{preset}.json"));
        let before = node(preset, &state);
        for command in ["assert", "apply"] {
            let err = fails_with(
                on(preset, &state)
                    .args(["mig", command, "-c", "all-enabled", "-f"])
                    .arg(config_default()),
                2,
            );
            assert!(
                err.contains(&format!(
                    "{gpu}: cannot set MIG mode on non MIG-capable GPU"
                )),
                "{preset} {command}: {err}"
            );
            assert!(!err.contains("the node has"), "{err}");
        }
        assert_eq!(
            node(preset, &state),
            before,
            "{preset}: nothing was changed"
        );
    }
    let state = dir.path().join("t4x4.json");
    on("t4x4", &state)
        .args(["mig", "assert", "-c", "all-disabled", "-f"])
        .arg(config_default())
        .assert()
        .success();
    // gpushare.toml: `mode = "mig"` selecting a T4, also under "all" on a mixed node.
    let toml = write(
        dir.path(),
        "gpushare.toml",
        "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = {}\n",
    );
    for preset in ["t4x4", "mixed"] {
        let state = dir.path().join(format!("{preset}.json"));
        let before = node(preset, &state);
        for args in [
            &["mig", "apply", "-f"][..],
            &["plan", "-c"],
            &["apply", "-c"],
        ] {
            let err = fails_with(on(preset, &state).args(args).arg(&toml), 2);
            assert!(
                err.contains("gpushare.toml:2:10: GPU") && err.contains("non MIG-capable GPU"),
                "{preset} {args:?}: {err}"
            );
        }
        assert_eq!(
            node(preset, &state),
            before,
            "{preset}: nothing was changed"
        );
    }
}

/// `mig apply -f gpushare.toml` checks the whole file with the rules of `plan`, and says what
/// part of the file the node has.
#[test]
fn mig_apply_of_a_gpushare_toml_checks_the_whole_file() {
    let dir = tempfile::tempdir().unwrap();
    for (preset, text, at) in [
        (
            "t4x4",
            "[[gpus]]\nselect = \"all\"\nmode = \"mps\"\nmps.clients = 4294967295\n",
            "gpushare.toml:4:15:",
        ),
        (
            "t4x4",
            "[[gpus]]\nselect = \"all\"\nmode = \"mps\"\nmps.clients = 49\n",
            "gpushare.toml:4:15:",
        ),
        (
            "dgx-a100",
            "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 7 }\nmig.mps = { clients = 60 }\n",
            "gpushare.toml:5:",
        ),
    ] {
        let state = dir.path().join(format!("{preset}.json"));
        let before = node(preset, &state);
        let file = write(dir.path(), "gpushare.toml", text);
        let planned = fails_with(on(preset, &state).args(["plan", "-c"]).arg(&file), 2);
        let applied = fails_with(
            on(preset, &state).args(["mig", "apply", "-f"]).arg(&file),
            2,
        );
        assert!(planned.contains(at), "{planned}");
        let first = |s: &str| s.lines().next().unwrap_or_default().to_string();
        assert_eq!(first(&planned), first(&applied), "plan and mig apply agree");
        assert_eq!(node(preset, &state), before, "nothing was changed");
    }
    let state = dir.path().join("t4x4.json");
    // A valid file: the MIG part is what `mig apply` says the node has.
    let file = write(
        dir.path(),
        "gpushare.toml",
        "[[gpus]]\nselect = \"all\"\nmode = \"mps\"\nmps.clients = 4\n",
    );
    let out = on("t4x4", &state)
        .args(["mig", "apply", "-f"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "the node already has the MIG part of {}",
            file.display()
        )),
        "{err}"
    );
}
