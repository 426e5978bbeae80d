//! The stand-in kubelet with a plugin of its own making: registrations the kubelet refuses are
//! refused with its reasons, and a plugin's devices and health changes are followed and
//! allocated from as the kubelet's device manager does.

use crate::Kubelet;
use crate::api::deviceplugin::device_plugin_server::{DevicePlugin, DevicePluginServer};
use crate::api::deviceplugin::registration_client::RegistrationClient;
use crate::api::deviceplugin::*;
use std::time::Duration;
use tokio::sync::{mpsc, watch};
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

/// A plugin whose devices the test changes.
struct Fake {
    devices: watch::Receiver<Vec<Device>>,
}

#[tonic::async_trait]
impl DevicePlugin for Fake {
    type ListAndWatchStream = ReceiverStream<Result<ListAndWatchResponse, Status>>;

    async fn get_device_plugin_options(
        &self,
        _: Request<Empty>,
    ) -> Result<Response<DevicePluginOptions>, Status> {
        Ok(Response::new(DevicePluginOptions {
            pre_start_required: false,
            get_preferred_allocation_available: true,
        }))
    }

    async fn list_and_watch(
        &self,
        _: Request<Empty>,
    ) -> Result<Response<Self::ListAndWatchStream>, Status> {
        let (tx, rx) = mpsc::channel(4);
        let mut devices = self.devices.clone();
        tokio::spawn(async move {
            loop {
                let now = devices.borrow_and_update().clone();
                if tx
                    .send(Ok(ListAndWatchResponse { devices: now }))
                    .await
                    .is_err()
                    || devices.changed().await.is_err()
                {
                    return;
                }
            }
        });
        Ok(Response::new(ReceiverStream::new(rx)))
    }

    async fn get_preferred_allocation(
        &self,
        r: Request<PreferredAllocationRequest>,
    ) -> Result<Response<PreferredAllocationResponse>, Status> {
        let container_responses = r
            .into_inner()
            .container_requests
            .into_iter()
            .map(|c| ContainerPreferredAllocationResponse {
                device_i_ds: c
                    .available_device_i_ds
                    .into_iter()
                    .take(c.allocation_size as usize)
                    .collect(),
            })
            .collect();
        Ok(Response::new(PreferredAllocationResponse {
            container_responses,
        }))
    }

    async fn allocate(
        &self,
        r: Request<AllocateRequest>,
    ) -> Result<Response<AllocateResponse>, Status> {
        let container_responses = r
            .into_inner()
            .container_requests
            .into_iter()
            .map(|c| ContainerAllocateResponse {
                envs: [("FAKE_DEVICES".to_string(), c.devices_ids.join(","))].into(),
                ..Default::default()
            })
            .collect();
        Ok(Response::new(AllocateResponse {
            container_responses,
        }))
    }

    async fn pre_start_container(
        &self,
        _: Request<PreStartContainerRequest>,
    ) -> Result<Response<PreStartContainerResponse>, Status> {
        Ok(Response::new(PreStartContainerResponse {}))
    }
}

fn device(id: &str, health: &str) -> Device {
    Device {
        id: id.into(),
        health: health.into(),
        topology: None,
    }
}

#[test]
fn the_kubelet_checks_registrations_and_follows_a_plugin() {
    let dir = tempfile::tempdir().unwrap();
    let kubelet = Kubelet::start(dir.path()).unwrap();
    let plugins = kubelet.plugin_dir();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let register = |version: &str, endpoint: &str, resource: &str| {
        rt.block_on(async {
            let channel = crate::plugin::dial(kubelet.socket()).await.unwrap();
            RegistrationClient::new(channel)
                .register(RegisterRequest {
                    version: version.into(),
                    endpoint: endpoint.into(),
                    resource_name: resource.into(),
                    options: None,
                })
                .await
                .map(|_| ())
                .map_err(|s| s.message().to_string())
        })
    };

    let why = register("v1alpha", "fake.sock", "example.com/thing").unwrap_err();
    assert!(why.contains("not supported by kubelet"), "{why}");
    let why = register("v1beta1", "fake.sock", "thing").unwrap_err();
    assert!(why.contains("is invalid"), "{why}");
    let why = register("v1beta1", "fake.sock", "example.com/thing").unwrap_err();
    assert!(why.contains("cannot dial"), "{why}");
    assert_eq!(kubelet.refused().len(), 3, "{:?}", kubelet.refused());
    assert!(kubelet.plugins().is_empty());

    let (devices, watched) = watch::channel(vec![device("a", "Healthy"), device("b", "Healthy")]);
    let listener = rt.block_on(async { tokio::net::UnixListener::bind(plugins.join("fake.sock")) });
    let listener = listener.unwrap();
    rt.spawn(
        tonic::transport::Server::builder()
            .add_service(DevicePluginServer::new(Fake { devices: watched }))
            .serve_with_incoming(tokio_stream::wrappers::UnixListenerStream::new(listener)),
    );
    register("v1beta1", "fake.sock", "example.com/thing").unwrap();
    let wait = Duration::from_secs(10);
    let plugins = kubelet
        .wait_for("two devices", wait, |p| {
            p.get("example.com/thing").is_some_and(|p| p.lists > 0)
        })
        .unwrap();
    let thing = &plugins["example.com/thing"];
    assert_eq!(thing.endpoint, "fake.sock");
    assert_eq!(thing.healthy(), ["a", "b"]);
    assert!(thing.options.get_preferred_allocation_available);

    devices
        .send(vec![device("a", "Healthy"), device("b", "Unhealthy")])
        .unwrap();
    kubelet
        .wait_for("b unhealthy", wait, |p| {
            p["example.com/thing"].healthy() == ["a"]
        })
        .unwrap();
    let why = kubelet
        .allocate("example.com/thing", &["b".into()])
        .unwrap_err();
    assert!(why.contains("not a healthy device"), "{why}");
    assert!(
        kubelet
            .allocate("example.com/other", &["a".into()])
            .is_err()
    );
    let answer = kubelet
        .allocate("example.com/thing", &["a".into()])
        .unwrap();
    assert_eq!(answer.envs["FAKE_DEVICES"], "a");
    let preferred = kubelet
        .preferred_allocation("example.com/thing", &["a".into(), "b".into()], &[], 1)
        .unwrap();
    assert_eq!(preferred, ["a"]);

    // The plugin goes away: the kubelet sees its stream end.
    drop(rt);
    kubelet
        .wait_for("the stream to end", wait, |p| {
            p["example.com/thing"].ended.is_some()
        })
        .unwrap();
}
