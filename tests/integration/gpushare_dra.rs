//! gpushare's own DRA driver (`gpushare dra-plugin`, driver `gpu.gpushare.io`) on a real node:
//! the real kubelet registers it, its ResourceSlice lists exactly what `gpushare detect` reports
//! (four GPUs in MIG mode with the balanced layout, four whole), and pods whose claims ask for a
//! whole GPU and for each MIG profile through DeviceClasses on the driver's attributes are
//! allocated by the real scheduler, prepared by the plugin (a CDI spec per claim from gpushare's
//! CDI generator) and run with exactly their device's nodes; a claim for more than there is
//! waits with the scheduler's reason, and `gpushare detect` names every holder. The plugin
//! killed after the prepare and started again keeps what it prepared, and the claim's spec
//! goes at unprepare.

use crate::common;
use common::api_server::ApiServer;
use common::cluster::{Cluster, wait_for};
use common::device_plugin::{InHost, device_nodes, mig_devices};
use common::dra_plugin::{attribute, kubectl, kubectl_json};
use common::nvidia_tools::{NvidiaNode, tools};
use common::real_node::{
    PodClaim, RealNode, Seen, driver_root, gpu_pod, gpu_pod_showing, holding_claim,
};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(120);
const DRIVER: &str = "gpu.gpushare.io";

/// The devices of gpushare's ResourceSlices for `node`.
fn published(kubeconfig: &std::path::Path, node: &str) -> Vec<Value> {
    common::dra_plugin::slices_of(kubeconfig, node, DRIVER)
}

/// The plugin on `node`, for the simulated GPUs of `nvidia`, its specs' files from the driver
/// root.
fn plugin(nvidia: &NvidiaNode, node: &RealNode, kubeconfig: &std::path::Path) -> InHost {
    plugin_with(nvidia, node, kubeconfig, &[])
}

/// The same, with `more` flags.
pub fn plugin_with(
    nvidia: &NvidiaNode,
    node: &RealNode,
    kubeconfig: &std::path::Path,
    more: &[&str],
) -> InHost {
    let root = driver_root(nvidia).display().to_string();
    let state = nvidia.state().display().to_string();
    let state_root = nvidia.path("root").display().to_string();
    let kubeconfig = kubeconfig.display().to_string();
    let cdi = node.dir.join("cdi").display().to_string();
    // The bench runs the plugin as it ships (bench/dra-drivers.sh builds it with --release).
    let release = std::env::var_os("GPUSHARE_BENCH_RELEASE_BIN").map(std::path::PathBuf::from);
    let program = release
        .as_deref()
        .unwrap_or(assert_cmd::cargo::cargo_bin!("gpushare"));
    // The stand-in's programs log their runs there (nvidia-smi's time-slices).
    let calls = BTreeMap::from([(
        "NVML_STANDIN_LOG".to_string(),
        nvidia
            .path("gpushare-plugin-calls.jsonl")
            .display()
            .to_string(),
    )]);
    InHost::start(
        nvidia,
        node,
        program,
        &nvidia.path("none"),
        &calls,
        &[
            "--sim",
            &nvidia.preset,
            "--sim-state",
            &state,
            "--state-root",
            &state_root,
            "dra-plugin",
            "--node-name",
            &node.name,
            "--kubeconfig",
            &kubeconfig,
            "--cdi-root",
            &cdi,
            "--dev-root",
            &root,
            "--driver-root",
            &root,
            "--watch-health",
        ]
        .into_iter()
        .chain(more.iter().copied())
        .collect::<Vec<_>>(),
    )
}

#[test]
fn pods_run_on_gpushares_own_dra_driver_for_whole_gpus_and_every_mig_profile() {
    let test = "gpushare_dra";
    let Some(tools) = tools(test) else { return };
    let nvidia = NvidiaNode::new(tools, "dgx-a100");
    nvidia.apply(
        "layout.toml",
        "[[gpus]]\nselect = [0, 1, 2, 3]\nmode = \"mig\"\n\
         mig.devices = { \"1g.5gb\" = 2, \"2g.10gb\" = 1, \"3g.20gb\" = 1 }\n",
    );
    let Some(server) = ApiServer::with_scheduler(test) else {
        return;
    };
    let Some(node) = RealNode::start(test, &server, "127.0.0.1", true) else {
        return;
    };
    // gpushare's manifests for its driver: the plugin's service account, its RBAC and the
    // admission policy that keeps it to its node's slices, the classes and claim templates.
    let cluster = Cluster::connect(&server.kubeconfig);
    let generated = common::json(nvidia.gpushare().args([
        "manifests",
        "--target",
        "dra-plugin",
        "--k8s-version",
        "1.36",
        "--image",
        "gpushare=localhost/gpushare:test",
    ]));
    let generated: Vec<Value> = generated
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["kind"] != "DaemonSet" && d["kind"] != "Pod")
        .cloned()
        .collect();
    cluster.apply_documents(&generated);
    let token = nvidia.path("dra-plugin.kubeconfig");
    cluster.pod_token_kubeconfig("kube-system", "gpushare-dra-plugin", &node.name, &token);
    let mut running = plugin(&nvidia, &node, &token);

    // The slice is the node: four whole GPUs, and the 16 MIG devices, by UUID.
    let detect = nvidia.detect();
    let mut expected: BTreeMap<String, String> = BTreeMap::new();
    for g in detect["gpus"].as_array().unwrap() {
        let uuid = g["uuid"].as_str().unwrap().to_string();
        let instances = g["mig"]["instances"].as_array().unwrap();
        if instances.is_empty() {
            expected.insert(uuid, "gpu".into());
        }
        for gi in instances {
            let ci = &gi["compute_instances"][0];
            expected.insert(
                ci["uuid"].as_str().unwrap().to_string(),
                gi["profile"].as_str().unwrap().to_string(),
            );
        }
    }
    assert_eq!(expected.len(), 20);
    let devices = wait_for("gpushare's ResourceSlice", WAIT, || {
        let d = published(&server.kubeconfig, &node.name);
        (d.len() == expected.len()).then_some(d)
    });
    let got: BTreeMap<String, String> = devices
        .iter()
        .map(|d| {
            let kind = attribute(d, "type");
            let what = if kind == "mig" {
                attribute(d, "profile")
            } else {
                kind
            };
            (attribute(d, "uuid"), what)
        })
        .collect();
    assert_eq!(got, expected, "{}", running.log());
    // Its service account may publish its own node's slices only.
    let foreign = nvidia.path("foreign-slice.json");
    std::fs::write(
        &foreign,
        json!({
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": { "name": "foreign" },
            "spec": { "driver": DRIVER, "nodeName": "other-node",
                      "pool": { "name": "other-node", "generation": 1, "resourceSliceCount": 1 },
                      "devices": [] },
        })
        .to_string(),
    )
    .unwrap();
    // The API server applies a new admission policy within a moment: asked until it does.
    let said = wait_for(
        "the own-slices policy to refuse another node's slice",
        WAIT,
        || {
            let out = std::process::Command::new("kubectl")
                .env("KUBECONFIG", &token)
                .arg("create")
                .arg("-f")
                .arg(&foreign)
                .output()
                .unwrap();
            let said = String::from_utf8_lossy(&out.stderr).into_owned();
            if out.status.success() {
                let _ = std::process::Command::new("kubectl")
                    .env("KUBECONFIG", &server.kubeconfig)
                    .args(["delete", "resourceslice", "foreign"])
                    .output();
            }
            (!out.status.success()).then_some(said)
        },
    );
    assert!(
        said.contains("may publish only the ResourceSlices of the node"),
        "{said}"
    );
    // The real kubelet registers it.
    let deadline = std::time::Instant::now() + WAIT;
    while !running.log().contains("registered with the kubelet") {
        assert!(
            std::time::Instant::now() < deadline,
            "the kubelet did not register the plugin:\n{}",
            running.log()
        );
        std::thread::sleep(Duration::from_millis(200));
    }

    // A pod for a whole GPU and for each profile, through the generated templates.
    let asked = [
        ("whole", "gpu"),
        ("mig-1g", "mig-1g.5gb"),
        ("mig-2g", "mig-2g.10gb"),
        ("mig-3g", "mig-3g.20gb"),
    ];
    let mut docs = Vec::new();
    // One claim asks for five whole GPUs of the four: it waits, with the scheduler's reason.
    docs.push(json!({
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
        "metadata": { "name": "five-whole", "namespace": "default" },
        "spec": { "spec": { "devices": { "requests": [{ "name": "gpu", "exactly": {
            "deviceClassName": "gpu.gpushare.io", "count": 5 } }] } } },
    }));
    cluster.apply_documents(&docs);
    let too_many = holding_claim(
        gpu_pod("default", "five-whole", &[]),
        PodClaim::Template("five-whole"),
    );
    cluster.create_pod(too_many);
    for (name, template) in asked {
        let pod = holding_claim(gpu_pod("default", name, &[]), PodClaim::Template(template));
        cluster.create_pod(pod);
    }
    let seen = wait_for("the four pods to say what they got", WAIT, || {
        let seen: BTreeMap<&str, Seen> = asked
            .iter()
            .filter_map(|(name, _)| Some((*name, Seen::parse(&cluster.logs("default", name)?)?)))
            .collect();
        (seen.len() == asked.len()).then_some(seen)
    });
    let allocated = claim_devices_of(&server.kubeconfig);
    let by_name: BTreeMap<String, &Value> = devices
        .iter()
        .map(|d| (d["name"].as_str().unwrap().to_string(), d))
        .collect();
    let migs = mig_devices(&detect);
    for (pod, seen) in &seen {
        let device = by_name[&allocated[*pod]];
        let uuid = attribute(device, "uuid");
        let want = match migs.iter().find(|m| m.uuid == uuid) {
            Some(m) => device_nodes(m),
            None => {
                let index = device["attributes"]["index"]["int"].as_u64().unwrap();
                BTreeMap::from([
                    (format!("/dev/nvidia{index}"), (195, index as u32)),
                    ("/dev/nvidiactl".into(), (195, 255)),
                    ("/dev/nvidia-uvm".into(), (511, 0)),
                    ("/dev/nvidia-uvm-tools".into(), (511, 1)),
                ])
            }
        };
        assert_eq!(seen.devices, want, "{pod}: {}", running.log());
    }

    let why = wait_for("the five-GPU claim to be told why it waits", WAIT, || {
        cluster
            .events_of("default", "Pod", "five-whole")
            .into_iter()
            .find(|(reason, _)| reason == "FailedScheduling")
            .map(|(_, message)| message)
    });
    assert!(why.contains("cannot allocate all claims"), "{why}");

    // The kubelet's pod-resources name each claim's device: gpushare detect knows its holder.
    let held = common::json(
        nvidia
            .gpushare()
            .args(["detect", "--host-root"])
            .arg(node.host_root()),
    );
    let holders: BTreeMap<&str, &Value> = held["pods"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| h["resource"] == DRIVER)
        .map(|h| (h["pod"].as_str().unwrap(), h))
        .collect();
    assert_eq!(holders.len(), 4, "{held}");
    // Each claim's CDI spec records the claim, its device and its pod: what makes a prepared
    // claim a holder before the kubelet lists its containers.
    let records: Vec<Value> = std::fs::read_dir(node.dir.join("cdi"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains("gpu.gpushare.io-"))
        .map(|p| serde_json::from_str::<Value>(&std::fs::read_to_string(p).unwrap()).unwrap())
        .map(|spec| spec["annotations"].clone())
        .collect();
    for (pod, h) in holders {
        assert!(h["container"].is_string(), "listed by the kubelet: {h}");
        assert!(
            records
                .iter()
                .any(|r| r["gpu.gpushare.io/claim"] == h["claim"]
                    && r["gpu.gpushare.io/devices"] == allocated[pod].as_str()
                    && r["gpu.gpushare.io/pods"] == pod),
            "{h}: {records:?}"
        );
        let device = by_name[&allocated[pod]];
        assert_eq!(h["device_id"], allocated[pod].as_str(), "{h}");
        assert_eq!(h["gpu"], device["attributes"]["index"]["int"], "{h}");
        if attribute(device, "type") == "mig" {
            assert_eq!(h["mig_device"], attribute(device, "uuid").as_str(), "{h}");
        }
    }

    // Killed after the prepare and started again, the plugin keeps what it prepared: the pod
    // still runs, and its claim's spec goes when the pod does.
    let cdi = node.dir.join("cdi");
    let specs = || -> Vec<String> {
        std::fs::read_dir(&cdi)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(DRIVER))
            .collect()
    };
    assert_eq!(specs().len(), 4, "{:?}", specs());
    running.pause();
    running.resume();
    cluster.remove_pod("default", "whole");
    wait_for("the whole GPU's claim unprepared", WAIT, || {
        (specs().len() == 3).then_some(())
    });
    assert!(
        cluster
            .logs("default", "mig-1g")
            .is_some_and(|l| Seen::parse(&l).is_some()),
        "the other pods still run"
    );

    // A claim's configuration: a whole GPU time-sliced with the Long interval, shared by two
    // pods, is set through nvidia-smi as the driver's call; a configuration with an unknown
    // field fails the prepare, naming it.
    let config = |parameters: Value| json!([{ "requests": ["gpu"], "opaque": { "driver": DRIVER, "parameters": parameters } }]);
    let claim = |name: &str, parameters: Value| {
        json!({
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": { "name": name, "namespace": "default" },
            "spec": { "devices": {
                "requests": [{ "name": "gpu", "exactly": { "deviceClassName": "gpu.gpushare.io" } }],
                "config": config(parameters),
            }},
        })
    };
    cluster.apply_documents(&[
        claim(
            "sliced",
            json!({ "apiVersion": "gpu.gpushare.io/v1alpha1", "kind": "DeviceConfig",
                "sharing": { "strategy": "TimeSlicing", "timeSlicing": { "interval": "Long" } } }),
        ),
        claim(
            "misspelt",
            json!({ "apiVersion": "gpu.gpushare.io/v1alpha1", "kind": "DeviceConfig",
                "sharng": { "strategy": "TimeSlicing" } }),
        ),
    ]);
    for (pod, claim) in [
        ("sliced-a", "sliced"),
        ("sliced-b", "sliced"),
        ("misspelt", "misspelt"),
    ] {
        let p = holding_claim(gpu_pod("default", pod, &[]), PodClaim::Claim(claim));
        cluster.create_pod(p);
    }
    let shared = wait_for("the two pods sharing the time-sliced GPU", WAIT, || {
        let a = Seen::parse(&cluster.logs("default", "sliced-a")?)?;
        let b = Seen::parse(&cluster.logs("default", "sliced-b")?)?;
        Some((a, b))
    });
    assert_eq!(shared.0.devices, shared.1.devices, "one GPU, shared");
    let sliced_claim = kubectl_json(
        &server.kubeconfig,
        &["get", "resourceclaim", "-n", "default", "sliced"],
    );
    let sliced_device = sliced_claim["status"]["allocation"]["devices"]["results"][0]["device"]
        .as_str()
        .unwrap()
        .to_string();
    let calls =
        std::fs::read_to_string(nvidia.path("gpushare-plugin-calls.jsonl")).unwrap_or_default();
    let sliced_uuid = attribute(by_name[&sliced_device], "uuid");
    assert!(
        calls.lines().any(|l| l.contains("compute-policy")
            && l.contains("--set-timeslice")
            && l.contains(&sliced_uuid)
            && l.contains("\"3\"")),
        "nvidia-smi set the Long time-slice of {sliced_uuid}:\n{calls}"
    );
    // The kubelet's event on the pod whose prepare failed, saying `text`.
    let refusal = |pod: &str, text: &str| {
        wait_for(&format!("{pod}'s prepare refused"), WAIT, || {
            cluster
                .events_of("default", "Pod", pod)
                .into_iter()
                .find(|(_, m)| m.contains(text))
                .map(|(_, m)| m)
        })
    };
    let refused = refusal("misspelt", "unknown field");
    assert!(refused.contains("sharng"), "{refused}");
    for pod in ["sliced-a", "sliced-b", "misspelt"] {
        cluster.remove_pod("default", pod);
    }
    let delete_claims = |names: &[&str]| {
        let mut args = vec!["delete", "resourceclaim", "-n", "default", "--wait"];
        args.extend(names);
        kubectl(&server.kubeconfig, &args);
    };
    delete_claims(&["sliced", "misspelt"]);

    // MPS: GPU 7 gets an MPS daemon of its own through gpushare's MPS lifecycle (two clients:
    // 50% of the threads and 20480 MiB each). Two pods sharing a claim on it with MPS are its
    // clients: its pipe directory (where the daemon's state is) and their own, smaller limits;
    // asking for more than the daemon gives is refused, naming the field.
    let path = format!(
        "{}:{}",
        nvidia.stand_in_programs().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    nvidia
        .gpushare()
        .env("PATH", &path)
        .args(["mps", "start", "--gpu", "7", "--clients", "2"])
        .assert()
        .success();
    let seven = attribute(
        devices
            .iter()
            .find(|d| attribute(d, "type") == "gpu" && d["attributes"]["index"]["int"] == 7)
            .unwrap(),
        "uuid",
    );
    let mps_claim = |name: &str, mps: Value| {
        json!({
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": { "name": name, "namespace": "default" },
            "spec": { "devices": {
                "requests": [{ "name": "gpu", "exactly": {
                    "deviceClassName": "gpu.gpushare.io",
                    "selectors": [{ "cel": { "expression": format!(
                        "device.attributes['{DRIVER}'].uuid == '{seven}'") } }],
                } }],
                "config": config(json!({ "apiVersion": "gpu.gpushare.io/v1alpha1",
                    "kind": "DeviceConfig", "sharing": { "strategy": "MPS", "mps": mps } })),
            }},
        })
    };
    cluster.apply_documents(&[mps_claim(
        "mps",
        json!({ "defaultActiveThreadPercentage": 25, "defaultPinnedDeviceMemoryLimit": "10Gi" }),
    )]);
    let show_daemon = r#"f="$CUDA_MPS_PIPE_DIRECTORY/stand-in-state.json"; [ -f "$f" ] && echo "mps-state $(cat "$f")""#;
    for pod in ["mps-a", "mps-b"] {
        let p = holding_claim(
            gpu_pod_showing("default", pod, &[], show_daemon),
            PodClaim::Claim("mps"),
        );
        cluster.create_pod(p);
    }
    for pod in ["mps-a", "mps-b"] {
        let seen = wait_for(&format!("{pod} running as an MPS client"), WAIT, || {
            Seen::parse(&cluster.logs("default", pod)?)
        });
        let pipe = seen
            .env
            .get("CUDA_MPS_PIPE_DIRECTORY")
            .cloned()
            .unwrap_or_default();
        assert!(pipe.ends_with("mps/gpu7/pipe"), "{pod}: {seen:?}");
        assert_eq!(
            seen.env
                .get("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE")
                .map(String::as_str),
            Some("25"),
            "{pod}: {seen:?}"
        );
        assert_eq!(
            seen.env
                .get("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT")
                .map(String::as_str),
            Some("0=10240M"),
            "{pod}: {seen:?}"
        );
        // The daemon's own state, through the mounted pipe directory: its defaults.
        let state = seen.mps_state.clone().unwrap_or_default();
        assert_eq!(state["thread_percentage"], 50.0, "{pod}: {state}");
        assert_eq!(
            seen.devices
                .keys()
                .filter(|d| d.starts_with("/dev/nvidia") && d[11..].parse::<u32>().is_ok())
                .cloned()
                .collect::<Vec<_>>(),
            ["/dev/nvidia7"],
            "{pod}: only its GPU"
        );
    }
    cluster.apply_documents(&[mps_claim(
        "mps-greedy",
        json!({ "defaultActiveThreadPercentage": 60 }),
    )]);
    for pod in ["mps-a", "mps-b"] {
        cluster.remove_pod("default", pod);
    }
    let p = holding_claim(
        gpu_pod("default", "mps-greedy", &[]),
        PodClaim::Claim("mps-greedy"),
    );
    delete_claims(&["mps"]);
    cluster.create_pod(p);
    let refused = refusal("mps-greedy", "defaultActiveThreadPercentage");
    assert!(refused.contains("more than the 50"), "{refused}");
    cluster.remove_pod("default", "mps-greedy");
    delete_claims(&["mps-greedy"]);
    nvidia
        .gpushare()
        .env("PATH", &path)
        .args(["mps", "stop"])
        .assert()
        .success();

    // A fatal Xid on a whole GPU: exactly its device is tainted in the slice. A claim for all
    // four whole GPUs waits (three are healthy); one that tolerates the taint gets them and
    // runs. Once the GPU is reset, the taint goes.
    let whole: Vec<&Value> = devices
        .iter()
        .filter(|d| attribute(d, "type") == "gpu")
        .collect();
    let target = whole[0];
    let target_name = target["name"].as_str().unwrap().to_string();
    let index = target["attributes"]["index"]["int"].as_u64().unwrap();
    nvidia
        .gpushare()
        .args(["sim", "xid", "79", "--gpu", &index.to_string()])
        .assert()
        .success();
    let tainted = || -> Vec<(String, String)> {
        published(&server.kubeconfig, &node.name)
            .iter()
            .filter_map(|d| {
                let taint = d["taints"].as_array()?.first()?;
                Some((
                    d["name"].as_str()?.to_string(),
                    format!("{}={}:{}", taint["key"], taint["value"], taint["effect"]),
                ))
            })
            .collect()
    };
    let seen_taints = wait_for("the Xid's device tainted in the slice", WAIT, || {
        let t = tainted();
        (!t.is_empty()).then_some(t)
    });
    assert_eq!(
        seen_taints,
        [(
            target_name.clone(),
            "\"gpushare.io/unhealthy\"=\"Xid79\":\"NoSchedule\"".to_string()
        )],
        "{}",
        running.log()
    );
    let four = |name: &str, tolerate: bool| {
        let mut request = json!({ "deviceClassName": "gpu.gpushare.io", "count": 4 });
        if tolerate {
            request["tolerations"] =
                json!([{ "key": "gpushare.io/unhealthy", "operator": "Exists" }]);
        }
        cluster.apply_documents(&[json!({
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": { "name": name, "namespace": "default" },
            "spec": { "spec": { "devices": { "requests": [{ "name": "gpu", "exactly": request }] } } },
        })]);
        let pod = holding_claim(gpu_pod("default", name, &[]), PodClaim::Template(name));
        cluster.create_pod(pod);
    };
    four("four-whole", false);
    four("four-tolerating", true);
    let got = wait_for("the tolerating claim's pod to run", WAIT, || {
        Seen::parse(&cluster.logs("default", "four-tolerating")?)
    });
    assert!(
        got.devices.contains_key(&format!("/dev/nvidia{index}")),
        "{:?}\n{}",
        got.devices,
        running.log()
    );
    assert!(
        cluster
            .logs("default", "four-whole")
            .is_none_or(|l| Seen::parse(&l).is_none()),
        "a claim that does not tolerate the taint is not given the device"
    );
    let uid = allocated_uid(&server.kubeconfig, "four-tolerating");
    assert!(!uid.is_empty());
    cluster.remove_pod("default", "four-tolerating");
    wait_for("the tolerating claim unprepared", WAIT, || {
        specs().iter().all(|s| !s.contains(&uid)).then_some(())
    });
    nvidia
        .gpushare()
        .args(["recover", "--gpu", &index.to_string()])
        .assert()
        .success();
    wait_for("the taint gone after the reset", WAIT, || {
        tainted().is_empty().then_some(())
    });

    // With --evict-on-fatal, a fatal Xid taints NoExecute: the pod that now holds the four
    // whole GPUs is evicted by the controller-manager.
    // An Xid raised before the new plugin's watch listens is not heard (as NVML's events): the
    // health record names the listening watch's pid.
    let record = nvidia.path("root/var/lib/gpushare/health.json");
    let watcher = || -> Option<u64> {
        let text = std::fs::read_to_string(&record).ok()?;
        serde_json::from_str::<Value>(&text).ok()?["watch"]["pid"].as_u64()
    };
    let before = watcher();
    drop(running);
    let running = plugin_with(&nvidia, &node, &token, &["--evict-on-fatal"]);
    wait_for("the claim for four whole GPUs to run", WAIT, || {
        Seen::parse(&cluster.logs("default", "four-whole")?)
    });
    wait_for("the new plugin's health watch listening", WAIT, || {
        watcher().filter(|pid| Some(*pid) != before)
    });
    nvidia
        .gpushare()
        .args(["sim", "xid", "79", "--gpu", &index.to_string()])
        .assert()
        .success();
    wait_for("the fatal Xid's device tainted NoExecute", WAIT, || {
        (tainted()
            == [(
                target_name.clone(),
                "\"gpushare.io/unhealthy\"=\"Xid79\":\"NoExecute\"".to_string(),
            )])
        .then_some(())
    });
    wait_for("the pod on the failed GPU evicted", WAIT, || {
        let pods = cluster.pods("default");
        let gone = pods.iter().all(|p| {
            p.metadata.name.as_deref() != Some("four-whole")
                || p.metadata.deletion_timestamp.is_some()
        });
        gone.then_some(())
    });
    nvidia
        .gpushare()
        .args(["recover", "--gpu", &index.to_string()])
        .assert()
        .success();
    drop(running);
}

/// The UID of the claim a pod's template made ("" while there is none).
fn allocated_uid(kubeconfig: &std::path::Path, pod: &str) -> String {
    let list = kubectl_json(kubeconfig, &["get", "resourceclaims", "-n", "default"]);
    list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["metadata"]["ownerReferences"][0]["name"] == pod)
        .and_then(|c| c["metadata"]["uid"].as_str())
        .unwrap_or("")
        .to_string()
}

/// pod → the device its claim was allocated, for gpushare's driver.
fn claim_devices_of(kubeconfig: &std::path::Path) -> BTreeMap<String, String> {
    let list = kubectl_json(kubeconfig, &["get", "resourceclaims", "-n", "default"]);
    let mut out = BTreeMap::new();
    for claim in list["items"].as_array().into_iter().flatten() {
        let results = &claim["status"]["allocation"]["devices"]["results"];
        let (Some(device), Some(pod)) = (
            results[0]["device"].as_str(),
            claim["metadata"]["ownerReferences"][0]["name"].as_str(),
        ) else {
            continue;
        };
        assert_eq!(results[0]["driver"], DRIVER, "{claim}");
        out.insert(pod.to_string(), device.to_string());
    }
    out
}

/// The kubelet's `dra_grpc_operations_duration_seconds` histogram of NodePrepareResources for
/// one driver.
#[derive(Debug, Clone, Default)]
pub struct Prepares {
    /// (upper bound, cumulative count) in bucket order.
    buckets: Vec<(f64, f64)>,
    /// Seconds in all, and how many.
    sum: f64,
    count: f64,
}

impl Prepares {
    /// The mean of the calls between `before` and `self`: the sum is exact where the buckets
    /// are coarse.
    pub fn mean_since(&self, before: &Prepares) -> f64 {
        (self.sum - before.sum) / (self.count - before.count)
    }
}

/// The kubelet's prepare histograms, per driver.
/// (The test node's kubelet takes anonymous requests.)
pub fn prepare_histogram(node: &RealNode) -> BTreeMap<String, Prepares> {
    let config = std::fs::read_to_string(node.dir.join("kubelet-config.yaml")).unwrap();
    let port = config
        .lines()
        .find_map(|l| l.strip_prefix("port:"))
        .unwrap()
        .trim()
        .to_string();
    let out = std::process::Command::new("curl")
        .args(["-sfk", &format!("https://{}:{port}/metrics", node.name)])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut out: BTreeMap<String, Prepares> = BTreeMap::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("dra_grpc_operations_duration_seconds_") else {
            continue;
        };
        if !rest.contains("NodePrepareResources") {
            continue;
        }
        let label = |key: &str| rest.split(&format!("{key}=\"")).nth(1)?.split('"').next();
        let Some(driver) = label("driver_name") else {
            continue;
        };
        let value: f64 = line.rsplit(' ').next().unwrap().parse().unwrap();
        let prepares = out.entry(driver.to_string()).or_default();
        if rest.starts_with("sum{") {
            prepares.sum = value;
        } else if rest.starts_with("count{") {
            prepares.count = value;
        } else if let Some(le) = label("le") {
            let le: f64 = if le == "+Inf" {
                f64::INFINITY
            } else {
                le.parse().unwrap()
            };
            prepares.buckets.push((le, value));
        }
    }
    out
}

/// The bucket bound under which `q` of the calls between `before` and `after` fell.
fn quantile(before: &[(f64, f64)], after: &[(f64, f64)], q: f64) -> f64 {
    let counts: Vec<(f64, f64)> = after
        .iter()
        .map(|(le, n)| {
            let was = before
                .iter()
                .find(|(l, _)| l == le)
                .map_or(0.0, |(_, n)| *n);
            (*le, n - was)
        })
        .collect();
    let total = counts.last().map_or(0.0, |(_, n)| *n);
    counts
        .iter()
        .find(|(_, n)| *n >= q * total)
        .map_or(f64::NAN, |(le, _)| *le)
}

/// bench/dra-drivers.sh: gpushare's DRA driver and NVIDIA's on one real node, the same 56
/// 1g.5gb MIG devices of a simulated DGX A100 published by each. For each driver, 8 claims one
/// after the other, then 32 at once: the prepare latency p50 and p99 as the kubelet's own
/// `dra_grpc_operations_duration_seconds` records it, and claim created → container running;
/// then how long gpushare's slice takes to follow a MIG change.
#[test]
#[ignore = "a benchmark: bench/dra-drivers.sh runs it"]
fn bench_prepare_latency_of_gpushares_driver_and_nvidias() {
    let test = "gpushare_dra::bench";
    let Some(tools) = tools(test) else { return };
    let Some(program) = common::dra_plugin::program(test) else {
        return;
    };
    let nvidia = NvidiaNode::new(tools, "dgx-a100");
    nvidia.mig_apply("all-1g.5gb");
    let Some(server) = ApiServer::with_scheduler(test) else {
        return;
    };
    let Some(node) = RealNode::start(test, &server, "127.0.0.1", true) else {
        return;
    };
    let cluster = Cluster::connect(&server.kubeconfig);
    let _theirs = common::dra_plugin::DraPlugin::start(&nvidia, &node, &program, &[]);
    let ours = plugin(&nvidia, &node, &node.dir.join("kubeconfig"));
    let drivers = [("nvidia", "gpu.nvidia.com"), ("gpushare", DRIVER)];
    let mut docs = Vec::new();
    for (short, driver) in drivers {
        docs.push(json!({
            "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
            "metadata": { "name": format!("bench-{short}") },
            "spec": { "selectors": [{ "cel": { "expression": format!(
                "device.driver == '{driver}' && device.attributes['{driver}'].profile == '1g.5gb'"
            )}}]},
        }));
        docs.push(json!({
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": { "name": format!("bench-{short}"), "namespace": "default" },
            "spec": { "spec": { "devices": { "requests": [{ "name": "gpu", "exactly": {
                "deviceClassName": format!("bench-{short}") } }] } } },
        }));
    }
    cluster.apply_documents(&docs);
    wait_for("both drivers' 56 devices", WAIT, || {
        let theirs = common::dra_plugin::slices(&server.kubeconfig, &node.name).len();
        let mine = published(&server.kubeconfig, &node.name).len();
        (theirs == 56 && mine == 56).then_some(())
    });
    // `n` pods at once through `short`'s template: each one's claim created → running.
    let run = |short: &str, round: &str, n: usize| -> Vec<f64> {
        let names: Vec<String> = (0..n).map(|i| format!("{short}-{round}-{i}")).collect();
        let started = std::time::Instant::now();
        for name in &names {
            let template = format!("bench-{short}");
            let pod = holding_claim(gpu_pod("default", name, &[]), PodClaim::Template(&template));
            cluster.create_pod(pod);
        }
        let mut took: BTreeMap<String, f64> = BTreeMap::new();
        wait_for(&format!("{n} {short} pods running"), WAIT, || {
            for name in cluster.pods_in_phase("default", "Running") {
                if names.contains(&name) {
                    took.entry(name)
                        .or_insert_with(|| started.elapsed().as_secs_f64());
                }
            }
            (took.len() == n).then_some(())
        });
        for name in &names {
            cluster.remove_pod("default", name);
        }
        wait_for("the pods gone", WAIT, || {
            cluster.pods("default").is_empty().then_some(())
        });
        took.into_values().collect()
    };
    let p = |mut v: Vec<f64>, q: f64| {
        v.sort_by(f64::total_cmp);
        v[((v.len() as f64 * q).ceil() as usize).clamp(1, v.len()) - 1]
    };
    for (short, driver) in drivers {
        for (round, n, times) in [("one", 1, 8), ("burst", 32, 1)] {
            let before = prepare_histogram(&node);
            let mut running = Vec::new();
            for t in 0..times {
                running.extend(run(short, &format!("{round}{t}"), n));
            }
            let after = prepare_histogram(&node);
            let (b, a) = (
                before.get(driver).cloned().unwrap_or_default(),
                after.get(driver).cloned().unwrap_or_default(),
            );
            println!(
                "{short:9} {n:2} claim(s) at once: prepare p50 <= {:.3} s, p99 <= {:.3} s (kubelet's buckets), mean {:.4} s (its sum); created -> running p50 {:.2} s, max {:.2} s",
                quantile(&b.buckets, &a.buckets, 0.5),
                quantile(&b.buckets, &a.buckets, 0.99),
                a.mean_since(&b),
                p(running.clone(), 0.5),
                p(running, 1.0),
            );
        }
    }
    // gpushare's slice after a MIG change: GPU 7 to 7 1g.5gb → one 7g.40gb.
    nvidia.apply(
        "one.toml",
        "[[gpus]]\nselect = [7]\nmode = \"mig\"\nmig.devices = { \"7g.40gb\" = 1 }\n",
    );
    let changed = std::time::Instant::now();
    wait_for("gpushare's slice to follow", WAIT, || {
        (published(&server.kubeconfig, &node.name).len() == 50).then_some(())
    });
    println!(
        "gpushare's slice republished {:.2} s after the MIG change (polled every 0.1 s through kubectl)",
        changed.elapsed().as_secs_f64()
    );
    drop(ours);
}
