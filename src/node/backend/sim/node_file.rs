//! Node files and presets: the TOML a user writes to describe a simulated node.
//!
//! ```toml
//! driver_version = "580.105.08"            # optional
//! [[gpus]]
//! model = "NVIDIA A100-SXM4-40GB"          # a catalog name (`gpushare sim models`)
//! count = 2                                # optional, default 1
//! mig = "enabled"                          # optional: enabled | disabled
//! vgpu_host_mode = "sriov"                 # optional: sriov | non_sriov (a vGPU host)
//! utilization_percent = 35                 # optional: the driver's utilisation sample
//! reset = false                            # optional: the GPU cannot be reset (passthrough VM)
//! instances = [{ profile = "3g.20gb", start = 4 }]
//! processes = [{ pid = 4242, name = "python", used_memory_mib = 1024, gpu_instance = 0 }]
//! # kind = "mps-client": listed as an MPS client (default "compute")
//! ```

use super::state::{STATE_VERSION, SimGpu, SimState, stable_uuid};
use crate::node::model::catalog::catalog;
use crate::node::model::{
    ComputeMode, Holder, MigMode, Placement, Process, ProcessKind, VgpuHostMode,
};
use crate::support::error::{Error, Result};
use crate::support::source_file::SourceFile;
use serde::Deserialize;
use std::collections::BTreeMap;
use toml::Spanned;

pub(crate) const DEFAULT_DRIVER_VERSION: &str = "580.105.08";
pub(crate) const DEFAULT_CUDA_VERSION: &str = "13.0";
/// The most GPUs a node file may describe (NVML enumerates at most 64 devices).
const MAX_GPUS: u32 = 64;

const PRESETS_TOML: &str = include_str!("../../../../data/presets.toml");

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NodeFile {
    pub name: Option<String>,
    pub description: Option<String>,
    pub driver_version: Option<String>,
    pub cuda_driver_version: Option<String>,
    pub gpus: Vec<Spanned<GpuEntry>>,
    #[serde(default)]
    pub holders: Vec<Holder>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GpuEntry {
    model: Spanned<String>,
    count: Option<Spanned<u32>>,
    mig: Option<Spanned<MigMode>>,
    compute_mode: Option<ComputeMode>,
    persistence_mode: Option<bool>,
    /// vGPU host mode (`sriov` or `non_sriov`), as NVML reports it on a KVM host with the vGPU
    /// Manager; absent for an ordinary GPU.
    vgpu_host_mode: Option<VgpuHostMode>,
    /// The driver's utilisation sample, 0..=100 (none with MIG on, as the driver gives none).
    utilization_percent: Option<u32>,
    /// `false`: the GPU cannot be reset (a VM with passthrough); MIG mode changes need a reboot.
    reset: Option<bool>,
    #[serde(default)]
    instances: Vec<Spanned<InstanceEntry>>,
    #[serde(default)]
    processes: Vec<Spanned<ProcessEntry>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct InstanceEntry {
    profile: Spanned<String>,
    /// Memory-slice start; the first free valid placement when absent.
    start: Option<u32>,
    /// Compute-instance profiles (`1c.3g.20gb`); one full-size compute instance when absent.
    compute_instances: Option<Vec<Spanned<String>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProcessEntry {
    pid: u32,
    name: String,
    used_memory_mib: u64,
    /// Index into this entry's `instances`; absent = on the whole GPU.
    gpu_instance: Option<Spanned<usize>>,
    /// Index into that instance's compute instances (default 0).
    compute_instance: Option<Spanned<usize>>,
    /// `mps-client`: listed as a client of an MPS server (default `compute`).
    #[serde(default)]
    kind: ProcessKind,
}

/// A preset: a name, what it is, and its node file.
pub(crate) struct Preset {
    pub name: String,
    pub description: String,
    pub file: NodeFile,
}

/// The built-in presets, in file order.
pub(crate) fn presets() -> Vec<Preset> {
    #[derive(Deserialize)]
    struct PresetFile {
        preset: Vec<NodeFile>,
    }
    let file: PresetFile = SourceFile::inline("data/presets.toml", PRESETS_TOML)
        .parse_toml()
        .expect("data/presets.toml is valid (checked by the preset tests)");
    file.preset
        .into_iter()
        .map(|file| Preset {
            name: file.name.clone().unwrap_or_default(),
            description: file.description.clone().unwrap_or_default(),
            file,
        })
        .collect()
}

pub fn preset_names() -> Vec<String> {
    presets().into_iter().map(|p| p.name).collect()
}

/// Bus numbers of the GPUs of a DGX A100, reused for every simulated node.
const BUSES: [u32; 8] = [0x07, 0x0F, 0x47, 0x4E, 0x87, 0x90, 0xB7, 0xBD];

/// Build the simulated node a preset describes.
pub(crate) fn from_preset(name: &str) -> Result<SimState> {
    let preset = presets()
        .into_iter()
        .find(|p| p.name == name)
        .ok_or_else(|| {
            Error::usage(format!("unknown simulated node `{name}`")).with_hint(format!(
                "presets: {} (or give a node file path; see `gpushare sim presets`)",
                preset_names().join(", ")
            ))
        })?;
    build(
        &SourceFile::inline("data/presets.toml", PRESETS_TOML),
        name,
        preset.file,
    )
}

/// Build the simulated node a node file describes.
pub(crate) fn from_file(source: &SourceFile) -> Result<SimState> {
    let file: NodeFile = source.parse_toml()?;
    let stem = source
        .path
        .file_stem()
        .map_or_else(|| "node".to_string(), |s| s.to_string_lossy().into_owned());
    let name = file.name.clone().unwrap_or(stem);
    build(source, &name, file)
}

fn build(source: &SourceFile, name: &str, file: NodeFile) -> Result<SimState> {
    if file.gpus.is_empty() {
        // `gpus = []` is where the list is; a file without it fails to parse before this.
        let mut offset = 0;
        let mut at = None;
        for line in source.text.split_inclusive('\n') {
            let key = line.trim_start();
            if key
                .strip_prefix("gpus")
                .is_some_and(|r| r.trim_start().starts_with('='))
            {
                let i = offset + line.len() - key.len();
                at = Some(i..i);
                break;
            }
            offset += line.len();
        }
        return Err(source
            .error_at(at, "a node needs at least one [[gpus]] entry")
            .with_hint(
                "e.g. [[gpus]] model = \"NVIDIA A100-SXM4-40GB\" (see `gpushare sim models`)",
            ));
    }
    let mut state = SimState {
        version: STATE_VERSION,
        name: name.to_string(),
        driver_version: file
            .driver_version
            .unwrap_or_else(|| DEFAULT_DRIVER_VERSION.to_string()),
        cuda_driver_version: file
            .cuda_driver_version
            .unwrap_or_else(|| DEFAULT_CUDA_VERSION.to_string()),
        gpus: Vec::new(),
        holders: Vec::new(),
        stopped_units: Vec::new(),
        unloaded_modules: Vec::new(),
        ops_id: None,
        events: Vec::new(),
    };
    for entry in file.gpus {
        let span = entry.span();
        let entry = entry.into_inner();
        let count = entry.count.as_ref().map_or(1, |c| *c.get_ref());
        if count == 0 || state.gpus.len() as u32 + count > MAX_GPUS {
            let at = entry
                .count
                .as_ref()
                .map(|c| c.span())
                .or(Some(span.clone()));
            return Err(source.error_at(
                at,
                format!("count {count}: a node has 1 to {MAX_GPUS} GPUs"),
            ));
        }
        for _ in 0..count {
            add_gpu(source, &mut state, &entry)?;
        }
    }
    // Holders come last: they would block building the instances above.
    state.holders = file.holders;
    Ok(state)
}

fn add_gpu(source: &SourceFile, state: &mut SimState, entry: &GpuEntry) -> Result<()> {
    let model_name = entry.model.get_ref();
    let Some(model) = catalog().model(model_name) else {
        return Err(source
            .error_at(
                Some(entry.model.span()),
                format!("unknown GPU model `{model_name}`"),
            )
            .with_hint(format!(
                "known models: {}",
                catalog().model_names().join(", ")
            )));
    };
    let capable = catalog().mig_table(model).is_some();
    let mig = match &entry.mig {
        Some(m) if m.get_ref().is_enabled() && !capable => {
            return Err(
                source.error_at(Some(m.span()), format!("{} is not MIG-capable", model.name))
            );
        }
        Some(m) => *m.get_ref(),
        None if entry.instances.is_empty() => MigMode::Disabled,
        None => MigMode::Enabled,
    };
    if !mig.is_enabled() && !entry.instances.is_empty() {
        return Err(source.error_at(
            Some(entry.instances[0].span()),
            "MIG instances need `mig = \"enabled\"`",
        ));
    }
    let index = state.gpus.len() as u32;
    // Past the eight of a DGX, buses from 0x10 up that none of those eight has: two GPUs never
    // share a bus (a state file with such a pair is refused when read back).
    let bus = BUSES.get(index as usize).copied().unwrap_or_else(|| {
        (0x10..)
            .filter(|b| !BUSES.contains(b))
            .nth(index as usize - BUSES.len())
            .unwrap_or(0xFF)
    });
    state.gpus.push(SimGpu {
        model: model.name.clone(),
        uuid: format!(
            "GPU-{}",
            stable_uuid(&format!("gpushare-sim/{}/{index}", state.name))
        ),
        pci_bus_id: format!("00000000:{bus:02X}:00.0"),
        compute_mode: entry.compute_mode.unwrap_or_default(),
        persistence_mode: entry.persistence_mode.unwrap_or(false),
        mig_current: mig,
        mig_pending: mig,
        reset_supported: entry.reset.unwrap_or(true),
        instances: Vec::new(),
        processes: Vec::new(),
        vgpu_host_mode: entry.vgpu_host_mode,
        utilization_percent: entry.utilization_percent.map(|u| u.min(100)),
        mig_serial: 0,
    });

    // Instances go through the simulator's own operations, so a node file obeys the same rules.
    let mut created: Vec<(u32, Vec<u32>)> = Vec::new();
    for inst in &entry.instances {
        let at = Some(inst.span());
        let inst = inst.get_ref();
        let profiles = state
            .gpu_instance_profiles(index)
            .map_err(|e| source.error_at(at.clone(), e))?;
        let profile_name = inst.profile.get_ref();
        let Some(profile) = profiles
            .iter()
            .map(|p| &p.profile)
            .find(|p| &p.name == profile_name)
        else {
            let names: Vec<&str> = profiles.iter().map(|p| p.profile.name.as_str()).collect();
            return Err(source
                .error_at(
                    Some(inst.profile.span()),
                    format!("{} has no MIG profile `{profile_name}`", model.name),
                )
                .with_hint(format!("profiles: {}", names.join(", "))));
        };
        let placement = match inst.start {
            Some(start) => Placement {
                start,
                size: profile.size,
            },
            None => first_free(state, index, profile.id, profile.placements().collect())
                .ok_or_else(|| {
                    source.error_at(at.clone(), format!("no free placement for {profile_name}"))
                })?,
        };
        let gi = state
            .create_gpu_instance(index, profile.id, placement)
            .map_err(|e| source.error_at(at.clone(), e.detail))?;
        let cis = state
            .compute_instance_profiles(index, gi)
            .map_err(|e| source.error_at(at.clone(), e))?;
        let wanted: Vec<(String, Option<std::ops::Range<usize>>)> = match &inst.compute_instances {
            Some(list) => list
                .iter()
                .map(|c| (c.get_ref().clone(), Some(c.span())))
                .collect(),
            None => vec![(profile.name.clone(), at.clone())],
        };
        let mut ci_ids = Vec::new();
        for (ci_name, ci_at) in wanted {
            let Some(cp) = cis.iter().find(|c| c.name == ci_name) else {
                let names: Vec<&str> = cis.iter().map(|c| c.name.as_str()).collect();
                return Err(source
                    .error_at(
                        ci_at,
                        format!("{profile_name} has no compute-instance profile `{ci_name}`"),
                    )
                    .with_hint(format!("compute-instance profiles: {}", names.join(", "))));
            };
            let ci = state
                .create_compute_instance(index, gi, cp.id)
                .map_err(|e| source.error_at(ci_at, e.detail))?;
            ci_ids.push(ci);
        }
        created.push((gi, ci_ids));
    }

    for proc_entry in &entry.processes {
        let p = proc_entry.get_ref();
        let (gpu_instance_id, compute_instance_id) = match &p.gpu_instance {
            None if p.compute_instance.is_some() => {
                return Err(source.error_at(
                    p.compute_instance.as_ref().map(|c| c.span()),
                    "a process in a compute instance runs in its GPU instance: set `gpu_instance` too",
                ));
            }
            None => (None, None),
            Some(gi_index) => {
                let Some((gi, cis)) = created.get(*gi_index.get_ref()) else {
                    return Err(source.error_at(
                        Some(gi_index.span()),
                        format!(
                            "gpu_instance = {} but this entry has {} instance(s) (0-based)",
                            gi_index.get_ref(),
                            created.len()
                        ),
                    ));
                };
                let ci_index = p.compute_instance.as_ref().map_or(0, |c| *c.get_ref());
                let Some(ci) = cis.get(ci_index) else {
                    let at = p
                        .compute_instance
                        .as_ref()
                        .map(|c| c.span())
                        .or(Some(proc_entry.span()));
                    return Err(source
                        .error_at(at, format!("compute_instance = {ci_index} does not exist")));
                };
                (Some(*gi), Some(*ci))
            }
        };
        if mig.is_enabled() && gpu_instance_id.is_none() {
            return Err(source.error_at(
                Some(proc_entry.span()),
                "with MIG enabled a process runs in a GPU instance: set `gpu_instance`",
            ));
        }
        state.gpus[index as usize].processes.push(Process {
            pid: p.pid,
            name: p.name.clone(),
            used_memory_mib: Some(p.used_memory_mib),
            gpu_instance_id,
            compute_instance_id,
            kind: p.kind,
            owner: None,
        });
    }
    let used = state.gpus[index as usize].processes_memory_mib();
    if used.is_none_or(|u| u > model.memory_mib) {
        let used = used.map_or("more MiB than can be counted".to_string(), |u| {
            format!("{u} MiB")
        });
        return Err(source.error_at(
            entry.processes.first().map(|p| p.span()),
            format!(
                "processes use {used} but {} has {} MiB",
                model.name, model.memory_mib
            ),
        ));
    }
    Ok(())
}

fn first_free(
    state: &SimState,
    gpu: u32,
    profile_id: u32,
    placements: Vec<Placement>,
) -> Option<Placement> {
    placements.into_iter().find(|&p| {
        let mut trial = state.clone();
        trial.create_gpu_instance(gpu, profile_id, p).is_ok()
    })
}

/// Presets with their GPUs, for `gpushare sim presets`.
pub(crate) fn preset_summaries() -> Vec<(String, String, BTreeMap<String, u32>)> {
    presets()
        .into_iter()
        .map(|p| {
            let mut models = BTreeMap::new();
            for g in &p.file.gpus {
                let g = g.get_ref();
                *models.entry(g.model.get_ref().clone()).or_insert(0) +=
                    g.count.as_ref().map_or(1, |c| *c.get_ref());
            }
            (p.name, p.description, models)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build_str(text: &str) -> Result<SimState> {
        from_file(&SourceFile::inline("node.toml", text))
    }

    #[test]
    fn every_preset_is_a_valid_node_file() {
        let names = preset_names();
        for required in [
            "dgx-a100",
            "hgx-a100-80gb",
            "dgx-h100",
            "hgx-h200",
            "dgx-b200",
            "a30x4",
            "t4x4",
            "l4x2",
            "mixed",
            "rtx-pro-6000x2",
        ] {
            assert!(
                names.iter().any(|n| n == required),
                "missing preset {required}"
            );
        }
        for name in names {
            from_preset(&name).unwrap();
        }
    }

    #[test]
    fn a_node_of_64_gpus_reads_back_from_its_state_file() {
        let state = build_str("[[gpus]]\nmodel = \"NVIDIA A100-SXM4-80GB\"\ncount = 64\n").unwrap();
        assert_eq!(state.gpus.len(), 64);
        super::super::state_check::check(&state).unwrap();
    }

    #[test]
    fn a_node_file_with_instances_and_processes() {
        let state = build_str(
            r#"
driver_version = "570.1"
[[gpus]]
model = "NVIDIA A100-SXM4-40GB"
count = 2
mig = "enabled"
instances = [
  { profile = "3g.20gb", start = 4, compute_instances = ["2c.3g.20gb", "1c.3g.20gb"] },
  { profile = "1g.5gb" },
]
processes = [{ pid = 4242, name = "python", used_memory_mib = 1024, gpu_instance = 0, compute_instance = 1 }]
[[gpus]]
model = "Tesla T4"
processes = [{ pid = 7, name = "triton", used_memory_mib = 2000 }]
"#,
        )
        .unwrap();
        assert_eq!(state.name, "node");
        assert_eq!(state.gpus.len(), 3);
        let node = state.snapshot().unwrap();
        assert_eq!(node.driver_version, "570.1");
        let gpu = &node.gpus[1];
        assert_eq!(gpu.mig.instances.as_ref().unwrap().len(), 2);
        let three = gpu
            .mig
            .instances
            .iter()
            .flatten()
            .find(|g| g.profile == "3g.20gb")
            .unwrap();
        assert_eq!(three.placement, Placement { start: 4, size: 4 });
        assert_eq!(three.compute_instances.len(), 2);
        let one = gpu
            .mig
            .instances
            .iter()
            .flatten()
            .find(|g| g.profile == "1g.5gb")
            .unwrap();
        assert_eq!(one.placement.start, 0, "first free placement");
        let p = &gpu.processes.as_ref().unwrap()[0];
        assert_eq!(p.gpu_instance_id, Some(three.gpu_instance_id));
        assert_eq!(
            p.compute_instance_id,
            Some(three.compute_instances[1].compute_instance_id)
        );
        assert_eq!(gpu.memory_used_mib, 1024);
        assert_eq!(
            node.gpus[2].processes.as_ref().unwrap()[0].gpu_instance_id,
            None
        );
    }

    fn error_of(text: &str) -> String {
        build_str(text).expect_err("should fail").message
    }

    #[test]
    fn bad_node_files_name_line_and_value() {
        let e = build_str("[[gpus]]\nmodel = \"NVIDIA A100-SXM4-41GB\"\n")
            .err()
            .unwrap();
        assert_eq!(
            e.message,
            "node.toml:2:9: unknown GPU model `NVIDIA A100-SXM4-41GB`"
        );
        assert!(e.hint.unwrap().contains("Tesla T4"));
        assert!(error_of("[[gpus]\nmodel = 1").starts_with("node.toml:1:"));
        assert!(
            error_of("[[gpus]]\nmodel = \"Tesla T4\"\nmig = \"enabled\"\n")
                .contains("node.toml:3:7: Tesla T4 is not MIG-capable")
        );
        assert!(
            error_of("[[gpus]]\nmodel = \"Tesla T4\"\ncolour = 1\n")
                .contains("unknown field `colour`")
        );
        let e =
            build_str("[[gpus]]\nmodel = \"NVIDIA A30\"\ninstances = [{ profile = \"1g.5gb\" }]\n")
                .err()
                .unwrap();
        assert!(
            e.message
                .contains("node.toml:3:26: NVIDIA A30 has no MIG profile `1g.5gb`"),
            "{}",
            e.message
        );
        assert!(e.hint.unwrap().contains("1g.6gb"));
        assert!(error_of(
            "[[gpus]]\nmodel = \"NVIDIA A30\"\ninstances = [{ profile = \"2g.12gb\", start = 1 }]\n"
        )
        .contains("placement 1:2 is not valid for 2g.12gb"));
        assert!(error_of(
            "[[gpus]]\nmodel = \"NVIDIA A30\"\ninstances = [{ profile = \"4g.24gb\" }, { profile = \"1g.6gb\" }]\n"
        )
        .contains("no free placement for 1g.6gb"));
        assert!(error_of(
            "[[gpus]]\nmodel = \"NVIDIA A30\"\ninstances = [{ profile = \"2g.12gb\" }]\nprocesses = [{ pid = 1, name = \"x\", used_memory_mib = 1, gpu_instance = 3 }]\n"
        )
        .contains("gpu_instance = 3 but this entry has 1 instance(s)"));
        assert!(
            error_of("[[gpus]]\nmodel = \"Tesla T4\"\ncount = 0\n")
                .contains("node.toml:3:9: count 0")
        );
        assert!(error_of("gpus = []\n").contains("at least one [[gpus]]"));
        assert!(error_of(
            "[[gpus]]\nmodel = \"Tesla T4\"\nprocesses = [{ pid = 1, name = \"x\", used_memory_mib = 99999 }]\n"
        )
        .contains("processes use 99999 MiB"));
    }

    #[test]
    fn a_process_in_a_compute_instance_names_its_gpu_instance() {
        let e = from_file(&SourceFile::inline(
            "node.toml",
            "[[gpus]]\nmodel = \"NVIDIA A30\"\ninstances = [{ profile = \"2g.12gb\" }]\nprocesses = [{ pid = 1, name = \"x\", used_memory_mib = 1, compute_instance = 0 }]\n",
        ))
        .unwrap_err();
        assert!(e.message.contains("node.toml:4:"), "{}", e.message);
        assert!(
            e.message.contains("set `gpu_instance` too"),
            "{}",
            e.message
        );
        let e = from_file(&SourceFile::inline(
            "node.toml",
            "[[gpus]]\nmodel = \"Tesla T4\"\nprocesses = [{ pid = 1, name = \"x\", used_memory_mib = 9223372036854775807 }, { pid = 2, name = \"y\", used_memory_mib = 9223372036854775807 }, { pid = 3, name = \"z\", used_memory_mib = 2 }]\n",
        ))
        .unwrap_err();
        assert!(
            e.message
                .contains("processes use more MiB than can be counted"),
            "{}",
            e.message
        );
    }
}
