//! What the cluster should see on this node: per GPU its MIG devices and how it is shared.
//!
//! With `-c gpushare.toml` this is the desired layout (MIG devices named by the profiles in the
//! file, MPS and time-slicing from their sections); GPUs the file does not cover, and every GPU
//! without `-c`, are described as the node has them now.

use crate::config::AssignedConfig;
use crate::config::{Config, GpuEntry, Mode, MpsSection};
use crate::error::{Error, Result};
use crate::mps::settings::DaemonSpec;
use crate::node::catalog::catalog;
use crate::node::{ComputeMode, Gpu, Node};
use toml::Spanned;

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NodeOffer {
    pub gpus: Vec<GpuLayout>,
    /// The device plugin's mixed MIG strategy even where one profile would do
    /// (`--mig-strategy mixed`: under MIG on demand the profiles change).
    pub mixed: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GpuLayout {
    pub index: u32,
    pub uuid: String,
    /// Model name as NVML reports it.
    pub name: String,
    pub memory_mib: u64,
    /// MIG devices when MIG is (to be) enabled; `None` for a whole GPU.
    pub mig: Option<Vec<MigSlice>>,
    pub sharing: Sharing,
    /// MPS inside every MIG device of this GPU (`mig.mps`).
    pub mig_mps: Option<MpsShare>,
    /// Where this GPU's layout comes from: `gpushare.toml:LINE` or `the node`.
    pub origin: String,
}

/// One MIG device: a compute instance, named by its profile.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MigSlice {
    /// `1g.5gb`, or `2c.3g.20gb` for a compute instance smaller than its GPU instance.
    pub profile: String,
    /// Memory of the GPU instance.
    pub memory_mib: u64,
}

impl MigSlice {
    /// Whether the compute instance spans its whole GPU instance (profile `<G>g.<GB>gb…`).
    pub(crate) fn is_full_instance(&self) -> bool {
        !self.profile.contains("c.")
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Sharing {
    /// One workload at a time.
    Exclusive,
    TimeSlicing {
        replicas: u32,
    },
    Mps(MpsShare),
    /// vGPU devices for virtual machines.
    Vgpu,
}

/// MPS clients per device and the limits each gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MpsShare {
    pub replicas: u32,
    pub thread_percentage: u32,
    /// Pinned device memory per client, MiB.
    pub memory_limit_mib: u64,
}

impl MpsShare {
    /// Limits from an `mps` section for a device of `total_mib`: missing values follow from the
    /// others as equal shares (what k8s-device-plugin and the DRA driver assume).
    pub(crate) fn from_section(section: &MpsSection, total_mib: u64) -> MpsShare {
        let clients = section.clients.as_ref().map(|c| *c.get_ref());
        let percentage = section.thread_percentage.as_ref().map(|t| *t.get_ref());
        let memory = section.memory_limit.as_ref().map(|m| m.get_ref().0);
        let replicas = clients
            .or_else(|| percentage.map(|t| 100 / t.max(1)))
            .or_else(|| memory.map(|m| (total_mib / m.max(1)) as u32))
            .unwrap_or(1)
            .max(1);
        MpsShare {
            replicas,
            thread_percentage: percentage.unwrap_or(100 / replicas).max(1),
            memory_limit_mib: memory.unwrap_or(total_mib / u64::from(replicas)),
        }
    }

    /// Whether the limits are the equal shares `replicas` implies.
    pub(crate) fn is_equal_share(&self, total_mib: u64) -> bool {
        self.thread_percentage == 100 / self.replicas.max(1)
            && self.memory_limit_mib == total_mib / u64::from(self.replicas.max(1))
    }
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
                    gpu.mig_mps = Some(share);
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
    pub(crate) fn whole_gpus(&self) -> impl Iterator<Item = &GpuLayout> {
        self.gpus.iter().filter(|g| g.mig.is_none())
    }
}

/// Order MIG profiles by size (slices), then memory, so `1g.5gb` comes before `2g.10gb`.
fn profile_order(profile: &str) -> (u32, u32, u64) {
    let gi = profile.rsplit_once("c.").map_or(profile, |(_, gi)| gi);
    let slices = gi
        .split('g')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let compute = profile
        .split_once("c.")
        .and_then(|(c, _)| c.parse().ok())
        .unwrap_or(slices);
    let gb = gi
        .split_once('.')
        .and_then(|(_, rest)| rest.split("gb").next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    (slices, compute, gb)
}

fn observed_gpu(gpu: &Gpu) -> GpuLayout {
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
    GpuLayout {
        index: gpu.index,
        uuid: gpu.uuid.clone(),
        name: gpu.name.clone(),
        memory_mib: gpu.memory_total_mib,
        mig,
        sharing: Sharing::Exclusive,
        mig_mps: None,
        origin: "the node".into(),
    }
}

fn desired_gpu(config: &Config, gpu: &Gpu, entry: &Spanned<GpuEntry>) -> Result<GpuLayout> {
    let e = entry.get_ref();
    let (line, _) = crate::error::line_col(&config.source.text, entry.span().start);
    let mut layout = observed_gpu(gpu);
    layout.origin = format!("{}:{line}", config.source.path.display());
    layout.mig = None;
    match *e.mode.get_ref() {
        Mode::None => {}
        Mode::TimeSlicing => {
            if let Some(ts) = &e.time_slicing {
                layout.sharing = Sharing::TimeSlicing {
                    replicas: *ts.get_ref().replicas.get_ref(),
                };
            }
        }
        Mode::Mps => {
            if let Some(mps) = &e.mps {
                layout.sharing =
                    Sharing::Mps(MpsShare::from_section(mps.get_ref(), gpu.memory_total_mib));
            }
        }
        Mode::Vgpu => layout.sharing = Sharing::Vgpu,
        Mode::Mig => {
            let Some(mig) = &e.mig else {
                return Ok(layout);
            };
            let m = mig.get_ref();
            let mut slices = Vec::new();
            for (profile, count) in &m.devices {
                let slice = mig_slice(config, gpu, profile)?;
                for _ in 0..*count.get_ref() {
                    slices.push(slice.clone());
                }
            }
            for inst in &m.instances {
                slices.push(mig_slice(config, gpu, &inst.get_ref().profile)?);
            }
            slices.sort_by(|a, b| {
                profile_order(&b.profile)
                    .cmp(&profile_order(&a.profile))
                    .then(a.profile.cmp(&b.profile))
            });
            if let Some(mps) = &m.mps {
                // Each MIG device gets its own daemon; the limits are shares of the smallest.
                let smallest = slices.iter().map(|s| s.memory_mib).min().unwrap_or(0);
                layout.mig_mps = Some(MpsShare::from_section(mps.get_ref(), smallest));
            }
            layout.mig = Some(slices);
        }
    }
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

/// A MIG device of `profile` on `gpu`, checked against the GPU's MIG profiles.
fn mig_slice(config: &Config, gpu: &Gpu, profile: &Spanned<String>) -> Result<MigSlice> {
    let name = profile.get_ref();
    let cat = catalog();
    if !gpu.mig.capable {
        return Err(config
            .error_at(
                profile.span(),
                format!("GPU {} ({}) is not MIG-capable", gpu.index, gpu.name),
            )
            .with_hint("narrow the entry's select to MIG-capable GPUs"));
    }
    let Some(table) = cat.model_of(gpu).and_then(|m| cat.mig_table(m)) else {
        return Err(config
            .error_at(
                profile.span(),
                format!(
                    "GPU {} ({}): the catalog has no MIG table that agrees with the driver, so \
                     the manifests cannot describe `{name}` before the MIG devices exist",
                    gpu.index, gpu.name
                ),
            )
            .with_hint(
                "apply the layout first, then run `gpushare manifests` without -c: it describes \
                 the MIG devices the node has",
            ));
    };
    let gi_name = name.split_once("c.").map_or(name.as_str(), |(_, gi)| gi);
    let known = table
        .profile(gi_name)
        .filter(|p| gi_name == name || p.compute_profiles().iter().any(|c| &c.name == name));
    match known {
        Some(p) => Ok(MigSlice {
            profile: name.clone(),
            memory_mib: p.memory_mib,
        }),
        None => Err(unknown_profile(config, profile, gpu, table)),
    }
}

fn unknown_profile(
    config: &Config,
    profile: &Spanned<String>,
    gpu: &Gpu,
    table: &crate::node::catalog::MigTable,
) -> Error {
    let names: Vec<&str> = table.profiles.iter().map(|p| p.name.as_str()).collect();
    config
        .error_at(
            profile.span(),
            format!(
                "`{}` is not a MIG profile of GPU {} ({})",
                profile.get_ref(),
                gpu.index,
                gpu.name
            ),
        )
        .with_hint(format!("its profiles are {}", names.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Backend;
    use crate::backend::sim::SimBackend;
    use crate::source_file::SourceFile;

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
        assert_eq!(e.exit, crate::error::Exit::Usage);
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
