//! GPU clients around MIG mode changes: host services and kernel modules that hold the GPUs are
//! stopped before the change and started again after it, in reverse — also after a failure and
//! after a kill (the record beside the journal) — as node-wide steps of the plan. The stand-in
//! `systemctl` and `modprobe` log their calls; the simulated node's holders run in those units.

use super::common::*;
use super::node::{NODE, Node, actions};

/// Two A100s held by DCGM and nvsm-core, each running in its systemd unit.
const HELD: &str = "\
holders = [
  { name = \"nv-hostengine\", pid = 2001, unit = \"nvidia-dcgm.service\" },
  { name = \"nvsm-core\", pid = 2002, unit = \"nvsm-core.service\" },
]
[[gpus]]
model = \"NVIDIA A100-SXM4-40GB\"
count = 2
";

const MIG: &str = "\
[[gpus]]
select = \"all\"
mode = \"mig\"
mig.devices = { \"3g.20gb\" = 2 }
";

fn clients(list: &str) -> String {
    format!("[clients]\nsystemd = [{list}]\n\n{MIG}")
}

fn held_node() -> Node {
    let node = Node::file(HELD);
    node.set_units(&[
        ("nvsm-core.service", "active"),
        ("nvidia-dcgm.service", "active"),
        ("nvidia-persistenced.service", "active"),
    ]);
    node
}

/// The calls that change something (not the `is-active` questions).
fn changing_calls(node: &Node) -> Vec<String> {
    node.standin_log()
        .into_iter()
        .filter(|l| !l.contains("is-active"))
        .collect()
}

fn all_active(node: &Node) -> bool {
    node.units().values().all(|s| s == "active")
}

fn record(node: &Node) -> std::path::PathBuf {
    node.root().join("var/lib/gpushare/stopped-clients.json")
}

/// The position of the first journal line that contains `text`.
fn journal_at(node: &Node, text: &str) -> usize {
    node.journal()
        .lines()
        .position(|l| l.contains(text))
        .unwrap_or_else(|| panic!("no `{text}` in the journal:\n{}", node.journal()))
}

#[test]
fn a_mig_mode_change_stops_the_listed_services_resets_and_starts_them_again_without_force() {
    let node = held_node();
    // Without the list, the services' processes block the reset the mode change needs.
    let bare = node.write("bare.toml", MIG);
    let e = node.fails(&["apply", "-c", &bare], 1);
    assert!(
        e.contains("nv-hostengine (pid 2001, nvidia-dcgm.service)"),
        "{e}"
    );
    assert!(e.contains("`systemctl stop nvidia-dcgm.service`"), "{e}");
    assert!(
        e.contains("[clients]"),
        "the hint names the GPU clients: {e}"
    );

    let cfg = node.write(
        "gpushare.toml",
        &clients("\"nvsm-core.service\", \"nvidia-dcgm.service\""),
    );
    let plan = node.json(&["plan", "-c", &cfg]);
    let steps = actions(&plan);
    let node_wide: Vec<&str> = steps
        .iter()
        .filter(|(g, _)| *g == NODE)
        .map(|(_, a)| a.as_str())
        .collect();
    assert_eq!(
        node_wide,
        [
            "stop_service",
            "stop_service",
            "start_service",
            "start_service"
        ],
        "{plan}"
    );
    assert_eq!(steps[0], (NODE, "stop_service".to_string()));
    assert_eq!(steps[2], (0, "set_mig_mode".to_string()));
    assert_eq!(steps.last().unwrap().0, NODE);
    assert!(plan["changes"][0]["gpu"].is_null(), "{plan}");
    assert_eq!(
        plan["changes"][1]["detail"],
        "nvidia-dcgm.service (holds the GPUs: nv-hostengine (pid 2001, nvidia-dcgm.service))"
    );
    assert!(plan["blockers"].as_array().unwrap().is_empty(), "{plan}");
    node.clear_log();

    let made = node.json(&["apply", "-c", &cfg]);
    for c in made["changes"].as_array().unwrap() {
        let status = c["status"].as_str().unwrap();
        assert!(status == "done" || status == "not_needed", "{c}");
    }
    assert_eq!(
        changing_calls(&node),
        [
            "systemctl stop nvsm-core.service",
            "systemctl stop nvidia-dcgm.service",
            "systemctl start --no-block nvidia-dcgm.service",
            "systemctl start --no-block nvsm-core.service",
        ]
    );
    assert!(all_active(&node), "{:?}", node.units());
    // Stopped, then the mode changes and resets, the layout, and started again.
    let order = [
        journal_at(&node, "stop_service (nvidia-dcgm.service"),
        journal_at(&node, "set_mig_mode"),
        journal_at(&node, "\"GPU 1: reset"),
        journal_at(&node, "create_compute_instance"),
        journal_at(&node, "start_service (nvidia-dcgm.service"),
    ];
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    let detect = node.detect();
    for g in detect["gpus"].as_array().unwrap() {
        assert_eq!(g["mig"]["current"], "enabled", "{g}");
        assert_eq!(g["mig"]["pending"], "enabled", "{g}");
    }
    assert_eq!(node.devices()[&1], ["3g.20gb", "3g.20gb"]);
    assert_eq!(
        detect["holders"].as_array().unwrap().len(),
        2,
        "the services hold the GPUs again"
    );
    assert!(!record(&node).exists());
    assert_eq!(node.check(&cfg), 0);

    // Nothing to change: nothing is stopped.
    node.clear_log();
    let e = node.ok(&["apply", "-c", &cfg]);
    assert!(e.contains("nothing to change"), "{e}");
    assert!(changing_calls(&node).is_empty(), "{:?}", node.standin_log());
}

#[test]
fn after_a_failure_the_services_are_started_again() {
    let node = held_node();
    let cfg = node.write(
        "gpushare.toml",
        &clients("\"nvsm-core.service\", \"nvidia-dcgm.service\""),
    );
    let e = fails_with(
        node.cmd()
            .env("GPUSHARE_SIM_FAIL", "create_gpu_instance:1")
            .args(["apply", "-c", &cfg]),
        1,
    );
    assert!(e.contains("injected failure"), "{e}");
    assert_eq!(
        changing_calls(&node),
        [
            "systemctl stop nvsm-core.service",
            "systemctl stop nvidia-dcgm.service",
            "systemctl start --no-block nvidia-dcgm.service",
            "systemctl start --no-block nvsm-core.service",
        ]
    );
    assert!(all_active(&node));
    assert!(!record(&node).exists());
    // The modes changed before the failure: the re-run only creates, nothing is stopped.
    node.clear_log();
    node.ok(&["apply", "-c", &cfg]);
    assert!(changing_calls(&node).is_empty(), "{:?}", node.standin_log());
    assert_eq!(node.check(&cfg), 0);
}

#[test]
fn a_stop_that_fails_changes_no_gpu_and_starts_what_was_stopped() {
    let node = held_node();
    let cfg = node.write(
        "gpushare.toml",
        &clients("\"nvsm-core.service\", \"nvidia-dcgm.service\""),
    );
    let e = fails_with(
        node.cmd()
            .env("SYSTEMCTL_STANDIN_FAIL", "stop:nvidia-dcgm.service")
            .args(["apply", "-c", &cfg]),
        1,
    );
    assert!(
        e.contains("node: stop_service (nvidia-dcgm.service") && e.contains("failed"),
        "{e}"
    );
    assert!(all_active(&node), "{:?}", node.units());
    assert!(!record(&node).exists());
    let detect = node.detect();
    assert_eq!(detect["gpus"][0]["mig"]["pending"], "disabled");
}

#[test]
fn a_run_killed_after_stopping_services_is_made_good_by_the_next() {
    for crash in [
        "stop_service:2:kill",
        "set_mig_mode:1:kill",
        "create_gpu_instance:1:term",
    ] {
        let node = held_node();
        let cfg = node.write(
            "gpushare.toml",
            &clients("\"nvsm-core.service\", \"nvidia-dcgm.service\""),
        );
        let out = node
            .cmd()
            .env("GPUSHARE_SIM_CRASH", crash)
            .args(["apply", "-q", "-c", &cfg])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{crash}");
        if crash.ends_with("kill") {
            // Nothing ran after the kill: both services are down, and recorded so.
            assert!(!all_active(&node), "{crash}: {:?}", node.units());
            let text = std::fs::read_to_string(record(&node)).unwrap();
            assert!(text.contains("nvidia-dcgm.service"), "{crash}: {text}");
            let plan = node.json(&["plan", "-c", &cfg]);
            let last = plan["changes"].as_array().unwrap().last().unwrap().clone();
            assert_eq!(last["action"], "start_service", "{crash}: {plan}");
            assert!(
                last["detail"]
                    .as_str()
                    .unwrap()
                    .contains("an earlier run stopped it"),
                "{crash}: {plan}"
            );
            assert_eq!(node.check(&cfg), 3, "{crash}: a start is owed");
        } else {
            // A signal: the run stops after the step in flight and starts them again itself.
            assert!(all_active(&node), "{crash}: {:?}", node.units());
        }
        let e = node.ok(&["apply", "-c", &cfg]);
        if crash.ends_with("kill") {
            assert!(e.contains("stopped without finishing"), "{crash}: {e}");
        }
        assert!(all_active(&node), "{crash}: {:?}", node.units());
        assert!(!record(&node).exists(), "{crash}");
        assert_eq!(node.check(&cfg), 0, "{crash}");
        assert_eq!(node.devices()[&0], ["3g.20gb", "3g.20gb"], "{crash}");
    }
}

#[test]
fn kernel_modules_are_unloaded_and_loaded_again_only_when_unused() {
    let node = Node::file(
        "holders = [{ name = \"nvidia_drm\", kind = \"module\" }]\n\
         [[gpus]]\nmodel = \"NVIDIA A100-SXM4-40GB\"\n",
    );
    let modules = node.modules_path();
    std::fs::create_dir_all(modules.parent().unwrap()).unwrap();
    let host = node.dir.path().join("host").display().to_string();
    let cfg = node.write(
        "gpushare.toml",
        &format!("[clients]\nmodules = [\"nvidia-drm\"]\n\n{MIG}"),
    );
    // In use (a display server): modprobe refuses, no GPU is changed.
    std::fs::write(
        &modules,
        "nvidia_drm 16384 1 - Live 0x0\nnvidia 1000 1 nvidia_drm, Live 0x0\n",
    )
    .unwrap();
    let e = node.fails(&["apply", "--sysfs-root", &host, "-c", &cfg], 1);
    assert!(e.contains("is in use"), "{e}");
    assert_eq!(node.detect()["gpus"][0]["mig"]["pending"], "disabled");
    // Unused: unloaded before the mode change, loaded again after it.
    std::fs::write(
        &modules,
        "nvidia_drm 16384 0 - Live 0x0\nnvidia 1000 1 nvidia_drm, Live 0x0\n",
    )
    .unwrap();
    node.clear_log();
    node.ok(&["apply", "--sysfs-root", &host, "-c", &cfg]);
    assert_eq!(
        changing_calls(&node),
        ["modprobe -r nvidia_drm", "modprobe nvidia_drm"]
    );
    assert!(
        std::fs::read_to_string(&modules)
            .unwrap()
            .contains("nvidia_drm ")
    );
    assert_eq!(node.devices()[&0], ["3g.20gb", "3g.20gb"]);
    assert_eq!(node.detect()["holders"].as_array().unwrap().len(), 1);
}

#[test]
fn mig_parteds_gpu_clients_file_works_unchanged() {
    let node = Node::file(
        "holders = [\n\
           { name = \"nvsm\", pid = 11, unit = \"nvsm.service\" },\n\
           { name = \"nv-hostengine\", pid = 12, unit = \"nvidia-dcgm.service\" },\n\
           { name = \"dcgm-exporter\", pid = 13, unit = \"dcgm-exporter.service\" },\n\
         ]\n[[gpus]]\nmodel = \"NVIDIA A100-SXM4-40GB\"\ncount = 2\n",
    );
    // The file lists eight units; three run here, one more is known but stopped.
    node.set_units(&[
        ("nvsm.service", "active"),
        ("nvidia-dcgm.service", "active"),
        ("dcgm-exporter.service", "active"),
        ("nv_peer_mem.service", "inactive"),
    ]);
    let clients = repo().join("tests/fixtures/mig-parted/gpu-clients.yaml");
    let config = repo().join("tests/fixtures/mig-parted/config-default.yaml");
    let (clients, config) = (clients.display().to_string(), config.display().to_string());
    node.fails(&["mig", "apply", "-f", &config, "-c", "all-3g.20gb"], 1);
    node.clear_log();
    node.cmd()
        .env("GPU_CLIENTS_FILE", &clients)
        .args(["mig", "apply", "-f", &config, "-c", "all-3g.20gb"])
        .assert()
        .success();
    assert_eq!(
        changing_calls(&node),
        [
            "systemctl stop nvsm.service",
            "systemctl stop nvidia-dcgm.service",
            "systemctl stop dcgm-exporter.service",
            "systemctl start --no-block dcgm-exporter.service",
            "systemctl start --no-block nvidia-dcgm.service",
            "systemctl start --no-block nvsm.service",
        ]
    );
    assert_eq!(node.units()["nv_peer_mem.service"], "inactive");
    assert_eq!(node.devices()[&0], ["3g.20gb", "3g.20gb"]);
    let e = node.fails(
        &[
            "mig",
            "apply",
            "-f",
            &config,
            "-c",
            "all-disabled",
            "--gpu-clients-file",
            &config,
        ],
        2,
    );
    assert!(e.contains("config-default.yaml:"), "{e}");
}
