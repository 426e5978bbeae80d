//! NVIDIA's DRA kubelet plugin (`gpu-kubelet-plugin`, driver `gpu.nvidia.com`, from
//! `../shared/tools/kube-node`) on the NVML stand-in, strict, in a real node's private mount
//! namespace as its DaemonSet's pod runs it; and what it publishes and allocates, as the API
//! server has it.

use super::device_plugin::InHost;
use super::nvidia_tools::NvidiaNode;
use super::real_node::{RealNode, driver_root};
use super::unpacked;
use serde_json::Value;
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

pub const DRIVER: &str = "gpu.nvidia.com";

/// The plugin's program, unpacked once from the node tool; None (said loudly) without it.
pub fn program(test: &str) -> Option<PathBuf> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let dir = DIR.get_or_init(|| unpacked::unpack("kube-node", &["gpu-kubelet-plugin"]));
    unpacked::or_skip(test, "NVIDIA's DRA driver is", dir).map(|d| d.join("gpu-kubelet-plugin"))
}

/// The plugin on `node`, stopped and started again as its pod leaves and comes back.
pub struct DraPlugin {
    process: InHost,
    /// The stand-in's log of NVML calls and of its programs' runs (`nvidia-smi`).
    calls: PathBuf,
}

impl DraPlugin {
    /// Start `program` on `node` for the simulated GPUs of `nvidia`, with the driver's
    /// `feature_gates` (`TimeSlicingSettings=true`, …).
    pub fn start(
        nvidia: &NvidiaNode,
        node: &RealNode,
        program: &Path,
        feature_gates: &[&str],
    ) -> DraPlugin {
        let root = driver_root(nvidia).display().to_string();
        // The plugin refuses to start without a hook program; the containers it prepares do
        // not need one here (the driver root is the host's), so it does nothing.
        let hook = nvidia.path("nvidia-cdi-hook");
        std::fs::write(&hook, "#!/bin/sh\nexit 0\n").unwrap();
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
        let calls = nvidia.path("dra-plugin-calls.jsonl");
        // The driver's /proc/devices (for the major of `nvidia-caps`), where the plugin is told
        // to read it: the host's has no NVIDIA driver.
        let env = BTreeMap::from([
            (
                "KUBECONFIG".to_string(),
                node.dir.join("kubeconfig").display().to_string(),
            ),
            (
                "ALT_PROC_DEVICES_PATH".to_string(),
                nvidia.path("host/devices").display().to_string(),
            ),
            ("NVML_STANDIN_LOG".to_string(), calls.display().to_string()),
        ]);
        let cdi = node.dir.join("cdi").display().to_string();
        let hook = hook.display().to_string();
        let gates = feature_gates.join(",");
        let mut args = vec![
            "--node-name",
            &node.name,
            "--cdi-root",
            &cdi,
            "--nvidia-driver-root",
            &root,
            "--container-driver-root",
            &root,
            "--healthcheck-port",
            "-1",
            "--image-name",
            "localhost/none:0",
            "--nvidia-cdi-hook-path",
            &hook,
        ];
        if !gates.is_empty() {
            args.extend(["--feature-gates", &gates]);
        }
        DraPlugin {
            process: InHost::start(nvidia, node, program, &nvidia.path("none"), &env, &args),
            calls,
        }
    }

    /// The argument lists of the `nvidia-smi` runs the plugin made, in order.
    pub fn nvidia_smi_runs(&self) -> Vec<Vec<String>> {
        let text = std::fs::read_to_string(&self.calls).unwrap_or_default();
        text.lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|e| e["fn"] == "nvidia-smi" && e["ret"] == "SUCCESS")
            .map(|e| {
                e["args"]["argv"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|a| Some(a.as_str()?.to_string()))
                    .collect()
            })
            .collect()
    }
}

/// Paused, resumed and read as the program it runs.
impl std::ops::Deref for DraPlugin {
    type Target = InHost;
    fn deref(&self) -> &InHost {
        &self.process
    }
}

impl std::ops::DerefMut for DraPlugin {
    fn deref_mut(&mut self) -> &mut InHost {
        &mut self.process
    }
}

/// Every device in the ResourceSlices of the driver on `node`.
pub fn slices(kubeconfig: &Path, node: &str) -> Vec<Value> {
    slices_of(kubeconfig, node, DRIVER)
}

/// Every device in the ResourceSlices of `driver` on `node`.
pub fn slices_of(kubeconfig: &Path, node: &str, driver: &str) -> Vec<Value> {
    let list = kubectl_json(kubeconfig, &["get", "resourceslices"]);
    list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["spec"]["driver"] == driver && s["spec"]["nodeName"] == node)
        .flat_map(|s| s["spec"]["devices"].as_array().cloned().unwrap_or_default())
        .collect()
}

/// pod → the device its ResourceClaim in `namespace` was allocated, for the claims allocated and
/// owned by one pod (made from a template, or by the scheduler for extended resources).
pub fn claim_devices(kubeconfig: &Path, namespace: &str) -> BTreeMap<String, String> {
    let list = kubectl_json(kubeconfig, &["get", "resourceclaims", "-n", namespace]);
    let mut out = BTreeMap::new();
    for claim in list["items"].as_array().into_iter().flatten() {
        let results = &claim["status"]["allocation"]["devices"]["results"];
        let Some(device) = results[0]["device"].as_str() else {
            continue;
        };
        assert_eq!(results[0]["driver"], DRIVER, "{claim}");
        let Some(pod) = claim["metadata"]["ownerReferences"][0]["name"].as_str() else {
            continue;
        };
        out.insert(pod.to_string(), device.to_string());
    }
    out
}

/// The device the ResourceClaim `namespace/name` was allocated.
pub fn allocated(kubeconfig: &Path, namespace: &str, name: &str) -> Option<String> {
    let claim = kubectl_json(kubeconfig, &["get", "resourceclaim", name, "-n", namespace]);
    let device = &claim["status"]["allocation"]["devices"]["results"][0]["device"];
    Some(device.as_str()?.to_string())
}

/// A string attribute of a published device (`?` when it has none).
pub fn attribute(device: &Value, key: &str) -> String {
    device["attributes"][key]["string"]
        .as_str()
        .unwrap_or("?")
        .to_string()
}

/// `kubectl ARGS` as the administrator of `kubeconfig`, which must succeed.
pub fn kubectl(kubeconfig: &Path, args: &[&str]) {
    let out = Command::new("kubectl")
        .env("KUBECONFIG", kubeconfig)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "kubectl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `kubectl ARGS -o json` as the administrator of `kubeconfig` (null when it fails).
pub fn kubectl_json(kubeconfig: &Path, args: &[&str]) -> Value {
    let out = Command::new("kubectl")
        .env("KUBECONFIG", kubeconfig)
        .args(args)
        .args(["-o", "json"])
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_default()
}
