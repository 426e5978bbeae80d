//! `gpushare probe` on MPS clients: the real binary and its workers against the stand-in libcuda,
//! which behaves as the driver does for MPS (a client without a daemon runs on the whole GPU, a
//! client's own environment can lower its share, the memory limit need not show in
//! `cuMemGetInfo`, a share runs in waves over changing SMs), and stand-in MPS daemons.

use crate::common;
use common::cuda_standin::*;
use common::*;
use std::path::Path;

/// gpushare.toml putting GPU 0 under MPS with 4 clients (on a T4: 3840 MiB and 25 %, 10 SMs).
fn four_clients(dir: &Path) -> std::path::PathBuf {
    write(
        dir,
        "gpushare.toml",
        "[[gpus]]\nselect = [0]\nmode = \"mps\"\nmps.clients = 4\n",
    )
}

/// `probe -c FILE --mps-pipe-dir PIPE` on a T4 node.
fn mps_probe(config: &Path, pipe: &Path) -> assert_cmd::Command {
    let mut cmd = probe("t4x4");
    cmd.arg("-c").arg(config).arg("--mps-pipe-dir").arg(pipe);
    cmd
}

#[test]
fn mps_clients_through_a_pipe_dir_with_limits_from_gpushare_toml() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = MpsDaemon::start(dir.path());
    let config = four_clients(dir.path());
    // T4: 15360 MiB, 40 SMs; four clients get 3840 MiB and 25% (10 SMs) each.
    let v = report(
        mps_probe(&config, &daemon.pipe)
            .env("STANDIN_CUDA_MPS_MEM_MIB", "3840")
            .env("STANDIN_CUDA_MPS_SMS", "10")
            .args(["--target", "0,1", "--clients", "2"]),
        0,
    );
    let t = &v["targets"][0];
    assert_eq!(t["kind"], "mps");
    assert_eq!(t["memory"]["limit_mib"], 3840);
    assert_eq!(t["memory"]["limit_enforced"], true);
    assert_eq!(t["multiprocessors"], 10);
    assert_eq!(t["promised"]["thread_percentage"], 25);
    assert_eq!(t["per_client"].as_array().unwrap().len(), 2);
    assert_eq!(v["targets"][1]["kind"], "gpu", "GPU 1 is not under MPS");

    // The daemon applied neither limit (the UUID-keyed limit bug): both checks fail.
    let v = report(mps_probe(&config, &daemon.pipe).args(["--target", "0"]), 3);
    let checks: Vec<String> = failures(&v).into_iter().map(|(c, _)| c).collect();
    assert!(checks.contains(&"memory_limit".to_string()), "{checks:?}");
    assert!(
        checks.contains(&"multiprocessors".to_string()),
        "{checks:?}"
    );

    // A pipe dir for devices gpushare.toml does not put under MPS is said to be unused.
    let out = mps_probe(&config, &daemon.pipe)
        .args(["--target", "2", "--quiet"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--mps-pipe-dir is not used"), "{stderr}");
}

#[test]
fn mps_daemons_are_found_through_their_settings_files() {
    let dir = tempfile::tempdir().unwrap();
    let mps = MpsDaemon::start(dir.path());
    let detect = json(sim("t4x4").arg("detect"));
    let uuid = detect["gpus"][3]["uuid"].as_str().unwrap();
    let daemon = dir.path().join("root/run/gpushare/mps/gpu3");
    std::fs::create_dir_all(&daemon).unwrap();
    std::fs::write(
        daemon.join("settings.json"),
        format!(
            r#"{{"version": 1, "name": "gpu3", "pipe_dir": "{}", "log_dir": "/tmp/log", "multiuser": false,
                 "clients": 2, "thread_percentage": 50,
                 "devices": [{{"ordinal": 0, "gpu": 3, "uuid": "{uuid}", "name": "Tesla T4", "mig": null,
                               "memory_mib": 15360, "memory_limit_mib": 7680, "client_cap": 48}}]}}"#,
            mps.pipe.display()
        ),
    )
    .unwrap();
    let v = report(
        probe("t4x4")
            .arg("--state-root")
            .arg(dir.path().join("root"))
            .args(["--target", "3"])
            .env("STANDIN_CUDA_MPS_MEM_MIB", "7680")
            .env("STANDIN_CUDA_MPS_SMS", "20"),
        0,
    );
    let t = &v["targets"][0];
    assert_eq!(t["kind"], "mps");
    assert_eq!(t["memory"]["limit_mib"], 7680);
    assert_eq!(
        t["promised"]["memory_from"],
        "MPS memory limit (MPS daemon gpu3)"
    );
    assert_eq!(t["promised"]["max_multiprocessors"], 20);

    std::fs::write(daemon.join("settings.json"), "{\"pipe_dir\": ").unwrap();
    let err = fails_with(
        probe("t4x4")
            .arg("--state-root")
            .arg(dir.path().join("root")),
        2,
    );
    assert!(err.contains("gpu3/settings.json:1:"), "{err}");
}

#[test]
fn a_pipe_dir_without_a_daemon_is_refused_not_measured_as_the_whole_gpu() {
    // Without a daemon, CUDA runs the client without MPS, on the whole GPU: measured, it would
    // fail the share's memory limit and SM count, blaming MPS for a daemon that is not there.
    let dir = tempfile::tempdir().unwrap();
    let config = four_clients(dir.path());
    let log = dir.path().join("cuda.log");
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    // A daemon that went away and left its `control` behind is no better.
    let stale = dir.path().join("stale");
    std::fs::create_dir(&stale).unwrap();
    std::fs::write(stale.join("control"), "").unwrap();
    for (pipe, why) in [
        (&empty, "it has no `control` socket"),
        (&stale, "no MPS daemon answers in"),
    ] {
        let v = report(
            mps_probe(&config, pipe)
                .env("STANDIN_CUDA_LOG", &log)
                .env("STANDIN_CUDA_MPS_MEM_MIB", "3840")
                .env("STANDIN_CUDA_MPS_SMS", "10")
                .args(["--target", "0"]),
            3,
        );
        let f = failures(&v);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, "mps");
        assert!(f[0].1.contains(why), "{}", f[0].1);
        assert!(
            f[0].1
                .contains("CUDA would run its clients without MPS, on the whole GPU"),
            "{}",
            f[0].1
        );
        assert!(
            v["failures"][0]["hint"]
                .as_str()
                .unwrap()
                .contains("--mps-pipe-dir")
        );
        let t = &v["targets"][0];
        assert!(t["bandwidth_gbps"]["h2d"].is_null(), "nothing was measured");
        assert!(trace_lines(&log).is_empty(), "no worker ran");
    }
}

#[test]
fn a_daemon_at_the_default_pipe_dir_does_not_capture_gpu_targets() {
    // A daemon in the driver's default pipe dir (/tmp/nvidia-mps) takes in every CUDA process
    // whose CUDA_MPS_PIPE_DIRECTORY is unset: a whole-GPU worker must not be one of them.
    let dir = tempfile::tempdir().unwrap();
    let default_pipe = dir.path().join("nvidia-mps");
    std::fs::create_dir(&default_pipe).unwrap();
    std::fs::write(default_pipe.join("control"), "").unwrap();
    let v = report(
        probe("t4x4")
            .env("STANDIN_CUDA_MPS_DEFAULT_PIPE", &default_pipe)
            .env("STANDIN_CUDA_MPS_MEM_MIB", "3840")
            .env("STANDIN_CUDA_MPS_SMS", "10")
            .args(["--target", "0"]),
        0,
    );
    let t = &v["targets"][0];
    assert_eq!(t["kind"], "gpu");
    assert_eq!(t["multiprocessors"], 40, "the whole T4, not an MPS share");
    assert_eq!(t["memory"]["limit_mib"], 15360);
    assert_eq!(t["memory"]["limit_enforced"], true);
}

#[test]
fn the_callers_cuda_settings_do_not_reach_the_workers() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = MpsDaemon::start(dir.path());
    let config = four_clients(dir.path());
    let log = dir.path().join("cuda.log");
    let v = report(
        mps_probe(&config, &daemon.pipe)
            .env("STANDIN_CUDA_LOG", &log)
            .env("STANDIN_CUDA_MPS_MEM_MIB", "3840")
            .env("STANDIN_CUDA_MPS_SMS", "10")
            // Left over in a shell: each would change what a client gets or how it runs.
            .env("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "5")
            .env("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "0=512M")
            .env("CUDA_LAUNCH_BLOCKING", "1")
            .env("CUDA_VISIBLE_DEVICES", "1")
            .env("CUDA_CACHE_PATH", dir.path().join("jit-cache"))
            .args(["--target", "0"]),
        0,
    );
    let t = &v["targets"][0];
    assert_eq!(t["multiprocessors"], 10, "the daemon's share, not 5 %");
    assert!(
        t["memory"]["allocated_mib"].as_u64().unwrap() > 3000,
        "the daemon's limit, not 512 MiB: {t}"
    );
    let inits: Vec<String> = trace_lines(&log)
        .into_iter()
        .filter(|l| l.contains("cuInit env:"))
        .collect();
    assert!(!inits.is_empty());
    for line in &inits {
        for gone in [
            "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
            "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT",
            "CUDA_LAUNCH_BLOCKING",
            "CUDA_VISIBLE_DEVICES",
        ] {
            assert!(!line.contains(gone), "{gone} reached a worker: {line}");
        }
        assert!(line.contains("CUDA_CACHE_PATH="), "{line}");
        assert!(
            line.contains(&format!(
                "CUDA_MPS_PIPE_DIRECTORY={}",
                daemon.pipe.display()
            )),
            "{line}"
        );
    }
}

#[test]
fn copy_buffers_fit_an_mps_limit_that_cumemgetinfo_does_not_show() {
    // A 512 MiB client limit; cuMemGetInfo shows the whole T4. Copies sized from what is free
    // (2 × 256 MiB for --buffer 64M, plus the context's own 32 MiB) would not fit.
    let dir = tempfile::tempdir().unwrap();
    let daemon = MpsDaemon::start(dir.path());
    let config = write(
        dir.path(),
        "gpushare.toml",
        "[[gpus]]\nselect = [0]\nmode = \"mps\"\nmps = { clients = 4, memory_limit = \"512M\" }\n",
    );
    let mut cmd = probe_copying("t4x4", "64M");
    cmd.arg("-c")
        .arg(&config)
        .arg("--mps-pipe-dir")
        .arg(&daemon.pipe)
        .env("STANDIN_CUDA_MPS_MEM_MIB", "512")
        .env("STANDIN_CUDA_CONTEXT_MIB", "32")
        .env("STANDIN_CUDA_MPS_SMS", "10")
        .args(["--target", "0"]);
    let v = report(&mut cmd, 0);
    let t = &v["targets"][0];
    assert!(t["error"].is_null(), "{t}");
    assert!(
        t["memory"]["free_mib"].as_u64().unwrap() > 10_000,
        "the limit does not show"
    );
    // The limit test could allocate 480 MiB past the context: each of the two device buffers
    // takes at most a quarter of that, sized up front rather than found by failing.
    assert_eq!(t["memory"]["allocated_mib"], 480);
    let buffers = &t["buffers_mib"];
    assert!(buffers["d2d_mib"].as_u64().unwrap() <= 120, "{buffers}");
    assert!(buffers["copy_mib"].as_u64().unwrap() <= 64, "{buffers}");
    assert!(t["bandwidth_gbps"]["d2d"].as_f64().unwrap() > 0.0);
}

#[test]
fn an_mps_share_that_runs_in_waves_is_counted_at_once() {
    // 9 SMs given (MPS runs them as 5 TPCs: 10 at once); the kernel's 160 blocks run in two
    // waves, the second on other SMs: 20 SMs seen over the kernel, never more than 10 at once.
    let dir = tempfile::tempdir().unwrap();
    let daemon = MpsDaemon::start(dir.path());
    let config = four_clients(dir.path());
    let run = |cap: &str, code| {
        report(
            mps_probe(&config, &daemon.pipe)
                .env("STANDIN_CUDA_MPS_MEM_MIB", "3840")
                .env("STANDIN_CUDA_MPS_SMS", "9")
                .env("STANDIN_CUDA_SM_CAP", cap)
                .args(["--target", "0"]),
            code,
        )
    };
    let v = run("enforce", 0);
    let t = &v["targets"][0];
    assert_eq!(t["multiprocessors"], 9);
    assert_eq!(t["sms_observed"], 10);
    assert_eq!(t["sms_distinct"], 20);
    // A share that is not applied to the kernels still fails.
    let v = run("ignore", 3);
    let f = failures(&v);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].0, "sms_observed");
    assert!(
        f[0].1
            .contains("kernels ran on 40 SMs at once, more than the 9"),
        "{}",
        f[0].1
    );
}

/// `probe --share` inside a share's container, as gpushare's DRA driver sets it up: its client
/// limits and what the claim was given (10 GiB and 20% of an A100's 108 SMs).
fn share_probe(pipe: &Path, client_limits: bool) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::new(assert_cmd::cargo::cargo_bin!("gpushare"));
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("GPUSHARE_ROOT", pipe.parent().unwrap().join("root"))
        .env("NO_COLOR", "1")
        .env("LD_LIBRARY_PATH", standin("plain"))
        .env("STANDIN_CUDA_DEVICES", "GPU-5ab1e=40960:108")
        .env("STANDIN_CUDA_CONTEXT_MIB", "0")
        .env("CUDA_MPS_PIPE_DIRECTORY", pipe)
        .env("GPUSHARE_SHARE_DEVICE", "GPU-5ab1e")
        .env("GPUSHARE_SHARE_MEMORY_MIB", "10240")
        .env("GPUSHARE_SHARE_COMPUTE_PERCENT", "20")
        .env("GPUSHARE_SHARE_DEVICE_MULTIPROCESSORS", "108");
    if client_limits {
        cmd.env("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "0=10240M")
            .env("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "20");
    }
    cmd.args(["probe", "--share", "--quick", "--buffer", "2M"]);
    cmd
}

#[test]
fn a_share_is_probed_from_inside_against_what_its_claim_was_given() {
    let dir = tempfile::tempdir().unwrap();
    let daemon = MpsDaemon::start(dir.path());
    // Its client's limits hold: exactly the 10 GiB, and 22 of the 108 SMs.
    let v = report(&mut share_probe(&daemon.pipe, true), 0);
    let t = &v["targets"][0];
    assert_eq!(t["kind"], "mps", "{t}");
    assert_eq!(t["memory"]["limit_mib"], 10240, "{t}");
    assert_eq!(
        t["memory"]["allocated_mib"], 10240,
        "exactly the share: {t}"
    );
    assert_eq!(t["memory"]["limit_enforced"], true, "{t}");
    assert_eq!(t["multiprocessors"], 22, "{t}");
    assert_eq!(v["source"], "share of GPU-5ab1e");
    // Without them (a container that dropped its environment) the daemon holds nothing here:
    // the probe says the share is not held.
    let v = report(&mut share_probe(&daemon.pipe, false), 3);
    let checks: Vec<String> = failures(&v).into_iter().map(|(c, _)| c).collect();
    assert!(checks.contains(&"memory_limit".to_string()), "{checks:?}");
    // Outside a share's container: a usage error naming what is missing.
    let out = share_probe(&daemon.pipe, true)
        .env_remove("GPUSHARE_SHARE_MEMORY_MIB")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("GPUSHARE_SHARE_MEMORY_MIB is not set"));
}
