//! What the cluster should see on this node: per GPU its MIG devices and how it is shared.
//!
//! With `-c gpushare.toml` this is the desired layout (MIG devices named by the profiles in the
//! file, MPS and time-slicing from their sections); GPUs the file does not cover, and every GPU
//! without `-c`, are described as the node has them now.

use crate::node::config::{AssignedConfig, Config, GpuEntry};
use crate::node::model::{ComputeMode, Gpu, Node};
use crate::sharing::mode::offer::profile_order;
use crate::sharing::mps::settings::DaemonSpec;
use crate::support::error::Result;
use toml::Spanned;

pub(crate) use crate::sharing::mode::offer::{GpuOffer, MigSlice, MpsShare, Sharing};

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NodeOffer {
    pub gpus: Vec<GpuOffer>,
    /// The device plugin's mixed MIG strategy even where one profile would do
    /// (`--mig-strategy mixed`: under MIG on demand the profiles change).
    pub mixed: bool,
}

impl NodeOffer {
    /// The node as it is: MIG devices from its instances, no sharing.
    pub(crate) fn observed(node: &Node) -> NodeOffer {
        NodeOffer {
            gpus: node.gpus.iter().map(observed_gpu).collect(),
            mixed: false,
        }
    }

    /// Add the MPS daemons gpushare runs (their `settings.json` records) to an observed layout:
    /// a whole GPU a daemon serves shares by MPS, and so do MIG devices served one per daemon.
    /// Records of devices no longer on the node (a re-created MIG device) are ignored.
    pub(crate) fn with_running_mps(mut self, node: &Node, daemons: &[DaemonSpec]) -> NodeOffer {
        for daemon in daemons {
            for device in daemon.devices.iter().filter(|d| d.present_on(node)) {
                let Some(gpu) = self.gpus.iter_mut().find(|g| g.index == device.gpu) else {
                    continue;
                };
                let replicas = daemon
                    .clients
                    .or_else(|| daemon.thread_percentage.map(|t| 100 / t.max(1)))
                    .unwrap_or(1)
                    .max(1);
                let share = MpsShare {
                    replicas,
                    thread_percentage: daemon.thread_percentage.unwrap_or(100 / replicas).max(1),
                    memory_limit_mib: device
                        .memory_limit_mib
                        .unwrap_or(device.memory_mib / u64::from(replicas)),
                };
                if device.mig.is_some() {
                    gpu.mig_sharing = Sharing::Mps(share);
                } else {
                    gpu.sharing = Sharing::Mps(share);
                }
                gpu.origin = format!("MPS daemon {}", daemon.name);
            }
        }
        self
    }

    /// The layout `config` asks for, on this node; GPUs it does not cover stay as they are.
    pub(crate) fn desired(node: &Node, config: &AssignedConfig) -> Result<NodeOffer> {
        let assigned = config.assignments();
        let mut gpus = Vec::with_capacity(node.gpus.len());
        for gpu in &node.gpus {
            match assigned.iter().find(|a| a.gpu == gpu.index) {
                Some(a) => gpus.push(desired_gpu(config, gpu, a.entry)?),
                None => gpus.push(observed_gpu(gpu)),
            }
        }
        Ok(NodeOffer { gpus, mixed: false })
    }

    pub(crate) fn any_mig(&self) -> bool {
        self.gpus.iter().any(|g| g.mig.is_some())
    }

    /// Every MIG device profile on the node, sorted, once each.
    pub(crate) fn mig_profiles(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .gpus
            .iter()
            .flat_map(|g| g.mig.iter().flatten().map(|s| s.profile.clone()))
            .collect();
        out.sort_by(|a, b| profile_order(a).cmp(&profile_order(b)).then(a.cmp(b)));
        out.dedup();
        out
    }

    /// GPUs that are whole (MIG off).
    pub(crate) fn whole_gpus(&self) -> impl Iterator<Item = &GpuOffer> {
        self.gpus.iter().filter(|g| g.mig.is_none())
    }
}

fn observed_gpu(gpu: &Gpu) -> GpuOffer {
    let mig = gpu.mig.current.is_enabled().then(|| {
        gpu.mig
            .instances
            .iter()
            .flatten()
            .flat_map(|gi| {
                gi.compute_instances.iter().map(move |ci| MigSlice {
                    profile: ci.profile.clone(),
                    memory_mib: gi.memory_mib,
                })
            })
            .collect()
    });
    GpuOffer {
        index: gpu.index,
        uuid: gpu.uuid.clone(),
        name: gpu.name.clone(),
        memory_mib: gpu.memory_total_mib,
        mig,
        sharing: Sharing::Exclusive,
        mig_sharing: Sharing::Exclusive,
        origin: "the node".into(),
    }
}

fn desired_gpu(config: &Config, gpu: &Gpu, entry: &Spanned<GpuEntry>) -> Result<GpuOffer> {
    let e = entry.get_ref();
    let (line, _) = crate::support::error::line_col(&config.source.text, entry.span().start);
    let mut layout = observed_gpu(gpu);
    layout.origin = format!("{}:{line}", config.source.path.display());
    layout.mig = None;
    crate::sharing::mode::of(*e.mode.get_ref()).offer(config, gpu, e, &mut layout)?;
    if gpu.compute_mode == Some(ComputeMode::Prohibited) && layout.mig.is_none() {
        return Err(config
            .error_at(
                e.mode.span(),
                format!(
                    "GPU {} has compute mode prohibited: no workload can run on it",
                    gpu.index
                ),
            )
            .with_hint("set its compute mode back to default first"));
    }
    Ok(layout)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::backend::Backend;
    use crate::node::backend::sim::SimBackend;
    use crate::support::source_file::SourceFile;

    fn node(preset: &str) -> Node {
        SimBackend::from_preset(preset).unwrap().snapshot().unwrap()
    }

    fn config(text: &str) -> Config {
        Config::parse(SourceFile::inline("gpushare.toml", text)).unwrap()
    }

    /// What `config` makes of a simulated `preset`.
    fn offer(preset: &str, config: &Config) -> Result<NodeOffer> {
        let node = node(preset);
        NodeOffer::desired(&node, &AssignedConfig::new(config.clone(), &node)?)
    }

    #[test]
    fn desired_mig_devices_follow_the_config() {
        let c = config(
            "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 2, \"2g.10gb\" = 1, \"3g.20gb\" = 1 }\n",
        );
        let l = offer("dgx-a100", &c).unwrap();
        let profiles: Vec<&str> = l.gpus[0]
            .mig
            .as_ref()
            .unwrap()
            .iter()
            .map(|s| s.profile.as_str())
            .collect();
        assert_eq!(profiles, ["3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"]);
        assert_eq!(l.mig_profiles(), ["1g.5gb", "2g.10gb", "3g.20gb"]);
        assert_eq!(l.gpus[7].origin, "gpushare.toml:1");
    }

    #[test]
    fn unknown_profiles_and_non_mig_gpus_are_bad_input() {
        let c = config(
            "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"1g.6gb\" = 2 }\n",
        );
        let e = offer("dgx-a100", &c).unwrap_err();
        assert_eq!(e.exit, crate::support::error::Exit::Usage);
        assert!(
            e.message.starts_with("gpushare.toml:4:17:"),
            "{}",
            e.message
        );
        assert!(e.hint.unwrap().contains("1g.5gb"));
        let c = config(
            "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 1 }\n",
        );
        let e = offer("t4x4", &c).unwrap_err();
        assert!(e.message.contains("not MIG-capable"), "{}", e.message);
    }

    #[test]
    fn mps_limits_default_to_equal_shares() {
        let c = config("[[gpus]]\nselect = \"all\"\nmode = \"mps\"\nmps = { clients = 4 }\n");
        let l = offer("t4x4", &c).unwrap();
        let Sharing::Mps(share) = l.gpus[0].sharing else {
            panic!("not MPS")
        };
        assert_eq!(share.replicas, 4);
        assert_eq!(share.thread_percentage, 25);
        assert_eq!(share.memory_limit_mib, l.gpus[0].memory_mib / 4);
        assert!(share.is_equal_share(l.gpus[0].memory_mib));
        let c = config(
            "[[gpus]]\nselect = \"all\"\nmode = \"mps\"\nmps = { thread_percentage = 50, memory_limit = \"2G\" }\n",
        );
        let l = offer("t4x4", &c).unwrap();
        let Sharing::Mps(share) = l.gpus[0].sharing else {
            panic!("not MPS")
        };
        assert_eq!((share.replicas, share.memory_limit_mib), (2, 2048));
        assert!(!share.is_equal_share(l.gpus[0].memory_mib));
    }

    #[test]
    fn compute_instance_profiles_are_kept_by_name() {
        let c = config(
            "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"2c.3g.20gb\" = 1, \"1c.3g.20gb\" = 1 }\n",
        );
        let l = offer("dgx-a100", &c).unwrap();
        let mig = l.gpus[0].mig.as_ref().unwrap();
        assert_eq!(mig[0].profile, "2c.3g.20gb");
        assert!(!mig[0].is_full_instance());
        assert!(l.gpus[1].mig.is_none(), "GPU 1 is left as it is");
        let c = config(
            "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"5c.3g.20gb\" = 1 }\n",
        );
        assert!(offer("dgx-a100", &c).is_err());
    }
}
