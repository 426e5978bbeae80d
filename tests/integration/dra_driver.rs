//! NVIDIA's DRA driver (its kubelet plugin, `gpu.nvidia.com`, from `../shared/tools/kube-node`)
//! on the NVML stand-in, strict (an NVML call the stand-in does not answer aborts it), on a real
//! node with MIG on: the ResourceSlices it publishes list exactly the MIG devices `gpushare
//! detect` reports, with their UUIDs, parents, profiles and memory, named as the driver names
//! them. (It runs without the host's PCI tree, so it publishes no `pcieRoot`, and says so.)
//! gpushare's DeviceClasses and claim templates then get pods onto MIG devices of each profile
//! (and one more than there are waits, with the scheduler's reason): the real scheduler
//! allocates the claims, the driver prepares them, each container has exactly its device's
//! nodes, and `gpushare detect` names each pod as its device's holder from the kubelet's
//! pod-resources (the claim's driver, pool and device).

use crate::common;
use common::api_server::ApiServer;
use common::cluster::{Cluster, wait_for};
use common::device_plugin::{InHost, device_nodes, mig_devices};
use common::nvidia_tools::{NvidiaNode, tools};
use common::real_node::{RealNode, Seen, driver_root, gpu_pod};
use common::unpacked;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(120);

/// NVIDIA's DRA kubelet plugin, unpacked once from the node tool.
fn dra_plugin(test: &str) -> Option<PathBuf> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let dir = DIR.get_or_init(|| unpacked::unpack("kube-node", &["gpu-kubelet-plugin"]));
    unpacked::or_skip(test, "NVIDIA's DRA driver is", dir).map(|d| d.join("gpu-kubelet-plugin"))
}

#[test]
fn nvidias_dra_driver_publishes_the_stand_ins_mig_devices() {
    let test = "dra_driver";
    let Some(tools) = tools(test) else { return };
    let Some(dra_plugin) = dra_plugin(test) else {
        return;
    };
    let nvidia = NvidiaNode::new(tools, "dgx-a100");
    nvidia.mig_apply("all-balanced");
    let Some(server) = ApiServer::with_scheduler(test) else {
        return;
    };
    let Some(node) = RealNode::start(test, &server, "127.0.0.1", true) else {
        return;
    };
    let root = driver_root(&nvidia);
    // The plugin refuses to start without a hook program; no claim is prepared here, so none runs.
    let hook = nvidia.path("nvidia-cdi-hook");
    std::fs::write(&hook, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    // The driver's /proc/devices (for the major of `nvidia-caps`), where its plugin is told to
    // read it: the host's has no NVIDIA driver.
    let env = BTreeMap::from([
        (
            "KUBECONFIG".to_string(),
            node.dir.join("kubeconfig").display().to_string(),
        ),
        (
            "ALT_PROC_DEVICES_PATH".to_string(),
            nvidia.path("host/devices").display().to_string(),
        ),
    ]);
    let root_s = root.display().to_string();
    let cdi = node.dir.join("cdi").display().to_string();
    let hook_s = hook.display().to_string();
    let plugin = InHost::start(
        &nvidia,
        &node,
        &dra_plugin,
        &nvidia.path("none"),
        &env,
        &[
            "--node-name",
            "127.0.0.1",
            "--cdi-root",
            &cdi,
            "--nvidia-driver-root",
            &root_s,
            "--container-driver-root",
            &root_s,
            "--healthcheck-port",
            "-1",
            "--image-name",
            "localhost/none:0",
            "--nvidia-cdi-hook-path",
            &hook_s,
        ],
    );
    // name → (uuid, parent's uuid, profile, memory) as gpushare detect reports the node, named
    // as the driver names MIG devices: gpu-<minor>-mig-<profile without dots>-<GI profile
    // id>-<placement start>. A GPU in MIG mode is published only as its MIG devices.
    let detect = nvidia.detect();
    let mut expected = BTreeMap::new();
    for g in detect["gpus"].as_array().unwrap() {
        for gi in g["mig"]["instances"].as_array().unwrap() {
            let profile = gi["profile"].as_str().unwrap();
            let name = format!(
                "gpu-{}-mig-{}-{}-{}",
                g["index"],
                profile.replace('.', ""),
                gi["profile_id"],
                gi["placement"]["start"]
            );
            let ci = &gi["compute_instances"][0];
            expected.insert(
                name,
                (
                    ci["uuid"].as_str().unwrap().to_string(),
                    g["uuid"].as_str().unwrap().to_string(),
                    profile.to_string(),
                    format!("{}Mi", gi["memory_mib"]),
                ),
            );
        }
    }
    assert_eq!(expected.len(), 32, "all-balanced on 8 A100s");
    let published = wait_for(
        "the driver's ResourceSlices",
        Duration::from_secs(60),
        || {
            let devices = slices(&server.kubeconfig);
            (devices.len() >= expected.len()).then_some(devices)
        },
    );
    let attr = |d: &Value, key: &str| {
        d["attributes"][key]["string"]
            .as_str()
            .unwrap_or("?")
            .to_string()
    };
    let got: BTreeMap<String, (String, String, String, String)> = published
        .iter()
        .map(|d| {
            assert_eq!(attr(d, "type"), "mig", "{d}");
            (
                d["name"].as_str().unwrap().to_string(),
                (
                    attr(d, "uuid"),
                    attr(d, "parentUUID"),
                    attr(d, "profile"),
                    d["capacity"]["memory"]["value"]
                        .as_str()
                        .unwrap_or("?")
                        .to_string(),
                ),
            )
        })
        .collect();
    assert_eq!(got, expected, "{}", plugin.log());

    // gpushare's DeviceClasses and claim templates, applied. Pods asking through them are
    // allocated by the real scheduler, their claims prepared by the driver, and each container
    // has exactly the device nodes of a MIG device of its profile (through the driver's CDI
    // spec): a 1g.5gb, a 2g.10gb and the eight 3g.20gb; a ninth 3g.20gb waits, with the
    // scheduler's reason.
    let cluster = Cluster::connect(&server.kubeconfig);
    let docs = common::json(nvidia.gpushare().args(["manifests", "--target", "dra"]));
    let docs: Vec<Value> = docs
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["kind"] != "Pod")
        .cloned()
        .collect();
    cluster.apply_documents(&docs);
    let mut asked: BTreeMap<String, &str> = BTreeMap::from([
        ("claims-1g".to_string(), "1g.5gb"),
        ("claims-2g".to_string(), "2g.10gb"),
    ]);
    asked.extend((0..9).map(|i| (format!("claims-3g-{i}"), "3g.20gb")));
    for (name, profile) in &asked {
        let mut pod = gpu_pod("default", name, &[]);
        pod["spec"]["containers"][0]["resources"] = json!({ "claims": [{ "name": "gpu" }] });
        pod["spec"]["resourceClaims"] =
            json!([{ "name": "gpu", "resourceClaimTemplateName": format!("mig-{profile}") }]);
        cluster.create_pod(pod);
    }
    let seen = wait_for("ten of the claims' pods to say what they got", WAIT, || {
        let seen: BTreeMap<String, Seen> = asked
            .keys()
            .filter_map(|name| {
                let log = cluster.logs("default", name)?;
                Some((name.clone(), Seen::parse(&log)?))
            })
            .collect();
        (seen.len() == 10).then_some(seen)
    });
    let waiting: Vec<&String> = asked.keys().filter(|n| !seen.contains_key(*n)).collect();
    let why = wait_for("the tenth to be told why it waits", WAIT, || {
        cluster
            .events_of("default", "Pod", waiting[0])
            .into_iter()
            .find(|(reason, _)| reason == "FailedScheduling")
            .map(|(_, message)| message)
    });
    assert!(why.contains("cannot allocate all claims"), "{why}");
    // Each pod's device as the scheduler allocated it: of its profile, its own, and the one
    // its container has the nodes of.
    let allocated = claim_devices(&server.kubeconfig, "default");
    let devices = mig_devices(&detect);
    let mut taken = BTreeMap::new();
    for (pod, seen) in &seen {
        let name = &allocated[pod];
        let device = devices.iter().find(|d| d.uuid == got[name].0).unwrap();
        assert_eq!(device.profile, asked[pod], "{pod}");
        assert_eq!(
            seen.devices,
            device_nodes(device),
            "{pod}: {}",
            plugin.log()
        );
        assert!(
            taken.insert(name.clone(), pod).is_none(),
            "{name} given twice"
        );
    }

    // The kubelet's pod-resources name each claim's device; gpushare detect knows its holder.
    let detect = common::json(
        nvidia
            .gpushare()
            .args(["detect", "--host-root"])
            .arg(node.host_root()),
    );
    let holders: BTreeMap<&str, &Value> = detect["pods"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["namespace"] == "default")
        .map(|h| (h["pod"].as_str().unwrap(), h))
        .collect();
    assert_eq!(holders.len(), 10, "{detect}");
    for (pod, held) in holders {
        let name = &allocated[pod];
        assert_eq!(held["resource"], "gpu.nvidia.com");
        assert_eq!(&held["device_id"], name.as_str());
        assert_eq!(&held["mig_device"], got[name].0.as_str(), "{pod}");
        assert!(
            held["claim"]
                .as_str()
                .unwrap()
                .starts_with(&format!("default/{pod}-gpu")),
            "{held}"
        );
    }
}

/// pod → the device its ResourceClaim in `namespace` was allocated, for the claims allocated.
fn claim_devices(kubeconfig: &std::path::Path, namespace: &str) -> BTreeMap<String, String> {
    let out = Command::new("kubectl")
        .env("KUBECONFIG", kubeconfig)
        .args(["get", "resourceclaims", "-n", namespace, "-o", "json"])
        .output()
        .unwrap();
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut out = BTreeMap::new();
    for claim in list["items"].as_array().unwrap() {
        let results = &claim["status"]["allocation"]["devices"]["results"];
        let Some(device) = results[0]["device"].as_str() else {
            continue;
        };
        assert_eq!(results[0]["driver"], "gpu.nvidia.com", "{claim}");
        let pod = claim["metadata"]["ownerReferences"][0]["name"]
            .as_str()
            .unwrap();
        out.insert(pod.to_string(), device.to_string());
    }
    out
}

/// Every device in the ResourceSlices of `gpu.nvidia.com` on the node.
fn slices(kubeconfig: &std::path::Path) -> Vec<Value> {
    let out = Command::new("kubectl")
        .env("KUBECONFIG", kubeconfig)
        .args(["get", "resourceslices", "-o", "json"])
        .output()
        .unwrap();
    let list: Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["spec"]["driver"] == "gpu.nvidia.com" && s["spec"]["nodeName"] == "127.0.0.1")
        .flat_map(|s| s["spec"]["devices"].as_array().cloned().unwrap_or_default())
        .collect()
}
