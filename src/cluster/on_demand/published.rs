//! The MIG state a node agent publishes for the controller (node annotation
//! `gpushare.io/mig.state`): per MIG-enabled GPU, its model, profiles, instances (with
//! placement and whether a pod or a process holds each) and the baseline layout its label
//! chooses. The controller plans from this alone, never from the node's driver.

use crate::node::model::catalog::GpuInstanceProfile;
use crate::node::model::{Gpu, Node, Placement};
use crate::observe::pod_resources::PodDevice;
use crate::sharing::mig::layout::{GpuDesire, MigLayout};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

mod check;

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
    /// Why the whole GPU is unhealthy (its health watch heard a fault): nothing is made on it
    /// and nothing on it is offered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unhealthy: Option<String>,
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
    /// Why its MIG device is unhealthy: it stays, and is offered to no one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unhealthy: Option<String>,
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
            // A dynamic GPU's instances are made for claims by gpushare's DRA driver: the
            // controller plans nothing there.
            let dynamic = baseline
                .iter()
                .any(|d| d.gpu == gpu.index && d.layout == MigLayout::Dynamic);
            if !gpu.mig.current.is_enabled() || dynamic {
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
                        unhealthy: None,
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
                        MigLayout::Disabled
                        | MigLayout::EnabledLater { .. }
                        | MigLayout::Dynamic => None,
                    });
            state.gpus.push(GpuState {
                index: gpu.index,
                model: gpu.name.clone(),
                instances,
                baseline,
                unhealthy: None,
            });
        }
        state
    }

    pub(crate) fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// What an agent published, checked ([`check`]); an error says why it cannot be planned
    /// from.
    pub(crate) fn parse(text: &str) -> Result<MigState, String> {
        let state: MigState = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if state.version != VERSION {
            return Err(format!(
                "version {} (this controller reads {VERSION})",
                state.version
            ));
        }
        check::check(&state)?;
        Ok(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::backend::Backend;
    use crate::node::backend::sim::{SimBackend, node_file};
    use crate::support::source_file::SourceFile;

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
        let book = crate::sharing::mig::layout::ProfileBook::load(&sim, &node);
        let gi = &node.gpus[0].mig.instances.as_ref().unwrap()[1];
        let uuid = gi.compute_instances[0].uuid.clone().unwrap();
        let held = vec![PodDevice {
            namespace: "ns".into(),
            pod: "p".into(),
            container: Some("c".into()),
            resource: "nvidia.com/mig-3g.20gb".into(),
            device_id: uuid.clone(),
            gpu: Some(0),
            mig_device: Some(uuid),
            claim: None,
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
        // A GPU given to dynamic MIG is the DRA driver's: the controller is not told of it.
        let dynamic = crate::sharing::mig::layout::GpuDesire {
            gpu: 0,
            layout: crate::sharing::mig::layout::MigLayout::Dynamic,
            profiles: Vec::new(),
            origin: "gpushare.toml:1".into(),
            reason: None,
        };
        let without = MigState::of(
            &node,
            |g| book.known(g).ok().flatten(),
            Some(&held),
            std::slice::from_ref(&dynamic),
        );
        assert!(without.gpus.is_empty());
        let mut other = state.clone();
        other.version = 2;
        assert!(
            MigState::parse(&other.to_json())
                .unwrap_err()
                .contains("version 2")
        );
    }

    use crate::cluster::on_demand::bench::{a100_sevens, a100_state};
    use proptest::prelude::*;

    /// The state of `f` applied to a good one, parsed.
    fn altered(f: impl FnOnce(&mut serde_json::Value)) -> Result<MigState, String> {
        let mut v = serde_json::to_value(a100_state(vec![a100_sevens(0, |_| false)])).unwrap();
        f(&mut v);
        MigState::parse(&v.to_string())
    }

    #[test]
    fn what_no_gpu_can_have_is_refused_naming_the_field() {
        type Alter = Box<dyn FnOnce(&mut serde_json::Value)>;
        let cases: Vec<(&str, Alter)> = vec![
            (
                "size = 0: between 1 and 32",
                Box::new(|v| v["profiles"]["NVIDIA A100-SXM4-40GB"][0]["size"] = 0.into()),
            ),
            (
                "slices = 0",
                Box::new(|v| v["profiles"]["NVIDIA A100-SXM4-40GB"][0]["slices"] = 0.into()),
            ),
            (
                "max_instances = 4294967295",
                Box::new(|v| {
                    v["profiles"]["NVIDIA A100-SXM4-40GB"][0]["max_instances"] = u32::MAX.into()
                }),
            ),
            (
                "ends past the GPU's 32 memory slices",
                Box::new(|v| {
                    v["profiles"]["NVIDIA A100-SXM4-40GB"][4]["starts"] =
                        serde_json::json!([4294967295u32])
                }),
            ),
            (
                "is not a MIG profile",
                Box::new(|v| {
                    v["profiles"]["NVIDIA A100-SXM4-40GB"][0]["name"] =
                        "1g.5gb\", start = 0 }]\n[clients]\nsystemd = [\"kubelet.service\"]\n#"
                            .into()
                }),
            ),
            (
                "not a GPU-instance profile name",
                Box::new(|v| {
                    v["profiles"]["NVIDIA A100-SXM4-40GB"][0]["name"] = "1c.1g.5gb".into()
                }),
            ),
            (
                "not a GPU-instance profile name",
                Box::new(|v| v["profiles"]["NVIDIA A100-SXM4-40GB"][0]["name"] = "01g.5gb".into()),
            ),
            (
                "is listed twice",
                Box::new(|v| v["profiles"]["NVIDIA A100-SXM4-40GB"][1]["name"] = "1g.5gb".into()),
            ),
            (
                "GPU 0: the 1g.5gb at 9:1 is not a placement",
                Box::new(|v| v["gpus"][0]["instances"][0]["start"] = 9.into()),
            ),
            (
                "is not a placement of 1g.5gb",
                Box::new(|v| v["gpus"][0]["instances"][0]["size"] = 0.into()),
            ),
            (
                "overlaps another instance",
                Box::new(|v| v["gpus"][0]["instances"][1]["start"] = 0.into()),
            ),
            (
                "a profile its model does not list",
                Box::new(|v| v["gpus"][0]["instances"][0]["profile"] = "9g.99gb".into()),
            ),
            (
                "GPU 0 is listed twice",
                Box::new(|v| {
                    let g = v["gpus"][0].clone();
                    v["gpus"].as_array_mut().unwrap().push(g);
                }),
            ),
            (
                "names a model without profiles",
                Box::new(|v| v["gpus"][0]["model"] = "other".into()),
            ),
            (
                "its baseline pins a 1g.5gb where it cannot start",
                Box::new(|v| v["gpus"][0]["baseline"][0]["start"] = 31.into()),
            ),
            (
                "8 GPU instances; its model holds at most 7",
                Box::new(|v| {
                    let i = v["gpus"][0]["instances"][0].clone();
                    v["gpus"][0]["instances"].as_array_mut().unwrap().push(i);
                }),
            ),
            (
                "65 GPUs",
                Box::new(|v| {
                    let g = v["gpus"][0].clone();
                    v["gpus"] = (0..65)
                        .map(|n| {
                            let mut g = g.clone();
                            g["index"] = n.into();
                            g
                        })
                        .collect();
                }),
            ),
        ];
        for (want, f) in cases {
            let e = altered(f).unwrap_err();
            assert!(e.contains(want), "{want}: {e}");
        }
        assert!(altered(|_| {}).is_ok());
    }

    /// Any value in any field: the state is refused, or it is one the controller plans from
    /// without a panic, and every layout it writes from it is a gpushare.toml.
    fn any_state() -> impl Strategy<Value = MigState> {
        let number = prop_oneof![0u32..10, Just(u32::MAX), any::<u32>()];
        let name = prop_oneof![
            Just("1g.5gb".to_string()),
            Just("3g.20gb".to_string()),
            Just("1g.5gb+me".to_string()),
            "[0-9a-z.+\\-\"\\n\\[\\]= ]{0,12}",
        ];
        let profile = (
            name.clone(),
            number.clone(),
            number.clone(),
            proptest::collection::vec(number.clone(), 0..4),
            number.clone(),
        )
            .prop_map(|(name, slices, max_instances, starts, size)| Profile {
                name,
                slices,
                max_instances,
                starts,
                size,
            });
        let instance =
            (name.clone(), number.clone(), number.clone()).prop_map(|(profile, start, size)| {
                Instance {
                    profile,
                    start,
                    size,
                    held_by: vec![],
                    busy: false,
                    unhealthy: None,
                }
            });
        let gpu = (
            0u32..3,
            proptest::collection::vec(instance, 0..4),
            proptest::option::of(proptest::collection::vec(
                (name, proptest::option::of(number)),
                0..3,
            )),
        )
            .prop_map(|(index, instances, baseline)| GpuState {
                index,
                model: "m".into(),
                instances,
                baseline: baseline.map(|b| {
                    b.into_iter()
                        .map(|(profile, start)| Wanted { profile, start })
                        .collect()
                }),
                unhealthy: None,
            });
        (
            proptest::collection::vec(profile, 0..4),
            proptest::collection::vec(gpu, 0..3),
        )
            .prop_map(|(profiles, gpus)| MigState {
                version: VERSION,
                holders_known: true,
                profiles: BTreeMap::from([("m".to_string(), profiles)]),
                gpus,
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        #[test]
        fn a_state_is_refused_or_planned_from_safely(state in any_state()) {
            if let Ok(state) = MigState::parse(&state.to_json()) {
                let shapes = crate::cluster::on_demand::reshape::GpuShape::all(&state);
                prop_assert!(shapes.is_ok(), "a checked state reads whole");
                for mut g in shapes.unwrap() {
                    let _ = g.check();
                    let _ = g.back_to_baseline();
                    for p in 0..g.profiles.len() {
                        if let Some(a) = g.best_addition(p) {
                            g.add(&a, "ns/p");
                        }
                    }
                    let layout = crate::cluster::on_demand::layout::NodeOffer::from([(g.index, g.layout())]);
                    let text = crate::cluster::on_demand::layout::render(&layout);
                    prop_assert!(text.is_ok(), "{:?}", text);
                }
            }
        }

        #[test]
        fn any_text_is_answered(text in ".{0,200}") {
            let _ = MigState::parse(&text);
        }
    }
}
