//! `gpushare manifests`: snapshots of every target on the simulated nodes, what the output says
//! about the node, and the refusals. GPUSHARE_BLESS=1 rewrites the snapshots.

use crate::common;
use common::*;
use std::path::Path;

const FX: &str = "tests/fixtures/k8s";
const AGENT_IMAGE: &str = "gpushare=registry.example.com/gpushare:0.1.0";

/// The scenarios: name, and the arguments before `manifests` / after it.
fn scenario(name: &str) -> (Vec<String>, Vec<String>) {
    let fx = |f: &str| repo().join(FX).join(f).display().to_string();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    match name {
        "dgx-a100" => (s(&["--sim", "dgx-a100"]), vec![]),
        "dgx-a100-balanced" => (s(&["--sim", &fx("dgx-a100-balanced.toml")]), vec![]),
        "dgx-a100-layout" => (s(&["--sim", "dgx-a100"]), s(&["-c", &fx("balanced.toml")])),
        "mixed" => (s(&["--sim", "mixed"]), s(&["-c", &fx("mixed.toml")])),
        "t4x4-mps" => (s(&["--sim", "t4x4"]), s(&["-c", &fx("t4-mps.toml")])),
        "a30x4-mig-time-slicing" => (
            s(&["--sim", "a30x4"]),
            s(&["-c", &fx("a30-mig-time-slicing.toml")]),
        ),
        _ => unreachable!(),
    }
}

fn manifests(name: &str, extra: &[&str]) -> assert_cmd::Command {
    let (before, after) = scenario(name);
    let mut cmd = gpushare();
    cmd.current_dir(repo())
        .args(before)
        .arg("manifests")
        .args(after)
        .args(extra);
    cmd
}

fn output(name: &str, extra: &[&str]) -> String {
    let out = manifests(name, extra).output().unwrap();
    assert!(
        out.status.success(),
        "{name} {extra:?}: exit {:?}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    // Paths of the fixtures depend on the checkout; the snapshots name them from the root.
    String::from_utf8_lossy(&out.stdout).replace(&format!("{}/", repo().display()), "")
}

fn snapshot(name: &str, target: &str, text: &str) {
    snapshot::check(
        &format!("tests/snapshots/manifests/{name}-{target}.yaml"),
        text.as_bytes(),
        "manifests",
    );
}

fn check_snapshots(name: &str, targets: &[&str]) {
    for target in targets {
        let mut extra = vec!["--target", target, "--examples"];
        if *target == "agent" || *target == "controller" || *target == "dra-plugin" {
            extra.extend(["--image", AGENT_IMAGE]);
        }
        snapshot(name, target, &output(name, &extra));
    }
}

#[test]
fn snapshots_dgx_a100() {
    check_snapshots(
        "dgx-a100",
        &[
            "nvidia-device-plugin",
            "gpushare-extender",
            "hami",
            "dra",
            "cdi",
            "controller",
            "prometheus-rules",
        ],
    );
}

#[test]
fn snapshots_dgx_a100_after_all_balanced() {
    check_snapshots(
        "dgx-a100-balanced",
        &["nvidia-device-plugin", "hami", "dra", "cdi"],
    );
}

#[test]
fn snapshots_dgx_a100_with_a_mig_layout() {
    check_snapshots(
        "dgx-a100-layout",
        &["nvidia-device-plugin", "hami", "dra", "dra-plugin", "agent"],
    );
}

#[test]
fn snapshots_mixed() {
    check_snapshots(
        "mixed",
        &["nvidia-device-plugin", "hami", "dra", "cdi", "agent"],
    );
}

#[test]
fn snapshots_t4x4_with_mps() {
    check_snapshots(
        "t4x4-mps",
        &[
            "nvidia-device-plugin",
            "gpushare-extender",
            "dra",
            "cdi",
            "agent",
        ],
    );
}

#[test]
fn snapshots_a30x4_with_time_sliced_mig_devices() {
    check_snapshots("a30x4-mig-time-slicing", &["nvidia-device-plugin", "dra"]);
}

#[test]
fn time_sliced_mig_devices_are_advertised_as_replicas() {
    let dp = output(
        "a30x4-mig-time-slicing",
        &["--target", "nvidia-device-plugin"],
    );
    assert!(dp.contains("migStrategy: mixed"), "{dp}");
    assert!(dp.contains("- name: nvidia.com/mig-1g.6gb"), "{dp}");
    assert!(dp.contains("- name: nvidia.com/mig-2g.12gb"), "{dp}");
    // 4 GPUs × 2 devices × 2 replicas, and 4 × 1 × 2.
    assert!(dp.contains("nvidia.com/mig-1g.6gb: 16"), "{dp}");
    assert!(dp.contains("nvidia.com/mig-2g.12gb: 8"), "{dp}");
    let dra = output("a30x4-mig-time-slicing", &["--target", "dra"]);
    assert!(dra.contains("name: mig-1g.6gb-time-slicing"), "{dra}");
    assert!(dra.contains("kind: MigDeviceConfig"), "{dra}");
    assert!(!dra.contains("timeSlicingConfig"), "{dra}");
    let out = manifests("a30x4-mig-time-slicing", &["--target", "hami"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("time-slices its MIG devices"), "{err}");
}

#[test]
fn balanced_node_says_what_it_has() {
    let dp = output(
        "dgx-a100-balanced",
        &["--target", "nvidia-device-plugin", "--examples"],
    );
    assert!(dp.contains("migStrategy: mixed"), "{dp}");
    assert!(dp.contains("nvidia.com/mig-1g.5gb: 16"), "{dp}");
    assert!(dp.contains("nvidia.com/mig-3g.20gb: 8"), "{dp}");
    assert!(
        dp.contains("nvidia.com/mig-1g.5gb: \"1\""),
        "the example pod asks a slice: {dp}"
    );
    let cdi = output("dgx-a100-balanced", &["--target", "cdi"]);
    for name in ["0:0", "0:1", "0:3", "7:3"] {
        assert!(
            cdi.contains(&format!("- name: {name}\n"))
                || cdi.contains(&format!("- name: \"{name}\"\n")),
            "{name} in {cdi}"
        );
    }
    assert!(cdi.contains("/dev/nvidia-caps/nvidia-cap"), "{cdi}");
    // The layout from the config names the same resources before it is applied.
    let layout = output("dgx-a100-layout", &["--target", "nvidia-device-plugin"]);
    assert!(layout.contains("migStrategy: mixed"), "{layout}");
    assert!(layout.contains("nvidia.com/mig-2g.10gb: 8"), "{layout}");
}

#[test]
fn uniform_layout_is_single() {
    let out = gpushare()
        .current_dir(repo())
        .args([
            "--sim",
            "dgx-a100",
            "manifests",
            "--target",
            "nvidia-device-plugin",
        ])
        .args(["-c", &format!("{FX}/uniform.toml")])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("migStrategy: single"), "{text}");
    assert!(text.contains("nvidia.com/gpu: 56"), "{text}");
}

#[test]
fn mps_node_has_replicas_and_the_mps_daemon() {
    let dp = output("t4x4-mps", &["--target", "nvidia-device-plugin"]);
    assert!(dp.contains("replicas: 4"), "{dp}");
    assert!(dp.contains("mpsRoot: /run/nvidia/mps"), "{dp}");
    assert!(dp.contains("nvidia.com/gpu: 16"), "{dp}");
    assert!(dp.contains("- mps-control-daemon"), "{dp}");
    let dra = output("t4x4-mps", &["--target", "dra"]);
    assert!(dra.contains("defaultActiveThreadPercentage: 25"), "{dra}");
    assert!(
        dra.contains("defaultPinnedDeviceMemoryLimit: 3840Mi"),
        "{dra}"
    );
}

#[test]
fn dra_follows_the_kubernetes_release() {
    for (v, api) in [
        ("1.32", "v1beta1"),
        ("1.33", "v1beta2"),
        ("1.34", "v1"),
        ("1.37", "v1"),
    ] {
        let out = output(
            "dgx-a100-balanced",
            &["--target", "dra", "--k8s-version", v],
        );
        assert!(
            out.contains(&format!("apiVersion: resource.k8s.io/{api}\n")),
            "{v}: {out}"
        );
        assert_eq!(out.contains("exactly:"), api != "v1beta1", "{v}");
        // The drop-in move from the device plugin's resources, where the release serves it.
        assert_eq!(
            out.contains("extendedResourceName: nvidia.com/mig-3g.20gb\n"),
            v == "1.37",
            "{v}: {out}"
        );
    }
    let e = fails_with(
        &mut manifests("dgx-a100", &["--target", "dra", "--k8s-version", "1.31"]),
        2,
    );
    assert!(e.contains("1.32 or newer"), "{e}");
}

#[test]
fn bad_input_is_refused_with_exit_2() {
    let e = fails_with(&mut manifests("dgx-a100", &["--target", "volcano"]), 2);
    assert!(
        e.contains("nvidia-device-plugin") && e.contains("agent"),
        "{e}"
    );
    for v in ["1.28", "1.38", "banana"] {
        let e = fails_with(
            &mut manifests("dgx-a100", &["--target", "cdi", "--k8s-version", v]),
            2,
        );
        assert!(e.contains("1.29") && e.contains("1.37"), "{e}");
    }
    let e = fails_with(&mut manifests("dgx-a100", &[]), 2);
    assert!(e.contains("no target"), "{e}");
    let e = fails_with(&mut manifests("t4x4-mps", &["--target", "hami"]), 2);
    assert!(e.contains("HAMi has no MPS"), "{e}");
    let e = fails_with(
        &mut manifests("dgx-a100-balanced", &["--target", "gpushare-extender"]),
        2,
    );
    assert!(e.contains("only shares whole GPUs"), "{e}");
    let e = fails_with(&mut manifests("dgx-a100", &["--target", "agent"]), 2);
    assert!(e.contains("-c FILE"), "{e}");
    let e = fails_with(&mut manifests("t4x4-mps", &["--target", "agent"]), 2);
    assert!(e.contains("--image gpushare=REF"), "{e}");
    let e = fails_with(
        &mut manifests("dgx-a100", &["--target", "cdi", "--image", "x=y"]),
        2,
    );
    assert!(e.contains("unknown image"), "{e}");
    let e = fails_with(
        &mut manifests("dgx-a100", &["--target", "cdi", "--namespace", "Bad"]),
        2,
    );
    assert!(e.contains("namespace"), "{e}");
}

#[test]
fn the_plugins_refusals_name_their_reason() {
    let dir = tempfile::tempdir().unwrap();
    let conf = write(
        dir.path(),
        "bad.toml",
        "[[gpus]]\nselect = [0, 1]\nmode = \"mig\"\nmig.devices = { \"1g.10gb\" = 7 }\n\n[[gpus]]\nselect = [2, 3]\nmode = \"mps\"\nmps = { clients = 2 }\n",
    );
    let e = fails_with(
        sim("mixed")
            .args(["manifests", "--target", "nvidia-device-plugin", "-c"])
            .arg(&conf),
        2,
    );
    assert!(e.contains("not supported with MPS"), "{e}");
    let conf = write(
        dir.path(),
        "typo.toml",
        "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"1g.6gb\" = 2 }\n",
    );
    let e = fails_with(
        sim("dgx-a100")
            .args(["manifests", "--target", "dra", "-c"])
            .arg(&conf),
        2,
    );
    assert!(e.contains("typo.toml:4:17") && e.contains("1g.6gb"), "{e}");
    let conf = write(
        dir.path(),
        "t.toml",
        "[kubernetes]\ntargets = [\"dra\", \"kueue\"]\n",
    );
    let e = fails_with(sim("dgx-a100").args(["manifests", "-c"]).arg(&conf), 2);
    assert!(
        e.contains("t.toml:2:19") && e.contains("unknown target `kueue`"),
        "{e}"
    );
}

#[test]
fn nothing_is_written_when_generation_fails() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    // cdi succeeds, hami refuses MPS: neither may leave files behind.
    let mut cmd = manifests(
        "t4x4-mps",
        &["--target", "cdi", "--target", "hami", "--out"],
    );
    fails_with(cmd.arg(&out), 2);
    assert!(!out.exists(), "no half-written --out");
    manifests("t4x4-mps", &["--target", "cdi", "--target", "dra", "--out"])
        .arg(&out)
        .assert()
        .success();
    let mut files: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files[0], "00-deviceclass-gpu.gpushare.io.yaml");
    assert!(files.contains(&"NOTES.txt".to_string()));
    assert!(files.iter().any(|f| f.ends_with("cdi-nvidia.yaml")));
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(out.join(&files[0]))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o644);
}

#[test]
fn install_writes_the_cdi_spec_atomically() {
    let root = tempfile::tempdir().unwrap();
    manifests(
        "dgx-a100-balanced",
        &["--target", "cdi", "--install", "--state-root"],
    )
    .arg(root.path())
    .assert()
    .success()
    .stdout("");
    let path = root.path().join("etc/cdi/nvidia.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.starts_with("cdiVersion: \"0.5.0\"\nkind: nvidia.com/gpu\n"),
        "{text}"
    );
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o644
    );
    let e = fails_with(
        &mut manifests("dgx-a100", &["--target", "dra", "--install"]),
        2,
    );
    assert!(e.contains("--target cdi"), "{e}");
}

#[test]
fn json_is_one_array_of_documents() {
    let v = json(&mut manifests(
        "t4x4-mps",
        &["--target", "nvidia-device-plugin"],
    ));
    let kinds: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["ConfigMap", "DaemonSet", "DaemonSet"]);
}

#[test]
fn a_device_root_is_read_on_the_node() {
    if !as_root("manifests::a_device_root_is_read_on_the_node") {
        return;
    }
    // A node file without MIG, a fake /dev: nodes under the root become host paths.
    let root = tempfile::tempdir().unwrap();
    let dev = root.path().join("dev");
    std::fs::create_dir_all(&dev).unwrap();
    for (n, minor) in [
        ("nvidia0", 0),
        ("nvidia1", 1),
        ("nvidia2", 2),
        ("nvidia3", 3),
        ("nvidiactl", 255),
    ] {
        char_device(&dev.join(n), 195, minor);
    }
    let out = sim("t4x4")
        .args(["manifests", "--target", "cdi", "--dev-root"])
        .arg(root.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!(
            "hostPath: {}",
            Path::new(root.path()).join("dev/nvidiactl").display()
        )),
        "{text}"
    );
    assert!(
        !text.contains("nvidia-uvm"),
        "only nodes that exist: {text}"
    );
    // A relative root is made absolute: in the spec, and in the sources a refresh reads.
    let state = tempfile::tempdir().unwrap();
    sim("t4x4")
        .current_dir(root.path().parent().unwrap())
        .arg("--state-root")
        .arg(state.path())
        .args(["manifests", "--target", "cdi", "--install", "--dev-root"])
        .arg(root.path().file_name().unwrap())
        .assert()
        .success();
    let sources: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(state.path().join("var/lib/gpushare/cdi-sources.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        sources["root"].as_str(),
        Some(&*root.path().display().to_string()),
        "{sources}"
    );
    let installed = std::fs::read_to_string(state.path().join("etc/cdi/nvidia.yaml")).unwrap();
    assert!(!installed.contains("hostPath: dev/"), "{installed}");
    std::fs::remove_file(dev.join("nvidia2")).unwrap();
    let e = fails_with(
        sim("t4x4")
            .args(["manifests", "--target", "cdi", "--dev-root"])
            .arg(root.path()),
        1,
    );
    assert!(e.contains("nvidia2") && e.contains("does not exist"), "{e}");
}
