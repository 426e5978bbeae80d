//! What the probe measures, and what each target was promised.
//!
//! Targets come from the node: every full GPU (MIG off), every MIG device (MIG on), and an MPS
//! client instead of the device when an MPS daemon serves it. Promises come from `-c
//! gpushare.toml` when given, otherwise from the applied state (the node itself and the MPS
//! daemons' settings files).

use super::mps_settings::MpsDaemon;
use crate::node::config::{AssignedConfig, MpsSection};
use crate::node::model::selector::{GpuSelector, SelectorItem};
use crate::node::model::{Gpu, Node};
use crate::sharing::mode::DeviceShare;
use crate::sharing::mps::limits::MpsRequest;
use crate::support::error::{Error, Result};
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum TargetKind {
    /// A whole GPU (`CUDA_VISIBLE_DEVICES=GPU-…`).
    Gpu,
    /// A MIG device (`CUDA_VISIBLE_DEVICES=MIG-…`).
    Mig,
    /// A client of an MPS daemon (`CUDA_MPS_PIPE_DIRECTORY`).
    Mps,
}

/// The name of the target `probe --share` measures (its label says whose share it is).
pub(crate) const SHARE_NAME: &str = "share";

/// What a target should give a workload. `None`: nothing was promised about it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Promise {
    /// Memory a client can allocate, MiB: the GPU's, the MIG device's, or the MPS client limit.
    pub memory_mib: u64,
    /// Where `memory_mib` comes from.
    pub memory_from: String,
    /// The exact SM count (a whole GPU, a MIG compute instance).
    pub multiprocessors: Option<u32>,
    /// The most SMs an MPS client may get: its thread percentage of the device's SMs.
    pub max_multiprocessors: Option<u32>,
    pub thread_percentage: Option<u32>,
    /// Workloads promised to share the device (MPS clients, time-slicing replicas).
    pub clients: Option<u32>,
    /// gpushare.toml puts the device under MPS, but no MPS daemon serves it.
    pub mps_missing: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Target {
    pub kind: TargetKind,
    pub gpu: u32,
    pub gpu_uuid: String,
    /// The GPU's PCI bus id (NVML's form), for its local CPUs.
    pub pci_bus_id: String,
    /// The device's UUID: `GPU-…` or, for MIG devices and MPS clients on them, `MIG-…`.
    pub uuid: String,
    /// The GPU's name, or the MIG profile.
    pub name: String,
    /// Physical memory and SMs of the device (the MIG device for MIG).
    pub device_memory_mib: u64,
    pub device_multiprocessors: u32,
    pub mps_pipe_dir: Option<PathBuf>,
    /// The host CPUs its workers run on (the GPU's local CPUs); `None`: as inherited.
    pub local_cpus: Option<Vec<u32>>,
    pub promise: Promise,
}

impl Target {
    /// `GPU 0`, `GPU 0 MIG 1g.5gb`, `GPU 0 MPS` — how tables and progress name it.
    pub(crate) fn label(&self) -> String {
        if self.name == SHARE_NAME {
            return format!("share of {}", self.uuid);
        }
        match (self.kind, self.uuid.starts_with("MIG-")) {
            (TargetKind::Gpu, _) => format!("GPU {}", self.gpu),
            (TargetKind::Mig, _) => format!("GPU {} MIG {}", self.gpu, self.name),
            (TargetKind::Mps, true) => format!("GPU {} MIG {} MPS", self.gpu, self.name),
            (TargetKind::Mps, false) => format!("GPU {} MPS", self.gpu),
        }
    }
}

/// Where targets and promises come from.
pub(crate) struct Sources<'a> {
    pub node: &'a Node,
    pub config: Option<&'a AssignedConfig>,
    pub daemons: &'a [MpsDaemon],
    /// `--mps-pipe-dir`: an MPS daemon the user points at.
    pub pipe_dir: Option<&'a Path>,
}

/// A device of the node that CUDA can open.
struct Device {
    kind: TargetKind,
    uuid: String,
    name: String,
    memory_mib: u64,
    /// `None` when the driver does not say.
    multiprocessors: Option<u32>,
    memory_from: String,
}

/// Every target of the node, in GPU order. `notes` collects what is skipped and why.
pub(crate) fn discover(src: &Sources, notes: &mut Vec<String>) -> Result<Vec<Target>> {
    let assignments = src
        .config
        .map(AssignedConfig::assignments)
        .unwrap_or_default();
    let mut targets = Vec::new();
    for gpu in &src.node.gpus {
        let entry = assignments
            .iter()
            .find(|a| a.gpu == gpu.index)
            .map(|a| a.entry.get_ref());
        let mode = entry.map(|e| crate::sharing::mode::of(*e.mode.get_ref()));
        if mode.is_some_and(|m| !m.host_runs_cuda()) {
            notes.push(format!(
                "GPU {} is set up for vGPU: CUDA on the host cannot use it; run the probe inside a VM",
                gpu.index
            ));
            continue;
        }
        let share = entry
            .zip(mode)
            .map(|(e, m)| m.device_share(e))
            .unwrap_or_default();
        for device in devices(gpu, notes)? {
            targets.push(target(src, gpu, device, share));
        }
    }
    Ok(targets)
}

fn devices(gpu: &Gpu, notes: &mut Vec<String>) -> Result<Vec<Device>> {
    if !gpu.mig.current.is_enabled() {
        return Ok(vec![Device {
            kind: TargetKind::Gpu,
            uuid: gpu.uuid.clone(),
            name: gpu.name.clone(),
            memory_mib: gpu.memory_total_mib,
            multiprocessors: gpu.multiprocessors,
            memory_from: "GPU memory".into(),
        }]);
    }
    // A MIG layout the driver would not list is an error, not "no MIG devices".
    let instances = gpu.mig_instances()?;
    if instances.is_empty() {
        notes.push(format!(
            "GPU {}: MIG is enabled but it has no MIG devices; nothing to probe there",
            gpu.index
        ));
    }
    let mut out = Vec::new();
    for gi in instances {
        if gi.compute_instances.is_empty() {
            notes.push(format!(
                "GPU {}: GPU instance {} ({}) has no compute instance, so no MIG device to probe",
                gpu.index, gi.gpu_instance_id, gi.profile
            ));
        }
        for ci in &gi.compute_instances {
            // The worker sees a MIG device only through its UUID (CUDA_VISIBLE_DEVICES).
            let uuid = match gpu.mig_uuid(gi, ci) {
                Ok(uuid) => uuid.to_string(),
                Err(e) => {
                    notes.push(format!("{}; it is not probed", e.message));
                    continue;
                }
            };
            out.push(Device {
                kind: TargetKind::Mig,
                uuid,
                name: ci.profile.clone(),
                memory_mib: gi.memory_mib,
                multiprocessors: Some(ci.multiprocessors),
                memory_from: format!("MIG {} memory", gi.profile),
            });
        }
    }
    Ok(out)
}

fn target(src: &Sources, gpu: &Gpu, device: Device, share: DeviceShare) -> Target {
    // A device shared by claims has a daemon only while claims hold shares (each share is
    // probed from its container, `probe --share`): without one, the device is probed whole.
    let mps_section = share.mps.filter(|m| m.shares.is_none());
    let daemon = src
        .daemons
        .iter()
        .find_map(|d| d.device(&device.uuid).map(|dev| (d, dev)));
    // `--mps-pipe-dir` applies to what gpushare.toml puts under MPS, or to everything without it.
    let pipe_dir = daemon.map(|(d, _)| d.pipe_dir.clone()).or_else(|| {
        src.pipe_dir
            .filter(|_| src.config.is_none() || mps_section.is_some())
            .map(Path::to_path_buf)
    });
    let mut promise = Promise {
        memory_mib: device.memory_mib,
        memory_from: device.memory_from.clone(),
        multiprocessors: device.multiprocessors,
        max_multiprocessors: None,
        thread_percentage: None,
        clients: share.clients,
        mps_missing: false,
    };
    let limits = match (mps_section, daemon) {
        (Some(section), _) => Some(MpsLimits::from_section(
            section,
            device.memory_mib,
            "gpushare.toml",
        )),
        (None, Some((d, dev))) => Some(MpsLimits {
            memory_mib: dev.memory_limit_mib,
            thread_percentage: d.thread_percentage,
            clients: d.clients,
            from: format!("MPS daemon {}", d.name),
        }),
        (None, None) => None,
    };
    if let Some(limits) = &limits {
        promise.clients = limits.clients;
        if pipe_dir.is_some() {
            limits.apply(&mut promise, device.multiprocessors);
        } else {
            promise.mps_missing = true;
        }
    }
    let kind = if pipe_dir.is_some() {
        promise.multiprocessors = None;
        TargetKind::Mps
    } else {
        device.kind
    };
    Target {
        kind,
        gpu: gpu.index,
        gpu_uuid: gpu.uuid.clone(),
        pci_bus_id: gpu.pci_bus_id.clone(),
        uuid: device.uuid,
        name: device.name,
        device_memory_mib: device.memory_mib,
        // 0 when the driver does not say: the worker then goes by CUDA's count alone.
        device_multiprocessors: device.multiprocessors.unwrap_or(0),
        mps_pipe_dir: pipe_dir,
        local_cpus: None,
        promise,
    }
}

/// Per-client MPS limits, from gpushare.toml or a daemon's settings.
struct MpsLimits {
    memory_mib: Option<u64>,
    thread_percentage: Option<u32>,
    clients: Option<u32>,
    from: String,
}

impl MpsLimits {
    /// The limits `mps::limits` derives from the section, for a device of `device_memory_mib`.
    fn from_section(section: &MpsSection, device_memory_mib: u64, from: &str) -> MpsLimits {
        let request = MpsRequest::from_section(section);
        MpsLimits {
            memory_mib: request.memory_limit_mib(device_memory_mib),
            thread_percentage: request.thread_percentage(),
            clients: request.clients,
            from: from.to_string(),
        }
    }

    fn apply(&self, promise: &mut Promise, device_multiprocessors: Option<u32>) {
        if let Some(m) = self.memory_mib {
            promise.memory_mib = m;
            promise.memory_from = format!("MPS memory limit ({})", self.from);
        }
        if let Some(p) = self.thread_percentage {
            promise.thread_percentage = Some(p);
            promise.max_multiprocessors = device_multiprocessors
                .map(|sms| (u64::from(sms) * u64::from(p)).div_ceil(100) as u32);
        }
    }
}

/// Keep the targets `--target SEL` names: GPUs by index, range, UUID or bus id (all their
/// targets), or one MIG device by its `MIG-…` UUID.
pub(crate) fn select(
    targets: Vec<Target>,
    selector: &GpuSelector,
    node: &Node,
) -> Result<Vec<Target>> {
    let GpuSelector::Items(items) = selector else {
        return Ok(targets);
    };
    let mut kept = Vec::new();
    let mut unmatched = Vec::new();
    for item in items {
        if let SelectorItem::Uuid(u) = item
            && u.starts_with("MIG-")
        {
            let matching: Vec<&Target> = targets
                .iter()
                .filter(|t| t.uuid.starts_with(u.as_str()))
                .collect();
            if matching.is_empty() {
                unmatched.push(u.clone());
            }
            for t in matching {
                if !kept.contains(t) {
                    kept.push(t.clone());
                }
            }
            continue;
        }
        let gpus = GpuSelector::Items(vec![item.clone()]).resolve(node)?;
        for t in targets.iter().filter(|t| gpus.contains(&t.gpu)) {
            if !kept.contains(t) {
                kept.push(t.clone());
            }
        }
    }
    if let Some(u) = unmatched.first() {
        return Err(
            Error::usage(format!("no MIG device matches `{u}`")).with_hint(format!(
                "this node's MIG devices: {}",
                list_or_none(
                    targets
                        .iter()
                        .filter(|t| t.uuid.starts_with("MIG-"))
                        .map(|t| t.uuid.as_str())
                )
            )),
        );
    }
    let order = |t: &Target| targets.iter().position(|x| x == t).unwrap_or(usize::MAX);
    kept.sort_by_key(order);
    Ok(kept)
}

fn list_or_none<'a>(items: impl Iterator<Item = &'a str>) -> String {
    let v: Vec<&str> = items.collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::backend::Backend;
    use crate::node::backend::sim::SimBackend;
    use crate::node::config::Config;
    use crate::support::source_file::SourceFile;

    fn node(preset: &str) -> Node {
        SimBackend::from_preset(preset).unwrap().snapshot().unwrap()
    }

    fn with_mig(preset: &str, gpu: u32, profiles: &[(u32, u32)]) -> Node {
        let sim = SimBackend::from_preset(preset).unwrap();
        sim.set_mig_mode(gpu, crate::node::model::MigMode::Enabled)
            .unwrap();
        for (profile_id, start) in profiles {
            let size = sim
                .gpu_instance_profiles(gpu)
                .unwrap()
                .listed()
                .unwrap()
                .into_iter()
                .find(|p| p.profile.id == *profile_id)
                .unwrap()
                .profile
                .size;
            let gi = sim
                .create_gpu_instance(
                    gpu,
                    *profile_id,
                    crate::node::model::Placement {
                        start: *start,
                        size,
                    },
                )
                .unwrap();
            let ci = sim.compute_instance_profiles(gpu, gi).unwrap();
            let full = ci.iter().max_by_key(|c| c.slices).unwrap().id;
            sim.create_compute_instance(gpu, gi, full).unwrap();
        }
        sim.snapshot().unwrap()
    }

    fn config(text: &str, node: &Node) -> AssignedConfig {
        let config = Config::parse(SourceFile::inline("gpushare.toml", text)).unwrap();
        AssignedConfig::new(config, node).unwrap()
    }

    fn discover_all(src: &Sources) -> (Vec<Target>, Vec<String>) {
        let mut notes = Vec::new();
        let t = discover(src, &mut notes).unwrap();
        (t, notes)
    }

    #[test]
    fn whole_gpus_and_mig_devices_with_their_memory_and_sms() {
        // A100 40GB: 3g.20gb (id 9) at 4, 1g.5gb (id 19) at 0.
        let node = with_mig("dgx-a100", 1, &[(9, 4), (19, 0)]);
        let src = Sources {
            node: &node,
            config: None,
            daemons: &[],
            pipe_dir: None,
        };
        let (targets, notes) = discover_all(&src);
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(targets.len(), 9);
        let gpu0 = &targets[0];
        assert_eq!((gpu0.kind, gpu0.gpu), (TargetKind::Gpu, 0));
        assert_eq!(gpu0.promise.memory_mib, 40960);
        assert_eq!(gpu0.promise.multiprocessors, Some(108));
        let migs: Vec<&Target> = targets
            .iter()
            .filter(|t| t.kind == TargetKind::Mig)
            .collect();
        assert_eq!(migs.len(), 2);
        let three = migs.iter().find(|t| t.name == "3g.20gb").unwrap();
        assert_eq!((three.gpu, three.promise.memory_mib), (1, 19968));
        assert_eq!(three.promise.multiprocessors, Some(42));
        assert!(three.uuid.starts_with("MIG-"));
        assert_eq!(three.label(), "GPU 1 MIG 3g.20gb");
    }

    #[test]
    fn time_sliced_mig_devices_are_promised_to_their_replicas() {
        let node = with_mig("dgx-a100", 1, &[(9, 4), (19, 0)]);
        let config = config(
            "[[gpus]]\nselect = [1]\nmode = \"mig\"\nmig.devices = { \"3g.20gb\" = 1, \"1g.5gb\" = 1 }\nmig.time_slicing.replicas = 3\n[[gpus]]\nselect = [0]\nmode = \"time-slicing\"\ntime_slicing.replicas = 2\n",
            &node,
        );
        let src = Sources {
            node: &node,
            config: Some(&config),
            daemons: &[],
            pipe_dir: None,
        };
        let (targets, _) = discover_all(&src);
        let clients = |gpu: u32| -> Vec<(TargetKind, Option<u32>)> {
            targets
                .iter()
                .filter(|t| t.gpu == gpu)
                .map(|t| (t.kind, t.promise.clients))
                .collect()
        };
        assert_eq!(
            clients(1),
            [(TargetKind::Mig, Some(3)), (TargetKind::Mig, Some(3))]
        );
        assert_eq!(clients(0), [(TargetKind::Gpu, Some(2))]);
        assert_eq!(clients(2), [(TargetKind::Gpu, None)], "not covered");
    }

    #[test]
    fn a_mig_device_without_a_known_uuid_is_skipped_with_a_note() {
        let mut node = with_mig("dgx-a100", 1, &[(9, 4), (19, 0)]);
        let gi = &mut node.gpus[1].mig.instances.as_mut().unwrap()[0];
        gi.compute_instances[0].uuid = None;
        let src = Sources {
            node: &node,
            config: None,
            daemons: &[],
            pipe_dir: None,
        };
        let (targets, notes) = discover_all(&src);
        let migs = targets.iter().filter(|t| t.kind == TargetKind::Mig).count();
        assert_eq!(migs, 1, "the other MIG device is still probed");
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].starts_with("GPU 1 (NVIDIA A100-SXM4-40GB): the UUID of MIG device ")
                && notes[0].ends_with("is unknown: the driver did not say; it is not probed"),
            "{notes:?}"
        );
    }

    #[test]
    fn mig_enabled_without_devices_is_a_note() {
        let node = with_mig("a30x4", 2, &[]);
        let src = Sources {
            node: &node,
            config: None,
            daemons: &[],
            pipe_dir: None,
        };
        let (targets, notes) = discover_all(&src);
        assert_eq!(targets.len(), 3);
        assert!(notes[0].contains("GPU 2: MIG is enabled"), "{notes:?}");
    }

    #[test]
    fn mps_from_the_config_with_a_pipe_dir_and_without_one() {
        let node = node("t4x4");
        let cfg = config(
            "[[gpus]]\nselect = [0, 1]\nmode = \"mps\"\nmps.clients = 4\n\n[[gpus]]\nselect = [2]\nmode = \"time-slicing\"\ntime_slicing.replicas = 3\n",
            &node,
        );
        let pipe = PathBuf::from("/run/mps");
        let src = Sources {
            node: &node,
            config: Some(&cfg),
            daemons: &[],
            pipe_dir: Some(&pipe),
        };
        let (targets, _) = discover_all(&src);
        let t0 = &targets[0];
        assert_eq!(t0.kind, TargetKind::Mps);
        assert_eq!(t0.mps_pipe_dir.as_deref(), Some(pipe.as_path()));
        // T4: 15360 MiB and 40 SMs; 4 clients get 25% and a quarter of the memory each.
        assert_eq!(t0.promise.memory_mib, 3840);
        assert_eq!(t0.promise.thread_percentage, Some(25));
        assert_eq!(t0.promise.max_multiprocessors, Some(10));
        assert_eq!(t0.promise.multiprocessors, None);
        assert_eq!(t0.promise.clients, Some(4));
        assert_eq!(t0.label(), "GPU 0 MPS");
        // Time-slicing: a whole GPU promised to 3 workloads; GPU 3 is in no entry.
        assert_eq!(
            (targets[2].kind, targets[2].promise.clients),
            (TargetKind::Gpu, Some(3))
        );
        assert_eq!(targets[3].kind, TargetKind::Gpu);
        assert!(targets[3].mps_pipe_dir.is_none());

        let src = Sources {
            node: &node,
            config: Some(&cfg),
            daemons: &[],
            pipe_dir: None,
        };
        let (targets, _) = discover_all(&src);
        assert_eq!(targets[0].kind, TargetKind::Gpu);
        assert!(targets[0].promise.mps_missing);
    }

    #[test]
    fn daemon_settings_give_the_pipe_dir_and_the_limits() {
        let node = node("t4x4");
        let daemons = [MpsDaemon {
            name: "gpu1".into(),
            pipe_dir: "/run/gpushare/mps/gpu1/pipe".into(),
            devices: vec![crate::observe::probe::mps_settings::MpsDevice {
                uuid: node.gpus[1].uuid.to_lowercase(),
                memory_limit_mib: Some(6000),
            }],
            clients: Some(2),
            thread_percentage: Some(50),
        }];
        let src = Sources {
            node: &node,
            config: None,
            daemons: &daemons,
            pipe_dir: None,
        };
        let (targets, _) = discover_all(&src);
        assert_eq!(targets[0].kind, TargetKind::Gpu);
        let t = &targets[1];
        assert_eq!(t.kind, TargetKind::Mps);
        assert_eq!(t.promise.memory_mib, 6000);
        assert_eq!(t.promise.memory_from, "MPS memory limit (MPS daemon gpu1)");
        assert_eq!(t.promise.max_multiprocessors, Some(20));
    }

    #[test]
    fn vgpu_gpus_are_skipped_with_a_note() {
        let node = node("t4x4");
        let cfg = config(
            "[[gpus]]\nselect = [3]\nmode = \"vgpu\"\nvgpu.devices = { \"T4-4C\" = 4 }\n",
            &node,
        );
        let src = Sources {
            node: &node,
            config: Some(&cfg),
            daemons: &[],
            pipe_dir: None,
        };
        let (targets, notes) = discover_all(&src);
        assert_eq!(targets.len(), 3);
        assert!(notes[0].contains("GPU 3 is set up for vGPU"), "{notes:?}");
    }

    #[test]
    fn selecting_gpus_and_mig_devices() {
        let node = with_mig("dgx-a100", 1, &[(9, 4), (19, 0)]);
        let src = Sources {
            node: &node,
            config: None,
            daemons: &[],
            pipe_dir: None,
        };
        let (targets, _) = discover_all(&src);
        let sel = |s: &str| select(targets.clone(), &s.parse().unwrap(), &node);
        assert_eq!(sel("all").unwrap().len(), 9);
        let one = sel("1").unwrap();
        assert_eq!(one.len(), 2);
        assert!(one.iter().all(|t| t.gpu == 1));
        let mig = targets.iter().find(|t| t.name == "1g.5gb").unwrap();
        let picked = sel(&mig.uuid[..12]).unwrap();
        assert_eq!(picked.len(), 1);
        assert_eq!(picked[0].uuid, mig.uuid);
        let mixed = sel(&format!("3,{},0", mig.uuid)).unwrap();
        assert_eq!(
            mixed.iter().map(|t| t.gpu).collect::<Vec<_>>(),
            [0, 1, 3],
            "node order"
        );
        assert!(sel("9").unwrap_err().message.contains("no GPU matches `9`"));
        let e = sel("MIG-ffffffff").unwrap_err();
        assert!(e.message.contains("no MIG device matches"), "{}", e.message);
        assert!(e.hint.unwrap().contains(&mig.uuid));
    }
}
