//! NVIDIA's device plugin (and, for MPS, its MPS control daemon) on an [`NvidiaNode`], as their
//! DaemonSets' pods run on a real node ([`RealNode`]).
//!
//! The programs insist on paths of the host: `/var/lib/kubelet/device-plugins` (a constant of
//! the kubelet API), `/proc/driver/nvidia-caps/mig-minors`, and `/mps` (the MPS root inside their
//! containers). Each runs as root in the node's mount namespace (where `/var/lib/kubelet` and
//! `/run` are the node's), in a private root of its own there: a tmpfs with the namespace's
//! top-level folders bind-mounted in, `/mps` made in the tmpfs and bound to the node's
//! `/run/nvidia/mps` (which the kubelet mounts into MPS clients), and the simulated node's
//! `mig-minors` over `/proc/driver`. The host's `/`, `/run`, `/var` and `/proc` are never
//! written.

use super::nvidia_tools::NvidiaNode;
use super::real_node::RealNode;
use serde_json::Value;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// Inside the node's namespace: a private root that is the namespace's but for the driver's
/// `/proc/driver` and the MPS root, then the program.
const MOUNTS: &str = r#"set -e
root=$1; shift
new="$root/newroot"
mount -t tmpfs tmpfs "$new"
for e in /*; do
  n=${e#/}
  if [ -L "$e" ]; then ln -s "$(readlink "$e")" "$new/$n"
  elif [ -d "$e" ]; then mkdir "$new/$n"; mount --rbind "$e" "$new/$n"
  fi
done
mount --bind "$root/proc/driver" "$new/proc/driver"
mkdir -p /run/nvidia/mps "$new/mps"
mount --bind /run/nvidia/mps "$new/mps"
exec chroot "$new" "$@"
"#;

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
    let mut configs = None;
    let mut plugin = None;
    for entry in std::fs::read_dir(&out).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let doc: Value = serde_saphyr::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        match doc["kind"].as_str() {
            Some("ConfigMap") => configs = Some(doc["data"].clone()),
            Some("DaemonSet")
                if doc["metadata"]["name"]
                    .as_str()
                    .is_some_and(|n| n.starts_with("nvidia-device-plugin-")) =>
            {
                plugin = Some(doc)
            }
            _ => {}
        }
    }
    let plugin = plugin.expect("the plugin's DaemonSet");
    let env = container_env(&plugin);
    // The layout's key of the fleet's ConfigMap, which the DaemonSet mounts as its config.
    let volume = plugin["spec"]["template"]["spec"]["volumes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "config")
        .expect("the config volume");
    let key = volume["configMap"]["items"][0]["key"].as_str().unwrap();
    let config = configs.expect("the ConfigMap of configs")[key]
        .as_str()
        .unwrap_or_else(|| panic!("no key {key} in the ConfigMap"))
        .to_string();
    let parsed: Value = serde_saphyr::from_str(&config).unwrap();
    let file = node.path("device-plugin-config.yaml");
    std::fs::write(&file, &config).unwrap();
    assert!(env.contains_key("CONFIG_FILE"), "{env:?}");
    (file, env, parsed)
}

/// The environment of a DaemonSet's first container; a field of the pod (`spec.nodeName`) is
/// the node's name in these tests, [`NODE_NAME`].
fn container_env(daemonset: &Value) -> BTreeMap<String, String> {
    let container = &daemonset["spec"]["template"]["spec"]["containers"][0];
    let mut env = BTreeMap::new();
    for e in container["env"].as_array().into_iter().flatten() {
        let value = match e["valueFrom"]["fieldRef"]["fieldPath"].as_str() {
            Some("spec.nodeName") => NODE_NAME.to_string(),
            _ => e["value"].as_str().unwrap_or_default().to_string(),
        };
        env.insert(e["name"].as_str().unwrap().to_string(), value);
    }
    env
}

/// The name the tests give their GPU node.
pub const NODE_NAME: &str = "gpu-node-1";

/// The container environment of the MPS control daemon's DaemonSet that [`generated`] wrote.
pub fn mps_daemon_env(node: &NvidiaNode) -> BTreeMap<String, String> {
    for entry in std::fs::read_dir(node.path("manifests")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap_or_default();
        let Ok(doc) = serde_saphyr::from_str::<Value>(&text) else {
            continue;
        };
        let name = doc["spec"]["template"]["spec"]["containers"][0]["name"].as_str();
        if doc["kind"] == "DaemonSet" && name == Some("mps-control-daemon-ctr") {
            return container_env(&doc);
        }
    }
    panic!("gpushare generated no MPS control daemon");
}

/// A MIG device as `gpushare detect` reports it.
#[derive(Debug, Clone)]
pub struct MigDevice {
    pub uuid: String,
    pub profile: String,
    pub gpu: u64,
    pub gi: u64,
    pub ci: u64,
    /// The start of its GPU instance's placement.
    pub start: u64,
}

/// The device nodes a container holding MIG device `d` gets (from NVIDIA's or gpushare's CDI
/// spec): its GPU, its GPU instance's and compute instance's capabilities, and the control nodes
/// every container gets.
pub fn device_nodes(d: &MigDevice) -> BTreeMap<String, (u32, u32)> {
    let cap = |ci: Option<u64>| {
        let minor = mig_minor(d.gpu, d.gi, ci) as u32;
        (
            format!("/dev/nvidia-caps/nvidia-cap{minor}"),
            (super::real_node::CAPS_MAJOR, minor),
        )
    };
    BTreeMap::from([
        (format!("/dev/nvidia{}", d.gpu), (195, d.gpu as u32)),
        ("/dev/nvidiactl".into(), (195, 255)),
        ("/dev/nvidia-uvm".into(), (511, 0)),
        ("/dev/nvidia-uvm-tools".into(), (511, 1)),
        cap(None),
        cap(Some(d.ci)),
    ])
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
                    start: gi["placement"]["start"].as_u64().unwrap(),
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

/// One of NVIDIA's programs in its private root on a real node, as a DaemonSet's pod runs it:
/// stopped and started again as its pod leaves and comes back.
pub struct InHost {
    child: Option<Child>,
    /// Makes the driver's capability files of the MIG devices there are now.
    capabilities: Box<dyn Fn() + Send>,
    /// Its environment and arguments (`enter-node.sh NODE unshare …`), to start it again.
    envs: Vec<(OsString, OsString)>,
    args: Vec<OsString>,
    log: PathBuf,
}

impl InHost {
    /// Start `program` of NVIDIA's on `real` with the container `env` of its DaemonSet (its
    /// `NODE_NAME` the real node's), `config` as its config file and `extra` arguments, logging to
    /// `PROGRAM.log` beside the simulated node. The stand-ins of `nvidia-smi` and
    /// `nvidia-cuda-mps-control` come first on its PATH.
    pub fn start(
        node: &NvidiaNode,
        real: &RealNode,
        program: &Path,
        config: &Path,
        env: &BTreeMap<String, String>,
        extra: &[&str],
    ) -> InHost {
        let root = host(node);
        let mut cmd = Command::new("bash");
        node.environment(&mut cmd);
        let path = std::env::join_paths([node.stand_in_programs()].into_iter().chain(
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
        ))
        .unwrap();
        cmd.envs(env)
            .env("NODE_NAME", &real.name)
            .env("CONFIG_FILE", config)
            .env("PATH", path);
        let envs = cmd
            .get_envs()
            .filter_map(|(k, v)| Some((k.to_os_string(), v?.to_os_string())))
            .collect();
        let mut args: Vec<OsString> = vec![
            super::real_node::tool_dir().join("enter-node.sh").into(),
            real.dir.clone().into(),
        ];
        args.extend(
            [
                "unshare",
                "-m",
                "--propagation",
                "private",
                "sh",
                "-c",
                MOUNTS,
                "sh",
            ]
            .iter()
            .map(OsString::from),
        );
        args.push(root.into());
        args.push(program.into());
        args.extend(extra.iter().map(OsString::from));
        let name = program.file_name().unwrap().to_string_lossy();
        let detect = node.detector();
        let dir = node.path("host/proc/driver/nvidia/capabilities");
        let mut run = InHost {
            child: None,
            capabilities: Box::new(move || capabilities(&detect(), &dir)),
            envs,
            args,
            log: node.path(&format!("{name}.log")),
        };
        run.resume();
        run
    }

    /// Start it again (its pod coming back), its log appended to, with the driver's capability
    /// files of the MIG devices there are now.
    pub fn resume(&mut self) {
        (self.capabilities)();
        let out = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .unwrap();
        let child = Command::new("bash")
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

    /// Stop it (SIGTERM: the programs clean up after themselves) and wait until it has exited.
    pub fn pause(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
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

    /// Set (or, with `None`, remove) a variable of its environment for its next start.
    pub fn set_env(&mut self, key: &str, value: Option<&str>) {
        self.envs.retain(|(k, _)| k != key);
        if let Some(v) = value {
            self.envs.push((key.into(), v.into()));
        }
    }

    /// Whether its process has exited (it is then started again only by [`Self::resume`]).
    pub fn has_exited(&mut self) -> bool {
        if self.exited().is_some() {
            self.child = None;
            return true;
        }
        false
    }

    /// Whether its process runs.
    pub fn running(&self) -> bool {
        self.child.is_some()
    }

    /// What it has logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child
            .as_mut()
            .and_then(|c| c.try_wait().ok().flatten())
    }
}

impl Drop for InHost {
    fn drop(&mut self) {
        self.pause();
    }
}

/// The simulated node's view of the host: the driver's `mig-minors`, `/proc/devices` as the
/// driver fills it, and the mount point of the private root (the capability files are made at
/// each start, [`InHost::resume`]).
fn host(node: &NvidiaNode) -> PathBuf {
    let root = node.path("host");
    let caps = root.join("proc/driver/nvidia-caps");
    for dir in [&caps, &root.join("newroot")] {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(caps.join("mig-minors"), mig_minors()).unwrap();
    std::fs::write(
        root.join("devices"),
        format!(
            "Character devices:\n195 nvidia\n{} nvidia-caps\n511 nvidia-uvm\n\nBlock devices:\n",
            super::real_node::CAPS_MAJOR
        ),
    )
    .unwrap();
    root
}

/// `/proc/driver/nvidia/capabilities` as the driver keeps it: for each GPU instance and compute
/// instance of `detect`, `gpu<minor>/mig/gi<id>/access` and `…/ci<id>/access` with the minor of
/// its `nvidia-caps` node (the numbers of `mig-minors`), made afresh.
fn capabilities(detect: &Value, dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    let file = |path: PathBuf, minor: u64| {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let text = format!("DeviceFileMinor: {minor}\nDeviceFileMode: 292\nDeviceFileModify: 1\n");
        std::fs::write(path, text).unwrap();
    };
    for d in mig_devices(detect) {
        let gi = dir.join(format!("gpu{}/mig/gi{}", d.gpu, d.gi));
        file(gi.join("access"), mig_minor(d.gpu, d.gi, None));
        file(
            gi.join(format!("ci{}/access", d.ci)),
            mig_minor(d.gpu, d.gi, Some(d.ci)),
        );
    }
}

/// NVIDIA's device plugin as its DaemonSet's pod runs on a real node: in the node's mount
/// namespace, registered with its kubelet; paused and resumed as the pod leaves and comes back.
pub struct DevicePlugin {
    process: InHost,
}

impl DevicePlugin {
    /// Start `nvidia-device-plugin` on `node` with `config` and the container `env` gpushare
    /// generated (its `NODE_NAME` the real node's), and `extra` flags.
    pub fn start(
        nvidia: &NvidiaNode,
        node: &RealNode,
        config: &Path,
        env: &BTreeMap<String, String>,
        extra: &[&str],
    ) -> DevicePlugin {
        DevicePlugin {
            process: InHost::start(
                nvidia,
                node,
                &nvidia.program("nvidia-device-plugin"),
                config,
                env,
                extra,
            ),
        }
    }
}

/// Paused, resumed and read as the program it runs.
impl std::ops::Deref for DevicePlugin {
    type Target = InHost;
    fn deref(&self) -> &InHost {
        &self.process
    }
}

impl std::ops::DerefMut for DevicePlugin {
    fn deref_mut(&mut self) -> &mut InHost {
        &mut self.process
    }
}

/// NVIDIA's MPS control daemon (the device plugin's MPS mode) on a real node, once its daemons run (`.ready` in the node's
/// `/run/nvidia/mps`).
pub fn mps_control_daemon(
    nvidia: &NvidiaNode,
    node: &RealNode,
    config: &Path,
    env: &BTreeMap<String, String>,
) -> InHost {
    let mut daemon = InHost::start(
        nvidia,
        node,
        &nvidia.program("mps-control-daemon"),
        config,
        env,
        &[],
    );
    let ready = node.dir.join("ovl/run/upper/nvidia/mps/.ready");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !ready.exists() {
        if std::time::Instant::now() > deadline || daemon.exited().is_some() {
            panic!("the MPS control daemon is not ready:\n{}", daemon.log());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    daemon
}
