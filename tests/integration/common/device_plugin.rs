//! NVIDIA's device plugin on an [`NvidiaNode`], registered with the stand-in kubelet.
//!
//! The plugin insists on `/var/lib/kubelet/device-plugins` (a constant of the kubelet API) and
//! reads `/proc/driver/nvidia-caps/mig-minors`. It runs in a private mount namespace (as root,
//! `unshare -m`) where both are bind mounts of folders in the node's temporary directory, so the
//! host's `/var/lib` and `/proc` are never written, and the stand-in kubelet outside the
//! namespace serves and dials the same sockets through the temporary folder.
//!
//! Without root or `unshare` a test says loudly that it skipped; with
//! `GPUSHARE_REQUIRE_NVIDIA_TOOLS=1` (as `.ci/run` sets it) it fails instead.

use super::nvidia_tools::NvidiaNode;
use kubelet_standin::Kubelet;
use serde_json::Value;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// Inside the namespace: the node's folders over the paths the plugin insists on, then the
/// plugin. `/var/lib/kubelet` need not exist on the host: a tmpfs over `/var/lib` (in the
/// namespace only) gives it a mount point.
const MOUNTS: &str = r#"set -e
root=$1; shift
if [ ! -d /var/lib/kubelet ]; then mount -t tmpfs tmpfs /var/lib; mkdir /var/lib/kubelet; fi
mount --bind "$root/var/lib/kubelet" /var/lib/kubelet
mount --bind "$root/proc/driver" /proc/driver
exec "$@"
"#;

/// Whether this machine can give the plugin a private mount namespace; when it cannot, the
/// test says so loudly (or fails under GPUSHARE_REQUIRE_NVIDIA_TOOLS=1).
fn namespaces(test: &str) -> bool {
    let ok = Command::new("unshare")
        .args(["-m", "--propagation", "private", "true"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if ok {
        return true;
    }
    let why = "`unshare -m` is refused here (it needs root and the unshare program)";
    if std::env::var_os("GPUSHARE_REQUIRE_NVIDIA_TOOLS").is_some_and(|v| v == "1") {
        panic!("{test}: GPUSHARE_REQUIRE_NVIDIA_TOOLS=1 but {why}");
    }
    eprintln!("SKIPPED: {test}: {why}");
    false
}

/// The driver's `/proc/driver/nvidia-caps/mig-minors`: `config`, `monitor`, then for each of 32
/// GPUs and 15 GPU instances the instance's `access` minor followed by its 8 compute
/// instances'.
pub fn mig_minors() -> String {
    let mut text = String::from("config 1\nmonitor 2\n");
    let mut minor = 3;
    for gpu in 0..32 {
        for gi in 0..15 {
            text += &format!("gpu{gpu}/gi{gi}/access {minor}\n");
            minor += 1;
            for ci in 0..8 {
                text += &format!("gpu{gpu}/gi{gi}/ci{ci}/access {minor}\n");
                minor += 1;
            }
        }
    }
    text
}

/// The minor of a GPU or compute instance's `access` capability in [`mig_minors`].
pub fn mig_minor(gpu: u64, gi: u64, ci: Option<u64>) -> u64 {
    3 + gpu * 15 * 9 + gi * 9 + ci.map_or(0, |c| 1 + c)
}

/// What gpushare generated for the plugin: its config file (written beside the node) and the
/// plugin container's environment in the DaemonSet.
/// `args` go to `gpushare manifests` (a `-c gpushare.toml`, say).
pub fn generated(node: &NvidiaNode, args: &[&str]) -> (PathBuf, BTreeMap<String, String>, Value) {
    let out = node.path("manifests");
    node.gpushare()
        .args(["manifests", "--target", "nvidia-device-plugin", "--out"])
        .arg(&out)
        .args(args)
        .assert()
        .success();
    let mut config = None;
    let mut env = BTreeMap::new();
    for entry in std::fs::read_dir(&out).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let doc: Value = serde_saphyr::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        match doc["kind"].as_str() {
            Some("ConfigMap") => {
                config = Some(doc["data"]["config.yaml"].as_str().unwrap().to_string())
            }
            Some("DaemonSet") if doc["metadata"]["name"] == "nvidia-device-plugin-gpushare" => {
                let container = &doc["spec"]["template"]["spec"]["containers"][0];
                for e in container["env"].as_array().unwrap() {
                    env.insert(
                        e["name"].as_str().unwrap().to_string(),
                        e["value"].as_str().unwrap_or_default().to_string(),
                    );
                }
            }
            _ => {}
        }
    }
    let config = config.expect("a ConfigMap with config.yaml");
    let parsed: Value = serde_saphyr::from_str(&config).unwrap();
    let file = node.path("device-plugin-config.yaml");
    std::fs::write(&file, &config).unwrap();
    assert!(env.contains_key("CONFIG_FILE"), "{env:?}");
    (file, env, parsed)
}

/// A MIG device as `gpushare detect` reports it.
#[derive(Debug, Clone)]
pub struct MigDevice {
    pub uuid: String,
    pub profile: String,
    pub gpu: u64,
    pub gi: u64,
    pub ci: u64,
}

pub fn mig_devices(detect: &Value) -> Vec<MigDevice> {
    let mut out = Vec::new();
    for g in detect["gpus"].as_array().unwrap() {
        for gi in g["mig"]["instances"].as_array().unwrap() {
            for ci in gi["compute_instances"].as_array().unwrap() {
                out.push(MigDevice {
                    uuid: ci["uuid"].as_str().unwrap().to_string(),
                    profile: ci["profile"].as_str().unwrap().to_string(),
                    gpu: g["index"].as_u64().unwrap(),
                    gi: gi["gpu_instance_id"].as_u64().unwrap(),
                    ci: ci["compute_instance_id"].as_u64().unwrap(),
                });
            }
        }
    }
    out
}

/// Resource name → the sorted UUIDs it should advertise.
pub fn by_resource(
    devices: &[MigDevice],
    name: impl Fn(&MigDevice) -> String,
) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for d in devices {
        out.entry(name(d)).or_default().push(d.uuid.clone());
    }
    out.values_mut().for_each(|v| v.sort());
    out
}

/// NVIDIA's device plugin running on a node, and the kubelet it registered with.
pub struct DevicePlugin {
    pub kubelet: Kubelet,
    root: PathBuf,
    /// The plugin's process while it runs (the DaemonSet's pod, as a test plays it).
    child: Option<Child>,
    /// Its environment and arguments, to start it again.
    envs: Vec<(OsString, OsString)>,
    args: Vec<OsString>,
    log: std::path::PathBuf,
}

impl DevicePlugin {
    /// Start `nvidia-device-plugin` with `config` (its config file) and the container `env` of
    /// a DaemonSet; None (said loudly) where no mount namespace can be had.
    pub fn start(
        test: &str,
        node: &NvidiaNode,
        config: &Path,
        env: &BTreeMap<String, String>,
    ) -> Option<DevicePlugin> {
        if !namespaces(test) {
            return None;
        }
        let root = node.path("host");
        let caps = root.join("proc/driver/nvidia-caps");
        std::fs::create_dir_all(&caps).unwrap();
        std::fs::write(caps.join("mig-minors"), mig_minors()).unwrap();
        let kubelet = Kubelet::start(&root.join("var/lib/kubelet")).unwrap();
        let mut cmd = Command::new("unshare");
        node.environment(&mut cmd);
        cmd.envs(env).env("CONFIG_FILE", config);
        let envs = cmd
            .get_envs()
            .filter_map(|(k, v)| Some((k.to_os_string(), v?.to_os_string())))
            .collect();
        let mut args: Vec<OsString> = ["-m", "--propagation", "private", "sh", "-c", MOUNTS, "sh"]
            .iter()
            .map(OsString::from)
            .collect();
        args.push(root.clone().into());
        args.push(node.program("nvidia-device-plugin").into());
        let mut plugin = DevicePlugin {
            kubelet,
            root,
            child: None,
            envs,
            args,
            log: node.path("device-plugin.log"),
        };
        plugin.resume();
        Some(plugin)
    }

    /// Start the plugin again (a DaemonSet's pod coming back), its log appended to.
    pub fn resume(&mut self) {
        let out = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .unwrap();
        let child = Command::new("unshare")
            .env_clear()
            .envs(self.envs.iter().map(|(k, v)| (k, v)))
            .args(&self.args)
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .unwrap();
        self.child = Some(child);
    }

    /// Stop the plugin (its pod leaving the node) and wait until it has exited; the kubelet
    /// stays.
    pub fn pause(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        // SIGTERM: the plugin stops its servers and removes its sockets.
        // SAFETY: kill(2) on our own child's pid; no memory is involved.
        unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while std::time::Instant::now() < deadline {
            if child.try_wait().ok().flatten().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
    }

    /// Whether the plugin's process runs.
    pub fn running(&self) -> bool {
        self.child.is_some()
    }

    /// The host the plugin sees (`--host-root` for gpushare): the kubelet's folder is its
    /// `var/lib/kubelet`.
    pub fn host_root(&self) -> PathBuf {
        self.root.clone()
    }

    /// What the plugin has logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Wait until exactly `resources` are registered, each having listed its devices.
    pub fn listed(&mut self, resources: &[String]) -> BTreeMap<String, kubelet_standin::Plugin> {
        let found = self.kubelet.wait_for(
            &format!("the plugin to list {resources:?}"),
            Duration::from_secs(60),
            |plugins| {
                resources
                    .iter()
                    .all(|r| plugins.get(r).is_some_and(|p| p.lists > 0))
            },
        );
        match found {
            Ok(plugins) => plugins,
            Err(why) => {
                let status = self
                    .child
                    .as_mut()
                    .and_then(|c| c.try_wait().ok().flatten());
                panic!(
                    "{why}\nplugin exited: {status:?}\nplugin log:\n{}",
                    self.log()
                );
            }
        }
    }
}

impl Drop for DevicePlugin {
    fn drop(&mut self) {
        self.pause();
    }
}
