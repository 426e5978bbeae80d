//! Which pod and container hold which GPU or MIG device: the kubelet's pod-resources API
//! (`v1.PodResourcesLister/List`, compiled from `proto/podresources/v1/api.proto`) on its
//! socket, with each device ID the device plugin gave matched to this node's devices.
//!
//! The answer is what the kubelet allocated, not a guess from resource names: a pod holds the
//! devices whose IDs it was given. An absent socket or a refusing kubelet makes the holders
//! unknown, said as such; it never fails the command that asked.

use crate::node::Node;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

mod api {
    //! `k8s.io/kubelet/pkg/apis/podresources/v1`, the client side.
    #![allow(unreachable_pub, clippy::all)]
    tonic::include_proto!("v1");
}

/// Where the kubelet serves pod-resources, under the host's root.
const SOCKET: &str = "var/lib/kubelet/pod-resources/kubelet.sock";
/// The kubelet answers at once or not at all.
const TIMEOUT: Duration = Duration::from_secs(5);

/// One device a container holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct PodDevice {
    pub namespace: String,
    pub pod: String,
    pub container: String,
    /// The extended resource it was allocated as (`nvidia.com/mig-1g.10gb`).
    pub resource: String,
    /// The ID the device plugin advertised (a UUID, with `::N` for a shared replica).
    pub device_id: String,
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
    match list(&socket) {
        Ok(held) => Holders::Known(held.into_iter().filter_map(|h| matched(node, h)).collect()),
        Err(why) => Holders::Refused(socket, why),
    }
}

/// (namespace, pod, container, resource, device ID) of every device the kubelet allocated.
type Allocation = (String, String, String, String, String);

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
                for devices in container.devices {
                    for id in devices.device_ids {
                        out.push((
                            pod.namespace.clone(),
                            pod.name.clone(),
                            container.name.clone(),
                            devices.resource_name.clone(),
                            id,
                        ));
                    }
                }
            }
        }
        Ok(out)
    })
}

/// The device an allocation names on this node: by UUID (a GPU's or a MIG device's, a shared
/// replica's `::N` aside) or, with the plugin's `index` ID strategy, a GPU's index. Devices of
/// other plugins are not GPUs and are left out; an NVIDIA ID that names nothing here is kept,
/// unmatched.
fn matched(
    node: &Node,
    (namespace, pod, container, resource, device_id): Allocation,
) -> Option<PodDevice> {
    let id = device_id.split("::").next().unwrap_or(&device_id);
    let mut gpu = None;
    let mut mig_device = None;
    for g in &node.gpus {
        if g.uuid == id || id.parse::<u32>() == Ok(g.index) {
            gpu = Some(g.index);
        } else if g.mig_device(id).is_some() {
            gpu = Some(g.index);
            mig_device = Some(id.to_string());
        }
    }
    if gpu.is_none() && !resource.starts_with("nvidia.com/") {
        return None;
    }
    Some(PodDevice {
        namespace,
        pod,
        container,
        resource,
        device_id,
        gpu,
        mig_device,
    })
}
