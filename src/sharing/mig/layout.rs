//! The desired MIG state of one GPU, whichever file it came from, resolved against the profiles
//! that GPU offers.

use super::profile_name::ProfileName;
use super::solver::{self, Request};
use crate::node::backend::{Backend, DriverError, DriverErrorKind, MigProfiles};
use crate::node::model::catalog::{ComputeInstanceProfile, GpuInstanceProfile};
use crate::node::model::{Gpu, Node};
use crate::support::error::Error;
use std::collections::BTreeMap;

/// A GPU instance the layout wants, with the compute instance it holds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct WantedInstance {
    /// Index into [`GpuDesire::profiles`].
    pub profile: usize,
    /// The compute instance (one per GPU instance, as mig-parted creates them).
    pub compute: ComputeInstanceProfile,
    /// A start pinned in the file.
    pub start: Option<u32>,
}

/// What one GPU should look like.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum MigLayout {
    Disabled,
    /// MIG enabled with exactly these instances (none: enabled and empty).
    Enabled(Vec<WantedInstance>),
    /// MIG enabled with instances that can be planned only once MIG is on: the driver lists this
    /// GPU's profiles only then, and the catalog does not know it. The profile names as the file
    /// asks for them (one per instance), and why they wait.
    EnabledLater {
        wanted: Vec<String>,
        why: String,
    },
    /// MIG enabled, its instances made and removed for claims by gpushare's DRA driver
    /// (`mig.dynamic`): no layout is planned and no instance is touched.
    Dynamic,
}

/// The desired MIG state of one GPU.
#[derive(Debug, Clone, PartialEq)]
pub struct GpuDesire {
    pub gpu: u32,
    pub(crate) layout: MigLayout,
    /// The GPU-instance profiles of this GPU (empty for a GPU without MIG).
    pub profiles: Vec<GpuInstanceProfile>,
    /// Where the wish comes from, for messages: `gpushare.toml:12:1`.
    pub origin: String,
    /// Why, when it is not obvious (e.g. `mode = "mps" needs MIG off`).
    pub reason: Option<String>,
}

impl GpuDesire {
    /// The solver's view of the wanted instances.
    pub(crate) fn requests(&self) -> Vec<Request> {
        match &self.layout {
            MigLayout::Disabled | MigLayout::EnabledLater { .. } | MigLayout::Dynamic => Vec::new(),
            MigLayout::Enabled(list) => list
                .iter()
                .map(|w| Request {
                    profile: w.profile,
                    start: w.start,
                    compute_profile: w.compute.id,
                })
                .collect(),
        }
    }
}

/// A problem with a wish, with a hint; the source file adds where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Problem {
    pub message: String,
    pub hint: Option<String>,
}

impl Problem {
    fn new(message: impl Into<String>, hint: Option<String>) -> Self {
        Problem {
            message: message.into(),
            hint,
        }
    }
}

/// The GPU-instance profiles of every MIG-capable GPU of a node, asked of the backend once.
#[derive(Debug, Clone, Default)]
pub struct ProfileBook {
    by_gpu: BTreeMap<u32, Result<Entry, DriverError>>,
}

#[derive(Debug, Clone)]
enum Entry {
    Listed(Vec<GpuInstanceProfile>),
    UntilEnabled(String),
}

/// A GPU's MIG profiles, for planning.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Profiles<'b> {
    Known(&'b [GpuInstanceProfile]),
    /// MIG is off and nothing lists the profiles until it is on: why.
    UntilEnabled(&'b str),
}

impl ProfileBook {
    pub fn load(backend: &dyn Backend, node: &Node) -> Self {
        let by_gpu = node
            .gpus
            .iter()
            .filter(|g| g.mig.capable)
            .map(|g| {
                let entry = backend.gpu_instance_profiles(g.index).map(|p| match p {
                    MigProfiles::Listed { profiles, .. } => {
                        Entry::Listed(profiles.into_iter().map(|c| c.profile).collect())
                    }
                    MigProfiles::UntilEnabled { why } => Entry::UntilEnabled(why),
                });
                (g.index, entry)
            })
            .collect();
        ProfileBook { by_gpu }
    }

    /// The profiles of a MIG-capable GPU; an error naming the refused call when the driver would
    /// not list them (exit 1: not bad input).
    pub(crate) fn of(&self, gpu: &Gpu) -> Result<Profiles<'_>, Error> {
        match self.by_gpu.get(&gpu.index) {
            Some(Ok(Entry::Listed(list))) => Ok(Profiles::Known(list)),
            Some(Ok(Entry::UntilEnabled(why))) => Ok(Profiles::UntilEnabled(why)),
            Some(Err(e)) => {
                let err = Error::failed(format!(
                    "cannot list the MIG profiles of GPU {} ({}): {e}",
                    gpu.index, gpu.name
                ));
                Err(if e.kind == DriverErrorKind::NoPermission {
                    err.with_hint("run the command as root")
                } else {
                    err.with_hint(
                        "nothing is planned from profiles the driver would not list; check the \
                         driver (`nvidia-smi mig -lgip`)",
                    )
                })
            }
            None => Err(Error::failed(format!(
                "GPU {} ({}) is not MIG-capable",
                gpu.index, gpu.name
            ))),
        }
    }

    /// What the driver answered for one GPU, as a test wants it (a refusal, no list yet).
    #[cfg(test)]
    pub fn set(&mut self, gpu: u32, answer: Result<MigProfiles, DriverError>) {
        let entry = answer.map(|p| match p {
            MigProfiles::Listed { profiles, .. } => {
                Entry::Listed(profiles.into_iter().map(|c| c.profile).collect())
            }
            MigProfiles::UntilEnabled { why } => Entry::UntilEnabled(why),
        });
        self.by_gpu.insert(gpu, entry);
    }

    /// The profiles of a MIG-capable GPU when they are known now.
    pub(crate) fn known(&self, gpu: &Gpu) -> Result<Option<&[GpuInstanceProfile]>, Error> {
        Ok(match self.of(gpu)? {
            Profiles::Known(list) => Some(list),
            Profiles::UntilEnabled(_) => None,
        })
    }
}

/// mig-parted's words for a GPU without MIG that a file asks to partition.
pub(crate) fn not_capable(gpu: &Gpu) -> Problem {
    Problem::new(
        format!(
            "GPU {} ({}): cannot set MIG mode on non MIG-capable GPU",
            gpu.index, gpu.name
        ),
        Some(
            "select only MIG-capable GPUs (a device-filter, or `devices: [...]`; `select = { model = \"…\" }` in gpushare.toml; `gpushare mig profiles` lists them)"
                .into(),
        ),
    )
}

/// Turn a profile name of a file into the GPU-instance profile (index into `profiles`) and the
/// compute-instance profile it names on this GPU.
pub(crate) fn resolve(
    gpu: &Gpu,
    profiles: &[GpuInstanceProfile],
    text: &str,
) -> Result<(usize, ComputeInstanceProfile), Problem> {
    let name = ProfileName::parse(text).map_err(|e| Problem::new(e, None))?;
    let wanted_gi = name.gpu_instance();
    let found = profiles
        .iter()
        .position(|p| ProfileName::parse(&p.name).is_ok_and(|n| n == wanted_gi));
    let Some(index) = found else {
        let names: Vec<&str> = profiles.iter().map(|p| p.name.as_str()).collect();
        return Err(Problem::new(
            format!(
                "GPU {} ({}) has no MIG profile `{text}`",
                gpu.index, gpu.name
            ),
            Some(format!(
                "its profiles: {} (an `Nc.` prefix picks a smaller compute instance, e.g. 1c.{})",
                names.join(", "),
                names
                    .iter()
                    .find(|n| !n.starts_with("1g"))
                    .unwrap_or(&"3g.40gb")
            )),
        ));
    };
    let gi = &profiles[index];
    let cis = gi.compute_profiles();
    match cis.iter().find(|c| c.slices == name.compute_slices) {
        Some(ci) => Ok((index, ci.clone())),
        None => {
            let names: Vec<&str> = cis.iter().map(|c| c.name.as_str()).collect();
            Err(Problem::new(
                format!(
                    "`{text}`: a {} GPU instance has no compute instance of {} slices",
                    gi.name, name.compute_slices
                ),
                Some(format!("its compute instances: {}", names.join(", "))),
            ))
        }
    }
}

/// Check that a GPU can hold the wanted instances at all (before anything changes).
pub(crate) fn check_feasible(
    gpu: &Gpu,
    profiles: &[GpuInstanceProfile],
    wanted: &[WantedInstance],
) -> Result<(), Problem> {
    let requests: Vec<Request> = wanted
        .iter()
        .map(|w| Request {
            profile: w.profile,
            start: w.start,
            compute_profile: w.compute.id,
        })
        .collect();
    solver::solve(profiles, &requests, &[])
        .map(|_| ())
        .map_err(|why| {
            Problem::new(
                format!(
                    "GPU {} ({}): no MIG layout fits: {why}",
                    gpu.index, gpu.name
                ),
                Some(format!(
                    "placements of this GPU: {}",
                    profiles
                        .iter()
                        .map(|p| format!("{} {}", p.name, solver::placements_text(p)))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::backend::sim::SimBackend;

    fn a100() -> (Gpu, Vec<GpuInstanceProfile>) {
        let sim = SimBackend::from_preset("dgx-a100").unwrap();
        let node = sim.snapshot().unwrap();
        let book = ProfileBook::load(&sim, &node);
        let profiles = book.known(&node.gpus[0]).unwrap().unwrap().to_vec();
        (node.gpus[0].clone(), profiles)
    }

    #[test]
    fn resolves_names_with_compute_prefixes_and_attributes() {
        let (gpu, profiles) = a100();
        let (gi, ci) = resolve(&gpu, &profiles, "3g.20gb").unwrap();
        assert_eq!(profiles[gi].name, "3g.20gb");
        assert_eq!(ci.slices, 3);
        let (gi, ci) = resolve(&gpu, &profiles, "2c.3g.20gb").unwrap();
        assert_eq!(profiles[gi].name, "3g.20gb");
        assert_eq!((ci.slices, ci.name.as_str()), (2, "2c.3g.20gb"));
        let (gi, _) = resolve(&gpu, &profiles, "1g.5gb+me").unwrap();
        assert_eq!(profiles[gi].name, "1g.5gb+me");
    }

    #[test]
    fn unknown_profiles_list_the_valid_ones() {
        let (gpu, profiles) = a100();
        let e = resolve(&gpu, &profiles, "1g.10gb+gfx").unwrap_err();
        assert_eq!(
            e.message,
            "GPU 0 (NVIDIA A100-SXM4-40GB) has no MIG profile `1g.10gb+gfx`"
        );
        assert!(
            e.hint
                .unwrap()
                .contains("1g.5gb, 1g.5gb+me, 1g.10gb, 2g.10gb")
        );
        let e = resolve(&gpu, &profiles, "3c.4g.20gb").unwrap_err();
        assert!(
            e.message.contains("no compute instance of 3 slices"),
            "{e:?}"
        );
        assert!(resolve(&gpu, &profiles, "1g.5").is_err());
    }

    #[test]
    fn infeasible_layouts_say_why() {
        let (gpu, profiles) = a100();
        let want = |name: &str| {
            let (profile, compute) = resolve(&gpu, &profiles, name).unwrap();
            WantedInstance {
                profile,
                compute,
                start: None,
            }
        };
        let e = check_feasible(
            &gpu,
            &profiles,
            &[want("3g.20gb"), want("3g.20gb"), want("1g.5gb")],
        )
        .unwrap_err();
        assert_eq!(
            e.message,
            "GPU 0 (NVIDIA A100-SXM4-40GB): no MIG layout fits: 3g.20gb ×2 fills all 8 memory slices; 1g.5gb needs one more"
        );
        check_feasible(
            &gpu,
            &profiles,
            &[want("1g.5gb"), want("4g.20gb"), want("2g.10gb")],
        )
        .unwrap();
    }
}
