//! Pods land on the slices gpushare made, end to end on a real node: a real kube-apiserver and
//! kube-scheduler (`../shared/tools/kube-apiserver`), a real kubelet, containerd and runc
//! (`../shared/tools/kube-node`), and NVIDIA's device plugin on the NVML stand-in in the node's
//! namespace with the config `gpushare manifests` generated.
//!
//! For every resource the node offers, one pod more than it has devices is created: that many
//! run, each container sees exactly its own device (what it says it got, and what the kubelet's
//! pod-resources says it holds), and the last stays Pending with the scheduler's
//! `Insufficient …` event.

use crate::common;
use common::api_server::ApiServer;
use common::cluster::{Cluster, wait_for};
use common::device_plugin::{
    DevicePlugin, InHost, by_resource, generated, mig_devices, mps_control_daemon, mps_daemon_env,
};
use common::nvidia_tools::{NvidiaNode, tools};
use common::real_node::{RealNode, Seen, gpu_pod};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Duration;

pub(crate) const WAIT: Duration = Duration::from_secs(180);

/// A cluster of one real GPU node. Dropped in order: the plugin, the MPS daemon, the node, the
/// client, the API server.
pub(crate) struct Scene {
    _plugin: DevicePlugin,
    /// NVIDIA's MPS control daemon, for the plugin's MPS mode.
    _mps: Option<InHost>,
    /// The plugin's config file, as gpushare generated it.
    config: PathBuf,
    pub node: RealNode,
    pub cluster: Cluster,
    _server: ApiServer,
    pub nvidia: NvidiaNode,
}

/// The node prepared by `prepare` (which returns the arguments for `gpushare manifests`), the
/// plugin with gpushare's config, on a real node of a real API server and scheduler.
fn scene(
    test: &str,
    preset: &str,
    prepare: impl FnOnce(&NvidiaNode) -> Vec<String>,
) -> Option<Scene> {
    scene_with(test, preset, prepare, false)
}

/// The same, with NVIDIA's MPS control daemon started before the plugin when `mps` is set.
pub(crate) fn scene_with(
    test: &str,
    preset: &str,
    prepare: impl FnOnce(&NvidiaNode) -> Vec<String>,
    mps: bool,
) -> Option<Scene> {
    let tools = tools(test)?;
    let nvidia = NvidiaNode::new(tools, preset);
    let args = prepare(&nvidia);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (config, env, _) = generated(&nvidia, &args);
    let server = ApiServer::with_scheduler(test)?;
    let node = RealNode::start(test, &server, "127.0.0.1", true)?;
    let cluster = Cluster::connect(&server.kubeconfig);
    let mps = mps.then(|| mps_control_daemon(&nvidia, &node, &config, &mps_daemon_env(&nvidia)));
    let plugin = DevicePlugin::start(&nvidia, &node, &config, &env, &[]);
    Some(Scene {
        _plugin: plugin,
        _mps: mps,
        config,
        node,
        cluster,
        _server: server,
        nvidia,
    })
}

/// `layout` written as the node's gpushare.toml and applied; the arguments that hand it to
/// `manifests`.
pub(crate) fn applied(node: &NvidiaNode, layout: &str) -> Vec<String> {
    let toml = node.path("gpushare.toml");
    std::fs::write(&toml, layout).unwrap();
    node.gpushare()
        .arg("apply")
        .arg("-c")
        .arg(&toml)
        .assert()
        .success();
    vec!["-c".into(), toml.to_string_lossy().into_owned()]
}

/// Every GPU shared by MPS among four clients, written as the node's gpushare.toml for the
/// plugin's MPS mode (NVIDIA's control daemon starts the daemons, not gpushare); the arguments
/// that hand it to `manifests`.
pub(crate) fn mps_layout(node: &NvidiaNode) -> Vec<String> {
    let toml = node.path("gpushare.toml");
    std::fs::write(
        &toml,
        "[[gpus]]\nselect = \"all\"\nmode = \"mps\"\nmps.clients = 4\n",
    )
    .unwrap();
    vec!["-c".into(), toml.to_string_lossy().into_owned()]
}

/// Who holds what, as `gpushare detect` reads it from the kubelet's pod-resources API.
pub(crate) fn held(scene: &Scene) -> Vec<Value> {
    let detect = common::json(
        scene
            .nvidia
            .gpushare()
            .args(["detect", "--host-root"])
            .arg(scene.node.host_root()),
    );
    detect["pods"].as_array().expect("pods known").clone()
}

impl Scene {
    /// The labels of NVIDIA's GPU feature discovery (`--oneshot`) with the plugin's config.
    fn gfd_labels(&self) -> String {
        let machine = self.nvidia.path("machine-type");
        std::fs::write(&machine, format!("{}\n", self.nvidia.preset)).unwrap();
        let labels = self.nvidia.path("gfd.labels");
        let out = self
            .nvidia
            .nvidia("gpu-feature-discovery")
            .args(["--oneshot", "--use-node-feature-api=false", "--config-file"])
            .arg(&self.config)
            .arg("--output-file")
            .arg(&labels)
            .arg("--machine-type-file")
            .arg(&machine)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", common::nvidia_tools::said(&out));
        std::fs::read_to_string(&labels).unwrap()
    }

    /// The Node's allocatable count of each resource, once it equals `wanted`'s device counts.
    pub(crate) fn advertised(&self, wanted: &BTreeMap<String, Vec<String>>) {
        wait_for("the Node to advertise the devices", WAIT, || {
            let node = self.cluster.node(&self.node.name);
            let allocatable = node.status?.allocatable?;
            wanted
                .iter()
                .all(|(r, ids)| {
                    allocatable
                        .get(r)
                        .is_some_and(|q| q.0 == ids.len().to_string())
                })
                .then_some(())
        });
    }

    /// For each resource, one pod more than its devices: all but one run, each container
    /// holding one distinct device of that resource (pod-resources) and seeing it
    /// (`NVIDIA_VISIBLE_DEVICES`); the last Pending for `Insufficient <resource>`. What each
    /// running pod saw, by name.
    fn one_pod_too_many(&self, wanted: &BTreeMap<String, Vec<String>>) -> BTreeMap<String, Seen> {
        self.advertised(wanted);
        let mut names: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (resource, ids) in wanted {
            let short = resource.rsplit('/').next().unwrap().replace('.', "-");
            for i in 0..=ids.len() {
                let name = format!("{short}-{i}");
                self.cluster
                    .create_pod(gpu_pod("default", &name, &[(resource, 1)]));
                names.entry(resource.clone()).or_default().push(name);
            }
        }
        let total: usize = wanted.values().map(Vec::len).sum();
        let seen: BTreeMap<String, Seen> = wait_for("every device's pod to run", WAIT, || {
            let running = self.cluster.pods_in_phase("default", "Running");
            let seen: BTreeMap<String, Seen> = running
                .iter()
                .filter_map(|p| Some((p.clone(), Seen::parse(&self.cluster.logs("default", p)?)?)))
                .collect();
            (seen.len() >= total).then_some(seen)
        });
        let held = held(self);
        for (resource, ids) in wanted {
            let holders: Vec<&Value> = held
                .iter()
                .filter(|h| h["resource"] == resource.as_str())
                .collect();
            let devices: Vec<String> = holders
                .iter()
                .map(|h| h["device_id"].as_str().unwrap().to_string())
                .collect();
            let distinct: BTreeSet<&String> = devices.iter().collect();
            assert_eq!(devices.len(), ids.len(), "{resource}: {holders:#?}");
            assert_eq!(
                distinct.len(),
                devices.len(),
                "{resource}: a device given twice"
            );
            assert_eq!(distinct, ids.iter().collect::<BTreeSet<_>>(), "{resource}");
            for h in holders {
                let pod = h["pod"].as_str().unwrap();
                // A time-sliced replica `<UUID>::<n>` is its GPU to the container.
                let uuid = h["device_id"].as_str().unwrap().split("::").next().unwrap();
                let got = &seen[pod];
                assert_eq!(got.visible(), [uuid], "{pod} sees other devices: {got:?}");
            }
            // The one left over is Pending, unbound, for want of this resource.
            let pods = self.cluster.pods("default");
            let unbound: Vec<&String> = names[resource]
                .iter()
                .filter(|n| {
                    pods.iter().any(|p| {
                        p.metadata.name.as_deref() == Some(n.as_str())
                            && p.spec.as_ref().and_then(|s| s.node_name.as_ref()).is_none()
                    })
                })
                .collect();
            assert_eq!(unbound.len(), 1, "{resource}: unbound {unbound:?}");
            let why = format!("Insufficient {resource}");
            wait_for(
                &format!("{}'s FailedScheduling event", unbound[0]),
                WAIT,
                || {
                    self.cluster
                        .events_of("default", "Pod", unbound[0])
                        .iter()
                        .any(|(reason, message)| {
                            reason == "FailedScheduling" && message.contains(&why)
                        })
                        .then_some(())
                },
            );
        }
        seen
    }
}

#[test]
fn pods_land_on_the_mig_devices_gpushare_made_mixed() {
    let test = "pods_on_slices::mixed";
    let Some(s) = scene(test, "dgx-a100", |node| {
        node.mig_apply("all-balanced");
        vec![]
    }) else {
        return;
    };
    let devices = mig_devices(&s.nvidia.detect());
    let wanted = by_resource(&devices, |d| format!("nvidia.com/mig-{}", d.profile));
    assert_eq!(wanted.len(), 3, "{wanted:?}");
    let seen = s.one_pod_too_many(&wanted);

    // gpushare reads the real kubelet's pod-resources API: which pod and container holds which
    // MIG device, on which GPU, and it is the device the container sees.
    let held = held(&s);
    assert_eq!(held.len(), seen.len(), "{held:#?}");
    for entry in &held {
        let pod = entry["pod"].as_str().unwrap();
        let device = devices
            .iter()
            .find(|d| d.uuid == entry["device_id"].as_str().unwrap())
            .unwrap_or_else(|| panic!("{entry} holds no MIG device of the node"));
        assert_eq!(entry["namespace"], "default");
        assert_eq!(entry["container"], "cuda");
        assert_eq!(
            entry["resource"],
            format!("nvidia.com/mig-{}", device.profile)
        );
        assert_eq!(entry["gpu"], device.gpu);
        assert_eq!(entry["mig_device"], device.uuid.as_str());
        assert_eq!(
            seen[pod].visible(),
            std::slice::from_ref(&device.uuid),
            "{pod}"
        );
    }
}

#[test]
fn pods_land_on_the_mig_devices_gpushare_made_single() {
    let test = "pods_on_slices::single";
    let Some(s) = scene(test, "dgx-a100", |node| {
        node.mig_apply("all-1g.5gb");
        vec![]
    }) else {
        return;
    };
    let wanted = by_resource(&mig_devices(&s.nvidia.detect()), |_| {
        "nvidia.com/gpu".into()
    });
    assert_eq!(wanted["nvidia.com/gpu"].len(), 56);
    s.one_pod_too_many(&wanted);
}

#[test]
fn pods_share_time_sliced_gpus_four_to_a_gpu() {
    let test = "pods_on_slices::time_slicing";
    let Some(s) = scene(test, "t4x4", |node| {
        applied(
            node,
            "[[gpus]]\nselect = \"all\"\nmode = \"time-slicing\"\ntime_slicing.replicas = 4\n",
        )
    }) else {
        return;
    };
    // The plugin names each replica `<GPU UUID>::<n>`.
    let detect = s.nvidia.detect();
    let mut replicas = Vec::new();
    for g in detect["gpus"].as_array().unwrap() {
        for n in 0..4 {
            replicas.push(format!("{}::{n}", g["uuid"].as_str().unwrap()));
        }
    }
    replicas.sort();
    let wanted = BTreeMap::from([("nvidia.com/gpu".to_string(), replicas)]);
    s.one_pod_too_many(&wanted);

    // GPU feature discovery, with the same config, labels the sharing.
    let labels = s.gfd_labels();
    for wanted in [
        "nvidia.com/gpu.replicas=4",
        "nvidia.com/gpu.sharing-strategy=time-slicing",
        "nvidia.com/gpu.count=4",
    ] {
        assert!(labels.lines().any(|l| l == wanted), "{wanted}:\n{labels}");
    }
}

#[test]
fn pods_share_time_sliced_mig_devices_two_to_a_device() {
    // gpushare.toml's mig.time_slicing: gpushare makes the MIG devices, the plugin advertises
    // each as two replicas `<MIG UUID>::<n>` under its profile's resource, and GFD labels them.
    let test = "pods_on_slices::mig_time_slicing";
    let fixture = common::repo().join("tests/fixtures/k8s/a30-mig-time-slicing.toml");
    let Some(s) = scene(test, "a30x4", |node| {
        applied(node, &std::fs::read_to_string(&fixture).unwrap())
    }) else {
        return;
    };
    let devices = mig_devices(&s.nvidia.detect());
    assert_eq!(devices.len(), 12, "{devices:?}");
    let mut wanted: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for d in &devices {
        for n in 0..2 {
            wanted
                .entry(format!("nvidia.com/mig-{}", d.profile))
                .or_default()
                .push(format!("{}::{n}", d.uuid));
        }
    }
    wanted.values_mut().for_each(|v| v.sort());
    assert_eq!(wanted["nvidia.com/mig-1g.6gb"].len(), 16);
    assert_eq!(wanted["nvidia.com/mig-2g.12gb"].len(), 8);
    s.one_pod_too_many(&wanted);

    let labels = s.gfd_labels();
    for wanted in [
        "nvidia.com/mig.strategy=mixed",
        "nvidia.com/mig-1g.6gb.count=8",
        "nvidia.com/mig-1g.6gb.replicas=2",
        "nvidia.com/mig-1g.6gb.sharing-strategy=time-slicing",
        "nvidia.com/mig-1g.6gb.product=NVIDIA-A30-MIG-1g.6gb-SHARED",
        "nvidia.com/mig-2g.12gb.count=4",
        "nvidia.com/mig-2g.12gb.replicas=2",
        "nvidia.com/mig-2g.12gb.sharing-strategy=time-slicing",
    ] {
        assert!(labels.lines().any(|l| l == wanted), "{wanted}:\n{labels}");
    }
}

#[test]
fn pods_share_gpus_through_the_plugins_mps_mode() {
    // The plugin's MPS mode: NVIDIA's MPS control daemon sets each GPU EXCLUSIVE_PROCESS (the
    // stand-in nvidia-smi) and starts a daemon per resource (the stand-in
    // nvidia-cuda-mps-control); the plugin checks it is healthy, then advertises the replicas.
    let test = "pods_on_slices::mps";
    let Some(s) = scene_with(test, "t4x4", mps_layout, true) else {
        return;
    };
    let detect = s.nvidia.detect();
    let mut replicas = Vec::new();
    for g in detect["gpus"].as_array().unwrap() {
        assert_eq!(g["compute_mode"], "exclusive_process", "{g}");
        for n in 0..4 {
            replicas.push(format!("{}::{n}", g["uuid"].as_str().unwrap()));
        }
    }
    replicas.sort();
    let wanted = BTreeMap::from([("nvidia.com/gpu".to_string(), replicas)]);
    let seen = s.one_pod_too_many(&wanted);
    // Every container is pointed at the daemon and sees its pipe directory, mounted from the
    // node's /run/nvidia/mps where the control daemon started it.
    for (pod, got) in &seen {
        assert_eq!(
            got.env.get("CUDA_MPS_PIPE_DIRECTORY").map(String::as_str),
            Some("/mps/nvidia.com/gpu/pipe"),
            "{pod}: {got:?}"
        );
        assert!(
            got.mps
                .iter()
                .any(|p| p.starts_with("/mps/nvidia.com/gpu/pipe")),
            "{pod} does not see the pipe directory: {got:?}"
        );
        // The limits the plugin set from gpushare's config, as the daemon keeps them: a
        // quarter of the threads, and a quarter of each T4's 15360 MiB pinned.
        let state = got
            .mps_state
            .as_ref()
            .unwrap_or_else(|| panic!("{pod}: no MPS state: {got:?}"));
        assert_eq!(state["thread_percentage"], 25.0, "{pod}: {state}");
        for gpu in ["0", "1", "2", "3"] {
            assert_eq!(state["mem_limits"][gpu], 3840, "{pod}: {state}");
        }
    }
}
