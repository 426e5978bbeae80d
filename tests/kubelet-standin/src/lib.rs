//! A stand-in kubelet for gpushare's tests: the part of the kubelet a device plugin talks to,
//! over the kubelet's own gRPC API (`proto/`, Kubernetes 1.36).
//!
//! [`Kubelet::start`] serves the device manager's `Registration` service at
//! `DIR/kubelet.sock`. A plugin that registers is checked as the kubelet checks it (API version,
//! extended resource name), then dialled at `DIR/<endpoint>` as the kubelet does: its options are
//! read and its `ListAndWatch` stream is followed, so [`Kubelet::plugins`] always holds the
//! devices each resource last advertised. [`Kubelet::allocate`] asks a plugin for a container's
//! devices, refusing IDs the plugin has not advertised as healthy, as the kubelet never sends
//! them.
//!
//! The API is synchronous for tests; the gRPC runs on the stand-in's own runtime.

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
mod plugin;
mod registration;
mod resource_name;
#[cfg(test)]
mod tests;

pub use plugin::Plugin;
pub use resource_name::check_resource_name;

use api::deviceplugin::ContainerAllocateResponse;
use plugin::Connected;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The device-plugin API versions this kubelet speaks (`pluginapi.SupportedVersions`).
pub const SUPPORTED_VERSIONS: [&str; 1] = ["v1beta1"];

/// What the kubelet knows, shared by its gRPC tasks and the test's thread.
#[derive(Default)]
struct Known {
    /// Resource name → the plugin that registered it last.
    plugins: BTreeMap<String, Connected>,
    /// Registrations refused, with the kubelet's reason.
    refused: Vec<String>,
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
    dir: PathBuf,
    shared: Arc<Shared>,
    runtime: tokio::runtime::Runtime,
}

impl Kubelet {
    /// Serve `Registration` at `DIR/kubelet.sock` (DIR plays `/var/lib/kubelet/device-plugins`).
    pub fn start(dir: &Path) -> std::io::Result<Kubelet> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        let shared = Arc::new(Shared::default());
        let socket = dir.join("kubelet.sock");
        // A socket left by an earlier kubelet is replaced, as the kubelet replaces its own.
        match std::fs::remove_file(&socket) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let listener = runtime.block_on(async { tokio::net::UnixListener::bind(&socket) })?;
        runtime.spawn(registration::serve(
            listener,
            dir.to_path_buf(),
            shared.clone(),
        ));
        Ok(Kubelet {
            dir: dir.to_path_buf(),
            shared,
            runtime,
        })
    }

    /// The socket plugins register at.
    pub fn socket(&self) -> PathBuf {
        self.dir.join("kubelet.sock")
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

    /// `Allocate` of one container's devices of `resource`, as the kubelet asks it when the
    /// container is created. IDs that are not healthy devices of that resource are refused here.
    pub fn allocate(
        &self,
        resource: &str,
        ids: &[String],
    ) -> Result<ContainerAllocateResponse, String> {
        let client = {
            let known = self.shared.lock();
            let plugin = known
                .plugins
                .get(resource)
                .ok_or_else(|| format!("no plugin has registered {resource}"))?;
            plugin.check_allocatable(ids)?;
            plugin.client()
        };
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
        let client = {
            let known = self.shared.lock();
            let plugin = known
                .plugins
                .get(resource)
                .ok_or_else(|| format!("no plugin has registered {resource}"))?;
            if !plugin.view().options.get_preferred_allocation_available {
                return Err(format!(
                    "the plugin of {resource} offers no preferred allocation"
                ));
            }
            plugin.client()
        };
        self.runtime.block_on(plugin::preferred_allocation(
            client,
            available,
            must_include,
            size,
        ))
    }
}

impl Drop for Kubelet {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(self.socket());
    }
}
