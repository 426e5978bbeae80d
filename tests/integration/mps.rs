//! `gpushare mps start|status|stop|unit` on simulated nodes, with the stand-in
//! `nvidia-cuda-mps-control` of tests/support/bin first on PATH.

use crate::common;
use common::*;

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// A simulated node that keeps its state, its own state root, and the stand-in's command log.
struct Node {
    dir: TempDir,
    preset: &'static str,
    /// `GPUSHARE_JOBS` for every command (none: the default).
    jobs: Option<&'static str>,
}

impl Node {
    fn new(preset: &'static str) -> Self {
        Node {
            dir: tempfile::tempdir().unwrap(),
            preset,
            jobs: None,
        }
    }

    /// The same node, every command run with `--jobs` (as `GPUSHARE_JOBS`).
    fn jobs(self, jobs: &'static str) -> Self {
        Node {
            jobs: Some(jobs),
            ..self
        }
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("root")
    }

    fn state(&self) -> PathBuf {
        self.dir.path().join("sim.json")
    }

    fn log_path(&self) -> PathBuf {
        self.dir.path().join("mps-commands.jsonl")
    }

    /// gpushare on this node, the stand-in first on PATH.
    fn cmd(&self) -> Command {
        let mut c = gpushare();
        c.args(["--sim", self.preset, "--sim-state"])
            .arg(self.state())
            .arg("--state-root")
            .arg(self.root());
        c.env("PATH", path_with_stand_in());
        c.env("MPS_STANDIN_LOG", self.log_path());
        if let Some(jobs) = self.jobs {
            c.env("GPUSHARE_JOBS", jobs);
        }
        c
    }

    fn run(&self, args: &[&str]) -> String {
        let out = self.cmd().args(args).output().unwrap();
        assert!(
            out.status.success(),
            "gpushare {args:?}: exit {:?}\nstderr: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn json(&self, args: &[&str]) -> Value {
        json(self.cmd().args(args))
    }

    /// Compute modes as `detect` reports them, per GPU.
    fn modes(&self) -> Vec<String> {
        let v = self.json(&["detect"]);
        v["gpus"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["compute_mode"].as_str().unwrap().to_string())
            .collect()
    }

    /// Compute modes of the MIG devices of a GPU.
    fn mig_modes(&self, gpu: usize) -> Vec<String> {
        let v = self.json(&["detect"]);
        v["gpus"][gpu]["mig"]["instances"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|gi| gi["compute_instances"].as_array().unwrap().clone())
            .map(|ci| ci["compute_mode"].as_str().unwrap().to_string())
            .collect()
    }

    /// Every invocation the stand-in logged.
    fn log(&self) -> Vec<Value> {
        std::fs::read_to_string(self.log_path())
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The commands sent to the daemon whose pipe dir ends with `pipe_tail`.
    fn commands(&self, pipe_tail: &str) -> Vec<String> {
        self.log()
            .iter()
            .filter(|e| e["pipe"].as_str().unwrap().ends_with(pipe_tail))
            .filter_map(|e| e["command"].as_str().map(str::to_string))
            .collect()
    }

    /// The `-d` starts the stand-in saw.
    fn starts(&self) -> Vec<Value> {
        self.log()
            .into_iter()
            .filter(|e| e.get("argv").is_some())
            .collect()
    }

    fn mps_dir(&self) -> PathBuf {
        self.root().join("run/gpushare/mps")
    }

    /// Daemon directories left under the run dir.
    fn daemon_dirs(&self) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(self.mps_dir()) else {
            return Vec::new();
        };
        let mut names: Vec<String> = entries
            .flatten()
            .filter(|e| e.path().is_dir())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

fn stand_in_dir() -> PathBuf {
    repo().join("tests/support/bin")
}

fn path_with_stand_in() -> std::ffi::OsString {
    let mut paths = vec![stand_in_dir()];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(paths).unwrap()
}

fn uuids(node: &Node) -> Vec<String> {
    node.json(&["detect"])["gpus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["uuid"].as_str().unwrap().to_string())
        .collect()
}

/// The daemons a run started, from its plan (`start_mps_daemon` changes name them first:
/// "MPS daemon `gpu0-3` for …").
fn started(plan: &Value) -> Vec<String> {
    plan["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["action"] == "start_mps_daemon" && c["status"] == "done")
        .map(|c| {
            let detail = c["detail"].as_str().unwrap();
            detail.split('`').nth(1).unwrap().to_string()
        })
        .collect()
}

#[test]
fn t4x4_round_trip_sets_limits_per_ordinal_and_restores_default() {
    let node = Node::new("t4x4");
    let plan = node.json(&["mps", "start", "--clients", "4"]);
    assert_eq!(started(&plan), ["gpu0-3"]);
    let d = &node.json(&["mps", "status"])["daemons"][0];
    assert_eq!(d["name"], "gpu0-3");
    assert_eq!(d["thread_percentage"], 25);
    let pipe = node.mps_dir().join("gpu0-3/pipe");
    assert_eq!(d["pipe_dir"], pipe.to_str().unwrap());
    assert_eq!(node.modes(), ["exclusive_process"; 4]);

    let starts = node.starts();
    assert_eq!(starts.len(), 1);
    assert_eq!(starts[0]["argv"], serde_json::json!(["-d"]));
    assert_eq!(
        starts[0]["env"]["CUDA_VISIBLE_DEVICES"],
        uuids(&node).join(",")
    );
    assert_eq!(
        starts[0]["env"]["CUDA_MPS_LOG_DIRECTORY"],
        node.mps_dir().join("gpu0-3/log").to_str().unwrap()
    );
    let sent: Vec<String> = node
        .commands("gpu0-3/pipe")
        .into_iter()
        .filter(|c| c.starts_with("set_"))
        .collect();
    assert_eq!(
        sent,
        [
            "set_default_active_thread_percentage 25",
            "set_default_device_pinned_mem_limit 0 3840M",
            "set_default_device_pinned_mem_limit 1 3840M",
            "set_default_device_pinned_mem_limit 2 3840M",
            "set_default_device_pinned_mem_limit 3 3840M",
        ]
    );

    // The record clients and the probe read.
    let settings: Value = serde_json::from_str(
        &std::fs::read_to_string(node.mps_dir().join("gpu0-3/settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(settings["devices"][3]["ordinal"], 3);
    assert_eq!(settings["devices"][3]["memory_limit_mib"], 3840);
    assert_eq!(settings["devices"][3]["client_cap"], 48);
    assert_eq!(settings["devices"][3]["previous_compute_mode"], "default");

    let status = node.json(&["mps", "status"]);
    let s = &status["daemons"][0];
    assert_eq!(s["running"], true);
    assert_eq!(s["reported_thread_percentage"], 25.0);
    assert_eq!(s["devices"][2]["reported_memory_limit_mib"], 3840);
    assert_eq!(s["devices"][2]["compute_mode"], "exclusive_process");
    assert_eq!(s["problems"], serde_json::json!([]));
    assert!(s["pid"].as_u64().is_some());

    let detected = node.json(&["detect"]);
    assert_eq!(detected["mps"][0]["name"], "gpu0-3");
    assert_eq!(detected["mps"][0]["devices"].as_array().unwrap().len(), 4);

    // Without -c, the manifests describe the node as it runs now: MPS with 4 replicas.
    let manifests = node.run(&["manifests", "--target", "nvidia-device-plugin"]);
    assert!(manifests.contains("mps:"), "{manifests}");
    assert!(manifests.contains("replicas: 4"), "{manifests}");

    let stopped = node.json(&["mps", "stop"]);
    assert_eq!(stopped["changes"][0]["action"], "stop_mps_daemon");
    assert_eq!(stopped["changes"][0]["status"], "done");
    assert!(
        stopped["changes"][0]["detail"]
            .as_str()
            .unwrap()
            .starts_with("MPS daemon `gpu0-3`"),
        "{stopped}"
    );
    assert_eq!(node.modes(), ["default"; 4]);
    assert_eq!(node.commands("gpu0-3/pipe").last().unwrap(), "quit");
    assert!(node.daemon_dirs().is_empty(), "{:?}", node.daemon_dirs());
    assert_eq!(
        node.json(&["mps", "status"])["daemons"],
        serde_json::json!([])
    );
}

#[test]
fn starting_again_is_idempotent_and_other_settings_are_refused() {
    let node = Node::new("t4x4");
    node.run(&["mps", "start", "--gpu", "0-1", "--clients", "2"]);
    let again = node.json(&["mps", "start", "--gpu", "0-1", "--clients", "2"]);
    assert_eq!(again["changes"], serde_json::json!([]), "already running");
    assert_eq!(node.starts().len(), 1);

    let err = fails_with(
        node.cmd()
            .args(["mps", "start", "--gpu", "0-1", "--clients", "4"]),
        1,
    );
    assert!(
        err.contains("`gpu0-1` already runs with other settings"),
        "{err}"
    );
    assert!(err.contains("gpushare mps stop --gpu 0,1"), "{err}");
    let err = fails_with(node.cmd().args(["mps", "start", "--gpu", "1-2"]), 1);
    assert!(
        err.contains("GPU 1 is already served by the MPS daemon `gpu0-1`"),
        "{err}"
    );
    assert_eq!(
        node.modes(),
        [
            "exclusive_process",
            "exclusive_process",
            "default",
            "default"
        ]
    );

    // Disjoint GPUs get a daemon of their own.
    node.run(&["mps", "start", "--gpu", "2,3", "--thread-percentage", "30"]);
    assert_eq!(node.daemon_dirs(), ["gpu0-1", "gpu2-3"]);
    node.run(&["mps", "stop", "--gpu", "3"]);
    assert_eq!(node.daemon_dirs(), ["gpu0-1"]);
    assert_eq!(
        node.modes(),
        [
            "exclusive_process",
            "exclusive_process",
            "default",
            "default"
        ]
    );
    node.run(&["mps", "stop"]);
}

#[test]
fn mixed_node_limits_follow_each_gpus_memory() {
    let node = Node::new("mixed");
    node.run(&["mps", "start", "--clients", "2"]);
    let sent: Vec<String> = node
        .commands("gpu0-3/pipe")
        .into_iter()
        .filter(|c| c.starts_with("set_default_device"))
        .collect();
    assert_eq!(
        sent,
        [
            "set_default_device_pinned_mem_limit 0 40960M",
            "set_default_device_pinned_mem_limit 1 40960M",
            "set_default_device_pinned_mem_limit 2 7680M",
            "set_default_device_pinned_mem_limit 3 7680M",
        ]
    );
    assert_eq!(
        node.json(&["mps", "status"])["daemons"][0]["problems"],
        serde_json::json!([])
    );
    node.run(&["mps", "stop"]);
    assert_eq!(node.modes(), ["default"; 4]);
}

#[test]
fn a_config_file_gives_each_group_its_own_limits() {
    let node = Node::new("mixed");
    let file = write(
        node.dir.path(),
        "gpushare.toml",
        r#"
[[gpus]]
select = { model = "NVIDIA A100*" }
mode = "mps"
mps = { clients = 4 }

[[gpus]]
select = { model = "Tesla T4" }
mode = "mps"
mps = { thread_percentage = 50, memory_limit = "2G" }
"#,
    );
    let v = node.json(&["mps", "start", "--config", file.to_str().unwrap()]);
    assert_eq!(started(&v), ["gpu0-1", "gpu2-3"]);
    let set = |pipe| -> Vec<String> {
        node.commands(pipe)
            .into_iter()
            .filter(|c| c.starts_with("set_"))
            .collect()
    };
    assert_eq!(
        set("gpu0-1/pipe"),
        [
            "set_default_active_thread_percentage 25",
            "set_default_device_pinned_mem_limit 0 20480M",
            "set_default_device_pinned_mem_limit 1 20480M",
        ]
    );
    assert_eq!(
        set("gpu2-3/pipe"),
        [
            "set_default_active_thread_percentage 50",
            "set_default_device_pinned_mem_limit 0 2048M",
            "set_default_device_pinned_mem_limit 1 2048M",
        ]
    );
    let status = node.json(&["mps", "status"]);
    assert_eq!(
        status["daemons"][1]["devices"][0]["reported_memory_limit_mib"],
        2048
    );
    node.run(&["mps", "stop"]);
    assert!(node.daemon_dirs().is_empty());
}

#[test]
fn config_errors_name_the_file_line_and_value() {
    let node = Node::new("t4x4");
    let file = write(
        node.dir.path(),
        "gpushare.toml",
        "[[gpus]]\nselect = \"all\"\nmode = \"mps\"\nmps = { clients = 60 }\n",
    );
    let err = fails_with(
        node.cmd()
            .args(["mps", "start", "-c", file.to_str().unwrap()]),
        2,
    );
    assert!(
        err.contains("gpushare.toml:4:19: mps.clients = 60"),
        "{err}"
    );
    assert!(err.contains("at most 48"), "{err}");
    let only_turns = write(
        node.dir.path(),
        "turns.toml",
        "[[gpus]]\nselect = \"all\"\nmode = \"time-slicing\"\ntime_slicing.replicas = 4\n",
    );
    let err = fails_with(
        node.cmd()
            .args(["mps", "start", "-c", only_turns.to_str().unwrap()]),
        2,
    );
    assert!(err.contains("asks for no MPS daemon"), "{err}");
    assert!(node.starts().is_empty());
    assert_eq!(node.modes(), ["default"; 4]);
}

#[test]
fn values_the_gpus_cannot_take_are_bad_input_and_change_nothing() {
    let node = Node::new("t4x4");
    for (args, expect) in [
        (
            vec!["--clients", "49"],
            "--clients 49: 49 MPS clients is more than GPU 0 (Tesla T4) takes: at most 48",
        ),
        (
            vec!["--memory-limit", "16G"],
            "--memory-limit 16384M: a memory limit of 16384 MiB is more than the 15360 MiB of GPU 0",
        ),
        (vec!["--thread-percentage", "0"], "0 is not in 1..=100"),
        (vec!["--thread-percentage", "101"], "101 is not in 1..=100"),
        (vec!["--clients", "0"], "0 is not in 1.."),
        (vec!["--memory-limit", "4X"], "unknown unit"),
        (
            vec!["--clients", "2", "--thread-percentage", "20"],
            "cannot be used with",
        ),
        (vec!["--timeout", "0"], "more than 0"),
        (vec!["--gpu", "7"], "no GPU matches `7`"),
    ] {
        let err = fails_with(node.cmd().args(["mps", "start"]).args(&args), 2);
        assert!(err.contains(expect), "{args:?}: {err}");
    }
    assert!(node.log().is_empty(), "the control program was never run");
    assert_eq!(node.modes(), ["default"; 4]);
}

#[test]
fn a_missing_control_program_is_named_and_nothing_changes() {
    let node = Node::new("t4x4");
    let empty = tempfile::tempdir().unwrap();
    let err = fails_with(
        node.cmd()
            .env("PATH", empty.path())
            .args(["mps", "start", "--clients", "2"]),
        1,
    );
    assert!(
        err.contains("nvidia-cuda-mps-control is not on PATH"),
        "{err}"
    );
    assert!(err.contains("hint:"), "{err}");
    assert_eq!(node.modes(), ["default"; 4]);
    assert!(node.daemon_dirs().is_empty());
}

#[test]
fn an_unusable_pipe_dir_fails_before_the_compute_mode_changes() {
    let node = Node::new("t4x4");
    let blocker = write(node.dir.path(), "not-a-dir", "");
    let err = fails_with(
        node.cmd()
            .args(["mps", "start", "--clients", "2", "--pipe-dir"])
            .arg(blocker.join("pipe")),
        1,
    );
    assert!(err.contains("cannot use"), "{err}");
    assert!(err.contains("not-a-dir/pipe"), "{err}");
    assert!(err.contains("--pipe-dir"), "{err}");
    assert!(node.starts().is_empty());
    assert_eq!(node.modes(), ["default"; 4]);
    assert!(node.daemon_dirs().is_empty());
}

#[test]
fn a_given_pipe_dir_is_used_and_only_what_gpushare_made_is_removed() {
    let node = Node::new("t4x4");
    let given = node.dir.path().join("given");
    std::fs::create_dir(&given).unwrap();
    let pipe = given.join("mps/pipe");
    node.run(&[
        "mps",
        "start",
        "--gpu",
        "0",
        "--pipe-dir",
        pipe.to_str().unwrap(),
    ]);
    assert!(pipe.join("nvidia-cuda-mps-control.pid").exists());
    let status = node.json(&["mps", "status"]);
    assert_eq!(status["daemons"][0]["pipe_dir"], pipe.to_str().unwrap());
    node.run(&["mps", "stop"]);
    assert!(!given.join("mps").exists());
    assert!(given.exists());
}

#[test]
fn a_daemon_that_does_not_answer_is_taken_down() {
    let node = Node::new("t4x4");
    let err = fails_with(
        node.cmd()
            .env("MPS_STANDIN_HANG", "get_default_active_thread_percentage")
            .args(["mps", "start", "--clients", "2", "--timeout", "1"]),
        1,
    );
    assert!(
        err.contains("the MPS daemon `gpu0-3` did not answer within 1 s"),
        "{err}"
    );
    assert!(err.contains("control.log"), "{err}");
    assert_eq!(node.starts().len(), 1);
    assert_eq!(node.commands("gpu0-3/pipe").last().unwrap(), "quit");
    assert_eq!(node.modes(), ["default"; 4]);
    assert!(node.daemon_dirs().is_empty());
}

#[test]
fn a_limit_the_daemon_rejects_fails_the_start_and_rolls_back() {
    let node = Node::new("t4x4");
    let err = fails_with(
        node.cmd()
            .env(
                "MPS_STANDIN_REJECT",
                "set_default_device_pinned_mem_limit 2",
            )
            .args(["mps", "start", "--clients", "4"]),
        1,
    );
    assert!(
        err.contains(
            "did not apply `set_default_device_pinned_mem_limit 2 3840M` \
             (it answers `Error: the daemon rejected"
        ),
        "{err}"
    );
    assert_eq!(node.commands("gpu0-3/pipe").last().unwrap(), "quit");
    assert_eq!(node.modes(), ["default"; 4]);
    assert!(node.daemon_dirs().is_empty());
}

#[test]
fn a_limit_the_daemon_ignores_is_caught_by_reading_it_back() {
    let node = Node::new("t4x4");
    let err = fails_with(
        node.cmd()
            .env("MPS_STANDIN_IGNORE", "set_default_active_thread_percentage")
            .args(["mps", "start", "--clients", "4"]),
        1,
    );
    assert!(
        err.contains(
            "did not apply `set_default_active_thread_percentage 25` (it answers `100.0`)"
        ),
        "{err}"
    );
    assert_eq!(node.modes(), ["default"; 4]);
}

#[test]
fn a_daemon_that_fails_to_start_leaves_the_compute_mode_as_it_was() {
    let node = Node::new("t4x4");
    let err = fails_with(
        node.cmd()
            .env("MPS_STANDIN_START", "fail")
            .args(["mps", "start", "--gpu", "1"]),
        1,
    );
    assert!(
        err.contains("cannot start the MPS daemon `gpu1` for GPU 1"),
        "{err}"
    );
    assert!(err.contains("MPS_STANDIN_START=fail"), "{err}");
    assert_eq!(node.modes(), ["default"; 4]);
    assert!(node.daemon_dirs().is_empty());
}

#[test]
fn stop_refuses_while_clients_are_connected_unless_forced() {
    let node = Node::new("t4x4");
    let mut client = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .unwrap();
    let pid = client.id().to_string();
    node.cmd()
        .env("MPS_STANDIN_CLIENTS", &pid)
        .args(["mps", "start", "--gpu", "0", "--clients", "2"])
        .assert()
        .success();
    let status = node.json(&["mps", "status"]);
    assert_eq!(
        status["daemons"][0]["servers"][0]["clients"][0]["name"],
        "sleep"
    );

    let err = fails_with(node.cmd().args(["mps", "stop"]), 1);
    assert!(
        err.contains(&format!(
            "the MPS daemon `gpu0` has clients connected: sleep (pid {pid})"
        )),
        "{err}"
    );
    assert!(err.contains("--force"), "{err}");
    assert_eq!(node.modes()[0], "exclusive_process");
    assert!(!node.commands("gpu0/pipe").contains(&"quit".to_string()));

    let v = node.json(&["mps", "stop", "--force"]);
    assert_eq!(v["changes"][0]["status"], "done", "{v}");
    let sent = node.commands("gpu0/pipe");
    let tail: Vec<&str> = sent
        .iter()
        .rev()
        .take(3)
        .rev()
        .map(String::as_str)
        .collect();
    assert_eq!(
        tail,
        [
            format!("terminate_client 9001 {pid}").as_str(),
            "shutdown_server 9001 -f",
            "quit"
        ]
    );
    assert_eq!(node.modes()[0], "default");
    let _ = client.kill();
    let _ = client.wait();
}

#[test]
fn a_dead_daemon_shows_in_status_and_is_replaced_or_cleared() {
    let node = Node::new("t4x4");
    node.run(&["mps", "start", "--gpu", "0"]);
    let pid_file = node.mps_dir().join("gpu0/pipe/nvidia-cuda-mps-control.pid");
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    std::process::Command::new("kill")
        .arg(pid.trim())
        .status()
        .unwrap();
    wait_for(|| !Path::new(&format!("/proc/{}/comm", pid.trim())).exists() || zombie(pid.trim()));

    let out = node
        .cmd()
        .args(["mps", "status", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["daemons"][0]["running"], false);
    assert!(
        v["daemons"][0]["problems"][0]
            .as_str()
            .unwrap()
            .starts_with("does not answer"),
        "{v}"
    );

    // Starting again replaces the stale record.
    let out = node
        .cmd()
        .args(["mps", "start", "--gpu", "0"])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{e}");
    // Its record is cleared (compute mode back), then it starts again.
    assert!(
        e.contains("GPU 0: stop_mps_daemon MPS daemon `gpu0` (GPU 0): done"),
        "{e}"
    );
    assert!(
        e.contains("GPU 0: start_mps_daemon MPS daemon `gpu0`"),
        "{e}"
    );
    assert_eq!(node.starts().len(), 2);
    node.run(&["mps", "stop"]);
    assert_eq!(node.modes(), ["default"; 4]);
}

#[test]
fn status_sees_a_compute_mode_changed_behind_its_back() {
    let node = Node::new("t4x4");
    node.run(&["mps", "start", "--gpu", "2"]);
    // A fresh simulated node (no --sim-state) has every GPU in default mode.
    let mut fresh = gpushare();
    fresh
        .args(["--sim", "t4x4", "--state-root"])
        .arg(node.root())
        .env("PATH", path_with_stand_in())
        .args(["mps", "status", "--format", "json"]);
    let out = fresh.output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["daemons"][0]["problems"][0],
        "GPU 2 is in default compute mode, not exclusive_process"
    );
    node.run(&["mps", "stop"]);
}

/// dgx-a100 with GPU 0 in MIG mode (a 3g.20gb and two 1g.5gb devices), made through the
/// simulator's own operations and kept in the node's state file.
fn mig_node() -> Node {
    use gpushare::node::backend::Backend;
    use gpushare::node::backend::sim::SimBackend;
    use gpushare::node::model::{MigMode, Placement};
    let node = Node::new("dgx-a100");
    let sim = SimBackend::open(Some("dgx-a100"), Some(&node.state())).unwrap();
    sim.set_mig_mode(0, MigMode::Enabled).unwrap();
    for (profile, start, size, ci) in [(9, 4, 4, 2), (19, 0, 1, 0), (19, 1, 1, 0)] {
        let gi = sim
            .create_gpu_instance(0, profile, Placement { start, size })
            .unwrap();
        sim.create_compute_instance(0, gi, ci).unwrap();
    }
    node
}

fn mig_uuids(node: &Node) -> Vec<String> {
    let v = node.json(&["detect"]);
    v["gpus"][0]["mig"]["instances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|gi| {
            gi["compute_instances"][0]["uuid"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn mps_on_mig_runs_one_daemon_per_mig_device() {
    let node = mig_node();
    let uuids = mig_uuids(&node);
    let v = node.json(&["mps", "start", "--gpu", "0", "--clients", "2"]);
    assert_eq!(
        started(&v),
        ["gpu0-gi2-ci0", "gpu0-gi7-ci0", "gpu0-gi8-ci0"]
    );
    let visible: Vec<String> = node
        .starts()
        .iter()
        .map(|s| {
            s["env"]["CUDA_VISIBLE_DEVICES"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(visible, uuids);
    assert!(
        node.commands("gpu0-gi2-ci0/pipe")
            .contains(&"set_default_device_pinned_mem_limit 0 9984M".to_string())
    );
    assert!(
        node.commands("gpu0-gi7-ci0/pipe")
            .contains(&"set_default_device_pinned_mem_limit 0 2432M".to_string())
    );
    assert_eq!(node.mig_modes(0), ["exclusive_process"; 3]);
    assert_eq!(
        node.modes()[0],
        "default",
        "with MIG on, modes are per MIG device"
    );

    let status = node.json(&["mps", "status"]);
    assert_eq!(status["daemons"].as_array().unwrap().len(), 3);
    assert_eq!(
        status["daemons"][1]["devices"][0]["mig"]["gpu_instance_id"],
        7
    );
    assert_eq!(
        status["daemons"][1]["devices"][0]["compute_mode"],
        "exclusive_process"
    );

    node.run(&["mps", "stop"]);
    assert_eq!(node.mig_modes(0), ["default"; 3]);
    assert!(node.daemon_dirs().is_empty());
}

#[test]
fn mps_on_mig_caps_clients_by_the_instance_and_picks_single_devices() {
    let node = mig_node();
    let err = fails_with(
        node.cmd()
            .args(["mps", "start", "--gpu", "0", "--clients", "7"]),
        2,
    );
    assert!(
        err.contains("--clients 7: 7 MPS clients is more than MIG device 0:7:0 (1g.5gb on NVIDIA A100-SXM4-40GB) takes: at most 6"),
        "{err}"
    );
    let uuid = &mig_uuids(&node)[0];
    let v = node.json(&["mps", "start", "--gpu", &uuid[..16], "--clients", "20"]);
    assert_eq!(started(&v).len(), 1);
    let status = node.json(&["mps", "status"]);
    assert_eq!(status["daemons"][0]["devices"][0]["uuid"], uuid.as_str());
    assert_eq!(
        node.mig_modes(0),
        ["exclusive_process", "default", "default"]
    );
    let err = fails_with(
        node.cmd()
            .args(["mps", "start", "--gpu", "0", "--pipe-dir", "/tmp/one"]),
        2,
    );
    assert!(err.contains("this starts 3 daemons"), "{err}");
    node.run(&["mps", "stop"]);
}

#[test]
fn a_failure_in_a_later_daemon_takes_it_down_and_the_same_command_finishes() {
    let node = mig_node();
    let err = fails_with(
        node.cmd()
            .env("MPS_STANDIN_ONLY", "gpu0-gi8-ci0")
            .env("MPS_STANDIN_REJECT", "set_default_active_thread_percentage")
            .args(["mps", "start", "--gpu", "0", "--clients", "2"]),
        1,
    );
    assert!(err.contains("`gpu0-gi8-ci0` did not apply"), "{err}");
    assert!(err.contains("2 of 3 change(s) were made"), "{err}");
    // The failed daemon is taken down whole; those started before it are complete and stay.
    assert_eq!(
        node.commands("gpu0-gi8-ci0/pipe")
            .last()
            .map(String::as_str),
        Some("quit")
    );
    assert_eq!(
        node.mig_modes(0),
        ["exclusive_process", "exclusive_process", "default"]
    );
    assert_eq!(node.daemon_dirs(), ["gpu0-gi2-ci0", "gpu0-gi7-ci0"]);
    let v = node.json(&["mps", "start", "--gpu", "0", "--clients", "2"]);
    assert_eq!(started(&v), ["gpu0-gi8-ci0"]);
    assert_eq!(node.mig_modes(0), ["exclusive_process"; 3]);
    node.run(&["mps", "stop"]);
    assert!(node.daemon_dirs().is_empty());
}

#[test]
fn mig_mps_from_the_config_file() {
    let node = mig_node();
    let file = write(
        node.dir.path(),
        "gpushare.toml",
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\n\
         mig.devices = { \"3g.20gb\" = 1, \"1g.5gb\" = 2 }\nmig.mps = { clients = 3 }\n",
    );
    let v = node.json(&["mps", "start", "-c", file.to_str().unwrap()]);
    assert_eq!(started(&v).len(), 3);
    let status = node.json(&["mps", "status"]);
    assert_eq!(status["daemons"][0]["thread_percentage"], 33);
    assert_eq!(status["daemons"][0]["devices"][0]["memory_limit_mib"], 6656);
    node.run(&["mps", "stop"]);
}

#[test]
fn the_unit_runs_the_same_start_and_installs_atomically() {
    let node = Node::new("t4x4");
    let text = node.run(&["mps", "unit", "--clients", "4", "--memory-limit", "2G"]);
    let root = node.root();
    let root = root.to_str().unwrap();
    assert!(text.contains("[Unit]\n"), "{text}");
    assert!(text.contains("After=nvidia-persistenced.service\nBefore=kubelet.service\n"));
    assert!(text.contains("Type=forking\n"));
    assert!(text.contains(&format!(
        "PIDFile={root}/run/gpushare/mps/gpu0-3/pipe/nvidia-cuda-mps-control.pid\n"
    )));
    assert!(text.contains(&format!(
        " --state-root {root} mps start --clients 4 --memory-limit 2048M\n"
    )));
    assert!(text.contains(&format!(
        " --state-root {root} mps stop --gpu 0,1,2,3 --force\n"
    )));
    assert!(text.contains("WantedBy=multi-user.target\n"));
    let unit_path = node.root().join("etc/systemd/system/gpushare-mps.service");
    assert!(!unit_path.exists(), "printing installs nothing");

    let out = node.run(&[
        "mps",
        "unit",
        "--clients",
        "4",
        "--memory-limit",
        "2G",
        "--install",
    ]);
    assert_eq!(
        out,
        "systemctl daemon-reload\nsystemctl enable --now gpushare-mps.service\n"
    );
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(&unit_path).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o644);
    assert_eq!(std::fs::read_to_string(&unit_path).unwrap(), text);
    assert!(node.log().is_empty(), "the unit starts nothing now");

    // A partial selection gets a unit of its own; bad values install nothing.
    let v = node.json(&["mps", "unit", "--gpu", "1", "--clients", "2", "--install"]);
    assert_eq!(v["unit"], "gpushare-mps-gpu1.service");
    assert_eq!(v["installed"], true);
    let err = fails_with(
        node.cmd()
            .args(["mps", "unit", "--gpu", "2", "--clients", "99", "--install"]),
        2,
    );
    assert!(err.contains("at most 48"), "{err}");
    assert!(
        !node
            .root()
            .join("etc/systemd/system/gpushare-mps-gpu2.service")
            .exists()
    );
}

#[test]
fn the_unit_for_mig_devices_is_a_oneshot() {
    let node = mig_node();
    let text = node.run(&["mps", "unit", "--gpu", "0", "--clients", "2"]);
    assert!(
        text.contains("Type=oneshot\nRemainAfterExit=yes\n"),
        "{text}"
    );
    assert!(!text.contains("PIDFile"));
    assert!(text.contains(" mps start --gpu 0 --clients 2\n"), "{text}");
    let uuid = &mig_uuids(&node)[0];
    let err = fails_with(node.cmd().args(["mps", "unit", "--gpu", uuid]), 2);
    assert!(err.contains("cannot name MIG devices by UUID"), "{err}");
}

fn zombie(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            s.rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        })
        .unwrap_or(true)
}

fn wait_for(mut done: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !done() {
        assert!(std::time::Instant::now() < deadline, "timed out");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn a_driver_error_midway_puts_back_the_modes_already_set() {
    for jobs in ["1", "8"] {
        a_driver_error_midway(jobs);
    }
}

fn a_driver_error_midway(jobs: &'static str) {
    let node = Node::new("t4x4").jobs(jobs);
    let err = fails_with(
        node.cmd()
            .env("GPUSHARE_SIM_FAIL", "set_compute_mode:3")
            .args(["mps", "start", "--clients", "2"]),
        1,
    );
    assert!(
        err.contains("cannot set GPU 2 to exclusive_process"),
        "{err}"
    );
    assert!(node.starts().is_empty(), "no daemon was started");
    assert_eq!(node.modes(), ["default"; 4]);
    assert!(node.daemon_dirs().is_empty());
}

#[test]
fn a_dead_daemon_of_other_gpus_must_be_stopped_first() {
    let node = Node::new("t4x4");
    node.run(&["mps", "start", "--gpu", "0-1"]);
    let pid = std::fs::read_to_string(
        node.mps_dir()
            .join("gpu0-1/pipe/nvidia-cuda-mps-control.pid"),
    )
    .unwrap();
    std::process::Command::new("kill")
        .arg(pid.trim())
        .status()
        .unwrap();
    wait_for(|| !Path::new(&format!("/proc/{}/comm", pid.trim())).exists() || zombie(pid.trim()));
    let err = fails_with(node.cmd().args(["mps", "start", "--gpu", "1"]), 1);
    assert!(
        err.contains("GPU 1 is recorded for the MPS daemon `gpu0-1`, which does not answer"),
        "{err}"
    );
    assert!(err.contains("gpushare mps stop --gpu 0,1"), "{err}");
    let v = node.json(&["mps", "stop", "--gpu", "1"]);
    assert_eq!(v["changes"][0]["action"], "stop_mps_daemon");
    assert_eq!(v["changes"][0]["status"], "done");
    assert_eq!(node.modes(), ["default"; 4]);
    node.run(&["mps", "start", "--gpu", "1"]);
    node.run(&["mps", "stop"]);
}

#[test]
fn multiuser_and_a_given_log_dir_reach_the_daemon() {
    let node = Node::new("l4x2");
    let logs = node.dir.path().join("mps-logs");
    node.json(&[
        "mps",
        "start",
        "--multiuser",
        "--log-dir",
        logs.to_str().unwrap(),
    ]);
    let v = node.json(&["mps", "status"]);
    assert_eq!(v["daemons"][0]["multiuser"], true);
    assert_eq!(v["daemons"][0]["thread_percentage"], Value::Null);
    let start = &node.starts()[0];
    assert_eq!(
        start["argv"],
        serde_json::json!(["-d", "-multiuser-server"])
    );
    assert_eq!(
        start["env"]["CUDA_MPS_LOG_DIRECTORY"],
        logs.to_str().unwrap()
    );
    assert!(logs.join("control.log").exists());
    // No limits asked for: none sent.
    assert!(
        !node
            .commands("gpu0-1/pipe")
            .iter()
            .any(|c| c.starts_with("set_"))
    );
    node.run(&["mps", "stop"]);
    assert!(!logs.exists(), "gpushare made it, so it goes");
}

#[test]
fn daemon_directories_are_root_only_unless_multiuser() {
    use std::os::unix::fs::PermissionsExt;
    let node = Node::new("t4x4");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let mps = node.root().join("run/gpushare/mps");
    node.run(&["mps", "start", "--gpu", "0", "--clients", "2"]);
    let home = mps.join("gpu0");
    assert_eq!(mode(&mps), 0o755);
    assert_eq!(mode(&home), 0o700);
    assert_eq!(mode(&home.join("pipe")), 0o700);
    assert_eq!(mode(&home.join("log")), 0o700);
    assert_eq!(mode(&home.join("settings.json")), 0o600);
    node.run(&[
        "mps",
        "start",
        "--gpu",
        "1",
        "--clients",
        "2",
        "--multiuser",
    ]);
    let home = mps.join("gpu1");
    assert_eq!(mode(&home), 0o755);
    assert_eq!(mode(&home.join("pipe")), 0o755);
    assert_eq!(mode(&home.join("log")), 0o700, "logs are root's alone");
    assert_eq!(mode(&home.join("settings.json")), 0o644);
    node.run(&["mps", "stop"]);
}

#[test]
fn a_pipe_directory_others_may_write_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let node = Node::new("t4x4");
    let open = node.dir.path().join("open");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let err = fails_with(
        node.cmd()
            .args(["mps", "start", "--gpu", "0", "--clients", "2", "--pipe-dir"])
            .arg(&open),
        1,
    );
    assert!(err.contains("writable by other users (mode 1777)"), "{err}");
    assert_eq!(node.modes(), ["default"; 4], "nothing was left changed");
}

#[test]
fn a_daemon_whose_start_was_killed_before_its_record_is_stopped_and_started_again() {
    for jobs in ["1", "8"] {
        a_daemon_whose_start_was_killed(jobs);
    }
}

fn a_daemon_whose_start_was_killed(jobs: &'static str) {
    let node = Node::new("t4x4").jobs(jobs);
    let killed = |args: &[&str]| {
        let out = node
            .cmd()
            .env("GPUSHARE_SIM_CRASH", "start_mps_daemon:1:kill")
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), None, "killed");
        // The daemon runs in gpushare's own directory, and its record was never written.
        let home = node.mps_dir().join("gpu0");
        assert!(home.join("pipe/nvidia-cuda-mps-control.pid").exists());
        assert!(!home.join("settings.json").exists());
    };
    killed(&["mps", "start", "--gpu", "0", "--clients", "2"]);
    let out = node
        .cmd()
        .args(["mps", "start", "--gpu", "0", "--clients", "2"])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{e}");
    assert!(e.contains("MPS daemon `gpu0` whose record was lost"), "{e}");
    assert_eq!(node.starts().len(), 2);
    let quits = node
        .commands("gpu0/pipe")
        .iter()
        .filter(|c| *c == "quit")
        .count();
    assert_eq!(quits, 1, "the orphan was told to quit");
    let status = node.json(&["mps", "status"]);
    assert_eq!(status["daemons"][0]["problems"], serde_json::json!([]));
    node.run(&["mps", "stop"]);

    // `mps stop` clears one too.
    killed(&["mps", "start", "--gpu", "0"]);
    node.run(&["mps", "stop"]);
    assert!(node.daemon_dirs().is_empty());
    assert_eq!(node.modes(), ["default"; 4]);
}
