//! The MIG state a node agent publishes for the controller (node annotation
//! `gpushare.io/mig.state`): per MIG-enabled GPU, its model, profiles, instances (with
//! placement and whether a pod or a process holds each) and the baseline layout its label
//! chooses. The controller plans from this alone, never from the node's driver.

use crate::mig::layout::{GpuDesire, MigLayout};
use crate::node::catalog::GpuInstanceProfile;
use crate::node::{Gpu, Node, Placement};
use crate::pod_resources::PodDevice;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub(crate) const VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MigState {
    pub version: u32,
    /// Whether pod-resources said which pods hold which devices. Without it every instance
    /// counts as held: nothing is destroyed on a guess.
    pub holders_known: bool,
    /// The profiles of each model, once (the GPUs name their model).
    pub profiles: BTreeMap<String, Vec<Profile>>,
    pub gpus: Vec<GpuState>,
}

/// A GPU-instance profile as the solver needs it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Profile {
    pub name: String,
    pub slices: u32,
    pub max_instances: u32,
    pub starts: Vec<u32>,
    pub size: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GpuState {
    pub index: u32,
    pub model: String,
    pub instances: Vec<Instance>,
    /// The instances the node's baseline layout asks of this GPU (a start when it pins one);
    /// `None`: the baseline has no MIG layout for it (or none could be read).
    pub baseline: Option<Vec<Wanted>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Instance {
    pub profile: String,
    pub start: u32,
    pub size: u32,
    /// `namespace/pod` of the pods holding its MIG device.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub held_by: Vec<String>,
    /// Processes run on it (the driver says so), held or not.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub busy: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Wanted {
    pub profile: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<u32>,
}

impl Instance {
    pub(crate) fn placement(&self) -> Placement {
        Placement {
            start: self.start,
            size: self.size,
        }
    }
}

impl Profile {
    fn of(p: &GpuInstanceProfile) -> Self {
        Profile {
            name: p.name.clone(),
            slices: p.slices,
            max_instances: p.max_instances,
            starts: p.starts.clone(),
            size: p.size,
        }
    }

    /// Back to the catalog's type, with what the solver does not read left at zero.
    pub(crate) fn to_catalog(&self) -> GpuInstanceProfile {
        GpuInstanceProfile {
            name: self.name.clone(),
            nvml_profile: 0,
            id: 0,
            slices: self.slices,
            memory_mib: 0,
            max_instances: self.max_instances,
            sm: 0,
            ce: 0,
            dec: 0,
            enc: 0,
            jpeg: 0,
            ofa: 0,
            starts: self.starts.clone(),
            size: self.size,
            inferred: false,
        }
    }
}

impl MigState {
    /// The state of `node`: its MIG-enabled GPUs whose instances and profiles are known.
    /// `profiles_of`: the profiles the driver (or the catalog) gives a GPU; `held`: what
    /// pod-resources said (None: unknown); `baseline`: the MIG wishes of the node's own layout.
    pub(crate) fn of<'a>(
        node: &Node,
        profiles_of: impl Fn(&Gpu) -> Option<&'a [GpuInstanceProfile]>,
        held: Option<&[PodDevice]>,
        baseline: &[GpuDesire],
    ) -> MigState {
        let mut state = MigState {
            version: VERSION,
            holders_known: held.is_some(),
            profiles: BTreeMap::new(),
            gpus: Vec::new(),
        };
        for gpu in &node.gpus {
            let (Some(instances), Some(profiles)) = (&gpu.mig.instances, profiles_of(gpu)) else {
                continue;
            };
            if !gpu.mig.current.is_enabled() {
                continue;
            }
            state
                .profiles
                .entry(gpu.name.clone())
                .or_insert_with(|| profiles.iter().map(Profile::of).collect());
            let instances = instances
                .iter()
                .map(|gi| {
                    let uuids: Vec<&str> = gi
                        .compute_instances
                        .iter()
                        .filter_map(|ci| ci.uuid.as_deref())
                        .collect();
                    let mut held_by: Vec<String> = held
                        .into_iter()
                        .flatten()
                        .filter(|d| d.gpu == Some(gpu.index))
                        .filter(|d| d.mig_device.as_deref().is_some_and(|u| uuids.contains(&u)))
                        .map(|d| format!("{}/{}", d.namespace, d.pod))
                        .collect();
                    held_by.dedup();
                    let busy = gpu.processes.as_ref().is_none_or(|ps| {
                        ps.iter()
                            .any(|p| p.gpu_instance_id == Some(gi.gpu_instance_id))
                    });
                    Instance {
                        profile: gi.profile.clone(),
                        start: gi.placement.start,
                        size: gi.placement.size,
                        held_by,
                        busy,
                    }
                })
                .collect();
            let baseline =
                baseline
                    .iter()
                    .find(|d| d.gpu == gpu.index)
                    .and_then(|d| match &d.layout {
                        MigLayout::Enabled(wanted) => Some(
                            wanted
                                .iter()
                                .map(|w| Wanted {
                                    profile: d.profiles[w.profile].name.clone(),
                                    start: w.start,
                                })
                                .collect(),
                        ),
                        MigLayout::Disabled | MigLayout::EnabledLater { .. } => None,
                    });
            state.gpus.push(GpuState {
                index: gpu.index,
                model: gpu.name.clone(),
                instances,
                baseline,
            });
        }
        state
    }

    pub(crate) fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// What an agent published; an error says why it cannot be read.
    pub(crate) fn parse(text: &str) -> Result<MigState, String> {
        let state: MigState = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if state.version != VERSION {
            return Err(format!(
                "version {} (this controller reads {VERSION})",
                state.version
            ));
        }
        if let Some(g) = state
            .gpus
            .iter()
            .find(|g| !state.profiles.contains_key(&g.model))
        {
            return Err(format!("GPU {} names a model without profiles", g.index));
        }
        Ok(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Backend;
    use crate::backend::sim::{SimBackend, node_file};
    use crate::source_file::SourceFile;

    #[test]
    fn a_held_instance_names_its_pod_and_the_state_reads_back() {
        let sim = SimBackend::from_state(
            node_file::from_file(&SourceFile::inline(
                "node.toml",
                "[[gpus]]\nmodel = \"NVIDIA A100-SXM4-40GB\"\ninstances = [{ profile = \"3g.20gb\", start = 0 }, { profile = \"3g.20gb\", start = 4 }]\n\
                 [[gpus]]\nmodel = \"NVIDIA A100-SXM4-40GB\"\n",
            ))
            .unwrap(),
        );
        let node = sim.snapshot().unwrap();
        let book = crate::mig::layout::ProfileBook::load(&sim, &node);
        let gi = &node.gpus[0].mig.instances.as_ref().unwrap()[1];
        let uuid = gi.compute_instances[0].uuid.clone().unwrap();
        let held = vec![PodDevice {
            namespace: "ns".into(),
            pod: "p".into(),
            container: "c".into(),
            resource: "nvidia.com/mig-3g.20gb".into(),
            device_id: uuid.clone(),
            gpu: Some(0),
            mig_device: Some(uuid),
        }];
        let state = MigState::of(&node, |g| book.known(g).ok().flatten(), Some(&held), &[]);
        assert_eq!(state.gpus.len(), 1, "only GPU 0 has MIG on");
        let i = &state.gpus[0].instances;
        assert_eq!((i[0].start, i[1].start), (0, 4));
        assert!(i[0].held_by.is_empty());
        assert_eq!(i[1].held_by, ["ns/p"]);
        assert!(state.holders_known);
        assert_eq!(state.profiles["NVIDIA A100-SXM4-40GB"].len(), 7);
        assert_eq!(MigState::parse(&state.to_json()).unwrap(), state);
        assert!(MigState::parse("{}").is_err());
        let mut other = state.clone();
        other.version = 2;
        assert!(
            MigState::parse(&other.to_json())
                .unwrap_err()
                .contains("version 2")
        );
    }
}
