//! mig-parted's hooks file around `apply` and `mig apply`: the four hooks at mig-parted's points,
//! with mig-parted's environment and failure rules, in order with the GPU clients' stops and
//! starts; and mig-parted's own hooks file, read unchanged, planned at those points.

use super::common::*;
use super::node::{NODE, Node, actions};

const HELD: &str = "\
holders = [{ name = \"nv-hostengine\", pid = 2001, unit = \"nvidia-dcgm.service\" }]
[[gpus]]
model = \"NVIDIA A100-SXM4-40GB\"
";

const LAYOUT: &str = "\
[clients]
systemd = [\"nvidia-dcgm.service\"]

[[gpus]]
select = [0]
mode = \"mig\"
mig.devices = { \"3g.20gb\" = 2 }
";

/// A hook command that logs its name and what mig-parted gives it (`MPS_STANDIN_LIFETIME`, set
/// for gpushare, is `unset`: nothing is inherited).
fn logging(name: &str, log: &str) -> String {
    format!(
        "  - command: /bin/sh\n    args: [\"-c\", \"echo \\\"hook {name} $MIG_PARTED_CONFIG_FILE|$MIG_PARTED_SELECTED_CONFIG|$MIG_PARTED_HOOKS_FILE|$MIG_PARTED_SKIP_RESET|$MIG_PARTED_MODE_CHANGE_ONLY|$HOOK_VAR|${{MPS_STANDIN_LIFETIME-unset}}\\\" >> {log}\"]\n    envs: {{HOOK_VAR: from-the-file}}\n"
    )
}

/// Every hook logs; the named hook also fails (`/bin/false`).
fn hooks_file(node: &Node, fail: Option<&str>) -> String {
    hooks_file_with(node, fail.map(|name| (name, "  - command: /bin/false\n")))
}

/// Every hook logs; `extra` is a command (YAML) appended to the named hook.
fn hooks_file_with(node: &Node, extra: Option<(&str, &str)>) -> String {
    let log = node.standin_log_path().display().to_string();
    let mut text = String::from("version: v1\nhooks:\n");
    for name in [
        "apply-start",
        "pre-apply-mode",
        "pre-apply-config",
        "apply-exit",
    ] {
        text.push_str(&format!("  {name}:\n"));
        text.push_str(&logging(name, &log));
        if let Some((hook, command)) = extra
            && hook == name
        {
            text.push_str(command);
        }
    }
    node.write("hooks.yaml", &text)
}

fn held_node() -> Node {
    let node = Node::file(HELD);
    node.set_units(&[("nvidia-dcgm.service", "active")]);
    node
}

/// The log without `is-active` questions, and each hook line shortened to `hook NAME`.
fn calls(node: &Node) -> Vec<String> {
    node.standin_log()
        .into_iter()
        .filter(|l| !l.contains("is-active"))
        .map(|l| match l.strip_prefix("hook ") {
            Some(rest) => format!("hook {}", rest.split(' ').next().unwrap()),
            None => l,
        })
        .collect()
}

#[test]
fn hooks_run_at_mig_parteds_points_with_its_environment() {
    let node = held_node();
    let cfg = node.write("gpushare.toml", LAYOUT);
    let hooks = hooks_file(&node, None);
    node.ok(&["apply", "-c", &cfg, "--hooks-file", &hooks]);
    assert_eq!(
        calls(&node),
        [
            "hook apply-start",
            "systemctl stop nvidia-dcgm.service",
            "hook pre-apply-mode",
            "hook pre-apply-config",
            "systemctl start --no-block nvidia-dcgm.service",
            "hook apply-exit",
        ]
    );
    let first = node
        .standin_log()
        .into_iter()
        .find(|l| l.starts_with("hook "))
        .unwrap();
    assert_eq!(
        first,
        format!("hook apply-start {cfg}||{hooks}|false|false|from-the-file|unset")
    );
    // Nothing to change: apply-start and apply-exit run all the same, as in mig-parted.
    node.clear_log();
    let e = node.ok(&["apply", "-c", &cfg, "--hooks-file", &hooks]);
    assert!(e.contains("nothing to change"), "{e}");
    assert_eq!(calls(&node), ["hook apply-start", "hook apply-exit"]);
    // The journal has them too.
    assert!(
        node.journal().contains("node: hook (apply-exit:"),
        "{}",
        node.journal()
    );
}

#[test]
fn a_failing_hook_stops_the_apply_and_apply_exit_still_runs() {
    let node = held_node();
    let cfg = node.write("gpushare.toml", LAYOUT);
    let hooks = hooks_file(&node, Some("pre-apply-config"));
    let e = node.fails(&["apply", "-c", &cfg, "--hooks-file", &hooks], 1);
    assert!(
        e.contains("error running pre-apply-config hook: /bin/false exited with status 1"),
        "{e}"
    );
    assert_eq!(
        calls(&node),
        [
            "hook apply-start",
            "systemctl stop nvidia-dcgm.service",
            "hook pre-apply-mode",
            "hook pre-apply-config",
            "systemctl start --no-block nvidia-dcgm.service",
            "hook apply-exit",
        ]
    );
    assert_eq!(node.units()["nvidia-dcgm.service"], "active");
    assert!(node.devices()[&0].is_empty(), "no instance was made");

    // apply-start failing: nothing runs after it, not even apply-exit (mig-parted's rule).
    let node = held_node();
    let hooks = hooks_file(&node, Some("apply-start"));
    let e = node.fails(&["apply", "-c", &cfg, "--hooks-file", &hooks], 1);
    assert!(e.contains("error running apply-start hook"), "{e}");
    assert_eq!(calls(&node), ["hook apply-start"]);
    assert_eq!(node.detect()["gpus"][0]["mig"]["pending"], "disabled");

    // apply-exit failing after a good apply fails the command; the node has the layout.
    let node = held_node();
    let hooks = hooks_file(&node, Some("apply-exit"));
    let e = node.fails(&["apply", "-c", &cfg, "--hooks-file", &hooks], 1);
    assert!(e.contains("error running apply-exit hook"), "{e}");
    assert_eq!(calls(&node).last().unwrap(), "hook apply-exit");
    assert_eq!(node.check(&cfg), 0);
}

/// A hook that never returns is killed at `--hooks-timeout` (with what it started), named in the
/// error, and the apply stops as after a failed step: GPU clients started again, apply-exit run.
#[test]
fn a_hook_that_never_returns_is_killed_at_the_timeout() {
    let node = held_node();
    let cfg = node.write("gpushare.toml", LAYOUT);
    let hooks = hooks_file_with(
        &node,
        Some((
            "pre-apply-mode",
            "  - command: /bin/sh\n    args: [\"-c\", \"sleep 1000; true\"]\n",
        )),
    );
    let e = node.fails(
        &[
            "apply",
            "-c",
            &cfg,
            "--hooks-file",
            &hooks,
            "--hooks-timeout",
            "1",
        ],
        1,
    );
    assert!(
        e.contains("error running pre-apply-mode hook: /bin/sh -c 'sleep 1000; true' did not finish within 1s"),
        "{e}"
    );
    assert_eq!(
        calls(&node),
        [
            "hook apply-start",
            "systemctl stop nvidia-dcgm.service",
            "hook pre-apply-mode",
            "systemctl start --no-block nvidia-dcgm.service",
            "hook apply-exit",
        ]
    );
    assert_eq!(node.units()["nvidia-dcgm.service"], "active");
}

/// SIGTERM while a hook never returns: the hook (and what it started) is stopped, the run
/// stops as after a failed step, and gpushare is gone within a few seconds, not at the timeout.
#[test]
fn a_sigterm_during_a_hook_that_never_returns_stops_it_and_the_run() {
    let node = held_node();
    let cfg = node.write("gpushare.toml", LAYOUT);
    let started = node.root().join("hook-started");
    let hooks = hooks_file_with(
        &node,
        Some((
            "pre-apply-mode",
            &format!(
                "  - command: /bin/sh\n    args: [\"-c\", \"touch {}; sleep 1000; true\"]\n",
                started.display()
            ),
        )),
    );
    let mut child = node
        .std_cmd()
        .args(["apply", "-c", &cfg, "--hooks-file", &hooks])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !started.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the hook never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // SAFETY: kill(2) on the child this test started.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let signalled = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            signalled.elapsed() < std::time::Duration::from_secs(3),
            "gpushare still runs 3 s after SIGTERM"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let mut e = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut e).unwrap();
    assert_eq!(status.code(), Some(1), "{e}");
    assert!(
        e.contains("was stopped: gpushare received SIGTERM while it ran"),
        "{e}"
    );
    // The GPU clients came back; the MIG mode was not touched.
    assert_eq!(node.units()["nvidia-dcgm.service"], "active");
    assert_eq!(node.detect()["gpus"][0]["mig"]["pending"], "disabled");
    let hook = format!("touch {}; sleep 1000", started.display());
    let still = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|p| std::fs::read(p.path().join("cmdline")).ok())
        .any(|c| String::from_utf8_lossy(&c).contains(&hook));
    assert!(!still, "the hook still runs");
}

#[test]
fn mig_apply_gives_hooks_its_flags_and_mode_only_skips_pre_apply_config() {
    let node = Node::preset("dgx-a100");
    let hooks = hooks_file(&node, None);
    let config = repo().join("tests/fixtures/mig-parted/config-default.yaml");
    let config = config.display().to_string();
    node.cmd()
        .env("MIG_PARTED_HOOKS_FILE", &hooks)
        .env("MIG_PARTED_MODE_CHANGE_ONLY", "true")
        .args(["mig", "apply", "-f", &config, "-c", "all-1g.5gb"])
        .assert()
        .success();
    assert_eq!(
        calls(&node),
        ["hook apply-start", "hook pre-apply-mode", "hook apply-exit"]
    );
    assert_eq!(
        node.standin_log()[0],
        format!("hook apply-start {config}|all-1g.5gb|{hooks}|false|true|from-the-file|unset")
    );
    assert!(
        node.devices()[&0].is_empty(),
        "--mode-only makes no instance"
    );
}

#[test]
fn mig_parteds_own_hooks_file_is_planned_at_its_points() {
    let node = Node::preset("dgx-a100");
    let hooks = repo().join("tests/fixtures/mig-parted/hooks-default.yaml");
    let config = repo().join("tests/fixtures/mig-parted/config-default.yaml");
    let plan = node.json(&[
        "mig",
        "apply",
        "--dry-run",
        "-f",
        &config.display().to_string(),
        "-c",
        "all-3g.20gb",
        "--hooks-file",
        &hooks.display().to_string(),
    ]);
    let steps = actions(&plan);
    let hooks_at: Vec<usize> = steps
        .iter()
        .enumerate()
        .filter(|(_, (g, a))| *g == NODE && a == "hook")
        .map(|(i, _)| i)
        .collect();
    let first = |action: &str| steps.iter().position(|(_, a)| a == action).unwrap();
    assert_eq!(hooks_at.len(), 4, "{plan}");
    assert_eq!(hooks_at[0], 0);
    assert_eq!(hooks_at[1] + 1, first("set_mig_mode"));
    assert_eq!(hooks_at[2] + 1, first("create_gpu_instance"));
    assert_eq!(hooks_at[3], steps.len() - 1);
    let details: Vec<&str> = hooks_at
        .iter()
        .map(|i| plan["changes"][*i]["detail"].as_str().unwrap())
        .collect();
    assert_eq!(
        details,
        [
            "apply-start: /bin/bash -x -c 'source hooks.sh; apply-start ${MIG_PARTED_SELECTED_CONFIG}'",
            "pre-apply-mode: /bin/bash -x -c 'source hooks.sh; pre-apply-mode'",
            "pre-apply-config: /bin/bash -x -c 'source hooks.sh; pre-apply-config'",
            "apply-exit: 2 commands",
        ]
    );
    // The dry run ran nothing.
    assert!(node.standin_log().is_empty());
}
