//! A stand-in kubelet for gpushare's tests: the part of the kubelet a device plugin talks to,
//! over the kubelet's own gRPC API (the repository's `proto/`, Kubernetes 1.36).
//!
//! [`Kubelet::start`] takes a folder that plays `/var/lib/kubelet`. It serves the device
//! manager's `Registration` service at `device-plugins/kubelet.sock`. A plugin that registers is
//! checked as the kubelet checks it (API version, extended resource name), then dialled at
//! `device-plugins/<endpoint>` as the kubelet does: its options are read and its `ListAndWatch`
//! stream is followed, so [`Kubelet::plugins`] always holds the devices each resource last
//! advertised. [`Kubelet::allocate`] asks a plugin for a container's devices, refusing IDs the
//! plugin has not advertised as healthy, as the kubelet never sends them.
//!
//! [`Kubelet::join`] makes it a node of a real API server: it keeps the Node's capacity and
//! allocatable equal to the plugins' devices, admits the pods bound to it, gives each container
//! distinct devices (released when the pod goes) and records what each container got. The
//! pod-resources API (`pod-resources/kubelet.sock`) answers from those allocations.
//!
//! The API is synchronous for tests; the gRPC and the API calls run on the stand-in's own
//! runtime.

pub mod api {
    //! The generated messages, servers and clients.
    pub mod deviceplugin {
        //! `k8s.io/kubelet/pkg/apis/deviceplugin/v1beta1`.
        tonic::include_proto!("v1beta1");
    }
    pub mod podresources {
        //! `k8s.io/kubelet/pkg/apis/podresources/v1`.
        tonic::include_proto!("v1");
    }
}

mod authority;
mod node;
mod plugin;
mod pod_resources;
mod pods;
mod registration;
mod resource_name;
#[cfg(test)]
mod tests;

pub use plugin::Plugin;
pub use pods::Assigned;
pub use resource_name::check_resource_name;

use api::deviceplugin::ContainerAllocateResponse;
use api::deviceplugin::device_plugin_client::DevicePluginClient;
use plugin::Connected;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};
use tonic::transport::Channel;

/// The device-plugin API versions this kubelet speaks (`pluginapi.SupportedVersions`).
pub const SUPPORTED_VERSIONS: [&str; 1] = ["v1beta1"];

/// What the kubelet knows, shared by its gRPC tasks and the test's thread.
#[derive(Default)]
struct Known {
    /// Resource name → the plugin that registered it last.
    plugins: BTreeMap<String, Connected>,
    /// Registrations refused, with the kubelet's reason.
    refused: Vec<String>,
    /// The pods admitted on this node, in order: what each container got.
    admitted: Vec<pods::Admitted>,
}

#[derive(Default)]
struct Shared {
    known: Mutex<Known>,
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Known> {
        self.known.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn update(&self, f: impl FnOnce(&mut Known)) {
        f(&mut self.lock());
        self.changed.notify_all();
    }
}

/// A running stand-in kubelet; dropping it stops serving and removes its socket.
pub struct Kubelet {
    root: PathBuf,
    shared: Arc<Shared>,
    runtime: tokio::runtime::Runtime,
}

impl Kubelet {
    /// Serve `Registration` at `ROOT/device-plugins/kubelet.sock` and pod-resources at
    /// `ROOT/pod-resources/kubelet.sock` (ROOT plays `/var/lib/kubelet`).
    pub fn start(root: &Path) -> std::io::Result<Kubelet> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        let shared = Arc::new(Shared::default());
        let kubelet = Kubelet {
            root: root.to_path_buf(),
            shared,
            runtime,
        };
        let registration = kubelet.bind(&kubelet.plugin_dir())?;
        kubelet.runtime.spawn(registration::serve(
            registration,
            kubelet.plugin_dir(),
            kubelet.shared.clone(),
        ));
        let lister = kubelet.bind(&root.join("pod-resources"))?;
        kubelet
            .runtime
            .spawn(pod_resources::serve(lister, kubelet.shared.clone()));
        Ok(kubelet)
    }

    /// A listener at `DIR/kubelet.sock`; a socket left by an earlier kubelet is replaced, as the
    /// kubelet replaces its own.
    fn bind(&self, dir: &Path) -> std::io::Result<tokio::net::UnixListener> {
        std::fs::create_dir_all(dir)?;
        let socket = dir.join("kubelet.sock");
        match std::fs::remove_file(&socket) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        self.runtime
            .block_on(async { tokio::net::UnixListener::bind(&socket) })
    }

    /// The device-plugin directory (`/var/lib/kubelet/device-plugins`).
    pub fn plugin_dir(&self) -> PathBuf {
        self.root.join("device-plugins")
    }

    /// The socket plugins register at.
    pub fn socket(&self) -> PathBuf {
        self.plugin_dir().join("kubelet.sock")
    }

    /// The pod-resources socket (`/var/lib/kubelet/pod-resources/kubelet.sock`).
    pub fn pod_resources_socket(&self) -> PathBuf {
        self.root.join("pod-resources/kubelet.sock")
    }

    /// Become node `name` of the API server `kubeconfig` names: register the Node if it is not
    /// there (with `labels`), mark it ready, then keep its status and admit its pods until the
    /// kubelet is dropped.
    pub fn join(
        &self,
        kubeconfig: &Path,
        name: &str,
        labels: &BTreeMap<String, String>,
    ) -> Result<(), String> {
        let client = self.runtime.block_on(async {
            let file = kube::config::Kubeconfig::read_from(kubeconfig)
                .map_err(|e| format!("{}: {e}", kubeconfig.display()))?;
            let options = kube::config::KubeConfigOptions::default();
            let config = kube::Config::from_custom_kubeconfig(file, &options)
                .await
                .map_err(|e| format!("{}: {e}", kubeconfig.display()))?;
            kube::Client::try_from(config).map_err(|e| e.to_string())
        })?;
        self.runtime
            .block_on(node::register(client.clone(), name, labels))?;
        self.runtime.spawn(node::keep_status(
            client.clone(),
            name.to_string(),
            self.shared.clone(),
        ));
        self.runtime
            .spawn(pods::admit(client, name.to_string(), self.shared.clone()));
        Ok(())
    }

    /// What each container admitted so far got, in order of admission; released devices are
    /// gone from it.
    pub fn assigned(&self) -> Vec<Assigned> {
        self.shared
            .lock()
            .admitted
            .iter()
            .flat_map(|p| p.assigned())
            .collect()
    }

    /// Pods this kubelet refused to admit: `namespace/name` and the reason.
    pub fn rejected(&self) -> Vec<(String, String)> {
        self.shared
            .lock()
            .admitted
            .iter()
            .filter_map(|p| p.rejected.clone().map(|why| (p.key(), why)))
            .collect()
    }

    /// Resource name → what its plugin last advertised.
    pub fn plugins(&self) -> BTreeMap<String, Plugin> {
        self.shared
            .lock()
            .plugins
            .iter()
            .map(|(name, c)| (name.clone(), c.view()))
            .collect()
    }

    /// Registrations refused so far, with the reason the plugin was given.
    pub fn refused(&self) -> Vec<String> {
        self.shared.lock().refused.clone()
    }

    /// Wait until `ready` holds of the plugins; on timeout, an error saying what was seen.
    pub fn wait_for(
        &self,
        what: &str,
        timeout: Duration,
        ready: impl Fn(&BTreeMap<String, Plugin>) -> bool,
    ) -> Result<BTreeMap<String, Plugin>, String> {
        let deadline = Instant::now() + timeout;
        let mut known = self.shared.lock();
        loop {
            let plugins: BTreeMap<String, Plugin> = known
                .plugins
                .iter()
                .map(|(name, c)| (name.clone(), c.view()))
                .collect();
            if ready(&plugins) {
                return Ok(plugins);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(format!(
                    "waited {timeout:?} for {what}; the kubelet has {plugins:#?}, refused {:?}",
                    known.refused
                ));
            }
            known = self
                .shared
                .changed
                .wait_timeout(known, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// The client of the plugin that registered `resource`, once `check` holds of it.
    fn client_of(
        &self,
        resource: &str,
        check: impl FnOnce(&Connected) -> Result<(), String>,
    ) -> Result<DevicePluginClient<Channel>, String> {
        let known = self.shared.lock();
        let plugin = known
            .plugins
            .get(resource)
            .ok_or_else(|| format!("no plugin has registered {resource}"))?;
        check(plugin)?;
        Ok(plugin.client())
    }

    /// `Allocate` of one container's devices of `resource`, as the kubelet asks it when the
    /// container is created. IDs that are not healthy devices of that resource are refused here.
    pub fn allocate(
        &self,
        resource: &str,
        ids: &[String],
    ) -> Result<ContainerAllocateResponse, String> {
        let client = self.client_of(resource, |plugin| plugin.check_allocatable(ids))?;
        self.runtime.block_on(plugin::allocate(client, ids))
    }

    /// `GetPreferredAllocation` for one container, where the plugin offers it.
    pub fn preferred_allocation(
        &self,
        resource: &str,
        available: &[String],
        must_include: &[String],
        size: i32,
    ) -> Result<Vec<String>, String> {
        let client = self.client_of(resource, |plugin| {
            match plugin.view().options.get_preferred_allocation_available {
                true => Ok(()),
                false => Err(format!(
                    "the plugin of {resource} offers no preferred allocation"
                )),
            }
        })?;
        self.runtime.block_on(plugin::preferred_allocation(
            client,
            available,
            must_include,
            size,
        ))
    }
}

/// A server that stopped: tests see it as calls that fail, so say why.
fn say_stopped(service: &str, served: Result<(), tonic::transport::Error>) {
    if let Err(e) = served {
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            format!("kubelet-standin: {service} stopped: {e}\n").as_bytes(),
        );
    }
}

impl Drop for Kubelet {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(self.socket());
        let _ = std::fs::remove_file(self.pod_resources_socket());
    }
}
