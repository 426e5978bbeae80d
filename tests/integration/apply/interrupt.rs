//! An apply that starts MPS daemons, interrupted at every step: killed with SIGKILL right after
//! each call it makes (the daemon launch included: the daemon then runs without its record), or
//! failing at each one. Each time the next `apply` converges and `mps stop` leaves nothing.

use super::EVERY_MODE;
use super::common::*;
use super::node::Node;

/// The calls of an apply of EVERY_MODE on `mixed`: MIG mode, reset, GPU and compute instances,
/// compute modes (MPS and time-slicing), MPS daemon launches.
const CALLS: [&str; 6] = [
    "set_mig_mode",
    "reset",
    "create_gpu_instance",
    "create_compute_instance",
    "set_compute_mode",
    "start_mps_daemon",
];

fn converged(node: &Node, cfg: &str, why: &str) {
    assert_eq!(node.check(cfg), 0, "{why}: plan --check");
    assert_eq!(node.devices()[&0], ["2g.20gb", "3g.40gb"], "{why}");
    let daemons = node.daemons();
    assert_eq!(daemons.len(), 3, "{why}: {daemons:?}");
    // No directory without its record is left under the run dir.
    let dirs = std::fs::read_dir(node.root().join("run/gpushare/mps"))
        .unwrap()
        .count();
    assert_eq!(dirs, 3, "{why}");
}

#[test]
fn a_kill_9_after_any_call_of_an_apply_that_starts_mps_daemons_then_apply_converges() {
    for jobs in super::JOBS {
        a_kill_9_after_any_call(jobs);
    }
}

fn a_kill_9_after_any_call(jobs: &'static str) {
    let mut kills = 0;
    for op in CALLS {
        for n in 1.. {
            let node = Node::preset("mixed").jobs(jobs);
            let cfg = node.write("gpushare.toml", EVERY_MODE);
            let crash = format!("{op}:{n}:kill");
            let out = node
                .cmd()
                .env("GPUSHARE_SIM_CRASH", &crash)
                .args(["apply", "-q", "-c", &cfg])
                .output()
                .unwrap();
            if out.status.code().is_some() {
                // Fewer than n such calls: the run went through.
                assert!(
                    out.status.success(),
                    "{crash}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                break;
            }
            kills += 1;
            if op == "start_mps_daemon" {
                // The daemon runs, and its record was never written.
                let dirs: Vec<String> = std::fs::read_dir(node.root().join("run/gpushare/mps"))
                    .unwrap()
                    .flatten()
                    .filter(|e| !e.path().join("settings.json").exists())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect();
                assert_eq!(dirs.len(), 1, "{crash}: {dirs:?}");
                let pid = node
                    .root()
                    .join(format!("run/gpushare/mps/{}/pipe", dirs[0]))
                    .join("nvidia-cuda-mps-control.pid");
                assert!(pid.exists(), "{crash}: the daemon is up");
            }
            let e = node.ok(&["apply", "-c", &cfg]);
            assert!(e.contains("stopped without finishing"), "{crash}: {e}");
            if op == "start_mps_daemon" {
                assert!(e.contains("whose record was lost"), "{crash}: {e}");
            }
            converged(&node, &cfg, &format!("{crash} --jobs {jobs}"));
            node.ok(&["mps", "stop"]);
            assert!(node.daemons().is_empty(), "{crash}");
        }
    }
    // 1 mode change, 2 GPU and 2 compute instances, 3 compute modes, 3 daemon launches.
    assert!(kills >= 11, "{kills} kills");
}

#[test]
fn a_failure_of_any_mps_step_then_apply_converges() {
    for jobs in super::JOBS {
        a_failure_of_any_mps_step(jobs);
    }
}

fn a_failure_of_any_mps_step(jobs: &'static str) {
    let node = Node::preset("mixed").jobs(jobs);
    let cfg = node.write("gpushare.toml", EVERY_MODE);
    node.ok(&["apply", "-q", "-c", &cfg]);
    // Going back to no MPS stops the daemons; a failure at each stop, then each start.
    let plain = node.write(
        "plain.toml",
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"3g.40gb\" = 1, \"2g.20gb\" = 1 }\n\
         [[gpus]]\nselect = [2]\nmode = \"none\"\n",
    );
    for n in 1..=3 {
        let fault = format!("stop_mps_daemon:{n}");
        let e = fails_with(
            node.cmd()
                .env("GPUSHARE_SIM_FAIL", &fault)
                .args(["apply", "-c", &plain]),
            1,
        );
        assert!(
            e.contains("stop_mps_daemon") && e.contains("injected failure"),
            "{fault}: {e}"
        );
        assert!(e.contains("run the same command again"), "{fault}: {e}");
        assert_eq!(node.daemons().len(), 3 - (n - 1) as usize, "{fault}");
        node.ok(&["apply", "-q", "-c", &plain]);
        assert!(node.daemons().is_empty(), "{fault}");
        assert_eq!(node.check(&plain), 0, "{fault}");
        node.ok(&["apply", "-q", "-c", &cfg]);
    }
    for n in 1..=3 {
        node.ok(&["apply", "-q", "-c", &plain]);
        let fault = format!("start_mps_daemon:{n}");
        let e = fails_with(
            node.cmd()
                .env("GPUSHARE_SIM_FAIL", &fault)
                .args(["apply", "-c", &cfg]),
            1,
        );
        assert!(
            e.contains("start_mps_daemon") && e.contains("injected failure"),
            "{fault}: {e}"
        );
        // The daemon that failed is taken down whole; those before it run.
        assert_eq!(node.daemons().len(), (n - 1) as usize, "{fault}");
        node.ok(&["apply", "-q", "-c", &cfg]);
        assert_eq!(node.daemons().len(), 3, "{fault}");
        assert_eq!(node.check(&cfg), 0, "{fault}");
    }
    node.ok(&["mps", "stop"]);
}
