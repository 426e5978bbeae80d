//! NVIDIA's DRA driver (its kubelet plugin, `gpu.nvidia.com`, from `../shared/tools/kube-node`)
//! on the NVML stand-in, strict (an NVML call the stand-in does not answer aborts it), on a real
//! node with MIG on: the ResourceSlices it publishes list exactly the MIG devices `gpushare
//! detect` reports, with their UUIDs, parents, profiles and memory, named as the driver names
//! them. (It runs without the host's PCI tree, so it publishes no `pcieRoot`, and says so.)
//! gpushare's DeviceClasses and claim templates then get pods onto MIG devices of each profile
//! (and one more than there are waits, with the scheduler's reason): the real scheduler
//! allocates the claims, the driver prepares them, each container has exactly its device's
//! nodes, and `gpushare detect` names each pod as its device's holder from the kubelet's
//! pod-resources (the claim's driver, pool and device). A pod written for the device plugin
//! (`nvidia.com/mig-1g.5gb: 1`), unchanged, runs on a DRA device through the class's extended
//! resource name.
//!
//! On whole GPUs that gpushare.toml time-slices, a claim from gpushare's time-slicing template is
//! prepared by the driver, which sets the GPU's compute mode and time-slice through
//! `nvidia-smi`, and pods that share the claim share the GPU.

use crate::common;
use common::api_server::ApiServer;
use common::cluster::{Cluster, wait_for};
use common::device_plugin::{device_nodes, mig_devices};
use common::dra_plugin::{self, DraPlugin, attribute, claim_devices, slices};
use common::nvidia_tools::{NvidiaNode, tools};
use common::real_node::{PodClaim, RealNode, Seen, gpu_pod, holding_claim};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(120);

#[test]
fn nvidias_dra_driver_publishes_the_stand_ins_mig_devices() {
    let test = "dra_driver";
    let Some(tools) = tools(test) else { return };
    let Some(program) = dra_plugin::program(test) else {
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
    let plugin = DraPlugin::start(&nvidia, &node, &program, &[]);
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
            let devices = slices(&server.kubeconfig, &node.name);
            (devices.len() >= expected.len()).then_some(devices)
        },
    );
    let got: BTreeMap<String, (String, String, String, String)> = published
        .iter()
        .map(|d| {
            assert_eq!(attribute(d, "type"), "mig", "{d}");
            (
                d["name"].as_str().unwrap().to_string(),
                (
                    attribute(d, "uuid"),
                    attribute(d, "parentUUID"),
                    attribute(d, "profile"),
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
    cluster.apply_documents(&dra_objects(&nvidia, &[]));
    let mut asked: BTreeMap<String, &str> = BTreeMap::from([
        ("claims-1g".to_string(), "1g.5gb"),
        ("claims-2g".to_string(), "2g.10gb"),
    ]);
    asked.extend((0..9).map(|i| (format!("claims-3g-{i}"), "3g.20gb")));
    for (name, profile) in &asked {
        let template = format!("mig-{profile}");
        let pod = holding_claim(gpu_pod("default", name, &[]), PodClaim::Template(&template));
        cluster.create_pod(pod);
    }
    // The drop-in move: a pod written for the device plugin, unchanged, is served by DRA (the
    // node has no device plugin; the class names its resource).
    let unchanged = "unchanged-1g";
    cluster.create_pod(gpu_pod(
        "default",
        unchanged,
        &[("nvidia.com/mig-1g.5gb", 1)],
    ));
    asked.insert(unchanged.to_string(), "1g.5gb");
    let seen = wait_for("eleven of the pods to say what they got", WAIT, || {
        let seen: BTreeMap<String, Seen> = asked
            .keys()
            .filter_map(|name| {
                let log = cluster.logs("default", name)?;
                Some((name.clone(), Seen::parse(&log)?))
            })
            .collect();
        (seen.len() == 11).then_some(seen)
    });
    let waiting: Vec<&String> = asked.keys().filter(|n| !seen.contains_key(*n)).collect();
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    let why = wait_for("the ninth 3g.20gb to be told why it waits", WAIT, || {
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
    assert_eq!(holders.len(), 11, "{detect}");
    for (pod, held) in holders {
        let name = &allocated[pod];
        assert_eq!(held["resource"], "gpu.nvidia.com");
        assert_eq!(&held["device_id"], name.as_str());
        assert_eq!(&held["mig_device"], got[name].0.as_str(), "{pod}");
        // A template's claim is `<pod>-<claim>-<suffix>`; the scheduler's for an extended
        // resource `<pod>-extended-resources-<suffix>`.
        let claim = if pod == unchanged {
            "extended-resources"
        } else {
            "gpu"
        };
        assert!(
            held["claim"]
                .as_str()
                .unwrap()
                .starts_with(&format!("default/{pod}-{claim}")),
            "{held}"
        );
    }
}

#[test]
fn a_time_slicing_claim_is_prepared_by_the_driver_and_shared() {
    let test = "dra_driver::time_slicing";
    let Some(tools) = tools(test) else { return };
    let Some(program) = dra_plugin::program(test) else {
        return;
    };
    let nvidia = NvidiaNode::new(tools, "t4x4");
    let layout = nvidia.path("gpushare.toml");
    std::fs::write(
        &layout,
        "[[gpus]]\nselect = \"all\"\nmode = \"time-slicing\"\ntime_slicing.replicas = 4\n",
    )
    .unwrap();
    let file = layout.display().to_string();
    nvidia
        .gpushare()
        .args(["apply", "-c", &file])
        .assert()
        .success();
    let Some(server) = ApiServer::with_scheduler(test) else {
        return;
    };
    let Some(node) = RealNode::start(test, &server, "127.0.0.1", true) else {
        return;
    };
    let plugin = DraPlugin::start(&nvidia, &node, &program, &["TimeSlicingSettings=true"]);
    // The whole GPUs, as detect reports them.
    let detect = nvidia.detect();
    let expected: BTreeMap<String, String> = detect["gpus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                format!("gpu-{}", g["index"]),
                g["uuid"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let published = wait_for(
        "the driver's ResourceSlices",
        Duration::from_secs(60),
        || {
            let devices = slices(&server.kubeconfig, &node.name);
            (devices.len() >= expected.len()).then_some(devices)
        },
    );
    let got: BTreeMap<String, String> = published
        .iter()
        .map(|d| {
            assert_eq!(attribute(d, "type"), "gpu", "{d}");
            (
                d["name"].as_str().unwrap().to_string(),
                attribute(d, "uuid"),
            )
        })
        .collect();
    assert_eq!(got, expected, "{}", plugin.log());

    // One claim from the time-slicing template, shared by three pods.
    let cluster = Cluster::connect(&server.kubeconfig);
    let docs = dra_objects(&nvidia, &["-c", &file]);
    let template = docs
        .iter()
        .find(|d| {
            d["kind"] == "ResourceClaimTemplate" && d["metadata"]["name"] == "gpu-time-slicing"
        })
        .unwrap_or_else(|| panic!("no time-slicing template in {docs:?}"));
    assert_eq!(
        template["spec"]["spec"]["devices"]["config"][0]["opaque"]["parameters"]["sharing"]["strategy"],
        "TimeSlicing"
    );
    cluster.apply_documents(&docs);
    cluster.apply_documents(&[json!({
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": { "name": "shared", "namespace": "default" },
        "spec": template["spec"]["spec"],
    })]);
    let pods = ["sliced-a", "sliced-b", "sliced-c"];
    for name in pods {
        let pod = holding_claim(gpu_pod("default", name, &[]), PodClaim::Claim("shared"));
        cluster.create_pod(pod);
    }
    let seen = wait_for("the three pods to say what they got", WAIT, || {
        let seen: Vec<Seen> = pods
            .iter()
            .filter_map(|name| Seen::parse(&cluster.logs("default", name)?))
            .collect();
        (seen.len() == pods.len()).then_some(seen)
    });
    let device = dra_plugin::allocated(&server.kubeconfig, "default", "shared").unwrap();
    let uuid = &got[&device];
    let minor: u32 = device.trim_start_matches("gpu-").parse().unwrap();
    for s in &seen {
        let gpus: Vec<&String> = s
            .devices
            .keys()
            .filter(|p| p.trim_start_matches("/dev/nvidia").parse::<u32>().is_ok())
            .collect();
        assert_eq!(gpus, [&format!("/dev/nvidia{minor}")], "{s:?}");
    }
    // The driver set the GPU's compute mode to DEFAULT and its time-slice to the template's
    // interval (`Default`: 0), through the stand-in nvidia-smi.
    let runs = plugin.nvidia_smi_runs();
    let wanted: [&[&str]; 2] = [
        &["-i", uuid, "-c", "DEFAULT"],
        &["compute-policy", "-i", uuid, "--set-timeslice", "0"],
    ];
    for w in wanted {
        assert!(
            runs.iter().any(|r| r == w),
            "{w:?} not in {runs:?}\n{}",
            plugin.log()
        );
    }
}

/// gpushare's DRA objects for Kubernetes 1.36 (`extra`: a layout), without the example pods.
fn dra_objects(nvidia: &NvidiaNode, extra: &[&str]) -> Vec<Value> {
    let docs = common::json(
        nvidia
            .gpushare()
            .args(["manifests", "--target", "dra", "--k8s-version", "1.36"])
            .args(extra),
    );
    docs.as_array()
        .unwrap()
        .iter()
        .filter(|d| d["kind"] != "Pod")
        .cloned()
        .collect()
}
