//! The kubelet's pod-resources API (`v1.PodResourcesLister`), answered from the stand-in's
//! allocations: which pod and container hold which devices, and which devices can be
//! allocated at all.

use crate::Shared;
use crate::api::podresources::pod_resources_lister_server::{
    PodResourcesLister, PodResourcesListerServer,
};
use crate::api::podresources::*;
use std::sync::Arc;
use tonic::{Request, Response, Status};

struct Lister {
    shared: Arc<Shared>,
}

#[tonic::async_trait]
impl PodResourcesLister for Lister {
    async fn list(
        &self,
        _: Request<ListPodResourcesRequest>,
    ) -> Result<Response<ListPodResourcesResponse>, Status> {
        let known = self.shared.lock();
        let pod_resources = known
            .admitted
            .iter()
            .filter(|p| p.rejected.is_none())
            .map(|p| p.pod_resources())
            .collect();
        Ok(Response::new(ListPodResourcesResponse { pod_resources }))
    }

    async fn get_allocatable_resources(
        &self,
        _: Request<AllocatableResourcesRequest>,
    ) -> Result<Response<AllocatableResourcesResponse>, Status> {
        let known = self.shared.lock();
        let devices = known
            .plugins
            .iter()
            .map(|(resource, plugin)| ContainerDevices {
                resource_name: resource.clone(),
                device_ids: plugin.allocatable(),
                topology: None,
            })
            .collect();
        Ok(Response::new(AllocatableResourcesResponse {
            devices,
            cpu_ids: vec![],
            memory: vec![],
        }))
    }

    async fn get(
        &self,
        r: Request<GetPodResourcesRequest>,
    ) -> Result<Response<GetPodResourcesResponse>, Status> {
        let r = r.into_inner();
        let known = self.shared.lock();
        let pod = known
            .admitted
            .iter()
            .find(|p| p.rejected.is_none() && p.is(&r.pod_namespace, &r.pod_name))
            .ok_or_else(|| {
                Status::unknown(format!(
                    "pod {} in namespace {} not found",
                    r.pod_name, r.pod_namespace
                ))
            })?;
        Ok(Response::new(GetPodResourcesResponse {
            pod_resources: Some(pod.pod_resources()),
        }))
    }
}

/// Serve pod-resources on its socket until the runtime stops.
pub(crate) async fn serve(listener: tokio::net::UnixListener, shared: Arc<Shared>) {
    let served = tonic::transport::Server::builder()
        .add_service(PodResourcesListerServer::new(Lister { shared }))
        .serve_with_incoming(crate::authority::incoming(listener))
        .await;
    crate::say_stopped("PodResourcesLister", served);
}
