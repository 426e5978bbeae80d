//! gpushare's CDI spec as NVIDIA's container runtime uses it, on the GPU Operator's default
//! path, on a real node: NVIDIA's device plugin (envvar strategy, the config gpushare generated)
//! puts `NVIDIA_VISIBLE_DEVICES=MIG-<uuid>` into the container; the pod runs under the runtime
//! class `nvidia`, whose handler is NVIDIA's `nvidia-container-runtime`
//! (`../shared/tools/nvidia-ctk`) in `mode = "cdi"`; the runtime resolves the UUID in
//! `/etc/cdi/nvidia.yaml`, which `gpushare manifests --target cdi --install` wrote on the same
//! NVML (the stand-in, so its UUIDs are the plugin's), with a driver root whose device nodes match
//! the simulated node, and NVIDIA's `nvidia-cdi-hook` running the spec's hooks. Each container
//! gets its GPU's node and exactly its two `nvidia-caps` nodes, the driver's libraries, and the
//! links and loader cache the hooks make; after a MIG reshape, gpushare refreshes the spec and a
//! new pod resolves a new MIG device.

use crate::common;
use common::api_server::ApiServer;
use common::cluster::{Cluster, wait_for};
use common::device_plugin::{DevicePlugin, MigDevice, device_nodes, generated, mig_devices};
use common::nvidia_tools::{NvidiaNode, toolkit, tools};
use common::real_node::{RealNode, Seen, driver_root, gpu_pod_showing};
use serde_json::json;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(180);

/// What the test's pods show besides devices: the driver's files in the library folder, and
/// whether the loader's cache names libnvidia-ml (the update-ldcache hook).
const MORE: &str =
    "ls -l /usr/lib/x86_64-linux-gnu 2>/dev/null | grep -e cuda -e nvidia | sed 's/^/lib /'
grep -q libnvidia-ml /etc/ld.so.cache 2>/dev/null && echo 'ldcache libnvidia-ml'";

struct Scene<'a> {
    cluster: &'a Cluster,
    node: &'a RealNode,
    nvidia: &'a NvidiaNode,
}

impl Scene<'_> {
    /// A pod of the runtime class `nvidia` holding one `profile`, once it runs: what it saw,
    /// its log, and the MIG device the kubelet gave it.
    fn run(&self, name: &str, profile: &str) -> (Seen, String, MigDevice) {
        let mut pod = gpu_pod_showing(
            "default",
            name,
            &[(&format!("nvidia.com/mig-{profile}"), 1)],
            MORE,
        );
        pod["spec"]["runtimeClassName"] = json!("nvidia");
        self.cluster.create_pod(pod);
        let (seen, log) = wait_for(&format!("{name} to run and say what it got"), WAIT, || {
            let log = self.cluster.logs("default", name)?;
            Some((Seen::parse(&log)?, log))
        });
        let detect = common::json(
            self.nvidia
                .gpushare()
                .args(["detect", "--host-root"])
                .arg(self.node.host_root()),
        );
        let uuid = detect["pods"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["pod"] == name)
            .and_then(|h| h["device_id"].as_str())
            .unwrap_or_else(|| panic!("{name} holds nothing: {detect}"))
            .to_string();
        let device = mig_devices(&detect)
            .into_iter()
            .find(|d| d.uuid == uuid)
            .unwrap();
        (seen, log, device)
    }

    /// gpushare in the node's mount namespace (where /etc/cdi is the node's), through NVML on the
    /// stand-in, as an administrator runs it on the node.
    fn gpushare(&self, root: &Path, args: &[&str]) {
        let mut cmd = Command::new("bash");
        self.nvidia.environment(&mut cmd);
        // gpushare takes what the stand-in does not model (utilisation) as unknown.
        cmd.env_remove("NVML_STANDIN_STRICT");
        let out = cmd
            .arg(common::real_node::tool_dir().join("enter-node.sh"))
            .arg(&self.node.dir)
            .arg(assert_cmd::cargo::cargo_bin!("gpushare"))
            .arg("--nvml-lib")
            .arg(root.join("usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"))
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "gpushare {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn nvidias_runtime_resolves_mig_devices_through_gpushares_spec() {
    let test = "nvidia_runtime";
    let Some(nvidia_tools) = tools(test) else {
        return;
    };
    let Some(ctk) = toolkit(test) else { return };
    let nvidia = NvidiaNode::new(nvidia_tools, "dgx-a100");
    nvidia.mig_apply("all-balanced");
    let (config, env, _) = generated(&nvidia, &[]);
    let root = driver_root(&nvidia);
    let hook = ctk.join("nvidia-cdi-hook");
    let Some(server) = ApiServer::with_scheduler(test) else {
        return;
    };
    // The node dir first: containerd's runtime handler names it.
    let dir = tempfile::Builder::new()
        .prefix("kube-node.")
        .tempdir()
        .unwrap()
        .keep();
    let runc = which_runc();
    let handler = format!(
        "    [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia]\n      runtime_type = \"io.containerd.runc.v2\"\n      [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia.options]\n        BinaryName = \"{}\"\n        Root = \"{}\"\n        SystemdCgroup = false",
        ctk.join("nvidia-container-runtime").display(),
        dir.join("containerd/runc").display()
    );
    let Some(node) = RealNode::start_with(
        test,
        &server,
        "127.0.0.1",
        true,
        &[
            ("KUBE_NODE_OVERLAY_ETC", "1"),
            ("KUBE_NODE_CONTAINERD_EXTRA", &handler),
        ],
        Some(&dir),
    ) else {
        return;
    };
    let cluster = Cluster::connect(&server.kubeconfig);
    // The runtime's config at its default path, in the node's /etc only.
    let runtime_log = node.dir.join("nvidia-container-runtime.log");
    let runtime_config = format!(
        "accept-nvidia-visible-devices-envvar-when-unprivileged = true\n\n[nvidia-container-runtime]\ndebug = \"{}\"\nlog-level = \"debug\"\nmode = \"cdi\"\nruntimes = [\"{runc}\"]\n\n[nvidia-container-runtime.modes.cdi]\ndefault-kind = \"nvidia.com/gpu\"\nannotation-prefixes = [\"cdi.k8s.io/\"]\nspec-dirs = [\"/etc/cdi\", \"/var/run/cdi\"]\n\n[nvidia-ctk]\npath = \"{}\"\n",
        runtime_log.display(),
        ctk.join("nvidia-ctk").display()
    );
    let mut write = Command::new("bash")
        .arg(common::real_node::tool_dir().join("enter-node.sh"))
        .arg(&node.dir)
        .args([
            "sh",
            "-c",
            "mkdir -p /etc/nvidia-container-runtime && cat > /etc/nvidia-container-runtime/config.toml",
        ])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut write.stdin.take().unwrap(), runtime_config.as_bytes()).unwrap();
    assert!(write.wait().unwrap().success());
    assert!(
        !Path::new("/etc/nvidia-container-runtime/config.toml").exists(),
        "the host's /etc is not written"
    );
    cluster.apply_documents(&[json!({
        "apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass",
        "metadata": { "name": "nvidia" }, "handler": "nvidia",
    })]);
    let mut plugin = DevicePlugin::start(&nvidia, &node, &config, &env, &[]);
    let s = Scene {
        cluster: &cluster,
        node: &node,
        nvidia: &nvidia,
    };
    let root_s = root.to_str().unwrap();
    let hook_s = hook.to_str().unwrap();
    s.gpushare(
        &root,
        &[
            "manifests",
            "--target",
            "cdi",
            "--install",
            "--dev-root",
            root_s,
            "--driver-root",
            root_s,
            "--nvidia-cdi-hook-path",
            hook_s,
        ],
    );
    assert!(node.dir.join("ovl/etc/upper/cdi/nvidia.yaml").is_file());
    wait_for("the Node to advertise the MIG devices", WAIT, || {
        let allocatable = cluster.node(&node.name).status?.allocatable?;
        allocatable
            .get("nvidia.com/mig-3g.20gb")
            .filter(|q| q.0 == "8")
            .map(|_| ())
    });

    // One pod of each profile: its MIG device resolved through gpushare's spec.
    let mut names = Vec::new();
    for (i, profile) in ["1g.5gb", "2g.10gb", "3g.20gb"].iter().enumerate() {
        let name = format!("mig-{i}");
        let (seen, log, device) = s.run(&name, profile);
        assert_eq!(
            seen.devices,
            device_nodes(&device),
            "{name} holds {device:?}:\n{log}"
        );
        assert_eq!(seen.visible(), ["void"], "{name}: the spec's variable");
        let runtime = std::fs::read_to_string(&runtime_log).unwrap_or_default();
        assert!(
            runtime.contains(&format!("nvidia.com/gpu={}", device.uuid)),
            "the runtime did not resolve {}:\n{runtime}",
            device.uuid
        );
        // The hooks ran: the SONAME links and the loader's cache; the library is mounted.
        for line in [
            "libcuda.so -> libcuda.so.1",
            "libnvidia-ml.so.1 -> libnvidia-ml.so.",
        ] {
            assert!(log.contains(line), "{name}: no {line}:\n{log}");
        }
        assert!(log.contains("ldcache libnvidia-ml"), "{name}:\n{log}");
        names.push(name);
    }

    // A reshape: the pods go, the plugin pauses, gpushare changes the node and refreshes the
    // installed spec from the roots it was installed with; a new pod resolves a new device.
    let before: Vec<String> = mig_devices(&nvidia.detect())
        .into_iter()
        .map(|d| d.uuid)
        .collect();
    for name in &names {
        cluster.remove_pod("default", name);
    }
    plugin.pause();
    let layouts = common::repo().join("tests/fixtures/mig-parted/config-default.yaml");
    s.gpushare(
        &root,
        &[
            "mig",
            "apply",
            "-c",
            "all-3g.20gb",
            "-f",
            layouts.to_str().unwrap(),
        ],
    );
    plugin.resume();
    // Pods are placed once the plugin has told the kubelet the new devices.
    wait_for("the Node to advertise the new layout", WAIT, || {
        let allocatable = cluster.node(&node.name).status?.allocatable?;
        allocatable
            .get("nvidia.com/mig-3g.20gb")
            .filter(|q| q.0 == "16")
            .map(|_| ())
    });
    let spec = std::fs::read_to_string(node.dir.join("ovl/etc/upper/cdi/nvidia.yaml")).unwrap();
    assert!(
        spec.contains("nvidia-cdi-hook"),
        "the refresh kept the hooks"
    );
    let after: Vec<String> = mig_devices(&nvidia.detect())
        .into_iter()
        .map(|d| d.uuid)
        .collect();
    for gone in before.iter().filter(|u| !after.contains(u)) {
        assert!(!spec.contains(gone.as_str()), "the spec still names {gone}");
    }
    // Eight of the sixteen 3g.20gb are new: nine pods hold at least one of them.
    let mut resolved_new = 0;
    for i in 0..9 {
        let (seen, log, device) = s.run(&format!("after-{i}"), "3g.20gb");
        assert_eq!(seen.devices, device_nodes(&device), "{device:?}:\n{log}");
        if !before.contains(&device.uuid) {
            resolved_new += 1;
        }
    }
    assert!(resolved_new > 0, "no pod got one of the new MIG devices");
}

fn which_runc() -> String {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join("runc"))
        .find(|p| p.is_file())
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "/usr/sbin/runc".into())
}

/// gpushare's spec next to `nvidia-ctk cdi generate`'s for the same node (the NVML stand-in and
/// the same driver root, MIG devices included): the same device names, the same device nodes
/// with the same numbers and modes for every device, the same mount options, and the hooks
/// nvidia-ctk writes but the graphics one (gpushare adds the SONAME links it finds in the driver
/// root). nvidia-ctk reads the MIG minors under the host's `/proc/driver`: it runs in a mount
/// namespace of its own with the driver root's bound there.
#[test]
fn gpushares_spec_is_nvidia_ctks_for_the_same_node() {
    let test = "nvidia_runtime::compare";
    let Some(nvidia_tools) = tools(test) else {
        return;
    };
    let Some(ctk) = toolkit(test) else { return };
    let nvidia = NvidiaNode::new(nvidia_tools, "dgx-a100");
    nvidia.mig_apply("all-balanced");
    let root = driver_root(&nvidia);
    let hook = ctk.join("nvidia-cdi-hook");
    let theirs = nvidia.path("nvidia-ctk.yaml");
    let mut cmd = Command::new("unshare");
    nvidia.environment(&mut cmd);
    let out = cmd
        .env_remove("NVML_STANDIN_STRICT")
        .args(["-m", "--propagation", "private", "sh", "-c"])
        .arg(format!(
            "mount --bind {root}/proc/driver /proc/driver && exec {ctk} cdi generate --driver-root {root} --dev-root {root} --nvidia-cdi-hook-path {hook} --output {out}",
            root = root.display(),
            ctk = ctk.join("nvidia-ctk").display(),
            hook = hook.display(),
            out = theirs.display()
        ))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "nvidia-ctk cdi generate: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lib = root.join("usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1");
    let ours = nvidia
        .gpushare()
        .env_remove("GPUSHARE_SIM")
        .args(["--nvml-lib"])
        .arg(&lib)
        .env("NVML_STANDIN_STATE", nvidia.state())
        .args(["manifests", "--target", "cdi", "--dev-root"])
        .arg(&root)
        .arg("--driver-root")
        .arg(&root)
        .arg("--nvidia-cdi-hook-path")
        .arg(&hook)
        .output()
        .unwrap();
    assert!(
        ours.status.success(),
        "{}",
        String::from_utf8_lossy(&ours.stderr)
    );
    let ours: serde_json::Value =
        serde_saphyr::from_str(&String::from_utf8_lossy(&ours.stdout)).unwrap();
    let theirs: serde_json::Value =
        serde_saphyr::from_str(&std::fs::read_to_string(&theirs).unwrap()).unwrap();
    let devices = |spec: &serde_json::Value| -> BTreeMap<String, Vec<String>> {
        spec["devices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                let mut nodes: Vec<String> = d["containerEdits"]["deviceNodes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|n| {
                        // nvidia-ctk leaves a minor of 0 out.
                        format!(
                            "{} {} {}:{} {} {}",
                            n["path"],
                            n["hostPath"],
                            n["major"],
                            n["minor"].as_u64().unwrap_or(0),
                            n["fileMode"],
                            n["permissions"]
                        )
                    })
                    .collect();
                nodes.sort();
                (d["name"].as_str().unwrap().to_string(), nodes)
            })
            .collect()
    };
    let (mine, nvidias) = (devices(&ours), devices(&theirs));
    assert_eq!(
        mine.len(),
        65,
        "8 GPUs × 4 MIG devices by index and UUID, and all"
    );
    assert_eq!(mine, nvidias, "the devices and their nodes");
    let options = |spec: &serde_json::Value| -> Vec<String> {
        let mut o: Vec<String> = spec["containerEdits"]["mounts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["options"].to_string())
            .collect();
        o.dedup();
        o
    };
    assert_eq!(options(&ours), options(&theirs));
    let verbs = |spec: &serde_json::Value| -> Vec<String> {
        spec["containerEdits"]["hooks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["args"][1].as_str().unwrap().to_string())
            .filter(|v| v != "update-application-profile")
            .collect()
    };
    assert_eq!(verbs(&ours), verbs(&theirs));
}
