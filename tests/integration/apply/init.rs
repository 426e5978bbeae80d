//! `gpushare init` on simulated nodes: every mode on dgx-a100, t4x4 and mixed, re-runs that
//! change nothing, an existing file, faults, and the "done when" of the issue.

use super::common::*;
use super::node::Node;
use serde_json::Value;

fn init_json(node: &Node, args: &[&str]) -> Value {
    let mut all = vec!["init", "--yes"];
    all.extend_from_slice(args);
    node.json(&all)
}

#[test]
fn init_mig_on_a_dgx_a100_then_again_changes_nothing() {
    let node = Node::preset("dgx-a100");
    let c = node.dir.path().join("C").display().to_string();
    let args = ["--mode", "mig", "--profile", "1g.5gb", "--config-out", &c];
    let out = node
        .cmd()
        .args(["init", "--yes"])
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let devices = node.devices();
    assert_eq!(devices.len(), 8);
    for (gpu, list) in &devices {
        assert_eq!(list, &["1g.5gb"; 7], "GPU {gpu}");
    }
    let text = std::fs::read_to_string(&c).unwrap();
    assert!(
        text.contains("mode = \"mig\"") && text.contains("\"1g.5gb\" = 7"),
        "{text}"
    );
    let manifests = node.root().join("etc/gpushare/manifests");
    let mut files: Vec<String> = std::fs::read_dir(&manifests)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            ".gpushare-manifests",
            "00-configmap-nvidia-device-plugin-configs.yaml",
            "01-daemonset-nvidia-device-plugin-c.yaml",
            "02-cdi-nvidia.yaml",
            "NOTES.txt"
        ]
    );
    assert!(stderr.contains("probe skipped: no CUDA driver"), "{stderr}");
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("7x MIG 1g.5gb"), "{table}");
    assert!(table.contains("probe      skipped"), "{table}");

    let again = init_json(&node, &args);
    assert_eq!(again["config"]["written"], false);
    assert_eq!(again["changes"]["changes"].as_array().unwrap().len(), 0);
    assert_eq!(again["probe"]["status"], "skipped");
    assert_eq!(again["gpus"][7]["offers"][0], "7x MIG 1g.5gb");
    assert_eq!(node.check(&c), 0);
}

#[test]
fn init_time_slices_the_mig_devices_it_makes() {
    let node = Node::preset("a30x4");
    let c = node.dir.path().join("C").display().to_string();
    let v = init_json(
        &node,
        &[
            "--mode",
            "mig",
            "--profile",
            "1g.6gb",
            "--replicas",
            "3",
            "--config-out",
            &c,
        ],
    );
    for (gpu, list) in &node.devices() {
        assert_eq!(list, &["1g.6gb"; 4], "GPU {gpu}");
    }
    let text = std::fs::read_to_string(&c).unwrap();
    assert!(text.contains("replicas = 3"), "{text}");
    for g in v["gpus"].as_array().unwrap() {
        assert_eq!(
            g["offers"],
            serde_json::json!([
                "4x MIG 1g.6gb",
                "time-slicing: 3 replicas of each MIG device through the device plugin"
            ]),
            "{g}"
        );
    }
    let config = std::fs::read_to_string(
        node.root()
            .join("etc/gpushare/manifests/00-configmap-nvidia-device-plugin-configs.yaml"),
    )
    .unwrap();
    assert!(
        config.contains("- name: nvidia.com/gpu\n          replicas: 3"),
        "single strategy: the MIG devices are nvidia.com/gpu: {config}"
    );
    let err = node
        .cmd()
        .args([
            "init",
            "--yes",
            "--mode",
            "mps",
            "--clients",
            "2",
            "--replicas",
            "2",
        ])
        .output()
        .unwrap();
    assert_eq!(err.status.code(), Some(2));
}

/// One init per mode and preset: what the file says, that the node then has it, and that a
/// second run changes nothing.
#[test]
fn init_every_mode_on_dgx_a100_t4x4_and_mixed() {
    let cases: &[(&str, &[&str], &str)] = &[
        (
            "dgx-a100",
            &["--mode", "mig", "--profile", "3g.20gb"],
            "\"3g.20gb\"=2",
        ),
        (
            "dgx-a100",
            &["--mode", "mps", "--clients", "4"],
            "clients=4",
        ),
        (
            "dgx-a100",
            &["--mode", "time-slicing", "--replicas", "4"],
            "replicas=4",
        ),
        (
            "dgx-a100",
            &["--mode", "auto", "--slices", "3"],
            "\"2g.10gb\"=3",
        ),
        ("t4x4", &["--mode", "mps", "--clients", "8"], "clients=8"),
        (
            "t4x4",
            &["--mode", "time-slicing", "--replicas", "2"],
            "replicas=2",
        ),
        (
            "t4x4",
            &["--mode", "auto", "--slices", "2", "--min-memory", "4G"],
            "clients=2",
        ),
        (
            "mixed",
            &["--mode", "mig", "--profile", "1g.10gb"],
            "select=[0,1]",
        ),
        ("mixed", &["--mode", "mps", "--clients", "2"], "clients=2"),
        (
            "mixed",
            &["--mode", "time-slicing", "--replicas", "3"],
            "replicas=3",
        ),
        (
            "mixed",
            &["--mode", "auto", "--slices", "2"],
            "\"3g.40gb\"=2",
        ),
    ];
    for (preset, args, expect) in cases {
        let node = Node::preset(preset);
        let first = init_json(&node, args);
        let c = first["config"]["path"].as_str().unwrap().to_string();
        let text: String = std::fs::read_to_string(&c)
            .unwrap()
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .replace(",]", "]");
        assert!(text.contains(expect), "{preset} {args:?}: {text}");
        assert_eq!(first["config"]["written"], true);
        assert_eq!(node.check(&c), 0, "{preset} {args:?}");
        let again = init_json(&node, args);
        assert_eq!(
            again["changes"]["changes"].as_array().unwrap().len(),
            0,
            "{preset} {args:?}: {again}"
        );
        assert_eq!(again["config"]["written"], false);
        if !node.daemons().is_empty() {
            node.ok(&["mps", "stop"]);
        }
    }
    // MIG where there is none is bad input, and nothing is written.
    let node = Node::preset("t4x4");
    let e = node.fails(&["init", "--mode", "mig", "--profile", "1g.5gb"], 2);
    assert!(e.contains("no GPU of this node can do MIG"), "{e}");
    assert!(!node.root().join("etc/gpushare/gpushare.toml").exists());
}

#[test]
fn an_existing_file_that_says_otherwise_needs_force() {
    let node = Node::preset("t4x4");
    init_json(&node, &["--mode", "time-slicing", "--replicas", "2"]);
    let path = node.root().join("etc/gpushare/gpushare.toml");
    let before = std::fs::read_to_string(&path).unwrap();
    let e = node.fails(&["init", "--mode", "time-slicing", "--replicas", "4"], 1);
    assert!(
        e.contains("exists and says something else; nothing was changed"),
        "{e}"
    );
    assert!(e.contains("--force"), "{e}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    // The journal records why the run ended, not "stopped before its end".
    let last = node.journal().lines().last().unwrap().to_string();
    assert!(
        last.contains("\"event\":\"failed\"") && last.contains("exists and says something else"),
        "{last}"
    );
    // A dry run shows the plan and writes nothing.
    let plan = node.json(&[
        "init",
        "--dry-run",
        "--force",
        "--mode",
        "mps",
        "--clients",
        "2",
    ]);
    assert_eq!(plan["changes"][0]["action"], "start_mps_daemon");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    assert!(node.daemons().is_empty());
    // --force rewrites it; the manifests of the old layout that are not written again go.
    let stale = node
        .root()
        .join("etc/gpushare/manifests/02-cdi-nvidia.yaml");
    assert!(stale.exists());
    let c = path.display().to_string();
    let other = node.write(
        "other.toml",
        "[[gpus]]\nselect = \"all\"\nmode = \"time-slicing\"\ntime_slicing.replicas = 4\n\
         [kubernetes]\ntargets = [\"nvidia-device-plugin\"]\n",
    );
    let v = node.json(&["init", "--yes", "-c", &other, "--config-out", &c, "--force"]);
    assert_eq!(v["config"]["written"], true);
    assert!(!stale.exists(), "the old CDI manifest is removed");
    assert_eq!(v["manifests"]["files"].as_array().unwrap().len(), 3);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        std::fs::read_to_string(&other).unwrap()
    );
}

#[test]
fn flags_that_do_not_fit_are_bad_input() {
    let node = Node::preset("t4x4");
    let e = node.fails(&["init"], 2);
    assert!(e.contains("-c FILE or --mode"), "{e}");
    let e = node.fails(&["init", "--mode", "mps"], 2);
    assert!(e.contains("--mode mps needs --clients"), "{e}");
    let e = node.fails(&["init", "--mode", "mps", "--clients", "99"], 2);
    assert!(
        e.contains("99 MPS clients is more than GPU 0 (Tesla T4) takes"),
        "{e}"
    );
    let file = node.write("g.toml", "[[gpus]]\nselect = \"all\"\nmode = \"none\"\n");
    let e = node.fails(&["init", "-c", &file, "--clients", "2"], 2);
    assert!(e.contains("--clients does not go with -c"), "{e}");
    assert!(node.journal().lines().all(|l| !l.contains("\"step\"")));
}

#[test]
fn a_failed_init_is_finished_by_running_it_again() {
    for jobs in super::JOBS {
        a_failed_init_is_finished(jobs);
    }
}

fn a_failed_init_is_finished(jobs: &'static str) {
    let node = Node::preset("mixed").jobs(jobs);
    let args = ["init", "--yes", "--mode", "auto", "--slices", "4"];
    let e = fails_with(
        node.cmd()
            .env("GPUSHARE_SIM_FAIL", "create_compute_instance:3")
            .args(args),
        1,
    );
    assert!(e.contains("injected failure"), "{e}");
    // The file was written before the first change: the re-run finds it unchanged.
    let v = node.json(&args);
    assert_eq!(v["config"]["written"], false);
    assert!(!v["changes"]["changes"].as_array().unwrap().is_empty());
    assert_eq!(node.devices()[&1], ["1g.20gb"; 4]);
    assert_eq!(v["gpus"][2]["mode"], "mps");
    node.ok(&["mps", "stop"]);
}

/// The stand-in libcuda (tests/support/libcuda_standin.c), built with cc into a directory.
fn standin_cuda(dir: &std::path::Path) -> std::path::PathBuf {
    let lib_dir = dir.join("cuda");
    std::fs::create_dir_all(&lib_dir).unwrap();
    let status = std::process::Command::new("cc")
        .args(["-shared", "-fPIC", "-O2", "-o"])
        .arg(lib_dir.join("libcuda.so.1"))
        .arg(repo().join("tests/support/libcuda_standin.c"))
        .status()
        .expect("a C compiler (cc) is needed to build the stand-in libcuda");
    assert!(status.success());
    lib_dir
}

#[test]
fn with_cuda_the_probe_checks_every_slice() {
    let node = Node::preset("t4x4");
    let args = ["--mode", "time-slicing", "--replicas", "2"];
    init_json(&node, &args);
    let devices: Vec<String> = node.detect()["gpus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            format!(
                "{}={}:{}",
                g["uuid"].as_str().unwrap(),
                g["memory_total_mib"],
                g["multiprocessors"]
            )
        })
        .collect();
    let lib = standin_cuda(node.dir.path());
    let v = json(
        node.cmd()
            .env("LD_LIBRARY_PATH", &lib)
            .env("STANDIN_CUDA_DEVICES", devices.join(","))
            .args(["init", "--yes"])
            .args(args),
    );
    assert_eq!(v["probe"]["status"], "passed", "{v}");
    assert_eq!(v["probe"]["detail"], "4 target(s) keep their promise");
    // A GPU that does not give what it promises fails init with exit 3.
    let out = node
        .cmd()
        .env("LD_LIBRARY_PATH", &lib)
        .env("STANDIN_CUDA_DEVICES", devices.join(","))
        .env("STANDIN_CUDA_FAULT", format!("crash:{}", &devices[1][..40]))
        .args(["init", "--yes"])
        .args(args)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn init_places_a_bad_namespace_in_the_file() {
    let node = Node::preset("t4x4");
    let config = write(
        node.dir.path(),
        "gpushare.toml",
        "[[gpus]]\nselect = \"all\"\nmode = \"time-slicing\"\ntime_slicing.replicas = 2\n\n[kubernetes]\ntargets = [\"nvidia-device-plugin\"]\nnamespace = \"Not_A_Label\"\n",
    );
    let err = fails_with(
        node.cmd()
            .args(["init", "--yes", "-c"])
            .arg(&config)
            .arg("--config-out")
            .arg(node.dir.path().join("out.toml")),
        2,
    );
    assert!(
        err.contains(&format!(
            "{}:8:13: namespace \"Not_A_Label\" is not a valid namespace name",
            config.display()
        )),
        "{err}"
    );
    assert!(!node.dir.path().join("out.toml").exists());
}
