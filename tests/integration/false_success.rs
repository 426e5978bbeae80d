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

/// Ten applies of two layouts at once on one `--sim-state`, each with its own `--state-root` (so
/// gpushare's node lock does not order them): the simulator serialises them as the driver does.
/// No false corruption message: each call applies to the node as the others left it, so an apply
/// ends converged, or failed or unfinished as on a driver that others change meanwhile (exit 1 or
/// 3), and a last apply of either layout converges and is then true.
#[test]
fn applies_on_one_simulated_node_from_several_state_roots_are_serialised() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("s.json");
    let layouts = [
        write(
            dir.path(),
            "a.yaml",
            "version: v1\nmig-configs:\n  c:\n    - devices: all\n      mig-enabled: true\n      mig-devices: {\"1g.5gb\": 7}\n",
        ),
        write(
            dir.path(),
            "b.yaml",
            "version: v1\nmig-configs:\n  c:\n    - devices: all\n      mig-enabled: true\n      mig-devices: {\"3g.20gb\": 2}\n",
        ),
    ];
    on("dgx-a100", &state).arg("detect").assert().success();
    let children: Vec<_> = (0..10)
        .map(|i| {
            let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin!("gpushare"));
            cmd.env_clear()
                .env("NO_COLOR", "1")
                .arg("--sim")
                .arg("dgx-a100")
                .arg("--sim-state")
                .arg(&state)
                .arg("--state-root")
                .arg(dir.path().join(format!("root{i}")))
                .args(["mig", "apply", "-f"])
                .arg(&layouts[i % 2])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped());
            (i, cmd.spawn().unwrap())
        })
        .collect();
    for (i, child) in children {
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !err.contains("does not apply to the state it follows") && !err.contains("delete it"),
            "apply {i}: a false corruption message: {err}"
        );
        assert!(
            matches!(out.status.code(), Some(0 | 1 | 3)) && !err.contains("panicked"),
            "apply {i}: exit {:?}: {err}",
            out.status.code()
        );
    }
    // The node is whole, and a last apply of either layout converges and is then true.
    for layout in &layouts {
        on("dgx-a100", &state)
            .args(["mig", "apply", "-f"])
            .arg(layout)
            .assert()
            .success();
        on("dgx-a100", &state)
            .args(["mig", "assert", "-f"])
            .arg(layout)
            .assert()
            .success();
    }
}

/// A simulated DGX A100 with a state root of its own, as a user's first steps have it.
struct Tried {
    dir: tempfile::TempDir,
}

impl Tried {
    fn new() -> Tried {
        Tried {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn run(&self) -> assert_cmd::Command {
        let mut cmd = sim("dgx-a100");
        cmd.arg("--sim-state")
            .arg(self.dir.path().join("node.json"))
            .arg("--state-root")
            .arg(self.root());
        cmd
    }

    fn root(&self) -> std::path::PathBuf {
        self.dir.path().join("root")
    }

    /// The health record a live watch writes, with a fatal Xid 79 on GPU `gpu`; `alive`: the
    /// watch marked it just now (else two hours ago); `unwatched`: GPUs it hears nothing of.
    fn fatal_xid(&self, gpu: usize, alive: bool, unwatched: &[u32]) {
        let uuid = json(self.run().arg("detect"))["gpus"][gpu]["uuid"]
            .as_str()
            .unwrap()
            .to_string();
        let alive_at = if alive {
            unix_now()
        } else {
            unix_now() - 7200.0
        };
        fatal_xid_record(&self.root(), &uuid, gpu, alive_at, unwatched);
    }
}

/// `recover` plans only what is known: a GPU whose health is unknown (no live watch, or one the
/// driver tells nothing of) is not reset, whatever an old record says; a GPU a process runs on
/// is a blocker (exit 1, as every blocker); and a reset that took the instances of the layout in
/// force is exit 3, saying that `apply` brings them back, not "the node has it".
#[test]
fn recover_acts_on_known_health_and_says_when_the_layout_is_gone() {
    let t = Tried::new();
    t.run()
        .args(["init", "--mode", "mig", "--profile", "1g.5gb", "--yes"])
        .assert()
        .success();
    for (alive, unwatched) in [(false, &[][..]), (true, &[2][..])] {
        t.fatal_xid(2, alive, unwatched);
        let out = t.run().args(["recover", "--dry-run"]).output().unwrap();
        assert!(out.status.success(), "{out:?}");
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "no changes");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains("unknown"), "{said}");
    }
    t.fatal_xid(2, true, &[]);
    let gi = json(t.run().arg("detect"))["gpus"][2]["mig"]["instances"][0]["gpu_instance_id"]
        .as_u64()
        .unwrap();
    t.run()
        .args(["sim", "process", "start", "--gpu", "2", "--pid", "4242"])
        .args(["--memory-mib", "100", "--name", "py", "--mig-device"])
        .arg(format!("{gi}:0"))
        .assert()
        .success();
    let said = fails_with(t.run().arg("recover"), 1);
    assert!(said.contains("4242"), "{said}");
    t.run()
        .args(["sim", "process", "end", "--pid", "4242"])
        .assert()
        .success();
    let said = fails_with(t.run().arg("recover"), 3);
    assert!(
        said.contains("differs from the layout in force") && said.contains("gpushare apply"),
        "{said}"
    );
    fails_with(t.run().args(["plan", "--check"]), 3);
    t.run().args(["apply", "--yes"]).assert().success();
    t.run().args(["plan", "--check"]).assert().success();
    // Nothing left to reset: the node has its layout.
    t.run().arg("recover").assert().success();
}

/// What a new user met: each command does what its hint or its default says.
#[test]
fn hints_and_defaults_hold_for_a_new_user() {
    let t = Tried::new();
    // `metrics --format json` is not answered with Prometheus text.
    let said = fails_with(t.run().args(["--format", "json", "metrics"]), 2);
    assert!(said.contains("--format json"), "{said}");
    // `-c -` reads the layout on stdin, as the FIFO refusal's hint says.
    let layout = "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 7 }\n";
    let out = t
        .run()
        .args(["plan", "-c", "-"])
        .write_stdin(layout)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("create_gpu_instance"),
        "{out:?}"
    );
    // The controller's target names itself when it has no image.
    let said = fails_with(t.run().args(["manifests", "--target", "controller"]), 2);
    assert!(said.contains("the controller target"), "{said}");
    // `manifests` reads the layout in force, as plan and apply do.
    t.run()
        .args(["init", "--mode", "mig", "--profile", "1g.5gb", "--yes"])
        .assert()
        .success();
    let out = t
        .run()
        .args(["manifests", "--target", "nvidia-device-plugin"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("layout in force"),
        "{out:?}"
    );
    // A blocked init says "pass --force"; init --force then does what it says.
    let t = Tried::new();
    t.run()
        .args(["sim", "process", "start", "--gpu", "0", "--pid", "4242"])
        .args(["--memory-mib", "100", "--name", "py"])
        .assert()
        .success();
    let init = ["init", "--mode", "mig", "--profile", "1g.5gb", "--yes"];
    let said = fails_with(t.run().args(init), 1);
    assert!(said.contains("pass --force"), "{said}");
    let said = fails_with(t.run().args(init).arg("--force"), 5);
    assert!(said.contains("reboot required"), "{said}");
}
