//! A real Kubernetes node beside a real API server: `../shared/tools/kube-node` starts kubelet
//! 1.36, containerd 1.7 (with CDI) and runc in a private mount namespace, named after its
//! loopback address (`127.0.0.1`, `127.0.0.2` …). Pods the scheduler binds there really run
//! (busybox, never pulled), so a test reads what a container got from the container itself.
//!
//! Without the tool or what it needs (root, runc, busybox-static, kubectl) a test says loudly
//! that it skipped; with `GPUSHARE_REQUIRE_KUBE=1` (as `.ci/run` sets it) it fails instead.

use super::api_server::ApiServer;
use super::repo;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

/// The image every test pod runs (imported by start-node.sh; nothing is pulled).
pub const BUSYBOX: &str = "localhost/kube-node/busybox:1.35";

/// start-node.sh unpacks the binaries and builds the images into a shared cache on first use.
static STARTING: Mutex<()> = Mutex::new(());

pub fn tool_dir() -> PathBuf {
    repo().join("../shared/tools/kube-node")
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
        .unwrap_or(false)
}

/// Why a node cannot start here, if it cannot.
fn missing() -> Option<String> {
    if !tool_dir().join("start-node.sh").is_file() {
        return Some(format!("no kube-node tool at {}", tool_dir().display()));
    }
    // SAFETY: geteuid(2) reads the process's effective user id; no memory is involved.
    if unsafe { libc::geteuid() } != 0 {
        return Some("a node needs root (mount namespace, cgroups, runc)".into());
    }
    for program in ["runc", "unshare", "nsenter", "ip", "kubectl", "busybox"] {
        if !on_path(program) && !Path::new("/bin").join(program).is_file() {
            return Some(format!(
                "{program} is not installed (apt-get install runc busybox-static iproute2 util-linux)"
            ));
        }
    }
    None
}

/// A node that runs pods; stopped (every process and mount of it gone) when dropped.
pub struct RealNode {
    /// start-node.sh's node dir (`kubelet/` is the node's `/var/lib/kubelet`).
    pub dir: PathBuf,
    /// The Node's name: its address.
    pub name: String,
    /// A root for gpushare's `--host-root`: its `var/lib/kubelet` is the node's.
    host: tempfile::TempDir,
}

impl RealNode {
    /// Start the node `ip` beside `server` (the first node of a cluster with
    /// `controller_manager`: it lifts the not-ready taint, makes ResourceClaims, collects pods);
    /// None (said loudly) when this machine cannot.
    pub fn start(
        test: &str,
        server: &ApiServer,
        ip: &str,
        controller_manager: bool,
    ) -> Option<RealNode> {
        RealNode::start_with(test, server, ip, controller_manager, &[], None)
    }

    /// The same with start-node.sh's environment `env` (`KUBE_NODE_CONTAINERD_EXTRA`, …).
    /// `dir`: the node dir to use (made by the caller, so that configuration can name it
    /// before the node starts); start-node.sh makes one otherwise.
    pub fn start_with(
        test: &str,
        server: &ApiServer,
        ip: &str,
        controller_manager: bool,
        env: &[(&str, &str)],
        dir: Option<&Path>,
    ) -> Option<RealNode> {
        if let Some(why) = missing() {
            if std::env::var_os("GPUSHARE_REQUIRE_KUBE").is_some_and(|v| v == "1") {
                panic!("{test}: GPUSHARE_REQUIRE_KUBE=1 but {why}");
            }
            eprintln!("SKIPPED: {test}: {why}; this test needs a real node");
            return None;
        }
        let out = {
            let _one = STARTING.lock().unwrap_or_else(|p| p.into_inner());
            let mut cmd = Command::new("bash");
            cmd.arg(tool_dir().join("start-node.sh")).arg(&server.dir);
            if let Some(dir) = dir {
                cmd.arg(dir);
            }
            cmd.env("KUBE_NODE_IP", ip)
                .env(
                    "KUBE_NODE_CONTROLLER_MANAGER",
                    if controller_manager { "1" } else { "0" },
                )
                .envs(env.iter().copied())
                .stdin(Stdio::null());
            cmd.output().expect("start-node.sh runs")
        };
        let stdout = String::from_utf8_lossy(&out.stdout);
        let dir = stdout.lines().last().map(|l| PathBuf::from(l.trim()));
        assert!(
            out.status.success() && dir.as_ref().is_some_and(|d| d.is_dir()),
            "start-node.sh failed: {}\n{stdout}",
            String::from_utf8_lossy(&out.stderr)
        );
        let dir = dir.unwrap();
        // The node's host as gpushare reads it: its kubelet's files and logs, and this host's
        // processes (the node's containers are processes of this host).
        let host = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(host.path().join("var/lib")).unwrap();
        std::fs::create_dir_all(host.path().join("var/run")).unwrap();
        for (from, to) in [
            (dir.join("kubelet"), "var/lib/kubelet"),
            // Where the node's runtime reads CDI specs (gpushare's DRA driver writes them there).
            (dir.join("cdi"), "var/run/cdi"),
            (dir.join("log"), "var/log"),
            (PathBuf::from("/proc"), "proc"),
        ] {
            std::os::unix::fs::symlink(from, host.path().join(to)).unwrap();
        }
        Some(RealNode {
            dir,
            name: ip.to_string(),
            host,
        })
    }

    /// The kubelet's `cgroupRoot` (its pods are under `ROOT/kubepods`): gpushare's
    /// `--kubelet-cgroup-root`.
    pub fn cgroup_root(&self) -> String {
        let config = std::fs::read_to_string(self.dir.join("kubelet-config.yaml"))
            .expect("the kubelet's config");
        config
            .lines()
            .find_map(|l| l.strip_prefix("cgroupRoot:"))
            .map(|r| r.trim().to_string())
            .expect("the kubelet's cgroupRoot")
    }

    /// The root gpushare's `--host-root` takes to ask this node's kubelet who holds what.
    pub fn host_root(&self) -> PathBuf {
        self.host.path().to_path_buf()
    }

    /// The host PID of a running container (`containerd://<id>` or the bare ID), as containerd's
    /// shim recorded it.
    pub fn container_pid(&self, container_id: &str) -> u32 {
        let id = container_id.rsplit("://").next().unwrap();
        let file = self
            .dir
            .join("containerd/state/io.containerd.runtime.v2.task/k8s.io")
            .join(id)
            .join("init.pid");
        let text =
            std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        text.trim().parse().unwrap()
    }

    /// The kubelet's log, for failure messages.
    pub fn kubelet_log(&self) -> String {
        let text = std::fs::read_to_string(self.dir.join("kubelet.log")).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(40)..].join("\n")
    }
}

impl Drop for RealNode {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!(
                "--- kubelet log of node {}:\n{}",
                self.name,
                self.kubelet_log()
            );
        }
        let _ = Command::new("bash")
            .arg(tool_dir().join("stop-node.sh"))
            .arg(&self.dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// What each test pod runs: it writes what it got (the NVIDIA and CUDA variables, the NVIDIA
/// device nodes with their numbers, what is under `/mps`) to its log, then stays running, so
/// its devices stay allocated.
const SHOW: &str = r#"env | grep -E '^(NVIDIA_|CUDA_)' | sed 's/^/env /'
for d in /dev/nvidia* /dev/nvidia-caps/*; do [ -c "$d" ] && stat -c 'dev %n %t %T' "$d"; done
[ -d /mps ] && find /mps | sed 's/^/mps /'
for f in /mps/*/*/pipe/stand-in-state.json; do [ -f "$f" ] && echo "mps-state $(cat "$f")"; done
echo ready
exec sleep 1000000
"#;

/// A busybox pod in `namespace` asking for `limits` (resource, count); it shows what it got
/// ([`Seen`]) and keeps running.
pub fn gpu_pod(namespace: &str, name: &str, limits: &[(&str, u32)]) -> serde_json::Value {
    gpu_pod_showing(namespace, name, limits, "")
}

/// The same, the container first running `more` (its output in the log, before what it shows).
pub fn gpu_pod_showing(
    namespace: &str,
    name: &str,
    limits: &[(&str, u32)],
    more: &str,
) -> serde_json::Value {
    let limits: serde_json::Map<String, serde_json::Value> = limits
        .iter()
        .map(|(r, n)| (r.to_string(), serde_json::Value::String(n.to_string())))
        .collect();
    serde_json::json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": { "name": name, "namespace": namespace },
        "spec": {
            "terminationGracePeriodSeconds": 0,
            "restartPolicy": "Never",
            "containers": [{
                "name": "cuda", "image": BUSYBOX, "imagePullPolicy": "Never",
                "command": ["sh", "-c", format!("{more}\n{SHOW}")],
                "resources": { "limits": limits },
            }],
        },
    })
}

/// Where the claim `gpu` of a pod comes from.
pub enum PodClaim<'a> {
    /// A ResourceClaim of that name.
    Claim(&'a str),
    /// A claim the cluster makes from that ResourceClaimTemplate.
    Template(&'a str),
}

/// `pod` (a [`gpu_pod`]) with its container holding the claim `gpu`.
pub fn holding_claim(mut pod: serde_json::Value, claim: PodClaim) -> serde_json::Value {
    pod["spec"]["containers"][0]["resources"] =
        serde_json::json!({ "claims": [{ "name": "gpu" }] });
    pod["spec"]["resourceClaims"] = match claim {
        PodClaim::Claim(name) => serde_json::json!([{ "name": "gpu", "resourceClaimName": name }]),
        PodClaim::Template(name) => {
            serde_json::json!([{ "name": "gpu", "resourceClaimTemplateName": name }])
        }
    };
    pod
}

/// What a container got, as it said in its log.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Seen {
    /// Its `NVIDIA_*` and `CUDA_*` variables.
    pub env: std::collections::BTreeMap<String, String>,
    /// Its NVIDIA device nodes: path → (major, minor).
    pub devices: std::collections::BTreeMap<String, (u32, u32)>,
    /// What is under its `/mps`.
    pub mps: Vec<String>,
    /// The MPS daemon's limits as its pipe directory shows them (the stand-in control daemon
    /// keeps its state there): thread percentage, and pinned memory per device.
    pub mps_state: Option<serde_json::Value>,
}

impl Seen {
    /// The log of a [`gpu_pod`], once it has said all (None before).
    pub fn parse(log: &str) -> Option<Seen> {
        if !log.lines().any(|l| l == "ready") {
            return None;
        }
        let mut seen = Seen::default();
        for line in log.lines() {
            if let Some(kv) = line.strip_prefix("env ") {
                let (k, v) = kv.split_once('=')?;
                seen.env.insert(k.into(), v.into());
            } else if let Some(dev) = line.strip_prefix("dev ") {
                let mut parts = dev.split(' ');
                let (path, major, minor) = (parts.next()?, parts.next()?, parts.next()?);
                let hex = |h: &str| u32::from_str_radix(h, 16).ok();
                seen.devices.insert(path.into(), (hex(major)?, hex(minor)?));
            } else if let Some(path) = line.strip_prefix("mps ") {
                seen.mps.push(path.into());
            } else if let Some(state) = line.strip_prefix("mps-state ") {
                seen.mps_state = serde_json::from_str(state).ok();
            }
        }
        Some(seen)
    }

    /// `NVIDIA_VISIBLE_DEVICES`, split at commas.
    pub fn visible(&self) -> Vec<String> {
        self.env
            .get("NVIDIA_VISIBLE_DEVICES")
            .map(|v| v.split(',').map(str::to_string).collect())
            .unwrap_or_default()
    }
}

/// The major number the fake `nvidia-caps` nodes of [`driver_root`] get (a host's is dynamic,
/// from `/proc/devices`).
pub const CAPS_MAJOR: u32 = 238;

/// A driver root for NVIDIA's programs on a real node, as the simulated node `nvidia` would
/// have it: `/dev/nvidiaN` (195:N) for each GPU, `nvidiactl`, `nvidia-uvm{,-tools}`, the
/// `nvidia-caps` nodes of every GPU and compute instance the driver's `mig-minors` numbers
/// (see [`super::device_plugin::mig_minors`]), the NVML stand-in as
/// `libnvidia-ml.so.<driver version>` (its own file, as a driver root has it), an empty `libcuda`, the
/// stand-in's `nvidia-smi`, and the driver's `proc/driver/nvidia-caps/mig-minors`. Device nodes
/// need root (`mknod`).
pub fn driver_root(nvidia: &super::nvidia_tools::NvidiaNode) -> PathBuf {
    use std::os::unix::fs::symlink;
    let root = nvidia.path("driver-root");
    if root.exists() {
        return root;
    }
    let detect = nvidia.detect();
    let version = detect["driver_version"].as_str().expect("a driver version");
    let lib = root.join("usr/lib/x86_64-linux-gnu");
    let caps = root.join("dev/nvidia-caps");
    for dir in [&lib, &caps, &root.join("usr/bin")] {
        std::fs::create_dir_all(dir).unwrap();
    }
    let mknod = |path: PathBuf, major: u32, minor: u32| super::char_device(&path, major, minor);
    let gpus: Vec<u64> = detect["gpus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["index"].as_u64().unwrap())
        .collect();
    for &g in &gpus {
        mknod(root.join(format!("dev/nvidia{g}")), 195, g as u32);
        for gi in 0..15 {
            for ci in [None].into_iter().chain((0..8).map(Some)) {
                let minor = super::device_plugin::mig_minor(g, gi, ci) as u32;
                mknod(caps.join(format!("nvidia-cap{minor}")), CAPS_MAJOR, minor);
            }
        }
    }
    mknod(root.join("dev/nvidiactl"), 195, 255);
    mknod(root.join("dev/nvidia-uvm"), 511, 0);
    mknod(root.join("dev/nvidia-uvm-tools"), 511, 1);
    mknod(caps.join("nvidia-cap1"), CAPS_MAJOR, 1);
    mknod(caps.join("nvidia-cap2"), CAPS_MAJOR, 2);
    let minors = root.join("proc/driver/nvidia-caps");
    std::fs::create_dir_all(&minors).unwrap();
    std::fs::write(
        minors.join("mig-minors"),
        super::device_plugin::mig_minors(),
    )
    .unwrap();
    // The root holds its own files, as a driver's does: a link out of it leads to nothing
    // inside it. A hard link where it can be (the same file, so the same inode is loaded).
    let own = |from: &std::path::Path, to: &std::path::Path| {
        if std::fs::hard_link(from, to).is_err() {
            std::fs::copy(from, to).unwrap();
        }
    };
    let ml = format!("libnvidia-ml.so.{version}");
    own(&super::nvml_standin::stand_in().lib, &lib.join(&ml));
    symlink(&ml, lib.join("libnvidia-ml.so.1")).unwrap();
    let cuda = format!("libcuda.so.{version}");
    std::fs::write(lib.join(&cuda), b"").unwrap();
    symlink(&cuda, lib.join("libcuda.so.1")).unwrap();
    own(
        &super::nvml_standin::stand_in().bin.join("nvidia-smi"),
        &root.join("usr/bin/nvidia-smi"),
    );
    root
}
