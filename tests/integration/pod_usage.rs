//! Who uses a shared GPU, end to end on a real node: pods that NVIDIA's device plugin gave
//! replicas of time-sliced GPUs (or MPS clients' shares), started by the real kubelet,
//! containerd and runc. Each container's host PID is listed by the NVML stand-in as a GPU
//! process on the GPU the pod holds (what the driver would list once it ran CUDA), beside a
//! process of the host. `gpushare detect` and a scrape, through the NVML backend, attribute
//! each process's memory to its pod and container, read from the real cgroup paths of this
//! runtime and the kubelet's records, and the host's to `host`; a process whose cgroup is gone
//! is unknown, never anyone's.

use crate::common;
use crate::pods_on_slices::{Scene, WAIT, applied, held, mps_layout, scene_with};
use common::cluster::wait_for;
use common::nvidia_tools::NvidiaNode;
use common::prometheus::{promtool, tool};
use common::real_node::{Seen, gpu_pod};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::process::{Child, Command};

const PODS: usize = 5;
const MIB: f64 = 1024.0 * 1024.0;

/// A process of this host that the driver lists too; killed when dropped.
struct HostProcess(Child);

impl Drop for HostProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One registered GPU process: whose it must be.
struct Expected {
    gpu: u64,
    pid: u32,
    mib: u64,
    owner: Value,
}

#[test]
fn time_sliced_gpu_memory_is_attributed_to_each_pod_and_container() {
    let layout = |node: &NvidiaNode| {
        applied(
            node,
            "[[gpus]]\nselect = \"all\"\nmode = \"time-slicing\"\ntime_slicing.replicas = 4\n",
        )
    };
    if let Some(s) = scene_with("pod_usage::time_slicing", "t4x4", layout, false) {
        attributed(&s, false);
    }
}

#[test]
fn mps_clients_memory_is_attributed_to_each_pod_and_container() {
    if let Some(s) = scene_with("pod_usage::mps", "t4x4", mps_layout, true) {
        attributed(&s, true);
    }
}

/// Five pods on four GPUs of four replicas each (so two at least share one), each container
/// listed as a process of the GPU it holds (`mps`: as an MPS client, the server a process of
/// the host), and one host process more: detect and the scrape name each owner.
fn attributed(s: &Scene, mps: bool) {
    let detect = s.nvidia.detect();
    let gpus: BTreeMap<String, u64> = detect["gpus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["uuid"].as_str().unwrap().to_string(),
                g["index"].as_u64().unwrap(),
            )
        })
        .collect();
    let replicas: Vec<String> = gpus
        .keys()
        .flat_map(|u| (0..4).map(move |n| format!("{u}::{n}")))
        .collect();
    s.advertised(&BTreeMap::from([("nvidia.com/gpu".to_string(), replicas)]));
    for i in 0..PODS {
        s.cluster.create_pod(gpu_pod(
            "default",
            &format!("user-{i}"),
            &[("nvidia.com/gpu", 1)],
        ));
    }
    wait_for("every pod to run", WAIT, || {
        let running = s.cluster.pods_in_phase("default", "Running");
        let ready = running
            .iter()
            .filter(|p| {
                s.cluster
                    .logs("default", p)
                    .as_deref()
                    .and_then(Seen::parse)
                    .is_some()
            })
            .count();
        (ready == PODS).then_some(())
    });
    // The GPU each pod holds, as the kubelet allocated it.
    let on: BTreeMap<String, u64> = held(s)
        .iter()
        .map(|h| {
            let uuid = h["device_id"].as_str().unwrap().split("::").next().unwrap();
            (h["pod"].as_str().unwrap().to_string(), gpus[uuid])
        })
        .collect();
    assert_eq!(on.len(), PODS, "{on:?}");

    let mut expected = Vec::new();
    for (i, pod) in s.cluster.pods("default").iter().enumerate() {
        let name = pod.metadata.name.clone().unwrap();
        let status = &pod
            .status
            .as_ref()
            .unwrap()
            .container_statuses
            .as_ref()
            .unwrap()[0];
        let id = status.container_id.clone().unwrap();
        let pid = s.node.container_pid(&id);
        let mib = 100 * (i as u64 + 1);
        s.nvidia
            .start_process(&["--gpu", &on[&name].to_string()], pid, mib, mps);
        expected.push(Expected {
            gpu: on[&name],
            pid,
            mib,
            owner: json!({
                "kind": "pod",
                "namespace": "default",
                "pod": name,
                "pod_uid": pod.metadata.uid.clone().unwrap(),
                "container": "cuda",
                "container_id": id.rsplit("://").next().unwrap(),
            }),
        });
    }
    let shared = expected[0].gpu;
    let host = HostProcess(Command::new("sleep").arg("300").spawn().unwrap());
    // With MPS, the server is the compute process of the GPU; its clients are the pods'.
    s.nvidia
        .start_process(&["--gpu", &shared.to_string()], host.0.id(), 64, false);
    expected.push(Expected {
        gpu: shared,
        pid: host.0.id(),
        mib: 64,
        owner: json!({"kind": "host"}),
    });
    let by_gpu = |g: u64| {
        expected
            .iter()
            .filter(|e| e.gpu == g && e.owner["kind"] == "pod")
            .count()
    };
    assert!(
        gpus.values().any(|g| by_gpu(*g) >= 2),
        "no GPU is shared by two pods"
    );

    // detect, through the NVML backend on the stand-in.
    let root = s.node.host_root();
    // The kubelet's pods are under its cgroupRoot: gpushare is told so.
    let cgroup_root = s.node.cgroup_root();
    let detect = || {
        common::json(
            s.nvidia
                .gpushare_nvml()
                .arg("detect")
                .arg("--host-root")
                .arg(&root)
                .args(["--kubelet-cgroup-root", &cgroup_root]),
        )
    };
    let listed = detect();
    for e in &expected {
        let listed = process(&listed, e.gpu, e.pid);
        assert_eq!(listed["used_memory_mib"], e.mib, "{listed}");
        assert_eq!(
            listed["owner"], e.owner,
            "pid {} on GPU {}: {listed}",
            e.pid, e.gpu
        );
        let kind = if mps && e.owner["kind"] == "pod" {
            "mps-client"
        } else {
            "compute"
        };
        assert_eq!(listed["kind"], kind, "{listed}");
    }
    let run = |args: &[&str], root: &std::path::Path| {
        let out = s
            .nvidia
            .gpushare_nvml()
            .args(args)
            .arg("--host-root")
            .arg(root)
            .args(["--kubelet-cgroup-root", &cgroup_root])
            .assert()
            .success();
        String::from_utf8_lossy(&out.get_output().stdout).into_owned()
    };
    let table = run(&["detect"], &root);
    assert!(table.contains("default/user-0/cuda"), "{table}");

    // The scrape: promtool accepts it, and each container's memory is on its GPU.
    let text = run(&["metrics"], &root);
    if let Some(promtool_path) = tool("pod_usage", "promtool") {
        let (ok, said) = promtool(&promtool_path, &["check", "metrics"], &text);
        assert!(ok, "promtool refused the scrape: {said}");
    }
    let series = owner_series(&text);
    for e in &expected {
        let gpu = e.gpu.to_string();
        let want: Vec<(&str, &str)> = match e.owner["kind"].as_str().unwrap() {
            "host" => vec![("gpu", &gpu), ("owner", "host")],
            _ => vec![
                ("gpu", &gpu),
                ("owner", "pod"),
                ("namespace", "default"),
                ("pod", e.owner["pod"].as_str().unwrap()),
                ("container", "cuda"),
            ],
        };
        let found: Vec<f64> = series
            .iter()
            .filter(|(l, _)| {
                want.iter()
                    .all(|(k, v)| l.get(*k).map(String::as_str) == Some(*v))
            })
            .map(|(_, v)| *v)
            .collect();
        assert_eq!(found, [e.mib as f64 * MIB], "{want:?}:\n{text}");
    }
    assert!(
        text.contains("gpushare_scrape_source_up{source=\"owners\"} 1"),
        "{text}"
    );

    // The host process ends while the driver still lists it: whose it was is not guessed.
    drop(host);
    let last = expected.last().unwrap();
    assert_eq!(process(&detect(), last.gpu, last.pid)["owner"], Value::Null);
    let text = run(&["metrics"], &root);
    assert!(
        owner_series(&text)
            .iter()
            .any(|(l, v)| l["owner"] == "unknown" && *v == last.mib as f64 * MIB),
        "{text}"
    );
    assert!(
        text.contains("gpushare_scrape_source_up{source=\"owners\"} 0"),
        "{text}"
    );
}

fn process(detect: &Value, gpu: u64, pid: u32) -> Value {
    detect["gpus"][gpu as usize]["processes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pid"] == pid)
        .unwrap_or_else(|| panic!("GPU {gpu} does not list pid {pid}: {detect}"))
        .clone()
}

/// The `gpushare_owner_memory_used_bytes` series of a scrape: labels and value.
fn owner_series(text: &str) -> Vec<(BTreeMap<String, String>, f64)> {
    text.lines()
        .filter_map(|l| l.strip_prefix("gpushare_owner_memory_used_bytes{"))
        .map(|l| {
            let (labels, value) = l.rsplit_once("} ").unwrap();
            let labels = labels
                .split("\",")
                .map(|kv| {
                    let (k, v) = kv.split_once("=\"").unwrap();
                    (k.to_string(), v.trim_end_matches('"').to_string())
                })
                .collect();
            (labels, value.parse().unwrap())
        })
        .collect()
}
