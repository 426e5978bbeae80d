//! Which pod and container hold which GPU or MIG device: the kubelet's pod-resources API
//! (`v1.PodResourcesLister/List`, compiled from `proto/podresources/v1/api.proto`) on its
//! socket, with each device ID the device plugin gave, and each device a DRA claim got from
//! NVIDIA's DRA driver, matched to this node's devices.
//!
//! The answer is what the kubelet allocated, not a guess from resource names: a pod holds the
//! devices whose IDs it was given. An absent socket or a refusing kubelet makes the holders
//! unknown, said as such; it never fails the command that asked.

use crate::cluster::dra_plugin::DRIVER;
use crate::cluster::dra_plugin::record::{self, PreparedClaim};
use crate::node::model::Node;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

mod api {
    //! `k8s.io/kubelet/pkg/apis/podresources/v1`, the client side.
    #![allow(unreachable_pub, clippy::all)]
    tonic::include_proto!("v1");
}

/// NVIDIA's DRA driver, whose devices are this node's GPUs and MIG devices.
const NVIDIA_DRA_DRIVER: &str = "gpu.nvidia.com";

/// Where the kubelet serves pod-resources, under the host's root.
const SOCKET: &str = "var/lib/kubelet/pod-resources/kubelet.sock";
/// The kubelet answers at once or not at all.
const TIMEOUT: Duration = Duration::from_secs(5);

/// One device a container holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct PodDevice {
    pub namespace: String,
    pub pod: String,
    /// None for a claim gpushare's driver prepared whose pod's containers the kubelet has not
    /// listed yet: the claim holds the device from its prepare on.
    pub container: Option<String>,
    /// The extended resource it was allocated as (`nvidia.com/mig-1g.10gb`); for a DRA claim,
    /// the driver (`gpu.nvidia.com`).
    pub resource: String,
    /// The ID the device plugin advertised (a UUID, with `::N` for a shared replica); for a DRA
    /// claim, the driver's device name (`gpu-0-mig-1g5gb-19-2`).
    pub device_id: String,
    /// The DRA claim (`namespace/name`) it was allocated through.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim: Option<String>,
    /// The GPU it is or is on; None when the ID names no GPU of this node.
    pub gpu: Option<u32>,
    /// The MIG device's UUID, when it is one.
    pub mig_device: Option<String>,
}

/// What pod-resources said, or why nothing could be read.
#[derive(Debug)]
pub(crate) enum Holders {
    Known(Vec<PodDevice>),
    /// No kubelet socket there: not a Kubernetes node, or the kubelet is down.
    NoSocket(PathBuf),
    /// The kubelet was there and did not answer.
    Refused(PathBuf, String),
}

/// The host root whose kubelet is asked: the one given, else `/` on a real node; a simulated
/// node's devices are not this host's kubelet's, so it is asked only when given.
pub(crate) fn host_root(given: Option<&Path>, simulated: bool) -> Option<PathBuf> {
    match given {
        Some(root) => Some(root.to_path_buf()),
        None if simulated => None,
        None => Some(PathBuf::from("/")),
    }
}

/// The devices held on `node` according to the kubelet whose root is `root` (`/` on a node).
pub(crate) fn read(node: &Node, root: &Path) -> Holders {
    let socket = root.join(SOCKET);
    if !socket.exists() {
        return Holders::NoSocket(socket);
    }
    let held = match list(&socket) {
        Ok(held) => held,
        Err(why) => return Holders::Refused(socket, why),
    };
    let cdi = root.join(record::CDI_DIR);
    let prepared = match record::prepared_claims(&cdi) {
        Ok(prepared) => prepared,
        Err(why) => return Holders::Refused(cdi, why),
    };
    let minors = crate::node::model::minor::minors(node, root);
    Holders::Known(
        with_prepared(held, &prepared)
            .into_iter()
            .filter_map(|h| matched(node, &minors, h))
            .collect(),
    )
}

/// The kubelet's allocations, and the devices of each claim gpushare's driver prepared that
/// the kubelet does not list yet (its pod's containers not made): held from the prepare on, by
/// the pods the claim was reserved for.
fn with_prepared(mut held: Vec<Allocation>, prepared: &[PreparedClaim]) -> Vec<Allocation> {
    let listed: BTreeSet<String> = held.iter().filter_map(|a| a.claim.clone()).collect();
    for c in prepared {
        let claim = format!("{}/{}", c.namespace, c.name);
        if listed.contains(&claim) {
            continue;
        }
        let pods = if c.pods.is_empty() {
            vec!["?".to_string()]
        } else {
            c.pods.clone()
        };
        for pod in pods {
            for device in &c.devices {
                held.push(Allocation {
                    namespace: c.namespace.clone(),
                    pod: pod.clone(),
                    container: None,
                    resource: DRIVER.to_string(),
                    device_id: device.clone(),
                    claim: Some(claim.clone()),
                });
            }
        }
    }
    held
}

/// One device the kubelet allocated a container: a device plugin's, or a DRA claim's.
struct Allocation {
    namespace: String,
    pod: String,
    container: Option<String>,
    resource: String,
    device_id: String,
    claim: Option<String>,
}

fn list(socket: &Path) -> Result<Vec<Allocation>, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let socket = socket.to_path_buf();
    runtime.block_on(async {
        let call = async {
            let channel = tonic::transport::Endpoint::from_static("http://localhost")
                .connect_with_connector(tower::service_fn(move |_: tonic::transport::Uri| {
                    let socket = socket.clone();
                    async move {
                        let stream = tokio::net::UnixStream::connect(socket).await?;
                        Ok::<_, std::io::Error>(hyper_util::rt::TokioIo::new(stream))
                    }
                }))
                .await
                .map_err(|e| format!("cannot connect: {e}"))?;
            let mut client =
                api::pod_resources_lister_client::PodResourcesListerClient::new(channel);
            client
                .list(api::ListPodResourcesRequest {})
                .await
                .map_err(|e| format!("List: {}", e.message()))
        };
        let answer = tokio::time::timeout(TIMEOUT, call)
            .await
            .map_err(|_| format!("no answer in {} s", TIMEOUT.as_secs()))??;
        let mut out = Vec::new();
        for pod in answer.into_inner().pod_resources {
            for container in pod.containers {
                let held = |resource: &str, device_id: String, claim: Option<String>| Allocation {
                    namespace: pod.namespace.clone(),
                    pod: pod.name.clone(),
                    container: Some(container.name.clone()),
                    resource: resource.to_string(),
                    device_id,
                    claim,
                };
                for devices in &container.devices {
                    for id in &devices.device_ids {
                        out.push(held(&devices.resource_name, id.clone(), None));
                    }
                }
                for dynamic in &container.dynamic_resources {
                    let claim = format!("{}/{}", dynamic.claim_namespace, dynamic.claim_name);
                    for device in &dynamic.claim_resources {
                        out.push(held(
                            &device.driver_name,
                            device.device_name.clone(),
                            Some(claim.clone()),
                        ));
                    }
                }
            }
        }
        Ok(out)
    })
}

/// The device an allocation names on this node. A device plugin's ID: by UUID (a GPU's or a
/// MIG device's, a shared replica's `::N` aside) or, with the plugin's `index` ID strategy, a
/// GPU's index. A DRA claim's device: by the name gpushare's DRA driver or NVIDIA's gave it
/// ([`dra_device`]). Devices of other plugins and drivers are not GPUs and are left out; an
/// NVIDIA device that names nothing here is kept, unmatched.
fn matched(node: &Node, minors: &BTreeMap<u32, u32>, a: Allocation) -> Option<PodDevice> {
    let (gpu, mig_device) = if a.claim.is_some() {
        if a.resource == DRIVER {
            // gpushare's own driver: its names, as it publishes the node now.
            let offered = crate::cluster::dra_plugin::devices::devices(node).unwrap_or_default();
            offered
                .into_iter()
                .find(|d| d.name == a.device_id)
                .map_or((None, None), |d| (Some(d.gpu), d.mig.map(|_| d.uuid)))
        } else if a.resource == NVIDIA_DRA_DRIVER {
            dra_device(node, minors, &a.device_id).map_or((None, None), |(g, m)| (Some(g), m))
        } else {
            return None;
        }
    } else {
        let id = a.device_id.split("::").next().unwrap_or(&a.device_id);
        let mut found = (None, None);
        for g in &node.gpus {
            if g.uuid == id || id.parse::<u32>() == Ok(g.index) {
                found = (Some(g.index), None);
            } else if g.mig_device(id).is_some() {
                found = (Some(g.index), Some(id.to_string()));
            }
        }
        if found.0.is_none() && !a.resource.starts_with("nvidia.com/") {
            return None;
        }
        found
    };
    Some(PodDevice {
        namespace: a.namespace,
        pod: a.pod,
        container: a.container,
        resource: a.resource,
        device_id: a.device_id,
        gpu,
        mig_device,
        claim: a.claim,
    })
}

/// (GPU index, MIG device UUID) of a device NVIDIA's DRA driver names `gpu-<minor>` or
/// `gpu-<minor>-mig-<profile>-<GI profile id>-<placement start>`; None when nothing here is
/// that device (a MIG device is matched only with its UUID known).
fn dra_device(
    node: &Node,
    minors: &BTreeMap<u32, u32>,
    name: &str,
) -> Option<(u32, Option<String>)> {
    let rest = name.strip_prefix("gpu-")?;
    let (minor, mig) = match rest.split_once("-mig-") {
        Some((minor, mig)) => (minor, Some(mig)),
        None => (rest, None),
    };
    let minor: u32 = minor.parse().ok()?;
    let gpu = node
        .gpus
        .iter()
        .find(|g| minors.get(&g.index) == Some(&minor))?;
    let Some(mig) = mig else {
        return Some((gpu.index, None));
    };
    // The profile's own part comes first and may hold dashes; the numbers are last.
    let mut numbers = mig.rsplitn(3, '-');
    let start: u32 = numbers.next()?.parse().ok()?;
    let profile_id: u32 = numbers.next()?.parse().ok()?;
    let gi = gpu
        .mig
        .instances
        .iter()
        .flatten()
        .find(|gi| gi.profile_id == profile_id && gi.placement.start == start)?;
    let uuid = gi.compute_instances.first()?.uuid.clone()?;
    Some((gpu.index, Some(uuid)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::backend::Backend;
    use crate::node::backend::sim::SimBackend;

    /// A DGX A100 with a 3g.20gb at placement 4 on GPU 1 (the driver's name
    /// `gpu-1-mig-3g20gb-9-4`), and its MIG UUID.
    fn node() -> (Node, String) {
        let sim = SimBackend::from_preset("dgx-a100").unwrap();
        sim.set_mig_mode(1, crate::node::model::MigMode::Enabled)
            .unwrap();
        let at = crate::node::model::Placement { start: 4, size: 4 };
        let gi = sim.create_gpu_instance(1, 9, at).unwrap();
        sim.create_compute_instance(1, gi, 2).unwrap();
        let node = sim.snapshot().unwrap();
        let uuid = node.gpus[1].mig.instances.as_ref().unwrap()[0].compute_instances[0]
            .uuid
            .clone()
            .unwrap();
        (node, uuid)
    }

    fn claim(driver: &str, device: &str) -> Allocation {
        Allocation {
            namespace: "ml".into(),
            pod: "train".into(),
            container: Some("main".into()),
            resource: driver.into(),
            device_id: device.into(),
            claim: Some("ml/train-gpu".into()),
        }
    }

    #[test]
    fn dra_devices_are_matched_by_the_names_nvidias_driver_gives_them() {
        let (node, uuid) = node();
        let minors: BTreeMap<u32, u32> = node.gpus.iter().map(|g| (g.index, g.index)).collect();
        let held = |device: &str| {
            let d = matched(&node, &minors, claim(NVIDIA_DRA_DRIVER, device)).unwrap();
            (d.gpu, d.mig_device)
        };
        assert_eq!(held("gpu-1-mig-3g20gb-9-4"), (Some(1), Some(uuid)));
        assert_eq!(held("gpu-3"), (Some(3), None));
        // Nothing here at that placement, profile or minor: kept, unmatched (a lost device).
        assert_eq!(held("gpu-1-mig-3g20gb-9-0"), (None, None));
        assert_eq!(held("gpu-1-mig-1g5gb-19-4"), (None, None));
        assert_eq!(held("gpu-9"), (None, None));
        assert_eq!(held("gpu-vfio-1"), (None, None));
        // Another driver's devices are not GPUs.
        assert!(matched(&node, &minors, claim("example.com/fpga", "gpu-1")).is_none());
    }

    #[test]
    fn a_prepared_claim_holds_its_devices_until_the_kubelet_lists_its_pod() {
        let prepared = |name: &str, pods: &[&str]| PreparedClaim {
            namespace: "ml".into(),
            name: name.into(),
            devices: vec!["gpu-0".into(), "gpu-1".into()],
            pods: pods.iter().map(|p| p.to_string()).collect(),
        };
        let listed = claim(DRIVER, "gpu-0");
        let held = with_prepared(
            vec![listed],
            &[
                prepared("train-gpu", &["train"]),
                prepared("new", &["a", "b"]),
            ],
        );
        // The listed claim once, as the kubelet says; the new one for each pod and device,
        // without a container yet.
        let seen: Vec<(&str, &str, Option<&str>, &str)> = held
            .iter()
            .map(|a| {
                (
                    a.claim.as_deref().unwrap(),
                    a.pod.as_str(),
                    a.container.as_deref(),
                    a.device_id.as_str(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                ("ml/train-gpu", "train", Some("main"), "gpu-0"),
                ("ml/new", "a", None, "gpu-0"),
                ("ml/new", "a", None, "gpu-1"),
                ("ml/new", "b", None, "gpu-0"),
                ("ml/new", "b", None, "gpu-1"),
            ]
        );
        let unreserved = with_prepared(Vec::new(), &[prepared("c", &[])]);
        assert!(unreserved.iter().all(|a| a.pod == "?"));
    }

    #[test]
    fn dra_names_follow_the_driver_s_minors_not_the_indices() {
        let (node, uuid) = node();
        // The driver numbered GPU 1 as minor 5.
        let minors: BTreeMap<u32, u32> = [(0, 4), (1, 5)].into();
        let d = matched(
            &node,
            &minors,
            claim(NVIDIA_DRA_DRIVER, "gpu-5-mig-3g20gb-9-4"),
        )
        .unwrap();
        assert_eq!((d.gpu, d.mig_device), (Some(1), Some(uuid)));
        let d = matched(&node, &minors, claim(NVIDIA_DRA_DRIVER, "gpu-1")).unwrap();
        assert_eq!(d.gpu, None);
    }

    #[test]
    fn gpushares_own_drivers_devices_are_matched_by_its_names() {
        let (node, uuid) = node();
        let minors = BTreeMap::new();
        let held = |device: &str| {
            let d = matched(
                &node,
                &minors,
                claim(crate::cluster::dra_plugin::DRIVER, device),
            )
            .unwrap();
            (d.gpu, d.mig_device)
        };
        assert_eq!(held("gpu-1-mig-3g20gb-4"), (Some(1), Some(uuid)));
        assert_eq!(held("gpu-3"), (Some(3), None));
        assert_eq!(
            held("gpu-1"),
            (None, None),
            "GPU 1 is in MIG mode: no whole device"
        );
    }
}
