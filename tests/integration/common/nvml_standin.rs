//! The stand-in libnvidia-ml (tests/nvml-standin), built once per test binary, and a node that
//! runs the same commands through the NVML backend on the stand-in and through the simulator.

use super::{gpushare, repo};
use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use tempfile::TempDir;

/// The built stand-in: the library and the directory of its programs (nvidia-smi, nvml-client).
pub struct StandIn {
    pub lib: PathBuf,
    pub bin: PathBuf,
}

/// The stand-in, built with cargo in this build's own target directory. A plain `cargo test`
/// has built it already (its `programs` test target makes cargo build the programs and the
/// library), so this finds it fresh in a moment; run alone (`cargo test --test integration
/// nvml_standin`), it builds only the stand-in, reusing gpushare's compiled dependencies. It asks
/// for the same packages in test mode as `cargo test` does, so cargo resolves the same dependency
/// features and rebuilds nothing. (Cargo holds its directory lock only while building, not while
/// the tests run, so this nested cargo is not blocked.)
pub fn stand_in() -> &'static StandIn {
    static BUILT: OnceLock<StandIn> = OnceLock::new();
    BUILT.get_or_init(|| {
        // target/<profile>/deps/<test binary> → target
        let exe = std::env::current_exe().expect("the test binary's path");
        let target = exe
            .ancestors()
            .nth(3)
            .expect("the test binary lies under target/<profile>/deps");
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let out = std::process::Command::new(cargo)
            .current_dir(repo())
            .args([
                "test",
                "--no-run",
                "--locked",
                "--quiet",
                "-p",
                "gpushare",
                "-p",
                "nvml-standin",
                "--test",
                "programs",
                "--target-dir",
            ])
            .arg(target)
            .output()
            .expect("cargo runs");
        assert!(
            out.status.success(),
            "building the NVML stand-in failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let bin = target.join("debug");
        StandIn {
            // A library built as a dependency stays in deps/ (cargo copies up only the programs
            // a test needs); a cdylib's name there has no hash.
            lib: bin.join("deps/libnvml_standin.so"),
            bin,
        }
    })
}

/// What the NVML backend would list as holders on this host (the kernel module nvidia_drm, or a
/// process with a /dev/nvidiaN open), if anything.
fn host_holds_nvidia_devices() -> Option<String> {
    let modules = std::fs::read_to_string("/proc/modules").unwrap_or_default();
    if modules.lines().any(|l| l.starts_with("nvidia_drm ")) {
        return Some("the nvidia_drm module is loaded".into());
    }
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(fds) = std::fs::read_dir(entry.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            let target = std::fs::read_link(fd.path()).unwrap_or_default();
            let name = target.to_string_lossy();
            if name
                .strip_prefix("/dev/nvidia")
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
            {
                return Some(format!("{} holds {name}", entry.path().display()));
            }
        }
    }
    None
}

/// Environment variables of the stand-in, cleared before each run so the caller's never leak in.
const STANDIN_ENV: [&str; 16] = [
    "NVML_STANDIN_STATE",
    "NVML_STANDIN_NODE",
    "NVML_STANDIN_LOG",
    "NVML_STANDIN_NON_ROOT",
    "NVML_STANDIN_CI_PROFILE_ID_OFFSET",
    "NVML_STANDIN_CI_NVL",
    "NVML_STANDIN_FAIL",
    "NVML_STANDIN_CI_STARTS_UNALIGNED",
    "NVML_STANDIN_MIG_PARENT_NO_COMPUTE_MODE",
    "NVML_STANDIN_GPU_NAME",
    "NVML_STANDIN_GPU_PCI_ID",
    "NVML_STANDIN_PROFILES_NEED_MIG",
    "NVML_STANDIN_MAX_MIG_DEVICES_ALWAYS",
    "NVML_STANDIN_OLD_DRIVER",
    "NVML_STANDIN_MIG_DEVICE_FAIL",
    "NVML_STANDIN_STRICT",
];

/// One node, twice: a state file the stand-in serves to the NVML backend, and a copy the
/// simulator backend changes. Each backend has its own state root (lock, journal, MPS records).
pub struct TwinNode {
    pub dir: TempDir,
}

impl TwinNode {
    /// From a preset name or a node file's text. None (with a loud SKIPPED) on a host where NVIDIA
    /// devices are held open: the NVML backend reports the host's holders beside the simulated
    /// GPUs, so its node could not match the simulator's.
    pub fn new(sim: &str) -> Option<TwinNode> {
        if let Some(why) = host_holds_nvidia_devices() {
            eprintln!(
                "SKIPPED: {why}; the stand-in NVML tests need a host without NVIDIA devices in use"
            );
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let sim = if sim.contains('[') {
            super::write(dir.path(), "node.toml", sim)
                .display()
                .to_string()
        } else {
            sim.to_string()
        };
        let node = TwinNode { dir };
        let out = gpushare()
            .args(["--sim", &sim, "--sim-state"])
            .arg(node.nvml_state())
            .args(["detect", "-q"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        std::fs::copy(node.nvml_state(), node.sim_state()).unwrap();
        Some(node)
    }

    pub fn nvml_state(&self) -> PathBuf {
        self.dir.path().join("nvml-node.json")
    }

    pub fn sim_state(&self) -> PathBuf {
        self.dir.path().join("sim-node.json")
    }

    pub fn log(&self) -> PathBuf {
        self.dir.path().join("nvml-calls.jsonl")
    }

    /// Write a file in the node's directory; its path.
    pub fn write(&self, name: &str, text: &str) -> String {
        super::write(self.dir.path(), name, text)
            .display()
            .to_string()
    }

    fn path_with(&self, first: &[&Path]) -> std::ffi::OsString {
        let mut paths: Vec<PathBuf> = first.iter().map(|p| p.to_path_buf()).collect();
        paths.push(repo().join("tests/support/bin"));
        paths.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        std::env::join_paths(paths).unwrap()
    }

    fn base(&self, root: &str) -> Command {
        let mut c = gpushare();
        for var in STANDIN_ENV {
            c.env_remove(var);
        }
        c.arg("--state-root").arg(self.dir.path().join(root));
        c.env(
            "MPS_STANDIN_LOG",
            self.dir.path().join(format!("{root}-mps.jsonl")),
        );
        c.env("MPS_STANDIN_LIFETIME", "120");
        c
    }

    /// gpushare through the NVML backend on the stand-in, the stand-in nvidia-smi first on PATH.
    pub fn nvml(&self) -> Command {
        let s = stand_in();
        let mut c = self.base("nvml-root");
        c.arg("--nvml-lib").arg(&s.lib);
        c.env("NVML_STANDIN_STATE", self.nvml_state());
        c.env("NVML_STANDIN_LOG", self.log());
        c.env("PATH", self.path_with(&[&s.bin]));
        c
    }

    /// gpushare through the simulator backend on the twin state.
    pub fn sim(&self) -> Command {
        let mut c = self.base("sim-root");
        c.arg("--sim-state").arg(self.sim_state());
        c.env("PATH", self.path_with(&[]));
        c
    }

    /// The calls logged since the last time, and an empty log.
    pub fn take_calls(&self) -> Vec<Value> {
        let text = std::fs::read_to_string(self.log()).unwrap_or_default();
        let _ = std::fs::remove_file(self.log());
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("log line {l}: {e}")))
            .collect()
    }
}

/// Run, assert the exit code; (stdout, stderr).
pub fn run(cmd: &mut Command, code: i32, what: &str) -> (String, String) {
    let out = cmd.output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert_eq!(
        out.status.code(),
        Some(code),
        "{what}\nstderr: {stderr}\nstdout: {stdout}"
    );
    (stdout, stderr)
}

/// Stderr of a simulator run without the line that says the node is simulated (the NVML
/// backend, on the stand-in, has no such line).
pub fn without_sim_notice(stderr: &str) -> String {
    stderr
        .lines()
        .filter(|l| !l.starts_with("simulated node ("))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The changing calls (MIG mode, instances, compute modes, resets) of a log.
pub fn changes(calls: &[Value]) -> Vec<&Value> {
    calls.iter().filter(|c| c["changing"] == true).collect()
}

/// `detect --format json` without what legitimately differs between the backends: `source`; the
/// PCI subsystem id, which the driver always reports and a simulated node does not have; the
/// MPS pipe directories, which lie under each backend's own state root; and the notes on whose
/// the processes are, which the NVML backend reads from this host's `/proc` (the stand-in's PIDs
/// are not this host's processes) and the simulator does not read at all.
pub fn comparable_detect(mut detect: Value) -> Value {
    let obj = detect.as_object_mut().expect("detect prints an object");
    obj.remove("source");
    for gpu in obj["gpus"].as_array_mut().expect("gpus") {
        let gpu = gpu.as_object_mut().unwrap();
        gpu.remove("pci_subsystem_id");
        if let Some(notes) = gpu.get_mut("notes").and_then(Value::as_array_mut) {
            notes.retain(|n| n["field"] != "processes.owner");
            if notes.is_empty() {
                gpu.remove("notes");
            }
        }
    }
    for daemon in obj["mps"].as_array_mut().expect("mps") {
        daemon.as_object_mut().unwrap().remove("pipe_dir");
    }
    detect
}

impl TwinNode {
    /// Edit both state files the same way (e.g. a MIG mode left pending by an earlier run).
    pub fn edit_state(&self, edit: impl Fn(&mut Value)) {
        for path in [self.nvml_state(), self.sim_state()] {
            let mut state: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            edit(&mut state);
            std::fs::write(&path, serde_json::to_string_pretty(&state).unwrap()).unwrap();
        }
    }

    /// Start the stand-in's nvml-client on this node: another process that holds NVML open
    /// until the returned child's stdin is closed (drop it, or kill it).
    pub fn nvml_client(&self) -> std::process::Child {
        use std::io::BufRead;
        let mut child = std::process::Command::new(stand_in().bin.join("nvml-client"))
            .env("NVML_STANDIN_STATE", self.nvml_state())
            .env("NVML_STANDIN_LOG", self.log())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line.trim(), "ready", "nvml-client did not start");
        child
    }
}
