//! The kubelet's side of one registered plugin: dial its socket, read its options, follow its
//! `ListAndWatch` stream, and call `Allocate` and `GetPreferredAllocation`.

use crate::Shared;
use crate::api::deviceplugin::device_plugin_client::DevicePluginClient;
use crate::api::deviceplugin::{
    AllocateRequest, ContainerAllocateRequest, ContainerAllocateResponse,
    ContainerPreferredAllocationRequest, Device, DevicePluginOptions, Empty,
    PreferredAllocationRequest,
};
use hyper_util::rt::TokioIo;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tonic::transport::{Channel, Endpoint, Uri};

/// The health a device is advertised with when it can be allocated (`pluginapi.Healthy`).
pub const HEALTHY: &str = "Healthy";

/// What a plugin has told the kubelet.
#[derive(Debug, Clone, Default)]
pub struct Plugin {
    /// Its socket's name in the device-plugin directory.
    pub endpoint: String,
    /// The options it answered `GetDevicePluginOptions` with.
    pub options: DevicePluginOptions,
    /// Its devices as its latest `ListAndWatch` answer lists them.
    pub devices: Vec<Device>,
    /// How many `ListAndWatch` answers came.
    pub lists: usize,
    /// Why the stream ended, once it has.
    pub ended: Option<String>,
}

impl Plugin {
    /// The IDs of its healthy devices.
    pub fn healthy(&self) -> Vec<String> {
        self.devices
            .iter()
            .filter(|d| d.health == HEALTHY)
            .map(|d| d.id.clone())
            .collect()
    }
}

/// A plugin the kubelet is connected to.
pub(crate) struct Connected {
    /// Which connection this is: a stream that a newer registration replaced writes nothing.
    connection: u64,
    seen: Plugin,
    client: DevicePluginClient<Channel>,
}

impl Connected {
    pub(crate) fn view(&self) -> Plugin {
        self.seen.clone()
    }

    pub(crate) fn client(&self) -> DevicePluginClient<Channel> {
        self.client.clone()
    }

    /// The devices that can be allocated: healthy, while the plugin's stream lasts (a plugin
    /// that went away leaves its devices in the capacity but none allocatable).
    pub(crate) fn allocatable(&self) -> Vec<String> {
        match self.seen.ended {
            Some(_) => vec![],
            None => self.seen.healthy(),
        }
    }

    /// The kubelet allocates only devices the plugin advertised as healthy.
    pub(crate) fn check_allocatable(&self, ids: &[String]) -> Result<(), String> {
        let healthy = self.allocatable();
        match ids.iter().find(|id| !healthy.contains(id)) {
            Some(id) => Err(format!(
                "{id} is not a healthy device of the plugin at {} (healthy: {healthy:?})",
                self.seen.endpoint
            )),
            None => Ok(()),
        }
    }
}

/// A channel to a Unix socket (the URI is a placeholder; the connector ignores it).
pub(crate) async fn dial(socket: PathBuf) -> Result<Channel, tonic::transport::Error> {
    Endpoint::from_static("http://[::1]:1")
        .connect_timeout(Duration::from_secs(5))
        .connect_with_connector(tower::service_fn(move |_: Uri| {
            let socket = socket.clone();
            async move {
                let stream = tokio::net::UnixStream::connect(socket).await?;
                Ok::<_, std::io::Error>(TokioIo::new(stream))
            }
        }))
        .await
}

/// A plugin dialled and asked for its options, before its registration is answered.
pub(crate) struct Dialled {
    endpoint: String,
    client: DevicePluginClient<Channel>,
    options: DevicePluginOptions,
}

pub(crate) async fn connect(socket: &std::path::Path) -> Result<Dialled, String> {
    let endpoint = socket
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let channel = dial(socket.to_path_buf())
        .await
        .map_err(|e| format!("cannot dial {}: {e}", socket.display()))?;
    let mut client = DevicePluginClient::new(channel);
    let options = client
        .get_device_plugin_options(Empty {})
        .await
        .map_err(|e| format!("GetDevicePluginOptions: {e}"))?
        .into_inner();
    Ok(Dialled {
        endpoint,
        client,
        options,
    })
}

/// Follow the devices of the plugin that registered `resource` until its stream ends. A later
/// registration of the same resource replaces this one.
pub(crate) async fn follow(shared: Arc<Shared>, resource: String, plugin: Dialled) {
    let Dialled {
        endpoint,
        mut client,
        options,
    } = plugin;
    static CONNECTIONS: AtomicU64 = AtomicU64::new(0);
    let connection = CONNECTIONS.fetch_add(1, Ordering::Relaxed);
    shared.update(|k| {
        k.plugins.insert(
            resource.clone(),
            Connected {
                connection,
                seen: Plugin {
                    endpoint: endpoint.clone(),
                    options,
                    ..Plugin::default()
                },
                client: client.clone(),
            },
        );
    });
    // Only the resource's current connection writes what it sees.
    let note = |f: &dyn Fn(&mut Plugin)| {
        shared.update(|k| {
            if let Some(c) = k.plugins.get_mut(&resource)
                && c.connection == connection
            {
                f(&mut c.seen);
            }
        });
    };
    let mut stream = match client.list_and_watch(Empty {}).await {
        Ok(s) => s.into_inner(),
        Err(e) => return note(&|seen| seen.ended = Some(format!("ListAndWatch: {e}"))),
    };
    loop {
        match stream.message().await {
            Ok(Some(answer)) => note(&|seen| {
                seen.devices = answer.devices.clone();
                seen.lists += 1;
            }),
            Ok(None) => {
                return note(&|seen| seen.ended = Some("the plugin closed ListAndWatch".into()));
            }
            Err(e) => return note(&|seen| seen.ended = Some(format!("ListAndWatch: {e}"))),
        }
    }
}

pub(crate) async fn allocate(
    mut client: DevicePluginClient<Channel>,
    ids: &[String],
) -> Result<ContainerAllocateResponse, String> {
    let answer = client
        .allocate(AllocateRequest {
            container_requests: vec![ContainerAllocateRequest {
                devices_ids: ids.to_vec(),
            }],
        })
        .await
        .map_err(|e| format!("Allocate {ids:?}: {e}"))?
        .into_inner();
    let mut responses = answer.container_responses;
    if responses.len() != 1 {
        return Err(format!(
            "Allocate {ids:?}: {} container responses for one container",
            responses.len()
        ));
    }
    Ok(responses.remove(0))
}

pub(crate) async fn preferred_allocation(
    mut client: DevicePluginClient<Channel>,
    available: &[String],
    must_include: &[String],
    size: i32,
) -> Result<Vec<String>, String> {
    let answer = client
        .get_preferred_allocation(PreferredAllocationRequest {
            container_requests: vec![ContainerPreferredAllocationRequest {
                available_device_i_ds: available.to_vec(),
                must_include_device_i_ds: must_include.to_vec(),
                allocation_size: size,
            }],
        })
        .await
        .map_err(|e| format!("GetPreferredAllocation: {e}"))?
        .into_inner();
    match answer.container_responses.as_slice() {
        [one] => Ok(one.device_i_ds.clone()),
        other => Err(format!(
            "GetPreferredAllocation: {} container responses for one container",
            other.len()
        )),
    }
}
