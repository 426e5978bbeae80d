//! The kubelet's `Registration` service: a plugin's request is checked as the kubelet checks
//! it, then the plugin is dialled before the answer, so a plugin whose socket cannot be reached
//! is told so, as the kubelet's `connectClient` does.

use crate::api::deviceplugin::registration_server::{Registration, RegistrationServer};
use crate::api::deviceplugin::{Empty, RegisterRequest};
use crate::{SUPPORTED_VERSIONS, Shared, check_resource_name, plugin};
use std::path::PathBuf;
use std::sync::Arc;
use tonic::{Request, Response, Status};

struct Service {
    dir: PathBuf,
    shared: Arc<Shared>,
}

#[tonic::async_trait]
impl Registration for Service {
    async fn register(&self, request: Request<RegisterRequest>) -> Result<Response<Empty>, Status> {
        let r = request.into_inner();
        let refuse = |why: String| {
            self.shared
                .update(|k| k.refused.push(format!("{}: {why}", r.resource_name)));
            Err(Status::unknown(why))
        };
        if !SUPPORTED_VERSIONS.contains(&r.version.as_str()) {
            return refuse(format!(
                "requested API version {:?} is not supported by kubelet. Supported versions are {:?}",
                r.version, SUPPORTED_VERSIONS
            ));
        }
        if let Err(why) = check_resource_name(&r.resource_name) {
            return refuse(why);
        }
        let socket = self.dir.join(&r.endpoint);
        match plugin::connect(&socket).await {
            Ok(connected) => {
                tokio::spawn(plugin::follow(
                    self.shared.clone(),
                    r.resource_name,
                    connected,
                ));
                Ok(Response::new(Empty {}))
            }
            Err(why) => refuse(why),
        }
    }
}

/// Serve `Registration` on the kubelet's socket until the runtime stops.
pub(crate) async fn serve(listener: tokio::net::UnixListener, dir: PathBuf, shared: Arc<Shared>) {
    let service = RegistrationServer::new(Service { dir, shared });
    let served = tonic::transport::Server::builder()
        .add_service(service)
        .serve_with_incoming(crate::authority::incoming(listener))
        .await;
    crate::say_stopped("Registration", served);
}
