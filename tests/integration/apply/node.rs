//! A simulated node for the `apply` and `init` tests: its state file, its own state root, the
//! stand-ins of tests/support/bin first on PATH (`nvidia-cuda-mps-control`, and `systemctl`,
//! `modprobe`, `mdevctl` with their state in the node's directory and one log of their calls).

use super::common::*;
use assert_cmd::Command;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use tempfile::TempDir;

pub struct Node {
    pub dir: TempDir,
    /// A preset name or the path of a node file.
    sim: String,
    /// `GPUSHARE_JOBS` for every command (none: the default, every GPU at once).
    jobs: Option<&'static str>,
}

impl Node {
    pub fn preset(name: &str) -> Node {
        Node {
            dir: tempfile::tempdir().unwrap(),
            sim: name.to_string(),
            jobs: None,
        }
    }

    /// The same node, every command run with `--jobs` (as `GPUSHARE_JOBS`).
    pub fn jobs(self, jobs: &'static str) -> Node {
        Node {
            jobs: Some(jobs),
            ..self
        }
    }

    /// A node from a node file.
    pub fn file(text: &str) -> Node {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "node.toml", text);
        Node {
            sim: path.display().to_string(),
            dir,
            jobs: None,
        }
    }

    pub fn state(&self) -> PathBuf {
        self.dir.path().join("sim.json")
    }

    pub fn root(&self) -> PathBuf {
        self.dir.path().join("root")
    }

    pub fn journal(&self) -> String {
        std::fs::read_to_string(self.root().join("var/lib/gpushare/journal.jsonl"))
            .unwrap_or_default()
    }

    /// Write a file in the node's directory; its path.
    pub fn write(&self, name: &str, text: &str) -> String {
        write(self.dir.path(), name, text).display().to_string()
    }

    pub fn cmd(&self) -> Command {
        Command::from_std(self.std_cmd())
    }

    /// The same as a plain process, to spawn it and go on.
    pub fn std_cmd(&self) -> std::process::Command {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin!("gpushare"));
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("GPUSHARE_") {
                c.env_remove(key);
            }
        }
        c.env("NO_COLOR", "1");
        if let Some(jobs) = self.jobs {
            c.env("GPUSHARE_JOBS", jobs);
        }
        c.args(["--sim", &self.sim, "--sim-state"])
            .arg(self.state())
            .arg("--state-root")
            .arg(self.root());
        let mut paths = vec![repo().join("tests/support/bin")];
        paths.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        c.env("PATH", std::env::join_paths(paths).unwrap());
        c.env("MPS_STANDIN_LOG", self.dir.path().join("mps.jsonl"));
        c.env("MPS_STANDIN_LIFETIME", "120");
        c.env("STANDIN_LOG", self.standin_log_path());
        c.env("SYSTEMCTL_STANDIN_DIR", self.dir.path());
        c.env("MODPROBE_STANDIN_MODULES", self.modules_path());
        c.env("MDEVCTL_STANDIN_DIR", self.dir.path().join("mdevctl"));
        c
    }

    /// The calls of the stand-ins (and of hooks that write there), one per line.
    pub fn standin_log_path(&self) -> PathBuf {
        self.dir.path().join("standin.log")
    }

    pub fn standin_log(&self) -> Vec<String> {
        std::fs::read_to_string(self.standin_log_path())
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// Forget the calls logged so far.
    pub fn clear_log(&self) {
        let _ = std::fs::remove_file(self.standin_log_path());
    }

    /// The stand-in systemd's units and their states.
    pub fn set_units(&self, units: &[(&str, &str)]) {
        let map: BTreeMap<&str, &str> = units.iter().copied().collect();
        std::fs::write(
            self.dir.path().join("units.json"),
            serde_json::to_string(&map).unwrap(),
        )
        .unwrap();
    }

    pub fn units(&self) -> BTreeMap<String, String> {
        serde_json::from_str(&std::fs::read_to_string(self.dir.path().join("units.json")).unwrap())
            .unwrap()
    }

    /// The stand-in kernel's `/proc/modules` (what `--sysfs-root <node dir>/host` reads too).
    pub fn modules_path(&self) -> PathBuf {
        self.dir.path().join("host/proc/modules")
    }

    /// Run, assert success; stderr.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.cmd().args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(
            out.status.success(),
            "gpushare {args:?}: exit {:?}\nstderr: {stderr}\nstdout: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stdout)
        );
        stderr
    }

    /// Run with `--format json`, assert success; stdout as JSON.
    pub fn json(&self, args: &[&str]) -> Value {
        json(self.cmd().args(args))
    }

    /// Run, assert the exit code; stderr.
    pub fn fails(&self, args: &[&str], code: i32) -> String {
        fails_with(self.cmd().args(args), code)
    }

    pub fn detect(&self) -> Value {
        self.json(&["detect"])
    }

    /// The MIG devices (compute-instance profiles, sorted) of every GPU with MIG on.
    pub fn devices(&self) -> BTreeMap<u64, Vec<String>> {
        mig_devices(&self.detect())
    }

    pub fn compute_modes(&self) -> Vec<String> {
        self.detect()["gpus"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["compute_mode"].as_str().unwrap().to_string())
            .collect()
    }

    /// The MPS daemons gpushare recorded.
    pub fn daemons(&self) -> Vec<String> {
        let dir = self.root().join("run/gpushare/mps");
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .map(|d| {
                d.flatten()
                    .filter(|e| e.path().join("settings.json").exists())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }

    /// `plan --check`'s exit code.
    pub fn check(&self, config: &str) -> i32 {
        self.cmd()
            .args(["plan", "--check", "-q", "-c", config])
            .output()
            .unwrap()
            .status
            .code()
            .unwrap_or(-1)
    }
}

pub fn mig_devices(detect: &Value) -> BTreeMap<u64, Vec<String>> {
    let mut out = BTreeMap::new();
    for g in detect["gpus"].as_array().unwrap() {
        if g["mig"]["current"] != "enabled" {
            continue;
        }
        let mut list: Vec<String> = g["mig"]["instances"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|gi| gi["compute_instances"].as_array().unwrap().clone())
            .map(|ci| ci["profile"].as_str().unwrap().to_string())
            .collect();
        list.sort();
        out.insert(g["index"].as_u64().unwrap(), list);
    }
    out
}

/// The `gpu` of a node-wide step (`null` in JSON) in [`actions`].
pub const NODE: u64 = u64::MAX;

/// The `(gpu, action)` pairs of a plan's JSON.
pub fn actions(plan: &Value) -> Vec<(u64, String)> {
    plan["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let gpu = match &c["gpu"] {
                Value::Null => NODE,
                gpu => gpu.as_u64().unwrap(),
            };
            (gpu, c["action"].as_str().unwrap().to_string())
        })
        .collect()
}
