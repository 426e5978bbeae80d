//! What the docs promise of every changing command (`apply`, `init`, `mig apply|clear`,
//! `mps start|stop`, `vgpu apply|clear`), each on a node where it has changes to make:
//! - **the journal**: a `start`, a `step` before and a `step_done` after every step, and a `done`
//!   (or `failed` with why);
//! - **signals**: a SIGTERM during a step lets that step finish, stops the run before the next
//!   one (exit 1, the journal says so), and the same command run again finishes the job;
//! - **the CDI refresh**: an installed CDI spec is regenerated after MIG changes, and a command
//!   that makes none leaves it alone.

use super::common::vgpu_host::{FakeHost, a100_mdev_host};
use super::common::*;
use super::node::Node;
use assert_cmd::Command;
use serde_json::Value;
use std::path::PathBuf;

/// Where a case runs: a simulated node with the MPS stand-in, or a fake vGPU host (with the
/// `--jobs` of its commands).
enum Host {
    Node(Node),
    Vgpu(FakeHost, &'static str),
}

impl Host {
    /// gpushare on this host; vGPU commands get `--sysfs-root`.
    fn cmd(&self, args: &[&str]) -> Command {
        match self {
            Host::Node(node) => {
                let mut c = node.cmd();
                c.args(args);
                c
            }
            Host::Vgpu(host, jobs) => {
                let mut c = gpushare();
                c.env("GPUSHARE_JOBS", jobs);
                let path = format!(
                    "{}:{}",
                    host.dir.path().join("bin").display(),
                    std::env::var("PATH").unwrap_or_default()
                );
                c.env("PATH", path)
                    .arg("--sim")
                    .arg(host.dir.path().join("node.toml"))
                    .arg("--state-root")
                    .arg(host.state_root())
                    .args(args);
                if args.first() == Some(&"vgpu") {
                    c.arg("--sysfs-root").arg(host.root());
                }
                c
            }
        }
    }

    fn state_root(&self) -> PathBuf {
        match self {
            Host::Node(node) => node.root(),
            Host::Vgpu(host, _) => host.state_root(),
        }
    }

    fn write(&self, name: &str, text: &str) -> String {
        match self {
            Host::Node(node) => node.write(name, text),
            Host::Vgpu(host, _) => host.file(name, text).display().to_string(),
        }
    }

    fn run(&self, args: &[&str]) -> (Option<i32>, String) {
        let out = self.cmd(args).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    fn ok(&self, args: &[&str]) -> String {
        let (code, e) = self.run(args);
        assert_eq!(code, Some(0), "{args:?}: {e}");
        e
    }

    /// The journal's entries of the last run.
    fn last_run(&self) -> Vec<Value> {
        let text =
            std::fs::read_to_string(self.state_root().join("var/lib/gpushare/journal.jsonl"))
                .unwrap();
        let entries: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let start = entries
            .iter()
            .rposition(|e| e["event"] == "start")
            .expect("a run in the journal");
        entries[start..].to_vec()
    }

    fn cdi_spec(&self) -> PathBuf {
        self.state_root().join("etc/cdi/nvidia.yaml")
    }
}

struct Case {
    /// The command as the journal and the lock name it.
    command: &'static str,
    host: Host,
    args: Vec<String>,
    /// `GPUSHARE_SIM_CRASH` that sends SIGTERM during the first step.
    signal_at: &'static str,
    changes_mig: bool,
}

fn node(preset: &str, jobs: &'static str) -> Host {
    Host::Node(Node::preset(preset).jobs(jobs))
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

const TWO_MPS_DAEMONS: &str = "[[gpus]]\nselect = [0]\nmode = \"mps\"\nmps.clients = 2\n\
                               [[gpus]]\nselect = [1]\nmode = \"mps\"\nmps.clients = 4\n";

fn cases(jobs: &'static str) -> Vec<Case> {
    let mig_parted = repo()
        .join("tests/fixtures/mig-parted/config-default.yaml")
        .display()
        .to_string();
    let mut out = Vec::new();

    let host = node("dgx-a100", jobs);
    let cfg = host.write(
        "gpushare.toml",
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"3g.20gb\" = 2 }\n",
    );
    out.push(Case {
        command: "apply",
        host,
        args: strings(&["apply", "-c", &cfg]),
        signal_at: "set_mig_mode:1:term",
        changes_mig: true,
    });

    let host = node("dgx-a100", jobs);
    let cfg = host.write("out.toml", "");
    std::fs::remove_file(&cfg).unwrap();
    out.push(Case {
        command: "init",
        args: strings(&[
            "init",
            "--mode",
            "mig",
            "--profile",
            "3g.20gb",
            "--yes",
            "--no-probe",
            "--config-out",
            &cfg,
        ]),
        host,
        signal_at: "set_mig_mode:1:term",
        changes_mig: true,
    });

    out.push(Case {
        command: "mig apply",
        host: node("a30x4", jobs),
        args: strings(&["mig", "apply", "-f", &mig_parted, "-c", "all-2g.12gb"]),
        signal_at: "set_mig_mode:1:term",
        changes_mig: true,
    });

    let host = node("a30x4", jobs);
    host.ok(&["mig", "apply", "-q", "-f", &mig_parted, "-c", "all-1g.6gb"]);
    out.push(Case {
        command: "mig clear",
        host,
        args: strings(&["mig", "clear", "--gpu", "0,1"]),
        signal_at: "destroy_compute_instance:1:term",
        changes_mig: true,
    });

    let host = node("t4x4", jobs);
    let cfg = host.write("mps.toml", TWO_MPS_DAEMONS);
    out.push(Case {
        command: "mps start",
        host,
        args: strings(&["mps", "start", "-c", &cfg]),
        signal_at: "start_mps_daemon:1:term",
        changes_mig: false,
    });

    let host = node("t4x4", jobs);
    let cfg = host.write("mps.toml", TWO_MPS_DAEMONS);
    host.ok(&["mps", "start", "-q", "-c", &cfg]);
    out.push(Case {
        command: "mps stop",
        host,
        args: strings(&["mps", "stop"]),
        signal_at: "stop_mps_daemon:1:term",
        changes_mig: false,
    });

    let host = Host::Vgpu(a100_mdev_host(), jobs);
    let cfg = host.write(
        "gpushare.toml",
        "[[gpus]]\nselect = \"all\"\nmode = \"vgpu\"\nvgpu.devices = { \"A100-10C\" = 2 }\n",
    );
    out.push(Case {
        command: "vgpu apply",
        host,
        args: strings(&["vgpu", "apply", "-f", &cfg]),
        signal_at: "create_vgpu:1:term",
        changes_mig: false,
    });

    let host = Host::Vgpu(a100_mdev_host(), jobs);
    let cfg = host.write(
        "gpushare.toml",
        "[[gpus]]\nselect = \"all\"\nmode = \"vgpu\"\nvgpu.devices = { \"A100-10C\" = 2 }\n",
    );
    host.ok(&["vgpu", "apply", "-q", "-f", &cfg]);
    out.push(Case {
        command: "vgpu clear",
        host,
        args: strings(&["vgpu", "clear"]),
        signal_at: "remove_vgpu:1:term",
        changes_mig: false,
    });
    out
}

/// Every `step` is followed by its `step_done` (resets run together: their steps come first,
/// then their ends), and the run ends with `end`.
fn check_journal(run: &[Value], command: &str, end: &str) {
    assert_eq!(run[0]["event"], "start", "{command}: {run:?}");
    let mut open: Vec<&str> = Vec::new();
    let mut steps = 0;
    for e in &run[1..run.len() - 1] {
        let detail = e["detail"].as_str().unwrap();
        match e["event"].as_str().unwrap() {
            "step" => {
                steps += 1;
                open.push(detail);
            }
            "step_done" => {
                let at = open.iter().position(|s| detail.starts_with(s));
                let Some(at) = at else {
                    panic!("{command}: an end without its step: {e}")
                };
                open.remove(at);
            }
            other => panic!("{command}: {other} in the middle of a run: {run:?}"),
        }
    }
    assert!(steps > 0, "{command}: steps are journalled");
    assert!(
        open.is_empty(),
        "{command}: steps without their end: {open:?}"
    );
    assert_eq!(run.last().unwrap()["event"], end, "{command}: {run:?}");
    assert!(run.iter().all(|e| e["command"] == command), "{run:?}");
}

#[test]
fn every_changing_command_journals_its_steps_stops_on_a_signal_and_refreshes_cdi() {
    for jobs in super::JOBS {
        every_changing_command(jobs);
    }
}

fn every_changing_command(jobs: &'static str) {
    for case in cases(jobs) {
        let Case {
            command,
            host,
            args,
            signal_at,
            changes_mig,
        } = case;
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        host.ok(&["manifests", "--target", "cdi", "--install"]);
        let spec_before = std::fs::read_to_string(host.cdi_spec()).unwrap();

        // A SIGTERM during the first step: it finishes, the run stops before the next one.
        let out = host
            .cmd(&args)
            .env("GPUSHARE_SIM_CRASH", signal_at)
            .output()
            .unwrap();
        let e = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{command}: {e}");
        assert!(
            e.contains("error: stopped by SIGTERM before GPU"),
            "{command}: {e}"
        );
        assert!(e.contains("run the same command again"), "{command}: {e}");
        let run = host.last_run();
        check_journal(&run, command, "failed");
        // One after another, one step ran; with several GPUs at once, the steps that had
        // started on other GPUs ended too, and none started after.
        let steps = run.iter().filter(|e| e["event"] == "step").count();
        if jobs == "1" {
            assert_eq!(steps, 1, "{command}: one step ran: {run:?}");
        }
        assert!(e.contains(&format!("{steps} of ")), "{command}: {e}");
        assert_eq!(run.len(), 2 + 2 * steps, "{command}: {run:?}");
        assert!(
            run.last().unwrap()["detail"]
                .as_str()
                .unwrap()
                .contains("SIGTERM"),
            "{command}: {run:?}"
        );
        // The MIG change made before the stop is in the spec already. (With every GPU at once,
        // MIG may be on everywhere with no device yet: then there is nothing to describe.)
        let refreshed = e.contains("refreshed the CDI spec")
            || (jobs != "1" && e.contains("cannot refresh the CDI spec: the node has no GPU"));
        assert_eq!(refreshed, changes_mig, "{command}: {e}");
        let spec_after_signal = std::fs::read_to_string(host.cdi_spec()).unwrap();

        // The same command finishes the job, journalling every step.
        let e = host.ok(&args);
        assert!(!e.contains("without finishing"), "{command}: it ended: {e}");
        check_journal(&host.last_run(), command, "done");
        let spec = std::fs::read_to_string(host.cdi_spec()).unwrap();
        if changes_mig {
            assert!(e.contains("refreshed the CDI spec"), "{command}: {e}");
            assert_ne!(
                spec, spec_after_signal,
                "{command}: the new devices are in it"
            );
            assert_ne!(spec, spec_before, "{command}");
        } else {
            assert_eq!(spec, spec_before, "{command}: left alone");
        }

        // Then there is nothing left to do.
        let e = host.ok(&args);
        assert!(
            e.contains("nothing to change") || command == "init",
            "{command}: {e}"
        );
        if let Host::Node(node) = &host {
            node.ok(&["mps", "stop", "-q"]);
        }
    }
}
