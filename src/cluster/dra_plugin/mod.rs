//! gpushare's DRA kubelet plugin (driver [`DRIVER`]): the node's GPUs and MIG devices served to
//! the scheduler by gpushare itself.
//!
//! - registration: a socket in the kubelet's `plugins_registry` answers `GetInfo` (a
//!   `DRAPlugin`, the driver, the DRA socket, `v1.DRAPlugin`);
//! - [`slices`]: the node's ResourceSlices, exactly its devices ([`devices`]) and, for each GPU
//!   gpushare.toml gives to dynamic MIG, every placement ([`partitionable`], [`dynamic`]), each
//!   unhealthy device tainted `NoSchedule` in them, written only when something changed;
//! - [`prepare`]: `NodePrepareResources` makes the MIG instances of the claim's placements
//!   ([`made`]), gives each share of a device claims share its MPS client ([`shares`]) and
//!   writes a CDI spec per claim from gpushare's CDI generator; `NodeUnprepareResources` ends
//!   the shares, removes what it made and the spec;
//! - [`health`]: the `DRAResourceHealth` stream tells the kubelet each device's health.

mod authority;
mod config;
pub(crate) mod devices;
mod dynamic;
mod health;
mod made;
mod mig_mode;
mod partitionable;
mod prepare;
pub(crate) mod proto;
pub(crate) mod record;
mod shares;
mod slices;

use crate::change::cdi::DeviceSource;
use crate::node::Context;
use crate::node::backend::SharedBackend;
use crate::support::error::{Error, Exit, Result};
use crate::support::paths::Paths;
use prepare::ClaimRef;
use proto::dra::dra_plugin_server::{DraPlugin, DraPluginServer};
use proto::health::dra_resource_health_server::DraResourceHealthServer;
use proto::registration::registration_server::{Registration, RegistrationServer};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tonic::{Request, Response, Status};

pub(crate) use devices::DRIVER;

/// How often the node is looked at for changes to publish (no API request when none).
const LOOK_EVERY: Duration = Duration::from_millis(500);

/// What the plugin is told.
pub(crate) struct Settings {
    pub node: String,
    pub kubeconfig: Option<PathBuf>,
    /// The kubelet's plugin registry (`/var/lib/kubelet/plugins_registry`).
    pub registry_dir: PathBuf,
    /// The plugin's own directory (`/var/lib/kubelet/plugins/gpu.gpushare.io`): its DRA socket.
    pub plugin_dir: PathBuf,
    /// Where the runtime reads CDI specs (`/var/run/cdi`).
    pub cdi_root: PathBuf,
    /// The device nodes, driver files and hook of the claims' specs.
    pub devices: DeviceSource,
    /// Run the GPU health watch here.
    pub watch_health: bool,
    /// Taint devices unhealthy by a fatal cause `NoExecute`.
    pub evict_on_fatal: bool,
    /// Where the GPUs' NUMA nodes and PCIe roots are read (`/`).
    pub sysfs_root: PathBuf,
    /// The node's gpushare.toml (`--config`): its dynamic MIG GPUs.
    pub config: Option<PathBuf>,
}

/// What the gRPC services share.
struct Plugin {
    backend: SharedBackend,
    paths: Paths,
    node: String,
    client: kube::Client,
    cdi_root: PathBuf,
    devices: DeviceSource,
    sysfs_root: PathBuf,
    evict_on_fatal: bool,
    /// The node's CDI spec, made again only when the devices or the driver changed: a prepare
    /// takes its devices' nodes from it rather than reading the driver's files each time.
    node_spec: std::sync::Mutex<Option<NodeSpec>>,
    /// The GPUs given to dynamic MIG, and what the driver offers.
    dynamic: dynamic::DynamicGpus,
    /// What makes and removes the instances of dynamic GPUs' claims.
    maker: made::Maker,
    /// Shares are taken, ended and kept one at a time: a daemon is never started for a share
    /// that is ending.
    share_turns: std::sync::Mutex<()>,
}

/// The CDI spec of the node's devices as they were offered, under one driver version.
struct NodeSpec {
    offered: Vec<devices::DraDevice>,
    driver_version: String,
    spec: Arc<crate::change::cdi::spec::Spec>,
}

impl Plugin {
    fn snapshot(&self) -> Result<crate::node::model::Node> {
        Ok(self.backend.snapshot()?)
    }

    /// What the driver offers on `node` (where the GPUs sit left out: a prepare needs none).
    fn offered(&self, node: &crate::node::model::Node) -> Result<Vec<devices::DraDevice>> {
        Ok(self
            .dynamic
            .offer(&*self.backend, node, &self.maker.all_recorded(), |_| {
                devices::PciPlace::default()
            })?
            .devices)
    }

    /// The node's CDI spec for `offered`, from the last one when nothing changed.
    fn node_spec(
        &self,
        node: &crate::node::model::Node,
        offered: &[devices::DraDevice],
    ) -> Result<Arc<crate::change::cdi::spec::Spec>> {
        let mut cached = self.node_spec.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = cached
            .as_ref()
            .filter(|c| c.offered == offered && c.driver_version == node.driver_version)
        {
            return Ok(c.spec.clone());
        }
        let (spec, _) = crate::change::cdi::spec_for(node, &self.devices)?;
        let spec = Arc::new(spec);
        *cached = Some(NodeSpec {
            offered: offered.to_vec(),
            driver_version: node.driver_version.clone(),
            spec: spec.clone(),
        });
        Ok(spec)
    }

    /// Prepare one claim: its CDI spec, and the devices the kubelet is told. What reads the
    /// node and runs its programs runs off the gRPC threads, so claims are prepared in parallel.
    async fn prepare(self: &Arc<Self>, claim: &ClaimRef) -> Result<Vec<proto::dra::Device>> {
        let object = prepare::read_claim(&self.client, claim).await?;
        let (plugin, owned) = (self.clone(), claim.clone());
        let (devices, shared) =
            tokio::task::spawn_blocking(move || plugin.prepare_blocking(&owned, &object))
                .await
                .map_err(|e| Error::failed(format!("the prepare stopped: {e}")))??;
        if !shared.is_empty() {
            // What the claim's owner reads; the share holds without it.
            let told = shares::tell(
                &self.client,
                &self.node,
                &claim.namespace,
                &claim.name,
                &shared,
            );
            if let Err(e) = told.await {
                crate::support::output::stderr_line(&format!("warning: {}", e.message));
            }
        }
        Ok(devices)
    }

    /// The devices the kubelet is told, and the shares given (each with its daemon's name).
    fn prepare_blocking(
        &self,
        claim: &ClaimRef,
        object: &serde_json::Value,
    ) -> Result<(Vec<proto::dra::Device>, Vec<shares::Given>)> {
        let allocated = prepare::allocated(object, claim, &self.node)?;
        // A share is taken, made and ended one at a time: an instance made for shares is never
        // removed while another claim takes a share of it.
        let _turn = allocated
            .iter()
            .any(|a| a.share.is_some())
            .then(|| self.share_turns.lock().unwrap_or_else(|e| e.into_inner()));
        let mut node = self.snapshot()?;
        let mut offered = self.offered(&node)?;
        // Placements of dynamic GPUs not made yet: made now, then the node is looked at again.
        let to_make: Vec<(u32, devices::Placed)> = allocated
            .iter()
            .filter_map(|a| offered.iter().find(|d| d.name == a.device))
            .filter(|d| d.mig.is_none())
            .filter_map(|d| Some((d.gpu, d.placed.clone()?)))
            .collect();
        if !to_make.is_empty() {
            let what = format!("{}/{}", claim.namespace, claim.name);
            self.maker.make(&node, &claim.uid, &what, &to_make)?;
            node = self.snapshot()?;
            offered = self.offered(&node)?;
            // Prepared only on what the driver lists now.
            if let Some(d) = allocated
                .iter()
                .filter_map(|a| offered.iter().find(|d| d.name == a.device))
                .find(|d| d.placed.is_some() && d.mig.is_none())
            {
                return Err(Error::failed(format!(
                    "device {} was made for claim {what}, but the driver does not list its MIG device",
                    d.name
                )));
            }
        }
        let unhealthy = health::unhealthy(&self.paths, &node, &offered);
        // A claim that tolerates the taint takes the device as it is.
        if let Some((device, bad)) = allocated.iter().find_map(|a| {
            let bad = unhealthy.get(&a.device)?;
            let effect = health::effect(bad, self.evict_on_fatal);
            (!a.tolerates.contains(&effect)).then_some((&a.device, bad))
        }) {
            return Err(Error::failed(format!(
                "device {device} is unhealthy since it was allocated: {}",
                bad.why
            )));
        }
        // The claim's configuration, checked before anything is written, then applied.
        let configs = config::of_claim(object).map_err(|e| {
            Error::usage(format!(
                "ResourceClaim {}/{}: {e}",
                claim.namespace, claim.name
            ))
        })?;
        let record = record::PreparedClaim {
            namespace: claim.namespace.clone(),
            name: claim.name.clone(),
            devices: allocated.iter().map(|a| a.device.clone()).collect(),
            pods: prepare::reserved_pods(object),
        };
        let node_spec = self.node_spec(&node, &offered)?;
        let mut spec = prepare::claim_spec(&node_spec, &offered, &allocated, &record, &claim.uid)?;
        let in_claim = |e: String| {
            Error::failed(format!(
                "ResourceClaim {}/{}: {e}",
                claim.namespace, claim.name
            ))
        };
        let chosen: Vec<(&devices::DraDevice, &config::DeviceConfig)> = allocated
            .iter()
            .filter_map(|a| {
                let device = offered.iter().find(|d| d.name == a.device)?;
                Some((device, config::of_requests(&configs, &a.requests)?))
            })
            .collect();
        let shared: Vec<(&prepare::Allocated, &devices::DraDevice)> = allocated
            .iter()
            .filter_map(|a| Some((a, offered.iter().find(|d| d.name == a.device)?)))
            .filter(|(_, d)| d.shared.is_some())
            .collect();
        let mps = chosen.iter().filter(|(_, c)| c.uses_mps()).count() + shared.len();
        // A container is the client of one MPS daemon (one pipe directory, one ordinal 0).
        if mps > 1 {
            return Err(in_claim(
                "sharing.mps: MPS applies to one device of a claim; give each device a claim of its own".into(),
            ));
        }
        // The MPS daemons' records, read only when a configuration asks for MPS.
        let daemons = if mps > 0 {
            crate::sharing::mps::settings::load_all(&self.paths)?
        } else {
            Vec::new()
        };
        let mut given = Vec::new();
        for (a, device) in &shared {
            let claim_edits = &mut spec.devices[0].container_edits;
            let (edits, granted) = self.share(&node, claim, a, device, &configs, &record.pods)?;
            given.push(granted);
            claim_edits.env.extend(edits.env);
            claim_edits.mounts.extend(edits.mounts);
        }
        for (device, c) in chosen.into_iter().filter(|(d, _)| d.shared.is_none()) {
            let edits = config::apply(c, device, &daemons).map_err(in_claim)?;
            let claim_edits = &mut spec.devices[0].container_edits;
            claim_edits.env.extend(edits.env);
            claim_edits.mounts.extend(edits.mounts);
        }
        prepare::write_spec(&self.cdi_root, &claim.uid, &spec)?;
        let devices = allocated
            .into_iter()
            .map(|a| proto::dra::Device {
                request_names: a.requests,
                pool_name: self.node.clone(),
                device_name: a.device,
                cdi_device_ids: vec![prepare::cdi_id(&claim.uid)],
                share_id: a.share.map(|(id, _)| id),
            })
            .collect();
        Ok((devices, given))
    }

    /// Claim `claim`'s share `a` of `device`: recorded, its daemon running, and the container
    /// that daemon's client with the share's limits.
    fn share(
        &self,
        node: &crate::node::model::Node,
        claim: &ClaimRef,
        a: &prepare::Allocated,
        device: &devices::DraDevice,
        configs: &[(Vec<String>, config::DeviceConfig)],
        pods: &[String],
    ) -> Result<(crate::change::cdi::spec::ContainerEdits, shares::Given)> {
        let what = &format!("{}/{}", claim.namespace, claim.name);
        let refused = |e: String| Error::failed(format!("ResourceClaim {what}: {e}"));
        let Some(policy) = &device.shared else {
            return Err(refused(format!("device {} is not shared", device.name)));
        };
        // Its sharing is the share's: MPS, with the limits of what it was given.
        if let Some(c) = config::of_requests(configs, &a.requests)
            && let Some(s) = &c.sharing
            && (s.strategy != config::Strategy::Mps || s.mps.is_some())
        {
            return Err(refused(format!(
                "device {} is shared by claims, each an MPS client with the capacity it asks for; \
                 ask for capacity.requests (memory, compute) instead of a sharing configuration",
                device.name
            )));
        }
        let Some((share_id, consumed)) = &a.share else {
            return Err(refused(format!(
                "device {} is shared by claims, and the allocation gave it no share ID",
                device.name
            )));
        };
        let granted = shares::granted(device, policy, share_id, consumed)?;
        let holder = shares::Holder {
            uid: &claim.uid,
            claim: what,
            pods,
        };
        let daemon = shares::take(&self.maker, node, &holder, device, policy, &granted)?;
        let limits = config::MpsConfig {
            default_active_thread_percentage: Some(granted.thread_percentage),
            default_pinned_device_memory_limit: Some(format!("{}Mi", granted.memory_mib)),
        };
        let daemon_name = daemon.name.clone();
        let mut edits = config::mps_edits(&limits, device, &[daemon]).map_err(refused)?;
        // What the share was given, for `gpushare probe --share` inside the container.
        use crate::observe::probe::share as told;
        edits.env.extend([
            format!("{}={}", told::DEVICE, device.uuid),
            format!("{}={}", told::MEMORY_MIB, granted.memory_mib),
            format!("{}={}", told::COMPUTE_PERCENT, granted.thread_percentage),
        ]);
        if let Some(sms) = device.published["attributes"]["multiprocessors"]["int"].as_u64() {
            edits
                .env
                .push(format!("{}={sms}", told::DEVICE_MULTIPROCESSORS));
        }
        Ok((
            edits,
            shares::Given {
                share: granted,
                daemon: daemon_name,
            },
        ))
    }

    /// Unprepare one claim: what its prepare made on dynamic GPUs, then its spec.
    fn unprepare_blocking(&self, claim: &proto::dra::Claim) -> Result<()> {
        let what = format!("{}/{}", claim.namespace, claim.name);
        let _turn = self.share_turns.lock().unwrap_or_else(|e| e.into_inner());
        shares::end(&self.maker, &claim.uid, &what)?;
        if !self.maker.recorded(&claim.uid)?.is_empty() {
            let node = self.snapshot()?;
            // An instance other claims still share goes to one of them, and with its last.
            let held = crate::sharing::mps::shared::all(&self.paths)?;
            let heir = |gpu: &crate::node::model::Gpu,
                        made: &crate::sharing::mig::claimed::Made| {
                let name = devices::mig_name(gpu.index, &made.profile, made.start);
                held.iter()
                    .find(|(uid, s)| uid != &claim.uid && s.device == name)
                    .map(|(uid, _)| uid.clone())
            };
            self.maker.unmake(&node, &claim.uid, &what, &heir)?;
        }
        prepare::remove_spec(&self.cdi_root, &claim.uid)
    }
}

struct Registrar {
    endpoint: String,
}

#[tonic::async_trait]
impl Registration for Registrar {
    async fn get_info(
        &self,
        _: Request<proto::registration::InfoRequest>,
    ) -> std::result::Result<Response<proto::registration::PluginInfo>, Status> {
        Ok(Response::new(proto::registration::PluginInfo {
            r#type: "DRAPlugin".into(),
            name: DRIVER.into(),
            endpoint: self.endpoint.clone(),
            supported_versions: vec!["v1.DRAPlugin".into()],
        }))
    }

    async fn notify_registration_status(
        &self,
        status: Request<proto::registration::RegistrationStatus>,
    ) -> std::result::Result<Response<proto::registration::RegistrationStatusResponse>, Status>
    {
        let status = status.into_inner();
        if status.plugin_registered {
            crate::support::output::stderr_line("gpushare dra-plugin: registered with the kubelet");
        } else {
            crate::support::output::stderr_line(&format!(
                "gpushare dra-plugin: the kubelet refused the registration: {}",
                status.error
            ));
        }
        Ok(Response::new(
            proto::registration::RegistrationStatusResponse {},
        ))
    }
}

#[tonic::async_trait]
impl DraPlugin for Arc<Plugin> {
    async fn node_prepare_resources(
        &self,
        request: Request<proto::dra::NodePrepareResourcesRequest>,
    ) -> std::result::Result<Response<proto::dra::NodePrepareResourcesResponse>, Status> {
        let claims = request.into_inner().claims;
        // Each claim on its own, at once: one that fails says why, the others go on.
        let answers = futures::future::join_all(claims.into_iter().map(|c| async move {
            let claim = ClaimRef {
                namespace: c.namespace,
                name: c.name,
                uid: c.uid,
            };
            let answer = match self.prepare(&claim).await {
                Ok(devices) => proto::dra::NodePrepareResourceResponse {
                    devices,
                    error: String::new(),
                },
                Err(e) => proto::dra::NodePrepareResourceResponse {
                    devices: Vec::new(),
                    error: e.message,
                },
            };
            (claim.uid, answer)
        }))
        .await;
        Ok(Response::new(proto::dra::NodePrepareResourcesResponse {
            claims: answers.into_iter().collect::<HashMap<_, _>>(),
        }))
    }

    async fn node_unprepare_resources(
        &self,
        request: Request<proto::dra::NodeUnprepareResourcesRequest>,
    ) -> std::result::Result<Response<proto::dra::NodeUnprepareResourcesResponse>, Status> {
        let claims = request.into_inner().claims;
        let answers = futures::future::join_all(claims.into_iter().map(|c| async move {
            let plugin = self.clone();
            let uid = c.uid.clone();
            let done = tokio::task::spawn_blocking(move || plugin.unprepare_blocking(&c))
                .await
                .map_err(|e| Error::failed(format!("the unprepare stopped: {e}")))
                .and_then(|r| r);
            let error = done.err().map(|e| e.message).unwrap_or_default();
            (uid, proto::dra::NodeUnprepareResourceResponse { error })
        }))
        .await;
        Ok(Response::new(proto::dra::NodeUnprepareResourcesResponse {
            claims: answers.into_iter().collect::<HashMap<_, _>>(),
        }))
    }
}

/// A Unix socket at `path`, made anew (a stale one from an earlier run is removed), its
/// connections relayed to the gRPC server (see [`authority`]).
fn listen(
    path: &Path,
) -> Result<impl futures::Stream<Item = std::io::Result<authority::Relayed>> + Send + 'static> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::failed(format!("cannot create {}: {e}", dir.display())))?;
    }
    match std::fs::symlink_metadata(path) {
        Ok(meta) if std::os::unix::fs::FileTypeExt::is_socket(&meta.file_type()) => {
            std::fs::remove_file(path)
                .map_err(|e| Error::failed(format!("cannot remove {}: {e}", path.display())))?;
        }
        Ok(_) => {
            return Err(Error::failed(format!(
                "{} exists and is not a socket",
                path.display()
            )));
        }
        Err(_) => {}
    }
    let listener = tokio::net::UnixListener::bind(path)
        .map_err(|e| Error::failed(format!("cannot listen on {}: {e}", path.display())))?;
    Ok(authority::relayed(listener))
}

pub(crate) fn run(ctx: &mut Context, settings: Settings) -> Result<Exit> {
    if !crate::support::dns_name::is_dns_subdomain(&settings.node) {
        return Err(Error::usage(format!(
            "--node-name {:?} is not a Kubernetes node name",
            settings.node
        )));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("gpushare-dra-plugin")
        .enable_all()
        .build()
        .map_err(|e| Error::failed(format!("cannot start the plugin's runtime: {e}")))?;
    let client = runtime.block_on(crate::cluster::api_client::client(
        settings.kubeconfig.as_deref(),
    ))?;
    let backend = ctx.shared_backend()?;
    let plugin = Arc::new(Plugin {
        backend: backend.clone(),
        paths: ctx.paths.clone(),
        node: settings.node.clone(),
        client: client.clone(),
        cdi_root: settings.cdi_root.clone(),
        devices: settings.devices.clone(),
        sysfs_root: settings.sysfs_root.clone(),
        evict_on_fatal: settings.evict_on_fatal,
        node_spec: Default::default(),
        dynamic: dynamic::DynamicGpus::new(
            settings.config.clone(),
            ctx.paths.system(crate::node::config::DEFAULT_PATH),
        )?,
        maker: made::Maker {
            backend: backend.clone(),
            paths: ctx.paths.clone(),
            out: ctx.out.clone(),
            lock_timeout: ctx.lock_timeout,
            host: std::sync::Mutex::new(ctx.sibling()?),
        },
        share_turns: Default::default(),
    });
    let _watch = settings.watch_health.then(|| {
        crate::node::gpu_health::listener::Listener::start(
            ctx.backend_options.clone(),
            ctx.paths.clone(),
            ctx.out.clone(),
            || {},
        )
    });
    let trap = crate::change::pipeline::signals::Trap::install();
    let dra_socket = settings.plugin_dir.join("dra.sock");
    let registration_socket = settings.registry_dir.join(format!("{DRIVER}-reg.sock"));
    let mut publisher = slices::Publisher::new(client, &settings.node);
    let stopped = runtime.block_on(async {
        // The slice first: the kubelet asks for nothing the scheduler has not seen.
        let (offered, _) = publish(&plugin, &mut publisher).await?;
        crate::support::output::stderr_line(&format!(
            "gpushare dra-plugin on node {}: {} device(s) published as driver {DRIVER}",
            settings.node, offered
        ));
        let dra = tonic::transport::Server::builder()
            .add_service(DraPluginServer::new(plugin.clone()))
            .add_service(DraResourceHealthServer::new(health::Watch {
                backend: plugin.backend.clone(),
                paths: plugin.paths.clone(),
                node: plugin.node.clone(),
            }))
            .serve_with_incoming(listen(&dra_socket)?);
        let registrar = Registrar {
            endpoint: dra_socket.display().to_string(),
        };
        // Registered last: the kubelet calls the DRA socket as soon as it knows it.
        let registration = tonic::transport::Server::builder()
            .add_service(RegistrationServer::new(registrar))
            .serve_with_incoming(listen(&registration_socket)?);
        let servers = tokio::spawn(async move { tokio::try_join!(dra, registration) });
        let mut last_claims_look = std::time::Instant::now();
        loop {
            if let Some(signal) = trap.received() {
                break Ok::<_, Error>(signal);
            }
            if servers.is_finished() {
                return Err(Error::failed("the plugin's gRPC servers stopped"));
            }
            tokio::time::sleep(LOOK_EVERY).await;
            let keeper = plugin.clone();
            let kept = tokio::task::spawn_blocking(move || {
                let _turn = keeper.share_turns.lock().unwrap_or_else(|e| e.into_inner());
                shares::keep(&keeper.maker)
            })
            .await;
            if let Ok(Err(e)) = kept {
                crate::support::output::stderr_line(&format!("warning: {}", e.message));
            }
            match publish(&plugin, &mut publisher).await {
                Ok((_, waiting))
                    if !waiting.is_empty()
                        && last_claims_look.elapsed() >= mig_mode::LOOK_EVERY =>
                {
                    last_claims_look = std::time::Instant::now();
                    let (client, maker) = (&plugin.client, &plugin.maker);
                    if let Err(e) =
                        mig_mode::turn_on_for_claims(client, &plugin.node, maker, &waiting).await
                    {
                        crate::support::output::stderr_line(&format!("warning: {}", e.message));
                    }
                }
                Ok(_) => {}
                Err(e) => crate::support::output::stderr_line(&format!("warning: {}", e.message)),
            }
        }
    });
    // The kubelet deregisters a plugin whose socket is gone.
    let _ = std::fs::remove_file(&registration_socket);
    let signal = stopped?;
    ctx.out
        .note(format!("gpushare dra-plugin: stopping on {signal}"));
    runtime.shutdown_timeout(Duration::from_secs(1));
    Ok(Exit::Ok)
}

/// Publish the node's devices as they are now; how many, and the placements that wait for a
/// GPU's MIG to be turned on (device name → GPU).
async fn publish(
    plugin: &Plugin,
    publisher: &mut slices::Publisher,
) -> Result<(usize, BTreeMap<String, u32>)> {
    let node = plugin.snapshot()?;
    let made = plugin.maker.all_recorded();
    let offer = plugin.dynamic.offer(&*plugin.backend, &node, &made, |g| {
        devices::PciPlace::read(&plugin.sysfs_root, &g.pci_bus_id)
    })?;
    let unhealthy = health::unhealthy(&plugin.paths, &node, &offer.devices);
    let list = |devices: &[devices::DraDevice]| -> Vec<serde_json::Value> {
        devices
            .iter()
            .map(|d| health::with_taint(d, unhealthy.get(&d.name), plugin.evict_on_fatal))
            .collect()
    };
    let fixed: Vec<devices::DraDevice> = offer
        .devices
        .iter()
        .filter(|d| d.placed.is_none())
        .cloned()
        .collect();
    let dynamic = offer
        .dynamic
        .iter()
        .map(|g| (g.gpu, g.counter_set.clone(), list(&g.devices)))
        .collect();
    let n = offer.devices.len();
    let waiting: BTreeMap<String, u32> = offer
        .devices
        .iter()
        .filter(|d| offer.waiting.contains(&d.gpu))
        .map(|d| (d.name.clone(), d.gpu))
        .collect();
    let pool = slices::pool(&plugin.node, list(&fixed), dynamic);
    if publisher.publish(pool).await? {
        crate::support::output::stderr_line(&format!(
            "gpushare dra-plugin: published {n} device(s), {} unhealthy",
            unhealthy.len()
        ));
    }
    Ok((n, waiting))
}
