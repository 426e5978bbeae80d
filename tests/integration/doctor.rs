//! `gpushare doctor` end to end.

use crate::common;
use common::*;

#[test]
fn without_a_driver_doctor_fails_with_hints_and_exits_4() {
    let root = tempfile::tempdir().unwrap();
    let out = gpushare()
        .args([
            "--nvml-lib",
            "/nonexistent/libnvidia-ml.so.1",
            "doctor",
            "--host-root",
        ])
        .arg(root.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let text = String::from_utf8_lossy(&out.stdout);
    let failed = |id: &str| {
        text.lines()
            .any(|l| l.split_whitespace().take(2).eq(["FAIL", id]))
    };
    assert!(
        failed("kernel-module") && failed("nvml") && failed("device-nodes"),
        "{text}"
    );
    assert!(
        text.contains("hint: nvml: install the NVIDIA driver"),
        "{text}"
    );
}

#[test]
fn doctor_json_on_a_simulated_node() {
    let out = sim("dgx-a100")
        .args(["doctor", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let checks = v["checks"].as_array().unwrap();
    let nvml = checks.iter().find(|c| c["id"] == "nvml").unwrap();
    assert_eq!(nvml["status"], "pass");
    assert!(nvml["detail"].as_str().unwrap().contains("8 GPU(s)"));
    assert_eq!(v["summary"]["fail"], 0);
}

#[test]
fn doctor_fails_with_exit_3_on_a_broken_host_tree() {
    let root = tempfile::tempdir().unwrap();
    let out = sim("t4x4")
        .arg("doctor")
        .arg("--host-root")
        .arg(root.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
}
