//! Pods land on the slices gpushare made, end to end: a real kube-apiserver and kube-scheduler
//! (`../shared/tools/kube-apiserver`), NVIDIA's device plugin on the NVML stand-in with the
//! config `gpushare manifests` generated, and the stand-in kubelet as the node (its status from
//! the plugin's devices, its pods admitted with distinct devices).
//!
//! For every resource the node offers, one pod more than it has devices is created: that many
//! are bound and each gets its own device, and the last stays Pending with the scheduler's
//! `Insufficient …` event.

use crate::common;
use common::api_server::ApiServer;
use common::cluster::{Cluster, wait_for};
use common::device_plugin::{
    DevicePlugin, InHost, NODE_NAME as NODE, by_resource, generated, mig_devices,
    mps_control_daemon, mps_daemon_env,
};
use common::nvidia_tools::{NvidiaNode, tools};
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(90);

/// A cluster of one GPU node. Dropped in order: the plugin and its kubelet, the client, the
/// API server.
struct Scene {
    plugin: DevicePlugin,
    /// NVIDIA's MPS control daemon, for the plugin's MPS mode.
    _mps: Option<InHost>,
    /// The plugin's config file, as gpushare generated it.
    config: PathBuf,
    cluster: Cluster,
    _server: ApiServer,
    node: NvidiaNode,
}

/// The node prepared by `prepare` (which returns the arguments for `gpushare manifests`), the
/// plugin with gpushare's config, the stand-in kubelet joined to a real API server and
/// scheduler.
fn scene(
    test: &str,
    preset: &str,
    prepare: impl FnOnce(&NvidiaNode) -> Vec<String>,
) -> Option<Scene> {
    scene_with(test, preset, prepare, false)
}

/// The same, with NVIDIA's MPS control daemon started before the plugin when `mps` is set.
fn scene_with(
    test: &str,
    preset: &str,
    prepare: impl FnOnce(&NvidiaNode) -> Vec<String>,
    mps: bool,
) -> Option<Scene> {
    let tools = tools(test)?;
    let node = NvidiaNode::new(tools, preset);
    let args = prepare(&node);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (config, env, _) = generated(&node, &args);
    let server = ApiServer::with_scheduler(test)?;
    let cluster = Cluster::connect(&server.kubeconfig);
    let mps = match mps {
        true => Some(mps_control_daemon(
            test,
            &node,
            &config,
            &mps_daemon_env(&node),
        )?),
        false => None,
    };
    let plugin = DevicePlugin::start(test, &node, &config, &env)?;

    plugin
        .kubelet
        .join(&server.kubeconfig, NODE, &BTreeMap::new())
        .unwrap();
    Some(Scene {
        plugin,
        _mps: mps,
        config,
        cluster,
        _server: server,
        node,
    })
}

/// `layout` written as the node's gpushare.toml (so the plugin's DaemonSet is
/// `nvidia-device-plugin-gpushare`) and applied; the arguments that hand it to `manifests`.
fn applied(node: &NvidiaNode, layout: &str) -> Vec<String> {
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

fn pod(name: &str, resource: &str) -> serde_json::Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": { "name": name, "namespace": "default" },
        "spec": {
            "terminationGracePeriodSeconds": 0,
            "containers": [{
                "name": "cuda",
                "image": "registry.k8s.io/pause:3.10",
                "resources": { "limits": { resource: "1" } },
            }],
        },
    })
}

impl Scene {
    /// The labels of NVIDIA's GPU feature discovery (`--oneshot`) with the plugin's config.
    fn gfd_labels(&self) -> String {
        let machine = self.node.path("machine-type");
        std::fs::write(&machine, format!("{}\n", self.node.preset)).unwrap();
        let labels = self.node.path("gfd.labels");
        let out = self
            .node
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
    fn advertised(&mut self, wanted: &BTreeMap<String, Vec<String>>) {
        let resources: Vec<String> = wanted.keys().cloned().collect();
        self.plugin.listed(&resources);
        wait_for("the Node to advertise the devices", WAIT, || {
            let node = self.cluster.node(NODE);
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

    /// For each resource, one pod more than its devices: all but one bound, each holding one
    /// distinct device of that resource; the last Pending for `Insufficient <resource>`.
    fn one_pod_too_many(&mut self, wanted: &BTreeMap<String, Vec<String>>) {
        self.advertised(wanted);
        let mut names: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (resource, ids) in wanted {
            let short = resource.rsplit('/').next().unwrap().replace('.', "-");
            for i in 0..=ids.len() {
                let name = format!("{short}-{i}");
                self.cluster.create_pod(pod(&name, resource));
                names.entry(resource.clone()).or_default().push(name);
            }
        }
        let total: usize = wanted.values().map(Vec::len).sum();
        let kubelet = &self.plugin.kubelet;
        let assigned = wait_for("every device to be assigned", WAIT, || {
            let a = kubelet.assigned();
            (a.len() >= total).then_some(a)
        });
        assert!(kubelet.rejected().is_empty(), "{:?}", kubelet.rejected());
        let pods = self.cluster.pods("default");
        for (resource, ids) in wanted {
            let got: Vec<_> = assigned
                .iter()
                .filter(|a| &a.resource == resource)
                .collect();
            let devices: Vec<String> = got.iter().flat_map(|a| a.devices.clone()).collect();
            let distinct: BTreeSet<&String> = devices.iter().collect();
            assert_eq!(devices.len(), ids.len(), "{resource}: {got:#?}");
            assert_eq!(
                distinct.len(),
                devices.len(),
                "{resource}: a device given twice"
            );
            let wanted_set: BTreeSet<&String> = ids.iter().collect();
            assert_eq!(distinct, wanted_set, "{resource}");
            for a in &got {
                assert_eq!(a.devices.len(), 1, "{a:?}");
                // A time-sliced replica `<UUID>::<n>` is its GPU to the container.
                let uuid = a.devices[0].split("::").next().unwrap();
                assert_eq!(
                    a.response
                        .envs
                        .get("NVIDIA_VISIBLE_DEVICES")
                        .map(String::as_str),
                    Some(uuid),
                    "{a:?}"
                );
            }
            // The one left over is Pending, unbound, for want of this resource.
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
    }
}

#[test]
fn pods_land_on_the_mig_devices_gpushare_made_mixed() {
    let test = "pods_on_slices::mixed";
    let Some(mut s) = scene(test, "dgx-a100", |node| {
        node.mig_apply("all-balanced");
        vec![]
    }) else {
        return;
    };
    let wanted = by_resource(&mig_devices(&s.node.detect()), |d| {
        format!("nvidia.com/mig-{}", d.profile)
    });
    assert_eq!(wanted.len(), 3, "{wanted:?}");
    s.one_pod_too_many(&wanted);

    // gpushare asks the kubelet's pod-resources API which pod holds which MIG device.
    let devices = mig_devices(&s.node.detect());
    let detect = common::json(
        s.node
            .gpushare()
            .args(["detect", "--host-root"])
            .arg(s.plugin.host_root()),
    );
    let held = detect["pods"].as_array().expect("pods known");
    let assigned = s.plugin.kubelet.assigned();
    assert_eq!(held.len(), assigned.len(), "{held:#?}");
    for a in &assigned {
        let device = devices.iter().find(|d| d.uuid == a.devices[0]).unwrap();
        let entry = held
            .iter()
            .find(|h| h["device_id"] == a.devices[0].as_str())
            .unwrap_or_else(|| panic!("{a:?} not in {held:#?}"));
        assert_eq!(entry["pod"], a.pod.as_str());
        assert_eq!(entry["namespace"], "default");
        assert_eq!(entry["container"], "cuda");
        assert_eq!(entry["resource"], a.resource.as_str());
        assert_eq!(entry["gpu"], device.gpu);
        assert_eq!(entry["mig_device"], device.uuid.as_str());
    }
}

#[test]
fn pods_land_on_the_mig_devices_gpushare_made_single() {
    let test = "pods_on_slices::single";
    let Some(mut s) = scene(test, "dgx-a100", |node| {
        node.mig_apply("all-1g.5gb");
        vec![]
    }) else {
        return;
    };
    let wanted = by_resource(&mig_devices(&s.node.detect()), |_| "nvidia.com/gpu".into());
    assert_eq!(wanted["nvidia.com/gpu"].len(), 56);
    s.one_pod_too_many(&wanted);
}

#[test]
fn pods_share_time_sliced_gpus_four_to_a_gpu() {
    let test = "pods_on_slices::time_slicing";
    let Some(mut s) = scene(test, "t4x4", |node| {
        applied(
            node,
            "[[gpus]]\nselect = \"all\"\nmode = \"time-slicing\"\ntime_slicing.replicas = 4\n",
        )
    }) else {
        return;
    };
    // The plugin names each replica `<GPU UUID>::<n>`.
    let detect = s.node.detect();
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
    let Some(mut s) = scene(test, "a30x4", |node| {
        applied(node, &std::fs::read_to_string(&fixture).unwrap())
    }) else {
        return;
    };
    let devices = mig_devices(&s.node.detect());
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

/// One HTTP request's path and JSON body, read off a connection.
fn read_request(conn: &mut std::net::TcpStream) -> Option<(String, serde_json::Value)> {
    use std::io::Read;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        let n = conn.read(&mut chunk).ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let path = head.split_whitespace().nth(1)?.to_string();
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())?
        })
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let n = conn.read(&mut chunk).ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    Some((
        path,
        serde_json::from_slice(&buf[head_end..head_end + length]).ok()?,
    ))
}

/// A stand-in for Aliyun's scheduler extender at `listener`: it answers `filter` by keeping
/// every node it is offered and `bind` by binding the pod through the API server, as the
/// extender does, and records each call as (path, body).
fn serve_extender(
    listener: std::net::TcpListener,
    kubeconfig: PathBuf,
    calls: std::sync::Arc<std::sync::Mutex<Vec<(String, serde_json::Value)>>>,
) {
    use std::io::Write;
    let cluster = Cluster::connect(&kubeconfig);
    for conn in listener.incoming() {
        let Ok(mut conn) = conn else { continue };
        let Some((path, body)) = read_request(&mut conn) else {
            continue;
        };
        let answer = if path.ends_with("/filter") {
            json!({ "NodeNames": body["NodeNames"], "FailedNodes": {}, "Error": "" })
        } else if path.ends_with("/bind") {
            cluster.bind(
                body["PodNamespace"].as_str().unwrap_or_default(),
                body["PodName"].as_str().unwrap_or_default(),
                body["Node"].as_str().unwrap_or_default(),
            );
            json!({ "Error": "" })
        } else {
            json!({ "Error": format!("no verb {path}") })
        };
        calls.lock().unwrap().push((path, body));
        let text = answer.to_string();
        let _ = write!(
            conn,
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
            text.len()
        );
    }
}

#[test]
fn a_pod_of_the_gpushare_scheduler_reaches_the_extender() {
    // Aliyun's extender cannot be built offline, so the test serves its URL itself; the
    // kube-scheduler is real and runs gpushare's KubeSchedulerConfiguration unchanged but for
    // the extender's address (the Service's DNS name becomes the loopback port, as the NOTES
    // say for a scheduler outside the cluster).
    let test = "pods_on_slices::extender";
    let dir = tempfile::tempdir().unwrap();
    let out = common::gpushare()
        .args([
            "--sim",
            "dgx-a100",
            "manifests",
            "--target",
            "gpushare-extender",
            "--out",
        ])
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let config_map = std::fs::read_to_string(
        dir.path()
            .join("out/13-configmap-gpushare-scheduler-config.yaml"),
    )
    .unwrap();
    let doc: serde_json::Value = serde_saphyr::from_str(&config_map).unwrap();
    let config = doc["data"]["config.yaml"].as_str().unwrap();
    let service = "http://gpushare-schd-extender.kube-system.svc:12345";
    assert!(config.contains(service), "{config}");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let file = dir.path().join("scheduler.yaml");
    std::fs::write(
        &file,
        config.replace(service, &format!("http://127.0.0.1:{port}")),
    )
    .unwrap();
    let Some(server) = ApiServer::with_scheduler_config(test, &file) else {
        return;
    };
    let cluster = Cluster::connect(&server.kubeconfig);
    let calls = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    {
        let (kubeconfig, calls) = (server.kubeconfig.clone(), calls.clone());
        std::thread::spawn(move || serve_extender(listener, kubeconfig, calls));
    }
    // The node as Aliyun's device plugin advertises it: GPU memory in GiB, 8 × 40.
    cluster.create_node(NODE, &[("gpushare", "true")]);
    cluster.make_ready(NODE, &[("aliyun.com/gpu-mem", "320")]);
    cluster.create_pod(json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": { "name": "shares-a-gpu", "namespace": "default" },
        "spec": {
            "schedulerName": "gpushare-scheduler",
            "containers": [{
                "name": "cuda", "image": "registry.k8s.io/pause:3.10",
                "resources": { "limits": { "aliyun.com/gpu-mem": "10" } },
            }],
        },
    }));
    wait_for("the pod to be bound by the extender", WAIT, || {
        cluster
            .pods("default")
            .into_iter()
            .find(|p| p.metadata.name.as_deref() == Some("shares-a-gpu"))
            .and_then(|p| p.spec?.node_name)
            .filter(|n| n == NODE)
    });
    let calls = calls.lock().unwrap().clone();
    let filter = calls
        .iter()
        .find(|(path, _)| path == "/gpushare-scheduler/filter")
        .unwrap_or_else(|| panic!("no filter call: {calls:?}"));
    // The extender API's fields are Go's, capitalised (k8s.io/kube-scheduler/extender/v1).
    assert_eq!(filter.1["Pod"]["metadata"]["name"], "shares-a-gpu");
    assert_eq!(
        filter.1["NodeNames"],
        json!([NODE]),
        "nodeCacheCapable: names only"
    );
    assert!(
        filter.1["Nodes"].is_null(),
        "nodeCacheCapable: no Node objects"
    );
    let bind = calls
        .iter()
        .find(|(path, _)| path == "/gpushare-scheduler/bind")
        .unwrap_or_else(|| panic!("no bind call: {calls:?}"));
    assert_eq!(bind.1["PodName"], "shares-a-gpu");
    assert_eq!(bind.1["Node"], NODE);
}

#[test]
fn pods_share_gpus_through_the_plugins_mps_mode() {
    // The plugin's MPS mode: NVIDIA's MPS control daemon sets each GPU EXCLUSIVE_PROCESS (the
    // stand-in nvidia-smi) and starts a daemon per resource (the stand-in
    // nvidia-cuda-mps-control); the plugin checks it is healthy, then advertises the replicas.
    let test = "pods_on_slices::mps";
    let Some(mut s) = scene_with(
        test,
        "t4x4",
        |node| {
            let toml = node.path("gpushare.toml");
            std::fs::write(
                &toml,
                "[[gpus]]\nselect = \"all\"\nmode = \"mps\"\nmps.clients = 4\n",
            )
            .unwrap();
            vec!["-c".into(), toml.to_string_lossy().into_owned()]
        },
        true,
    ) else {
        return;
    };
    let detect = s.node.detect();
    let mut replicas = Vec::new();
    for g in detect["gpus"].as_array().unwrap() {
        assert_eq!(g["compute_mode"], "exclusive_process", "{g}");
        for n in 0..4 {
            replicas.push(format!("{}::{n}", g["uuid"].as_str().unwrap()));
        }
    }
    replicas.sort();
    let wanted = BTreeMap::from([("nvidia.com/gpu".to_string(), replicas)]);
    s.one_pod_too_many(&wanted);
    // Every container is pointed at the daemon: its pipe directory, mounted from the host.
    for a in s.plugin.kubelet.assigned() {
        let r = &a.response;
        assert_eq!(
            r.envs.get("CUDA_MPS_PIPE_DIRECTORY").map(String::as_str),
            Some("/mps/nvidia.com/gpu/pipe"),
            "{a:?}"
        );
        assert!(
            r.mounts
                .iter()
                .any(|m| m.host_path == "/run/nvidia/mps/nvidia.com/gpu/pipe"),
            "{a:?}"
        );
    }
}
