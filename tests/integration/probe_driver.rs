//! `gpushare probe` against driver behaviour that decides its figures: the timing of copies
//! (a stream blocker before each sample, clients in step), the host CPUs its pinned memory lives
//! near, MIG devices a process may not open, and result codes newer than the bindings. The
//! stand-in libcuda models each (tests/support/libcuda_standin.c: STANDIN_CUDA_GBPS and friends).

use crate::common;
use common::cuda_standin::*;
use common::*;

fn bandwidth(t: &serde_json::Value, step: &str) -> f64 {
    t["bandwidth_gbps"][step].as_f64().unwrap()
}

#[test]
fn each_sample_is_timed_from_its_first_copy_not_from_when_the_host_queued_it() {
    // Copies run at 1 GB/s; queueing one costs the host 1 ms. A start event the device reaches
    // before the first copy is queued would time that millisecond too (~11 % low for 4 copies
    // of 2 MiB); the stream blocker holds the event until everything is queued.
    let v = report(
        probe("t4x4")
            .env("STANDIN_CUDA_GBPS", "1")
            .env("STANDIN_CUDA_API_US", "1000")
            .args(["--target", "0"]),
        0,
    );
    let t = &v["targets"][0];
    for step in ["h2d", "d2h", "d2d"] {
        let gbps = bandwidth(t, step);
        assert!(
            (gbps - 1.0).abs() < 0.01,
            "{step}: {gbps} GB/s, not 1.0: {t}"
        );
    }
}

#[test]
fn clients_that_drift_apart_are_timed_at_the_same_moment() {
    // One device of 0.25 GB/s (so a sample lasts far longer than the host's scheduling jitter);
    // the second client starts its copies 600 ms late, after the first one's host-to-device step.
    // Unsynchronised, the first would time that step alone, at the whole device. Met at each
    // step, they share it.
    const DEVICE: f64 = 0.25;
    let dir = tempfile::tempdir().unwrap();
    let v = report(
        probe("t4x4")
            .env("STANDIN_CUDA_GBPS", DEVICE.to_string())
            .env("STANDIN_CUDA_STATE", dir.path())
            .env("STANDIN_CUDA_LATE_MS", "600")
            .args(["--target", "0", "--clients", "2"]),
        0,
    );
    let t = &v["targets"][0];
    for step in ["h2d", "d2h", "d2d"] {
        let together = bandwidth(t, step);
        assert!(
            together > 0.0 && together <= 1.05 * DEVICE,
            "{step}: {together} GB/s together on a {DEVICE} GB/s device: {t}"
        );
        for c in t["per_client"].as_array().unwrap() {
            let alone = bandwidth(c, step);
            assert!(
                alone < 0.8 * DEVICE,
                "{step}: a client measured {alone} GB/s: it ran alone, not with the other: {t}"
            );
        }
    }
}

#[test]
fn workers_run_on_the_gpus_local_cpus() {
    let allowed = std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|l| {
            l.strip_prefix("Cpus_allowed_list:")
                .map(|s| s.trim().to_string())
        })
        .unwrap();
    if allowed == "0" {
        eprintln!("SKIPPED: this test needs a machine with more than one CPU to tell a binding");
        return;
    }
    // GPU 0 of the simulated T4 node is at 0000:07:00.0; its local CPUs are CPU 0.
    let root = tempfile::tempdir().unwrap();
    let dev = root.path().join("sys/bus/pci/devices/0000:07:00.0");
    std::fs::create_dir_all(&dev).unwrap();
    std::fs::write(dev.join("local_cpulist"), "0\n").unwrap();
    let log = root.path().join("cuda.log");
    let v = report(
        probe("t4x4")
            .arg("--sysfs-root")
            .arg(root.path())
            .env("STANDIN_CUDA_LOG", &log)
            .args(["--target", "0,1"]),
        0,
    );
    assert_eq!(v["targets"][0]["host_cpus"], "0");
    assert!(
        v["targets"][1]["host_cpus"].is_null(),
        "no sysfs entry: left alone"
    );
    let allocs: Vec<String> = trace_lines(&log)
        .into_iter()
        .filter(|l| l.contains("cuMemHostAlloc"))
        .collect();
    // Each worker pins 3 buffers (two copy buffers, the blocker's flag): GPU 0's on CPU 0 only.
    assert_eq!(allocs.len(), 6, "{allocs:?}");
    assert_eq!(
        allocs.iter().filter(|l| l.ends_with("cpus=0")).count(),
        3,
        "{allocs:?}"
    );
    assert_eq!(
        allocs
            .iter()
            .filter(|l| l.ends_with(&format!("cpus={allowed}")))
            .count(),
        3,
        "{allocs:?}"
    );
}

/// A DGX A100 whose GPU 0 has two 3g.20gb MIG devices.
fn mig_node(dir: &std::path::Path) -> String {
    write(
        dir,
        "node.toml",
        r#"
[[gpus]]
model = "NVIDIA A100-SXM4-40GB"
count = 2
instances = [{ profile = "3g.20gb", start = 0 }, { profile = "3g.20gb", start = 4 }]
"#,
    )
    .to_string_lossy()
    .into_owned()
}

#[test]
fn mig_devices_the_process_may_not_open_are_no_device_not_no_driver() {
    // Without access to /dev/nvidia-caps, the driver shows a MIG worker no device: the driver is
    // there (exit 3, the targets fail), not missing (exit 4).
    let dir = tempfile::tempdir().unwrap();
    let node = mig_node(dir.path());
    let v = report(probe(&node).env("STANDIN_CUDA_CAPS", "denied"), 3);
    let targets = v["targets"].as_array().unwrap();
    assert_eq!(targets.len(), 4);
    for t in targets {
        let error = t["error"].as_str().unwrap();
        assert!(
            error.contains("cuInit failed: CUDA_ERROR_NO_DEVICE"),
            "{error}"
        );
        assert!(
            t["hint"].as_str().unwrap().contains("/dev/nvidia-caps"),
            "{t}"
        );
    }
    let f = failures(&v);
    assert_eq!(f.len(), 4, "{f:?}");
    assert!(f.iter().all(|(check, _)| check == "probe"), "{f:?}");
}

#[test]
fn a_result_code_newer_than_the_bindings_is_named_not_undefined() {
    // 914 (CUDA_ERROR_INVALID_RESOURCE_TYPE) came after the CUDA 12.2 bindings gpushare uses.
    let detect = json(sim("t4x4").arg("detect"));
    let uuid = detect["gpus"][1]["uuid"].as_str().unwrap();
    let v = report(
        probe("t4x4")
            .env("STANDIN_CUDA_FAULT", format!("code:914:{uuid}"))
            .args(["--target", "0,1"]),
        3,
    );
    assert!(v["targets"][0]["error"].is_null());
    let error = v["targets"][1]["error"].as_str().unwrap();
    assert!(
        error.contains("cuMemAlloc_v2 failed: CUDA_ERROR_INVALID_RESOURCE_TYPE"),
        "{error}"
    );
    // A code no table knows still prints as a number.
    let v = report(
        probe("t4x4")
            .env("STANDIN_CUDA_FAULT", format!("code:4242:{uuid}"))
            .args(["--target", "1"]),
        3,
    );
    let error = v["targets"][0]["error"].as_str().unwrap();
    assert!(
        error.contains("cuMemAlloc_v2 failed: CUDA error 4242"),
        "{error}"
    );
}
