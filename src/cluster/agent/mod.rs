//! `gpushare agent`: the node agent of a Kubernetes DaemonSet. It watches its Node, the
//! layouts ConfigMap and the pods on its node, and whenever the node's label
//! (`gpushare.io/config=<name>`, or the GPU Operator's `nvidia.com/mig.config=<label>`) or the
//! chosen layout changes, it brings the node to that layout through the pipeline of `gpushare
//! apply` — the same checks, planner, executor, node lock and journal — and reports how it went
//! in node labels and events.
//!
//! - [`labels`]: which layout the node's labels choose, and the state labels;
//! - [`layouts`]: the ConfigMap of named layouts (gpushare.toml, or mig-parted labels);
//! - [`reconcile`]: one pass, from the labels to the state (the only place the node changes);
//! - [`gpu_clients`]: pausing the device plugin, GFD, DCGM and dcgm-exporter around a change,
//!   and the user pods that block one;
//! - [`device_health`], [`health_pass`]: the GPUs' health told to the cluster (a Node
//!   condition and events), the device plugins restarted when a device recovers, and GPUs a
//!   fatal fault left unhealthy reset (`--reset-unhealthy-gpus`);
//! - [`publish`]: the node's MIG state for `gpushare controller` (MIG on demand), whose layout
//!   the labels give way to while the node opts in;
//! - [`cluster`]: the agent's view of the cluster (watched caches of its Node, the layouts and
//!   the pods on its node, whose changes wake the loop) and its API calls (through
//!   [`crate::cluster::api_client`], as the controller's); its liveness endpoint is [`crate::observe::liveness`].
//!
//! The rest of gpushare is synchronous; the agent runs a small runtime for the API client and
//! the watches, and its own loop on the main thread, where the node is changed.

pub(crate) mod cluster;
pub(crate) mod device_health;
mod device_taints;
pub(crate) mod gpu_clients;
mod health_pass;
pub(crate) mod labels;
pub(crate) mod layouts;
pub(crate) mod publish;
pub(crate) mod reconcile;

use crate::change::pipeline::signals::Trap;
use crate::cluster::api_client::link::Link;
use crate::node::Context;
use crate::node::gpu_health::listener::Listener;
use crate::node::model::PodContainer;
use crate::observe::liveness::Liveness;
use crate::observe::metrics::{Collector, SharedPodNames, Sources};
use crate::observe::owners::cgroup::PodCgroups;
use crate::observe::owners::names::PodNames;
use crate::support::error::{Error, Exit, Result};
use cluster::{Cluster, Wake};
use layouts::ConfigMapRef;
use reconcile::{Agent, Settings};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::RecvTimeoutError;
use std::time::Duration;

/// How often the loop goes round when nothing happens (signals and retries are checked then).
const TICK: Duration = Duration::from_millis(500);

/// What `gpushare agent` is told (its flags: `commands::cli::AgentArgs`).
pub(crate) struct Options {
    pub node: String,
    pub configmap: String,
    pub kubeconfig: Option<PathBuf>,
    pub health_addr: SocketAddr,
    pub pause_timeout: u64,
    pub retry: u64,
    pub host_root: Option<PathBuf>,
    pub kubelet_cgroup_root: PodCgroups,
    pub publish_every: u64,
    pub reset_unhealthy_gpus: bool,
    pub sysfs_root: PathBuf,
}

pub(crate) fn run(ctx: &mut Context, args: &Options) -> Result<Exit> {
    let layouts = ConfigMapRef::parse(&args.configmap)?;
    let node = args.node.clone();
    if !is_node_name(&node) {
        return Err(
            Error::usage(format!("--node {node:?} is not a Kubernetes node name"))
                .with_hint("the DaemonSet sets NODE_NAME from spec.nodeName"),
        );
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("gpushare-agent-api")
        .enable_all()
        .build()
        .map_err(|e| Error::failed(format!("cannot start the agent's runtime: {e}")))?;
    let client = runtime.block_on(crate::cluster::api_client::client(
        args.kubeconfig.as_deref(),
    ))?;
    let liveness = Arc::new(Liveness::new(&node));
    let pod_resources_root =
        crate::observe::pod_resources::host_root(args.host_root.as_deref(), ctx.simulated());
    let pod_names: SharedPodNames = Arc::default();
    let metrics = Arc::new(Collector::new(Sources {
        backend: ctx.backend_options.clone(),
        paths: ctx.paths.clone(),
        pod_resources_root: pod_resources_root.clone(),
        config: None,
        agent: Some(liveness.clone()),
        pod_names: Some(pod_names.clone()),
        own_container: own_container(),
        pod_cgroups: args.kubelet_cgroup_root.clone(),
    }));
    let addr = crate::support::http_endpoint::serve(
        args.health_addr,
        "health endpoint",
        "--health-addr",
        vec![
            crate::observe::liveness::route(liveness.clone()),
            metrics.route(),
        ],
    )?;
    ctx.out.note(format!(
        "gpushare agent on node {node}: layouts from the ConfigMap {layouts}; health at http://{addr}/healthz, metrics at /metrics"
    ));

    let reachable = liveness.clone();
    let link = Link::new(
        runtime.handle(),
        client.clone(),
        ctx.out.clone(),
        move |ok| reachable.update(|s| s.api_reachable = ok),
    );
    let (wake, woken) = std::sync::mpsc::channel();
    let cluster = Cluster::new(
        runtime.handle().clone(),
        client,
        node.clone(),
        layouts.clone(),
        link,
        wake.clone(),
    );

    let trap = Trap::install();
    let out = ctx.out.clone();
    let settings = Settings {
        sysfs_root: args.sysfs_root.clone(),
        pause_timeout: Duration::from_secs(args.pause_timeout),
        retry: Duration::from_secs(args.retry),
        pod_resources_root,
        publish_every: Duration::from_secs(args.publish_every),
        reset_unhealthy_gpus: args.reset_unhealthy_gpus,
    };
    let heard = wake.clone();
    let listener = Listener::start(
        ctx.backend_options.clone(),
        ctx.paths.clone(),
        ctx.out.clone(),
        move || {
            let _ = heard.send(Wake::Health);
        },
    );
    drop(wake);
    let mut agent = Agent::new(
        ctx,
        &cluster,
        settings,
        liveness.clone(),
        &trap,
        Some(&listener),
    );
    liveness.update(|s| s.state = "watching".into());
    let name_pods = || {
        if let Ok(pods) = cluster.pods_on_node() {
            *pod_names.lock().unwrap_or_else(|p| p.into_inner()) = Some(PodNames::from_pods(&pods));
        }
    };
    name_pods();
    let stopped = loop {
        liveness.turn();
        if let Some(signal) = trap.received() {
            break signal;
        }
        match woken.recv_timeout(TICK) {
            Ok(first) => {
                // Several changes at once are one pass: it reads everything afresh.
                let mut wakes = vec![first];
                wakes.extend(woken.try_iter());
                if wakes.contains(&Wake::Layout) {
                    agent.pass();
                } else if wakes.contains(&Wake::Pods) {
                    agent.pods_changed();
                }
                if wakes.contains(&Wake::Pods) {
                    name_pods();
                }
                if wakes.contains(&Wake::Health) {
                    agent.look_at_health();
                }
            }
            Err(RecvTimeoutError::Timeout) if agent.health_due() || agent.record_changed() => {
                agent.look_at_health()
            }
            Err(RecvTimeoutError::Timeout) if agent.retry_due() => agent.pass(),
            Err(RecvTimeoutError::Timeout) if agent.publish_due() => agent.publish(),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                return Err(Error::failed("the watches stopped"));
            }
        }
    };
    out.note(format!("gpushare agent: stopping on {stopped}"));
    drop(agent);
    runtime.shutdown_timeout(Duration::from_secs(1));
    Ok(Exit::Ok)
}

/// The agent's own pod and container, from the environment its DaemonSet gives it (the
/// downward API); None where it does not (run by hand), or what it gives is not a pod's.
fn own_container() -> Option<PodContainer> {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let (namespace, pod, uid) = (var("POD_NAMESPACE")?, var("POD_NAME")?, var("POD_UID")?);
    let valid = crate::support::dns_name::is_dns_label(&namespace)
        && crate::support::dns_name::is_dns_subdomain(&pod)
        && uid.len() <= 64
        && uid.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-');
    valid.then(|| PodContainer {
        namespace: Some(namespace),
        pod: Some(pod),
        pod_uid: uid,
        container: Some(crate::cluster::manifests::agent::CONTAINER.into()),
        container_id: None,
    })
}

/// A DNS subdomain (RFC 1123), as node names are.
fn is_node_name(name: &str) -> bool {
    name.len() <= 253 && name.split('.').all(crate::support::dns_name::is_dns_label)
}
