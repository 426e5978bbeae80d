//! One node as a cluster has it: a real API server and scheduler, a real node (kubelet,
//! containerd, runc), NVIDIA's device plugin on the NVML stand-in in the node's namespace, the
//! test playing the plugin's DaemonSet, and `gpushare agent` on the same simulated GPUs reading
//! the real kubelet's pod-resources.

use super::agent_process::AgentProcess;
use super::{
    CONFIGMAP, DEVICE_PLUGIN, Daemon, NS, apply_agent_with_mig_parted_layouts, play_daemonsets,
    plugin_pod,
};
use crate::common::api_server::ApiServer;
use crate::common::cluster::Cluster;
use crate::common::device_plugin::DevicePlugin;
use crate::common::nvidia_tools::NvidiaNode;
use crate::common::real_node::RealNode;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// The real node's name (its address).
pub(super) const NODE: &str = "127.0.0.1";
pub(super) const MIG_CONFIG: &str = "nvidia.com/mig.config";

pub(super) struct AgentBesidePlugin {
    pub cluster: Cluster,
    /// The API server's administrator.
    pub kubeconfig: PathBuf,
    /// Shared with the thread that plays its DaemonSet.
    plugin: Arc<Mutex<DevicePlugin>>,
    /// The host the kubelet sees (`--host-root` for gpushare).
    pub host_root: PathBuf,
    /// The node's kubelet's cgroupRoot (`--kubelet-cgroup-root`).
    pub cgroup_root: String,
    pub agent: AgentProcess,
    stop: Arc<AtomicBool>,
    daemonset: Option<JoinHandle<()>>,
    // Last, so that they stop after what talks to them.
    pub node: RealNode,
    _server: ApiServer,
}

impl AgentBesidePlugin {
    /// The node labelled `nvidia.com/mig.config=<mig_config>`, the plugin started with `config`
    /// and `env` (from `generated`), and the agent with mig-parted's layouts; None (said
    /// loudly) when a tool or a mount namespace cannot be had.
    pub(super) fn start(
        test: &str,
        node: &NvidiaNode,
        config: &Path,
        env: &BTreeMap<String, String>,
        mig_config: &str,
    ) -> Option<AgentBesidePlugin> {
        Self::start_with(test, node, config, env, mig_config, &[])
    }

    /// The same, the agent started with more arguments.
    pub(super) fn start_with(
        test: &str,
        node: &NvidiaNode,
        config: &Path,
        env: &BTreeMap<String, String>,
        mig_config: &str,
        agent_args: &[&str],
    ) -> Option<AgentBesidePlugin> {
        let server = ApiServer::with_scheduler(test)?;
        let real = RealNode::start(test, &server, NODE, false)?;
        let cluster = Cluster::connect(&server.kubeconfig);
        cluster.untaint(NODE);
        apply_agent_with_mig_parted_layouts(&cluster);
        cluster.label(
            NODE,
            &[
                (DEVICE_PLUGIN, Some("true")),
                (MIG_CONFIG, Some(mig_config)),
            ],
        );
        let plugin = DevicePlugin::start(node, &real, config, env, &[]);
        let host_root = real.host_root();
        let cgroup_root = real.cgroup_root();
        cluster.create_pod(plugin_pod(NODE));
        let plugin = Arc::new(Mutex::new(plugin));
        let stop = Arc::new(AtomicBool::new(false));
        let daemonset = {
            let (kubeconfig, plugin, stop) =
                (server.kubeconfig.clone(), plugin.clone(), stop.clone());
            std::thread::spawn(move || {
                play_daemonsets(&kubeconfig, &[Daemon::device_plugin(NODE, plugin)], &stop)
            })
        };
        let agent_kubeconfig = node.path("agent.kubeconfig");
        cluster.pod_token_kubeconfig(NS, "gpushare-agent", NODE, &agent_kubeconfig);
        let agent = AgentProcess::start_with(
            node.dir.path(),
            &agent_kubeconfig,
            NODE,
            CONFIGMAP,
            &[
                &[
                    "--host-root".as_ref(),
                    host_root.as_os_str(),
                    "--kubelet-cgroup-root".as_ref(),
                    cgroup_root.as_ref(),
                ][..],
                &agent_args
                    .iter()
                    .map(std::ffi::OsStr::new)
                    .collect::<Vec<_>>(),
            ]
            .concat(),
        );
        Some(AgentBesidePlugin {
            cluster,
            kubeconfig: server.kubeconfig.clone(),
            plugin,
            host_root,
            cgroup_root,
            agent,
            stop,
            daemonset: Some(daemonset),
            node: real,
            _server: server,
        })
    }

    /// The Node's allocatable count of `resource` (0 when it has none).
    pub(super) fn allocatable(&self, resource: &str) -> usize {
        self.cluster
            .node(NODE)
            .status
            .and_then(|s| s.allocatable)
            .and_then(|a| a.get(resource).map(|q| q.0.parse().unwrap_or(0)))
            .unwrap_or(0)
    }

    /// What NVIDIA's device plugin said.
    pub(super) fn plugin_log(&self) -> String {
        self.plugin.lock().map(|p| p.log()).unwrap_or_default()
    }

    /// Stop playing the DaemonSet; a panic there fails the test.
    pub(super) fn finish(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(daemonset) = self.daemonset.take() {
            daemonset.join().unwrap();
        }
    }
}

impl Drop for AgentBesidePlugin {
    /// A test that failed half-way stops the DaemonSet too.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(daemonset) = self.daemonset.take() {
            let _ = daemonset.join();
        }
    }
}
