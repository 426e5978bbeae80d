//! The probe's test driver: the stand-in libcuda (tests/support/libcuda_standin.c, built here with
//! cc) on simulated nodes, and stand-in MPS daemons (tests/support/bin/nvidia-cuda-mps-control).

use super::{json, repo, sim};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Build the stand-in once per variant: a directory holding libcuda.so.1 (and libcuda.so).
pub fn standin(variant: &'static str) -> &'static Path {
    static PLAIN: OnceLock<PathBuf> = OnceLock::new();
    static OLD: OnceLock<PathBuf> = OnceLock::new();
    let (cell, defines): (&OnceLock<PathBuf>, &[&str]) = match variant {
        "old-driver" => (&OLD, &["-DSTANDIN_OMIT_UUID_V2"]),
        _ => (&PLAIN, &[]),
    };
    cell.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("standin-cuda-{variant}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let lib = dir.join("libcuda.so.1");
        let status = std::process::Command::new("cc")
            .args(["-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-o"])
            .arg(&lib)
            .args(defines)
            .arg(repo().join("tests/support/libcuda_standin.c"))
            .status()
            .expect("a C compiler (cc) is needed to build the stand-in libcuda");
        assert!(status.success(), "the stand-in libcuda does not compile");
        let _ = std::os::unix::fs::symlink("libcuda.so.1", dir.join("libcuda.so"));
        dir
    })
}

/// `STANDIN_CUDA_DEVICES` for a node as `detect` shows it: every GPU with MIG off, every MIG
/// device with its GPU instance's memory and its compute instance's SMs.
pub fn devices_of(detect: &Value) -> String {
    let mut out = Vec::new();
    for g in detect["gpus"].as_array().unwrap() {
        if g["mig"]["current"] == "enabled" {
            for gi in g["mig"]["instances"].as_array().unwrap() {
                for ci in gi["compute_instances"].as_array().unwrap() {
                    out.push(format!(
                        "{}={}:{}",
                        ci["uuid"].as_str().unwrap(),
                        gi["memory_mib"],
                        ci["multiprocessors"]
                    ));
                }
            }
        } else {
            out.push(format!(
                "{}={}:{}",
                g["uuid"].as_str().unwrap(),
                g["memory_total_mib"],
                g["multiprocessors"]
            ));
        }
    }
    out.join(",")
}

/// `gpushare --sim NODE probe --quick --buffer 2M` with the stand-in as the node's driver, no
/// CUDA settings from the caller, and the stand-in MPS control program first on PATH.
pub fn probe(node: &str) -> assert_cmd::Command {
    probe_copying(node, "2M")
}

/// [`probe`] with copies of `buffer`.
pub fn probe_copying(node: &str, buffer: &str) -> assert_cmd::Command {
    let detect = json(sim(node).arg("detect"));
    let mut cmd = with_standin(sim(node), &detect);
    cmd.args(["probe", "--quick", "--buffer", buffer]);
    cmd
}

/// `cmd` (gpushare on the node `detect` shows) with the stand-in as its driver, no CUDA
/// settings from the caller, and the stand-in MPS control program first on PATH.
pub fn with_standin(mut cmd: assert_cmd::Command, detect: &Value) -> assert_cmd::Command {
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("CUDA_") {
            cmd.env_remove(key);
        }
    }
    cmd.env("LD_LIBRARY_PATH", standin("plain"))
        .env("STANDIN_CUDA_DEVICES", devices_of(detect))
        .env("PATH", path_with_stand_in());
    cmd
}

/// Run and parse the JSON report, asserting the exit code.
pub fn report(cmd: &mut assert_cmd::Command, code: i32) -> Value {
    let out = cmd.args(["--format", "json"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "stderr: {stderr}");
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

/// (check, message) of every failure of a report.
pub fn failures(v: &Value) -> Vec<(String, String)> {
    v["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["check"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The directory of the stand-in `nvidia-cuda-mps-control`.
pub fn mps_stand_in_dir() -> PathBuf {
    repo().join("tests/support/bin")
}

pub fn path_with_stand_in() -> std::ffi::OsString {
    let mut paths = vec![mps_stand_in_dir()];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(paths).unwrap()
}

/// A stand-in MPS control daemon with its own pipe directory; it quits when dropped (and by
/// itself after two minutes, or when its pipe directory goes).
pub struct MpsDaemon {
    pub pipe: PathBuf,
}

impl MpsDaemon {
    pub fn start(dir: &Path) -> MpsDaemon {
        let pipe = dir.join("pipe");
        let log = dir.join("log");
        std::fs::create_dir_all(&pipe).unwrap();
        std::fs::create_dir_all(&log).unwrap();
        let status = std::process::Command::new(mps_stand_in_dir().join("nvidia-cuda-mps-control"))
            .arg("-d")
            .env("CUDA_MPS_PIPE_DIRECTORY", &pipe)
            .env("CUDA_MPS_LOG_DIRECTORY", &log)
            .env("MPS_STANDIN_LIFETIME", "120")
            .status()
            .expect("python3 runs the stand-in nvidia-cuda-mps-control");
        assert!(status.success(), "the stand-in MPS daemon did not start");
        assert!(pipe.join("control").exists());
        MpsDaemon { pipe }
    }
}

impl Drop for MpsDaemon {
    fn drop(&mut self) {
        use std::io::Write;
        let child = std::process::Command::new(mps_stand_in_dir().join("nvidia-cuda-mps-control"))
            .env("CUDA_MPS_PIPE_DIRECTORY", &self.pipe)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn();
        if let Ok(mut child) = child {
            if let Some(mut stdin) = child.stdin.take() {
                let _ = stdin.write_all(b"quit\n");
            }
            let _ = child.wait();
        }
    }
}

/// The lines a stand-in wrote to its `STANDIN_CUDA_LOG`.
pub fn trace_lines(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}
