//! `gpushare plan`, `apply` and `init` end to end on simulated nodes: every mode through one
//! plan, re-runs that change nothing, faults at every step, crashes, signals, the node lock.

mod all_gpus;
mod boot;
mod clients;
use crate::common;
mod every_command;
mod hooks;
mod init;
mod interrupt;
mod metrics;
mod mig_flags;
mod node;
mod status;

use common::vgpu_host::*;
use common::*;
use node::{Node, actions, mig_devices};
use std::time::Duration;

/// `--jobs` of the fault and kill tests: one change after another, and every GPU at once.
const JOBS: [&str; 2] = ["1", "8"];

const EVERY_MODE: &str = "\
[[gpus]]
select = [0]
mode = \"mig\"
mig.devices = { \"3g.40gb\" = 1, \"2g.20gb\" = 1 }
mig.mps = { clients = 2 }

[[gpus]]
select = [1]
mode = \"none\"

[[gpus]]
select = [2]
mode = \"mps\"
mps.clients = 4

[[gpus]]
select = [3]
mode = \"time-slicing\"
time_slicing.replicas = 4
";

#[test]
fn one_plan_for_every_mode_then_apply_then_nothing_to_do() {
    let node = Node::preset("mixed");
    let cfg = node.write("gpushare.toml", EVERY_MODE);
    let plan = node.json(&["plan", "-c", &cfg]);
    let expected: Vec<(u64, String)> = [
        (0, "set_mig_mode"),
        (0, "reset"),
        (0, "create_gpu_instance"),
        (0, "create_compute_instance"),
        (0, "create_gpu_instance"),
        (0, "create_compute_instance"),
        (2, "start_mps_daemon"),
        (0, "start_mps_daemon"),
    ]
    .iter()
    .map(|(g, a)| (*g, a.to_string()))
    .collect();
    assert_eq!(actions(&plan), expected);
    assert_eq!(plan["reboot_required"], false);
    assert_eq!(plan["changes"][7]["later"], true);
    assert!(plan["changes"][6].get("later").is_none());
    assert!(
        plan["changes"][7]["detail"].as_str().unwrap().starts_with(
            "once the MIG devices exist: an MPS daemon on each (2g.20gb ×1, 3g.40gb ×1)"
        ),
        "{plan}"
    );
    // plan changes nothing, and --check says the node differs.
    assert!(node.devices().is_empty());
    assert_eq!(node.check(&cfg), 3);

    let made = node.json(&["apply", "-c", &cfg]);
    let statuses: Vec<&str> = made["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses.len(), 9, "{made}");
    assert!(statuses.iter().all(|s| *s == "done" || *s == "not_needed"));
    assert_eq!(node.devices()[&0], ["2g.20gb", "3g.40gb"]);
    let daemons = node.daemons();
    assert_eq!(daemons.len(), 3, "{daemons:?}");
    assert!(
        daemons[..2].iter().all(|d| d.starts_with("gpu0-gi")) && daemons[2] == "gpu2",
        "one daemon per MIG device, one for the MPS GPU: {daemons:?}"
    );
    assert_eq!(node.compute_modes()[2], "exclusive_process");
    assert_eq!(node.check(&cfg), 0);

    let again = node.json(&["apply", "-c", &cfg]);
    assert_eq!(again["changes"].as_array().unwrap().len(), 0);
    let e = node.ok(&["apply", "-c", &cfg]);
    assert!(e.contains("nothing to change"), "{e}");
    node.ok(&["mps", "stop"]);
}

#[test]
fn changing_the_layout_stops_only_the_daemons_whose_devices_go() {
    let node = Node::preset("mixed");
    let cfg = node.write("gpushare.toml", EVERY_MODE);
    node.ok(&["apply", "-q", "-c", &cfg]);
    // GPU 0 keeps its 3g.40gb (and that device's daemon), swaps the 2g.20gb for two 1g.10gb;
    // GPU 2 goes from MPS to time-slicing; GPU 3 is dropped from the file.
    let next = node.write(
        "next.toml",
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"3g.40gb\" = 1, \"1g.10gb\" = 2 }\nmig.mps = { clients = 2 }\n\
         [[gpus]]\nselect = [2]\nmode = \"time-slicing\"\ntime_slicing.replicas = 2\n",
    );
    let before = node.daemons();
    let plan = node.json(&["plan", "-c", &next]);
    let first: Vec<(u64, String)> = actions(&plan).into_iter().take(2).collect();
    assert_eq!(
        first,
        [
            (0, "stop_mps_daemon".to_string()),
            (0, "destroy_compute_instance".to_string())
        ]
    );
    node.ok(&["apply", "-q", "-c", &next]);
    let after = node.daemons();
    assert!(
        after.contains(&before[0]),
        "the kept device keeps its daemon: {after:?}"
    );
    assert_eq!(after.len(), 3, "{after:?}");
    assert!(!after.contains(&"gpu2".to_string()));
    assert_eq!(node.compute_modes()[2], "default");
    assert_eq!(node.devices()[&0], ["1g.10gb", "1g.10gb", "3g.40gb"]);
    assert_eq!(node.check(&next), 0);
    node.ok(&["mps", "stop"]);
}

#[test]
fn bad_files_are_exit_2_with_the_place_and_change_nothing() {
    let node = Node::preset("mixed");
    let before = node.detect();
    for (text, message) in [
        (
            "[[gpus]]\nselect = [9]\nmode = \"none\"\n",
            "gpushare.toml:2:10: GPU 9 does not exist",
        ),
        (
            "[[gpus]]\nselect = [2]\nmode = \"mig\"\nmig.devices = { \"1g.10gb\" = 1 }\n",
            "cannot set MIG mode on non MIG-capable GPU",
        ),
        (
            "[[gpus]]\nselect = [2, 3]\nmode = \"mps\"\nmps.clients = 2\n[[gpus]]\nselect = [3]\nmode = \"time-slicing\"\ntime_slicing.replicas = 2\n",
            "gpushare.toml:6:10: GPU 3 is already configured by the entry at line 1",
        ),
        (
            "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"1g.10gb\" = 8 }\n",
            "gpushare.toml:4:29: 1g.10gb = 8: a GPU holds at most 7",
        ),
        (
            "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"1g.10gb\" = 7 }\nmig.mps = { clients = 9 }\n",
            "gpushare.toml:5:23: mig.mps.clients = 9",
        ),
    ] {
        let cfg = node.write("gpushare.toml", text);
        for cmd in ["plan", "apply"] {
            let e = node.fails(&[cmd, "-c", &cfg], 2);
            assert!(e.contains(message), "{cmd}: {e}");
            assert!(e.contains("hint:"), "{cmd}: {e}");
        }
    }
    assert_eq!(node.detect(), before);
    assert!(node.daemons().is_empty());
    let e = node.fails(&["apply", "-c", "/nonexistent/gpushare.toml"], 2);
    assert!(e.contains("/nonexistent/gpushare.toml"), "{e}");
}

/// A100s with a busy 3g.20gb (pid 4242), a GPU in EXCLUSIVE_PROCESS, and a GPU with MIG on that
/// the file turns off.
const BUSY_NODE: &str = r#"
[[gpus]]
model = "NVIDIA A100-SXM4-40GB"
instances = [{ profile = "3g.20gb", start = 4 }, { profile = "1g.10gb", start = 0 }]
processes = [{ pid = 4242, name = "python", used_memory_mib = 1024, gpu_instance = 0 }]

[[gpus]]
model = "NVIDIA A100-SXM4-40GB"
compute_mode = "exclusive_process"

[[gpus]]
model = "NVIDIA A100-SXM4-40GB"
instances = [{ profile = "2g.10gb" }, { profile = "1g.5gb" }]
"#;

const BUSY_CONFIG: &str = "\
[[gpus]]
select = [0]
mode = \"mig\"
mig.devices = { \"3g.20gb\" = 1, \"2g.10gb\" = 2 }

[[gpus]]
select = [1]
mode = \"time-slicing\"
time_slicing.replicas = 4

[[gpus]]
select = [2]
mode = \"none\"
";

/// The busy instance is still there, with its process.
fn busy_instance_kept(node: &Node) {
    let v = node.detect();
    let busy = v["gpus"][0]["mig"]["instances"]
        .as_array()
        .unwrap()
        .iter()
        .find(|gi| gi["profile"] == "3g.20gb")
        .expect("the busy 3g.20gb is there");
    assert_eq!(busy["placement"]["start"], 4);
    assert_eq!(v["gpus"][0]["processes"][0]["pid"], 4242);
    assert_eq!(
        v["gpus"][0]["processes"][0]["gpu_instance_id"],
        busy["gpu_instance_id"]
    );
}

fn assert_converged(node: &Node, cfg: &str, why: &str) {
    let v = node.detect();
    let devices = mig_devices(&v);
    assert_eq!(devices[&0], ["2g.10gb", "2g.10gb", "3g.20gb"], "{why}");
    assert!(!devices.contains_key(&2), "{why}: MIG off on GPU 2");
    assert_eq!(v["gpus"][1]["compute_mode"], "default", "{why}");
    busy_instance_kept(node);
    assert_eq!(node.check(cfg), 0, "{why}");
}

#[test]
fn a_fault_at_every_step_then_apply_again_converges_and_keeps_what_is_in_use() {
    for jobs in JOBS {
        a_fault_at_every_step(jobs);
    }
}

fn a_fault_at_every_step(jobs: &'static str) {
    let probe = Node::file(BUSY_NODE);
    let cfg = probe.write("gpushare.toml", BUSY_CONFIG);
    let plan = probe.json(&["plan", "-c", &cfg]);
    let steps = actions(&plan);
    assert!(steps.len() >= 8, "{plan}");
    let mut injected = 0;
    for (i, (_, action)) in steps.iter().enumerate() {
        // Idle simulated GPUs switch MIG modes at once: the reset step finds nothing pending and
        // makes no driver call that could fail.
        if action == "reset" {
            continue;
        }
        let n = steps[..=i].iter().filter(|(_, a)| a == action).count();
        let fault = format!("{action}:{n} --jobs {jobs}");
        let node = Node::file(BUSY_NODE).jobs(jobs);
        let cfg = node.write("gpushare.toml", BUSY_CONFIG);
        let e = fails_with(
            node.cmd()
                .env("GPUSHARE_SIM_FAIL", format!("{action}:{n}"))
                .args(["apply", "-c", &cfg]),
            1,
        );
        assert!(
            e.contains("injected failure")
                && (e.contains("re-run continues") || e.contains("run the same command again")),
            "{fault}: {e}"
        );
        busy_instance_kept(&node);
        node.ok(&["apply", "-c", &cfg]);
        assert_converged(&node, &cfg, &fault);
        injected += 1;
    }
    assert!(injected >= 7, "{injected} faults injected");
}

#[test]
fn a_crash_mid_apply_leaves_a_node_the_next_apply_converges() {
    for jobs in JOBS {
        a_crash_mid_apply(jobs);
    }
}

fn a_crash_mid_apply(jobs: &'static str) {
    let node = Node::file(BUSY_NODE).jobs(jobs);
    let cfg = node.write("gpushare.toml", BUSY_CONFIG);
    let out = node
        .cmd()
        .env("GPUSHARE_SIM_CRASH", "create_gpu_instance:1")
        .args(["apply", "-c", &cfg])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), None, "killed by SIGABRT");
    let lock = std::fs::read_to_string(node.root().join("run/gpushare/lock")).unwrap();
    assert!(
        lock.ends_with(" apply\n"),
        "the dead run's record stays: {lock:?}"
    );
    assert!(
        node.journal()
            .lines()
            .last()
            .unwrap()
            .contains("\"event\":\"step\"")
    );
    assert_eq!(node.check(&cfg), 3);

    let e = node.ok(&["apply", "-c", &cfg]);
    assert!(
        e.contains("died holding the node lock; taking it over"),
        "{e}"
    );
    assert!(
        e.contains("stopped without finishing (last step: GPU 0: create_gpu_instance (2g.10gb at"),
        "{e}"
    );
    assert_converged(&node, &cfg, &format!("after the crash, --jobs {jobs}"));
    let e = node.ok(&["apply", "-c", &cfg]);
    assert!(
        !e.contains("warning"),
        "a clean run leaves nothing to warn about: {e}"
    );
}

#[test]
fn sigterm_finishes_the_step_in_flight_and_stops() {
    for jobs in JOBS {
        sigterm_finishes_the_step_in_flight(jobs);
    }
}

fn sigterm_finishes_the_step_in_flight(jobs: &'static str) {
    let node = Node::file(BUSY_NODE).jobs(jobs);
    let cfg = node.write("gpushare.toml", BUSY_CONFIG);
    // The simulator raises SIGTERM right after the first GPU instance is made.
    let e = fails_with(
        node.cmd()
            .env("GPUSHARE_SIM_CRASH", "create_gpu_instance:1:term")
            .args(["apply", "-c", &cfg]),
        1,
    );
    assert!(
        e.contains("error: stopped by SIGTERM before GPU 0: create_compute_instance"),
        "{e}"
    );
    assert!(e.contains("run the same command again"), "{e}");
    let last = node.journal().lines().last().unwrap().to_string();
    assert!(
        last.contains("\"event\":\"failed\"") && last.contains("SIGTERM"),
        "{last}"
    );
    // The step in flight finished: its instance is there, its compute instance is not yet.
    let v = node.detect();
    let empty = v["gpus"][0]["mig"]["instances"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|gi| gi["compute_instances"].as_array().unwrap().is_empty())
        .count();
    assert_eq!(empty, 1);
    let e = node.ok(&["apply", "-c", &cfg]);
    assert!(
        !e.contains("without finishing"),
        "it ended in the journal: {e}"
    );
    assert_converged(&node, &cfg, &format!("after SIGTERM, --jobs {jobs}"));
}

#[test]
fn a_real_sigterm_from_outside_stops_between_steps() {
    for jobs in JOBS {
        a_real_sigterm_from_outside(jobs);
    }
}

fn a_real_sigterm_from_outside(jobs: &'static str) {
    let node = Node::file(BUSY_NODE).jobs(jobs);
    let cfg = node.write("gpushare.toml", BUSY_CONFIG);
    let mut cmd = node.std_cmd();
    cmd.env("GPUSHARE_SIM_DELAY_MS", "300")
        .args(["-q", "apply", "-c", &cfg])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    let child = cmd.spawn().unwrap();
    // Wait until it is inside a step, then signal it as `kill` does.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !node.journal().contains("\"event\":\"step\"") {
        assert!(std::time::Instant::now() < deadline, "no step started");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: signalling the child this test started.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let out = child.wait_with_output().unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{e}");
    assert!(e.contains("stopped by SIGTERM before"), "{e}");
    assert_eq!(node.check(&cfg), 3);
    node.ok(&["apply", "-c", &cfg]);
    assert_converged(&node, &cfg, &format!("after kill, --jobs {jobs}"));
}

#[test]
fn a_second_apply_waits_for_the_lock_then_names_its_holder() {
    let node = Node::preset("dgx-a100");
    let cfg = node.write(
        "gpushare.toml",
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 3 }\n",
    );
    let first = node
        .std_cmd()
        .env("GPUSHARE_SIM_DELAY_MS", "400")
        .args(["-q", "apply", "-c", &cfg])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let lock = node.root().join("run/gpushare/lock");
    let holder = format!("{} apply", first.id());
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while std::fs::read_to_string(&lock).map_or(true, |t| t.trim() != holder) {
        assert!(
            std::time::Instant::now() < deadline,
            "the first never took the lock"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let started = std::time::Instant::now();
    let e = node.fails(&["--lock-timeout", "0.5", "apply", "-c", &cfg], 1);
    assert!(started.elapsed() >= Duration::from_millis(500), "it waited");
    assert!(
        e.contains(&format!(
            "holds {}: pid {} (apply)",
            lock.display(),
            first.id()
        )),
        "{e}"
    );
    assert!(e.contains("--lock-timeout"), "{e}");
    // With time enough it waits for the first, then finds nothing left to do.
    let e = node.ok(&["--lock-timeout", "60", "apply", "-c", &cfg]);
    assert!(e.contains("nothing to change"), "{e}");
    let out = first.wait_with_output().unwrap();
    assert!(out.status.success());
}

#[test]
fn mps_clients_block_the_stop_of_their_daemon_unless_forced() {
    let node = Node::preset("t4x4");
    let mps = node.write(
        "mps.toml",
        "[[gpus]]\nselect = [0]\nmode = \"mps\"\nmps.clients = 2\n",
    );
    let out = node
        .cmd()
        .env("MPS_STANDIN_CLIENTS", "4242")
        .args(["apply", "-q", "-c", &mps])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ts = node.write(
        "ts.toml",
        "[[gpus]]\nselect = [0]\nmode = \"time-slicing\"\ntime_slicing.replicas = 2\n",
    );
    let plan = node.json(&["plan", "-c", &ts]);
    let blocker = plan["blockers"][0]["message"].as_str().unwrap();
    assert!(
        blocker.starts_with("the MPS daemon `gpu0` has clients connected:")
            && blocker.contains("(pid 4242)"),
        "{plan}"
    );
    let e = node.fails(&["apply", "-c", &ts], 1);
    assert!(e.contains("nothing was changed"), "{e}");
    assert_eq!(node.daemons(), ["gpu0"]);
    node.ok(&["apply", "--force", "-c", &ts]);
    assert!(node.daemons().is_empty());
    assert_eq!(node.compute_modes()[0], "default");
    assert_eq!(node.check(&ts), 0);
}

#[test]
fn a_failing_mps_start_is_finished_by_the_next_apply() {
    let node = Node::preset("t4x4");
    let cfg = node.write(
        "gpushare.toml",
        "[[gpus]]\nselect = [0]\nmode = \"mps\"\nmps.clients = 2\n\
         [[gpus]]\nselect = [1]\nmode = \"mps\"\nmps.clients = 4\n",
    );
    let e = fails_with(
        node.cmd()
            .env("MPS_STANDIN_START", "fail")
            .env("MPS_STANDIN_ONLY", "gpu1")
            .args(["apply", "-c", &cfg]),
        1,
    );
    assert!(e.contains("GPU 1: start_mps_daemon"), "{e}");
    assert_eq!(node.daemons(), ["gpu0"]);
    node.ok(&["apply", "-c", &cfg]);
    assert_eq!(node.daemons(), ["gpu0", "gpu1"]);
    assert_eq!(node.check(&cfg), 0);
    node.ok(&["mps", "stop"]);
}

#[test]
fn busy_gpus_wait_for_a_reboot_then_apply_finishes() {
    let node = Node::file(
        "holders = [{ name = \"nvidia-persistenced\", pid = 1834 }]\n\
         [[gpus]]\nmodel = \"NVIDIA A100-SXM4-40GB\"\n",
    );
    let cfg = node.write(
        "gpushare.toml",
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"3g.20gb\" = 2 }\n",
    );
    let e = node.fails(&["apply", "-c", &cfg], 1);
    assert!(e.contains("nvidia-persistenced (pid 1834)"), "{e}");
    let e = node.fails(&["apply", "--force", "-c", &cfg], 5);
    assert!(e.contains("reboot required"), "{e}");
    assert_eq!(node.check(&cfg), 5);
    node.fails(&["apply", "-c", &cfg], 5);
    node.ok(&["sim", "reboot"]);
    node.ok(&["apply", "-c", &cfg]);
    assert_eq!(node.devices()[&0], ["3g.20gb", "3g.20gb"]);
    assert_eq!(node.check(&cfg), 0);
}

#[test]
fn an_installed_cdi_spec_follows_the_mig_changes() {
    let node = Node::preset("dgx-a100");
    node.ok(&["manifests", "--target", "cdi", "--install"]);
    let spec = node.root().join("etc/cdi/nvidia.yaml");
    let before = std::fs::read_to_string(&spec).unwrap();
    let cfg = node.write(
        "gpushare.toml",
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"3g.20gb\" = 2 }\n",
    );
    let e = node.ok(&["apply", "-c", &cfg]);
    assert!(
        e.contains(&format!("refreshed the CDI spec {}", spec.display())),
        "{e}"
    );
    let after = std::fs::read_to_string(&spec).unwrap();
    assert_ne!(before, after);
    assert!(after.contains("MIG-"), "MIG devices are in the spec");
}

#[test]
fn vgpu_through_the_same_plan_sriov_first() {
    let host = h100_sriov_off_host();
    let cfg = host
        .file(
            "gpushare.toml",
            "[[gpus]]\nselect = \"all\"\nmode = \"vgpu\"\nvgpu.devices = { \"H100-20C\" = 4 }\n",
        )
        .display()
        .to_string();
    let run = |args: &[&str]| {
        let mut cmd = gpushare();
        let path = format!(
            "{}:{}",
            host.dir.path().join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        cmd.env("PATH", path)
            .arg("--sim")
            .arg(host.dir.path().join("node.toml"))
            .arg("--state-root")
            .arg(host.state_root())
            .args(args)
            .arg("--sysfs-root")
            .arg(host.root());
        cmd
    };
    let plan = json(&mut run(&["plan", "-c", &cfg]));
    let steps: Vec<(u64, String)> = actions(&plan);
    assert_eq!(
        steps,
        [
            (0, "enable_sriov".to_string()),
            (1, "enable_sriov".to_string()),
            (0, "create_vgpu".to_string()),
            (1, "create_vgpu".to_string()),
        ]
    );
    assert!(
        plan["changes"][2]["detail"]
            .as_str()
            .unwrap()
            .starts_with("once SR-IOV is on: H100-20C ×4"),
        "{plan}"
    );
    let made = json(&mut run(&["apply", "-c", &cfg]));
    let created = made["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["action"] == "create_vgpu" && c["status"] == "done")
        .count();
    assert_eq!(created, 8, "{made}");
    let again = json(&mut run(&["apply", "-c", &cfg]));
    assert_eq!(again["changes"].as_array().unwrap().len(), 0);
    run(&["plan", "--check", "-c", &cfg]).assert().success();
}

/// `apply` on a terminal (util-linux `script` gives it one): it shows the plan and asks.
#[test]
fn on_a_terminal_apply_asks_first() {
    if which::which("script").is_err() {
        eprintln!("skipped: `script` (util-linux) is not installed to give apply a terminal");
        return;
    }
    let node = Node::preset("dgx-a100");
    let on_a_tty = |layout: &str, answer: &str, extra: &str| {
        let cfg = node.write("gpushare.toml", layout);
        let line = format!(
            "{} --sim dgx-a100 --sim-state {} --state-root {} apply -c {cfg} {extra}",
            assert_cmd::cargo::cargo_bin!("gpushare").display(),
            node.state().display(),
            node.root().display()
        );
        let mut child = std::process::Command::new("script")
            .args(["-qec", &line, "/dev/null"])
            .env("NO_COLOR", "1")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        if let Some(mut stdin) = child.stdin.take() {
            use std::io::Write;
            stdin.write_all(answer.as_bytes()).unwrap();
        }
        let out = child.wait_with_output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let two = "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"3g.20gb\" = 2 }\n";
    let (code, text) = on_a_tty(two, "n\n", "");
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("Make these 6 change(s) on GPU(s) 0? [y/N]"),
        "{text}"
    );
    assert!(
        text.contains("nothing was changed: not confirmed"),
        "{text}"
    );
    assert!(node.devices().is_empty());
    let (code, text) = on_a_tty(two, "y\n", "");
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(node.devices()[&0], ["3g.20gb", "3g.20gb"]);
    // --yes does not ask.
    let one = "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"7g.40gb\" = 1 }\n";
    let (code, text) = on_a_tty(one, "", "--yes");
    assert_eq!(code, Some(0), "{text}");
    assert!(!text.contains("[y/N]"), "{text}");
    assert_eq!(node.devices()[&0], ["7g.40gb"]);
}

#[test]
fn an_mps_layout_plans_without_the_mps_control_program_and_apply_refuses_before_changing() {
    let node = Node::preset("t4x4");
    let cfg = node.write(
        "mps.toml",
        "[[gpus]]\nselect = [0]\nmode = \"mps\"\nmps.clients = 2\n",
    );
    let no_mps = |args: &[&str]| {
        let mut cmd = node.cmd();
        cmd.env("PATH", "/usr/bin:/bin").args(args);
        cmd
    };
    let out = no_mps(&["plan", "-c", &cfg, "--format", "json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("nvidia-cuda-mps-control is not on PATH"),
        "{stderr}"
    );
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(plan["changes"][0]["action"], "start_mps_daemon");
    no_mps(&["apply", "-c", &cfg, "--dry-run"])
        .assert()
        .success();
    let e = fails_with(&mut no_mps(&["apply", "-c", &cfg, "--yes"]), 1);
    assert!(e.contains("nvidia-cuda-mps-control is not on PATH"), "{e}");
    assert!(node.daemons().is_empty());
    assert!(
        !node.journal().contains("\"event\":\"step\""),
        "no step ran"
    );
}
