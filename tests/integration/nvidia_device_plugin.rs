//! NVIDIA's device plugin on the NVML stand-in, strict, after `gpushare mig apply`, with the
//! config and container environment `gpushare manifests --target nvidia-device-plugin`
//! generated, on a real node with its `cdi-cri` device-list strategy: the plugin writes a CDI
//! spec from what NVML says and a driver root whose device nodes match the simulated node, the
//! kubelet passes the CDI names to containerd, and each container has exactly the device nodes
//! of its own MIG device: its GPU's `/dev/nvidiaN` and the `nvidia-caps` nodes of its GPU and
//! compute instance (minors from the driver's `mig-minors`), and no other GPU's.

use crate::common;
use common::api_server::ApiServer;
use common::cluster::{Cluster, wait_for};
use common::device_plugin::{DevicePlugin, MigDevice, device_nodes, generated, mig_devices};
use common::nvidia_tools::{NvidiaNode, tools};
use common::real_node::{RealNode, Seen, driver_root, gpu_pod};
use std::collections::BTreeMap;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(180);

#[test]
fn each_container_gets_exactly_its_mig_devices_nodes_through_cdi() {
    let test = "nvidia_device_plugin::cdi";
    let Some(tools) = tools(test) else { return };
    let nvidia = NvidiaNode::new(tools, "dgx-h100");
    nvidia.mig_apply("all-balanced");
    let (config, env, parsed) = generated(&nvidia, &[]);
    assert_eq!(parsed["flags"]["migStrategy"], "mixed");
    let Some(server) = ApiServer::with_scheduler(test) else {
        return;
    };
    let Some(node) = RealNode::start(test, &server, "127.0.0.1", true) else {
        return;
    };
    let cluster = Cluster::connect(&server.kubeconfig);
    let root = driver_root(&nvidia);
    let root = root.to_str().unwrap();
    let plugin = DevicePlugin::start(
        &nvidia,
        &node,
        &config,
        &env,
        &[
            "--device-list-strategy=cdi-cri",
            &format!("--driver-root={root}"),
            &format!("--dev-root={root}"),
            &format!("--driver-root-ctr-path={root}"),
            "--cdi-disable-hooks=all",
        ],
    );
    let devices = mig_devices(&nvidia.detect());
    assert_eq!(devices.len(), 32);
    // One pod per MIG device, of its profile.
    let mut per_profile: BTreeMap<String, usize> = BTreeMap::new();
    for d in &devices {
        *per_profile.entry(d.profile.clone()).or_default() += 1;
    }
    wait_for("the Node to advertise every MIG device", WAIT, || {
        let allocatable = cluster.node(&node.name).status?.allocatable?;
        per_profile
            .iter()
            .all(|(p, n)| {
                allocatable
                    .get(&format!("nvidia.com/mig-{p}"))
                    .is_some_and(|q| q.0 == n.to_string())
            })
            .then_some(())
    });
    let mut i = 0;
    for (profile, n) in &per_profile {
        for _ in 0..*n {
            let resource = format!("nvidia.com/mig-{profile}");
            cluster.create_pod(gpu_pod("default", &format!("mig-{i}"), &[(&resource, 1)]));
            i += 1;
        }
    }
    let seen: BTreeMap<String, Seen> =
        wait_for("every pod to run and say what it got", WAIT, || {
            let seen: BTreeMap<String, Seen> = cluster
                .pods_in_phase("default", "Running")
                .into_iter()
                .filter_map(|p| Some((p.clone(), Seen::parse(&cluster.logs("default", &p)?)?)))
                .collect();
            (seen.len() == devices.len()).then_some(seen)
        });
    // Which device each pod holds: the real kubelet's pod-resources, through gpushare.
    let detect = common::json(
        nvidia
            .gpushare()
            .args(["detect", "--host-root"])
            .arg(node.host_root()),
    );
    let held = detect["pods"].as_array().expect("pods known");
    assert_eq!(held.len(), devices.len(), "{held:#?}\n{}", plugin.log());
    let mut by_pod: BTreeMap<String, &MigDevice> = BTreeMap::new();
    for h in held {
        let d = devices
            .iter()
            .find(|d| d.uuid == h["device_id"].as_str().unwrap())
            .unwrap_or_else(|| panic!("{h} holds no MIG device of the node"));
        by_pod.insert(h["pod"].as_str().unwrap().to_string(), d);
    }
    for (pod, got) in &seen {
        let d = by_pod[pod];
        assert_eq!(got.devices, device_nodes(d), "{pod} holds {d:?}");
        // CDI's own variable replaces the plugin's: the nodes are the container's devices.
        assert_eq!(got.visible(), ["void"], "{pod}: {got:?}");
    }
    // The check can fail: a pod on another GPU would have been told apart.
    let (a, b) = (
        &devices[0],
        devices.iter().find(|d| d.gpu != devices[0].gpu).unwrap(),
    );
    assert_ne!(device_nodes(a), device_nodes(b));
}
