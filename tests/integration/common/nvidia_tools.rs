//! NVIDIA's own programs (`../shared/tools/nvidia-k8s`: nvidia-mig-parted, the device plugin,
//! GPU feature discovery) run on a simulated node that the NVML stand-in serves, with what they
//! expect of the machine made in a temporary directory: the stand-in as `libnvidia-ml.so.1`, a
//! `/proc/modules` that lists `nvidia`, and a PCI tree with one folder per GPU.
//!
//! Without the tools (or `xz`) a test says loudly that it skipped; with
//! `GPUSHARE_REQUIRE_NVIDIA_TOOLS=1` (as `.ci/run` sets it) it fails instead.

use super::nvml_standin::stand_in;
use super::{gpushare, repo};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use tempfile::TempDir;

/// The directory of the unpacked programs, or why there is none.
fn unpacked() -> Result<&'static Path, &'static str> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    DIR.get_or_init(|| {
        let script = repo().join("../shared/tools/nvidia-k8s/unpack.sh");
        if !script.exists() {
            return Err(format!("{} does not exist", script.display()));
        }
        let out = Command::new("bash")
            .arg(&script)
            .arg(repo().join("target/nvidia-k8s-bin"))
            .output()
            .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
        if !out.status.success() {
            return Err(format!(
                "{} failed: {}",
                script.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
    })
    .as_deref()
    .map_err(String::as_str)
}

/// The programs' directory; `None` (having said so loudly) when the tools are not there.
pub fn tools(test: &str) -> Option<&'static Path> {
    match unpacked() {
        Ok(dir) => Some(dir),
        Err(why) => {
            if std::env::var_os("GPUSHARE_REQUIRE_NVIDIA_TOOLS").is_some_and(|v| v == "1") {
                panic!("{test}: GPUSHARE_REQUIRE_NVIDIA_TOOLS=1 but {why}");
            }
            eprintln!("SKIPPED: {test}: NVIDIA's programs are not available: {why}");
            None
        }
    }
}

/// NVIDIA's toolkit programs, unpacked once; None (said loudly, or a failure under
/// `GPUSHARE_REQUIRE_NVIDIA_TOOLS=1`) without the tool.
pub fn toolkit(test: &str) -> Option<&'static Path> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        super::unpacked::unpack(
            "nvidia-ctk",
            &["nvidia-container-runtime", "nvidia-ctk", "nvidia-cdi-hook"],
        )
    });
    super::unpacked::or_skip(test, "NVIDIA's container toolkit is", dir)
}

/// A simulated node that the stand-in serves to NVIDIA's programs and gpushare reads through
/// its simulator (the same state file).
pub struct NvidiaNode {
    pub dir: TempDir,
    pub preset: String,
    tools: PathBuf,
}

impl NvidiaNode {
    /// `gpushare sim process start`: the simulated driver lists `pid` using `mib` on the device
    /// `on` names (`["--gpu", "7"]`, with `"--mig-device", "GI:CI"` for a MIG device), as an MPS
    /// client with `mps_client`.
    pub fn start_process(&self, on: &[&str], pid: u32, mib: u64, mps_client: bool) {
        let mut cmd = self.gpushare();
        cmd.args(["sim", "process", "start", "--name", "cuda-app"])
            .args(on)
            .args(["--pid", &pid.to_string(), "--memory-mib", &mib.to_string()]);
        if mps_client {
            cmd.arg("--mps-client");
        }
        cmd.assert().success();
    }

    pub fn new(tools: &Path, preset: &str) -> NvidiaNode {
        let node = NvidiaNode {
            dir: tempfile::tempdir().unwrap(),
            preset: preset.to_string(),
            tools: tools.to_path_buf(),
        };
        let lib = node.dir.path().join("lib");
        std::fs::create_dir_all(&lib).unwrap();
        std::os::unix::fs::symlink(&stand_in().lib, lib.join("libnvidia-ml.so.1")).unwrap();
        std::fs::write(node.path("modules"), "nvidia 1 0 - Live 0x0\n").unwrap();
        // gpushare makes the state file; its GPUs give the PCI tree.
        let detect = node.detect();
        for g in detect["gpus"].as_array().unwrap() {
            let bus = g["pci_bus_id"].as_str().unwrap().to_ascii_lowercase();
            // `00000000:07:00.0` → sysfs's `0000:07:00.0`.
            let bus = &bus[bus.len() - 12..];
            let id = u32::from_str_radix(
                g["pci_device_id"]
                    .as_str()
                    .unwrap()
                    .trim_start_matches("0x"),
                16,
            )
            .unwrap();
            let dir = node.path("pci").join(bus);
            std::fs::create_dir_all(&dir).unwrap();
            for (file, text) in [
                ("vendor", format!("{:#06x}", id & 0xffff)),
                ("device", format!("{:#06x}", id >> 16)),
                ("class", "0x030200".into()),
                ("numa_node", "0".into()),
                ("subsystem_vendor", "0x10de".into()),
                ("subsystem_device", "0x0000".into()),
                (
                    "resource",
                    "0x00000000d2000000 0x00000000d2ffffff 0x0000000000040200\n\
                     0x0000380000000000 0x0000380fffffffff 0x000000000014220c\n"
                        .into(),
                ),
            ] {
                std::fs::write(dir.join(file), format!("{text}\n")).unwrap();
            }
        }
        node
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The simulator's state file (named as the agent's tests name theirs, so `gpushare agent`
    /// can run on this node).
    pub fn state(&self) -> PathBuf {
        self.path("node.json")
    }

    /// gpushare on this node (the simulator on its state file).
    pub fn gpushare(&self) -> assert_cmd::Command {
        on_node(&self.preset, &self.state(), &self.path("root"))
    }

    /// gpushare through its NVML backend on the stand-in that serves this node.
    pub fn gpushare_nvml(&self) -> assert_cmd::Command {
        let mut cmd = gpushare();
        cmd.arg("--nvml-lib")
            .arg(&stand_in().lib)
            .arg("--state-root")
            .arg(self.path("root"))
            .env("NVML_STANDIN_STATE", self.state());
        cmd
    }

    /// `gpushare mig apply` of a label of mig-parted's `config-default.yaml`.
    pub fn mig_apply(&self, label: &str) {
        let file = repo().join("tests/fixtures/mig-parted/config-default.yaml");
        self.gpushare()
            .args(["mig", "apply", "-c", label, "-f"])
            .arg(&file)
            .assert()
            .success();
    }

    /// Write gpushare.toml `text` as `name` beside the node and `gpushare apply` it; its path.
    pub fn apply(&self, name: &str, text: &str) -> std::path::PathBuf {
        let path = super::write(self.dir.path(), name, text);
        self.gpushare()
            .args(["apply", "--yes", "-c"])
            .arg(&path)
            .assert()
            .success();
        path
    }

    pub fn detect(&self) -> Value {
        super::json(self.gpushare().arg("detect"))
    }

    /// [`Self::detect`], for a caller that outlives this borrow.
    pub fn detector(&self) -> impl Fn() -> Value + Send + 'static {
        let (preset, state, root) = (self.preset.clone(), self.state(), self.path("root"));
        move || super::json(on_node(&preset, &state, &root).arg("detect"))
    }

    /// One of NVIDIA's programs on the stand-in, strict: an NVML entry point the stand-in does
    /// not implement aborts it, named.
    pub fn nvidia(&self, program: &str) -> Command {
        let mut cmd = Command::new(self.program(program));
        self.environment(&mut cmd);
        cmd
    }

    /// A folder with the stand-ins of `nvidia-smi` (NVML's) and `nvidia-cuda-mps-control`, for
    /// the PATH of NVIDIA's programs that run them.
    pub fn stand_in_programs(&self) -> PathBuf {
        let dir = self.path("stand-in-bin");
        if !dir.exists() {
            std::fs::create_dir_all(&dir).unwrap();
            let mps = repo().join("tests/support/bin/nvidia-cuda-mps-control");
            std::os::unix::fs::symlink(stand_in().bin.join("nvidia-smi"), dir.join("nvidia-smi"))
                .unwrap();
            std::os::unix::fs::symlink(mps, dir.join("nvidia-cuda-mps-control")).unwrap();
        }
        dir
    }

    /// The path of one of NVIDIA's programs.
    pub fn program(&self, program: &str) -> PathBuf {
        self.tools.join(program)
    }

    /// The environment NVIDIA's programs run in on this node (nothing of the test's own).
    pub fn environment(&self, cmd: &mut Command) {
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("LD_LIBRARY_PATH", self.path("lib"))
            .env("NVML_STANDIN_STATE", self.state())
            .env("NVML_STANDIN_STRICT", "1")
            .env("REALTOOLS_PROC_MODULES", self.path("modules"))
            .env("REALTOOLS_PCI_ROOT", self.path("pci"));
    }

    /// `nvidia-mig-parted ARGS`.
    pub fn mig_parted(&self, args: &[&str]) -> Output {
        self.nvidia("nvidia-mig-parted")
            .args(args)
            .output()
            .unwrap()
    }

    /// Per GPU, its GPU instances as (profile, start, size) with their compute instances'
    /// (profile, start, size), sorted: the layout without the ids and UUIDs the driver picks.
    pub fn layout(&self) -> Vec<Vec<Instance>> {
        let place = |v: &Value| {
            (
                v["profile"].as_str().unwrap().to_string(),
                v["placement"]["start"].as_u64().unwrap(),
                v["placement"]["size"].as_u64().unwrap(),
            )
        };
        self.detect()["gpus"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| {
                let mut gis: Vec<_> = g["mig"]["instances"]
                    .as_array()
                    .map(|list| {
                        list.iter()
                            .map(|gi| {
                                let (p, s, n) = place(gi);
                                let mut cis: Vec<_> = gi["compute_instances"]
                                    .as_array()
                                    .unwrap()
                                    .iter()
                                    .map(place)
                                    .collect();
                                cis.sort();
                                (p, s, n, cis)
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                gis.sort();
                gis
            })
            .collect()
    }
}

/// A placed instance: profile, start, size.
pub type Placed = (String, u64, u64);
/// A GPU instance, placed, with its compute instances.
pub type Instance = (String, u64, u64, Vec<Placed>);

/// What a run printed, for assertion messages.
/// gpushare on the simulated node `preset` kept in `state`, its state paths under `root`.
fn on_node(preset: &str, state: &Path, root: &Path) -> assert_cmd::Command {
    let mut cmd = gpushare();
    cmd.arg("--sim")
        .arg(preset)
        .arg("--sim-state")
        .arg(state)
        .arg("--state-root")
        .arg(root);
    cmd
}

pub fn said(out: &Output) -> String {
    format!(
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
