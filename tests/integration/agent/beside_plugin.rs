//! One node as a cluster has it: a real API server and scheduler, NVIDIA's device plugin on the
//! NVML stand-in registered with the stand-in kubelet joined as the Node, the test playing the
//! plugin's DaemonSet, and `gpushare agent` on the same simulated node reading the kubelet's
//! pod-resources.

use super::agent_process::AgentProcess;
use super::{
    CONFIGMAP, DEVICE_PLUGIN, NS, apply_agent_with_mig_parted_layouts, play_daemonsets, plugin_pod,
};
use crate::common::api_server::ApiServer;
use crate::common::cluster::Cluster;
use crate::common::device_plugin::DevicePlugin;
use crate::common::nvidia_tools::NvidiaNode;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

pub(super) const NODE: &str = "gpu-node-1";
pub(super) const MIG_CONFIG: &str = "nvidia.com/mig.config";

pub(super) struct AgentBesidePlugin {
    pub cluster: Cluster,
    pub plugin: Arc<Mutex<DevicePlugin>>,
    /// The host the plugin and the kubelet see (`--host-root` for gpushare).
    pub host_root: PathBuf,
    pub agent: AgentProcess,
    stop: Arc<AtomicBool>,
    daemonset: Option<JoinHandle<()>>,
    // Last, so that it stops after what talks to it.
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
        let server = ApiServer::with_scheduler(test)?;
        let cluster = Cluster::connect(&server.kubeconfig);
        apply_agent_with_mig_parted_layouts(&cluster);
        cluster.create_node(NODE, &[(DEVICE_PLUGIN, "true"), (MIG_CONFIG, mig_config)]);
        let plugin = DevicePlugin::start(test, node, config, env)?;
        plugin
            .kubelet
            .join(&server.kubeconfig, NODE, &BTreeMap::new())
            .unwrap();
        let host_root = plugin.host_root();
        cluster.create_pod(plugin_pod(NODE));
        let plugin = Arc::new(Mutex::new(plugin));
        let stop = Arc::new(AtomicBool::new(false));
        let daemonset = {
            let (kubeconfig, plugin, stop) =
                (server.kubeconfig.clone(), plugin.clone(), stop.clone());
            std::thread::spawn(move || {
                play_daemonsets(&kubeconfig, &[(NODE.into(), plugin)], &stop)
            })
        };
        let agent_kubeconfig = node.path("agent.kubeconfig");
        cluster.pod_token_kubeconfig(NS, "gpushare-agent", NODE, &agent_kubeconfig);
        let agent = AgentProcess::start_with(
            node.dir.path(),
            &agent_kubeconfig,
            NODE,
            CONFIGMAP,
            &["--host-root".as_ref(), host_root.as_os_str()],
        );
        Some(AgentBesidePlugin {
            cluster,
            plugin,
            host_root,
            agent,
            stop,
            daemonset: Some(daemonset),
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
