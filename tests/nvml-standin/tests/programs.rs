//! The stand-in's programs: `nvidia-smi -r` refuses a reset while another process holds NVML, as
//! the driver does; `nvidia-smi compute-policy --set-timeslice` takes only the driver's four
//! intervals and logs the one it was told; `nvml-client` is a process that holds NVML.
//!
//! This test target also makes `cargo test` build the programs (and the library beside them)
//! into the target directory, where gpushare's tests find them without building them again.

use std::io::BufRead;
use std::process::{Command, Stdio};

fn nvidia_smi() -> Command {
    Command::new(env!("CARGO_BIN_EXE_nvidia-smi"))
}

#[test]
fn nvidia_smi_knows_only_what_the_driver_and_its_programs_run() {
    let out = nvidia_smi().arg("-L").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nvidia-smi -r -i"));
    let out = nvidia_smi()
        .args(["-r", "-i", "0"])
        .env_remove("NVML_STANDIN_STATE")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(9), "no node: no driver");
}

#[test]
fn a_reset_waits_for_other_nvml_clients() {
    let dir = tempfile_dir();
    let state = dir.join("node.json");
    let mut client = Command::new(env!("CARGO_BIN_EXE_nvml-client"))
        .env("NVML_STANDIN_STATE", &state)
        .env("NVML_STANDIN_NODE", "dgx-a100")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(client.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line.trim(), "ready");
    let reset = || {
        nvidia_smi()
            .args(["-r", "-i", "00000000:07:00.0"])
            .env("NVML_STANDIN_STATE", &state)
            .output()
            .unwrap()
    };
    let held = reset();
    assert_ne!(held.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&held.stderr).contains("In use by another client"),
        "{held:?}"
    );
    drop(client.stdin.take());
    assert!(client.wait().unwrap().success());
    let free = reset();
    assert_eq!(free.status.code(), Some(0), "{free:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_time_slice_is_one_of_four_intervals_and_is_logged() {
    let dir = tempfile_dir();
    let state = dir.join("node.json");
    let log = dir.join("calls.jsonl");
    // The node is made by the library's first initialisation.
    let made = Command::new(env!("CARGO_BIN_EXE_nvml-client"))
        .env("NVML_STANDIN_STATE", &state)
        .env("NVML_STANDIN_NODE", "dgx-a100")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    let set = |interval: &str| {
        nvidia_smi()
            .args(["compute-policy", "-i", "1", "--set-timeslice", interval])
            .env("NVML_STANDIN_STATE", &state)
            .env("NVML_STANDIN_LOG", &log)
            .output()
            .unwrap()
    };
    for bad in ["4", "-1", "long"] {
        assert_eq!(set(bad).status.code(), Some(2), "{bad}");
    }
    let ok = set("2");
    assert_eq!(ok.status.code(), Some(0), "{ok:?}");
    let text = std::fs::read_to_string(&log).unwrap();
    let last = text.lines().last().unwrap();
    assert!(
        last.contains(r#""--set-timeslice","2""#) && last.contains("SUCCESS"),
        "{last}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A fresh directory under the system's temporary one (this crate has no dev-dependencies).
fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "nvml-standin-programs-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
