//! A change of every GPU of a DGX A100 (MIG on each, two 3g.20gb devices), failing or killed at
//! its calls, one change after another and every GPU at once: each time the next `apply`
//! converges to the same layout, and a failed run says what each GPU got.

use super::JOBS;
use super::common::*;
use super::node::Node;

const LAYOUT: &str =
    "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"3g.20gb\" = 2 }\n";

/// The calls of the change and how many of each it makes (8 GPUs).
const CALLS: [(&str, u32); 3] = [
    ("set_mig_mode", 8),
    ("create_gpu_instance", 16),
    ("create_compute_instance", 16),
];

fn converged(node: &Node, cfg: &str, why: &str) {
    assert_eq!(node.check(cfg), 0, "{why}: plan --check");
    let devices = node.devices();
    assert_eq!(devices.len(), 8, "{why}: {devices:?}");
    for (gpu, list) in devices {
        assert_eq!(list, ["3g.20gb", "3g.20gb"], "{why}: GPU {gpu}");
    }
}

#[test]
fn an_eight_gpu_apply_failing_or_killed_at_its_calls_then_apply_converges() {
    for jobs in JOBS {
        for (op, calls) in CALLS {
            for n in [1, calls / 2 + 1, calls] {
                let why = format!("{op}:{n} --jobs {jobs}");
                let node = Node::preset("dgx-a100").jobs(jobs);
                let cfg = node.write("gpushare.toml", LAYOUT);
                let e = fails_with(
                    node.cmd()
                        .env("GPUSHARE_SIM_FAIL", format!("{op}:{n}"))
                        .args(["apply", "-c", &cfg]),
                    1,
                );
                assert!(
                    e.contains("injected failure") && e.contains("run the same command again"),
                    "{why}: {e}"
                );
                // What each GPU of the run got, one line each.
                assert_eq!(e.matches("\n  GPU ").count(), 8, "{why}: {e}");
                assert_eq!(e.matches(&format!("{op} FAILED")).count(), 1, "{why}: {e}");
                node.ok(&["apply", "-c", &cfg]);
                converged(&node, &cfg, &why);

                let why = format!("{op}:{n}:kill --jobs {jobs}");
                let node = Node::preset("dgx-a100").jobs(jobs);
                let cfg = node.write("gpushare.toml", LAYOUT);
                let out = node
                    .cmd()
                    .env("GPUSHARE_SIM_CRASH", format!("{op}:{n}:kill"))
                    .args(["apply", "-q", "-c", &cfg])
                    .output()
                    .unwrap();
                assert_eq!(out.status.code(), None, "{why}: killed");
                if n < calls || op != "create_compute_instance" {
                    assert_eq!(node.check(&cfg), 3, "{why}: unfinished");
                }
                let e = node.ok(&["apply", "-c", &cfg]);
                assert!(e.contains("stopped without finishing"), "{why}: {e}");
                converged(&node, &cfg, &why);
            }
        }
    }
}
