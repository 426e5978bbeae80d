//! One GPU as the controller plans it: the instances it has (or will have), which of them may
//! not go (a pod holds it, a process runs on it, a pending pod was promised it), and the two
//! changes the controller makes: add an instance where it destroys the fewest idle ones, and
//! return to the baseline layout keeping what is held. Every layout it makes obeys the driver's
//! rules (the solver's), and is checked by the solver before it is written.

use super::published::{GpuState, MigState, Wanted};
use crate::cluster::manifests::device_plugin::mig_resource_suffix;
use crate::node::model::Placement;
use crate::node::model::catalog::GpuInstanceProfile;
use crate::sharing::mig::solver::{self, Existing, Geometry, Request, Slot as SolverSlot};
use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Slot {
    /// Index into the GPU's profiles.
    pub profile: usize,
    pub placement: Placement,
    /// Why it must stay: `held by ns/pod`, `busy`, `promised to ns/pod`; None: idle.
    pub pinned: Option<String>,
}

#[derive(Debug, Clone)]
pub(crate) struct GpuShape {
    pub index: u32,
    /// Shared by the GPUs of one model: shapes are copied while the controller weighs offers.
    pub profiles: Arc<[GpuInstanceProfile]>,
    pub slots: Vec<Slot>,
    /// The baseline layout's wishes, if the node has one for this GPU.
    pub baseline: Option<Vec<Wanted>>,
    /// The GPU is unhealthy: nothing is added to it (its instances are all pinned).
    pub unhealthy: bool,
}

/// Where a new instance would go and what it destroys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Addition {
    pub profile: usize,
    pub start: u32,
    /// Indexes into `slots` of the idle instances it replaces.
    pub destroys: Vec<usize>,
}

impl GpuShape {
    /// Every GPU of a published state; `Err(gpu)` names one that cannot be read in full (an
    /// instance of a profile its model does not list): nothing is planned on such a node.
    pub(crate) fn all(state: &MigState) -> Result<Vec<GpuShape>, u32> {
        let models: BTreeMap<&String, Arc<[GpuInstanceProfile]>> = state
            .profiles
            .iter()
            .map(|(model, list)| (model, list.iter().map(|p| p.to_catalog()).collect()))
            .collect();
        state
            .gpus
            .iter()
            .map(|gpu| {
                let profiles = models.get(&gpu.model).ok_or(gpu.index)?;
                GpuShape::of(state, gpu, profiles.clone()).ok_or(gpu.index)
            })
            .collect()
    }

    fn of(
        state: &MigState,
        gpu: &GpuState,
        profiles: Arc<[GpuInstanceProfile]>,
    ) -> Option<GpuShape> {
        let mut slots = Vec::new();
        for i in &gpu.instances {
            let profile = profiles.iter().position(|p| p.name == i.profile)?;
            let pinned = if let Some(why) = gpu.unhealthy.as_ref().or(i.unhealthy.as_ref()) {
                Some(format!("unhealthy: {why}"))
            } else if !state.holders_known {
                Some("held (the node cannot say by whom)".to_string())
            } else if !i.held_by.is_empty() {
                Some(format!("held by {}", i.held_by.join(", ")))
            } else if i.busy {
                Some("busy (processes run on it)".to_string())
            } else {
                None
            };
            slots.push(Slot {
                profile,
                placement: i.placement(),
                pinned,
            });
        }
        // In start order, as every layout here is (the driver lists instances by id).
        slots.sort_by_key(|s| s.placement.start);
        Some(GpuShape {
            index: gpu.index,
            profiles,
            slots,
            baseline: gpu.baseline.clone(),
            unhealthy: gpu.unhealthy.is_some(),
        })
    }

    pub(crate) fn profile_index(&self, name: &str) -> Option<usize> {
        self.profiles.iter().position(|p| p.name == name)
    }

    /// The profile a pod's `nvidia.com/mig-<suffix>` asks for.
    pub(crate) fn profile_for_resource(&self, suffix: &str) -> Option<usize> {
        self.profiles
            .iter()
            .position(|p| mig_resource_suffix(&p.name) == suffix)
    }

    /// An idle instance of `profile`, promised to `to` (it is no longer idle).
    pub(crate) fn promise_idle(&mut self, profile: usize, to: &str) -> bool {
        match self
            .slots
            .iter_mut()
            .find(|s| s.profile == profile && s.pinned.is_none())
        {
            Some(s) => {
                s.pinned = Some(format!("promised to {to}"));
                true
            }
            None => false,
        }
    }

    /// Where one more `profile` instance destroys the fewest idle instances (ties: the lowest
    /// start); `None` when no start is free of pinned instances or the driver's limits refuse.
    pub(crate) fn best_addition(&self, profile: usize) -> Option<Addition> {
        if self.unhealthy {
            return None;
        }
        let p = &self.profiles[profile];
        let geometry = Geometry::of(&self.profiles);
        let mut best: Option<Addition> = None;
        for &start in &p.starts {
            let new = Placement {
                start,
                size: p.size,
            };
            let overlapping: Vec<usize> = (0..self.slots.len())
                .filter(|&i| overlaps(self.slots[i].placement, new))
                .collect();
            if overlapping.iter().any(|&i| self.slots[i].pinned.is_some()) {
                continue;
            }
            let remaining = self
                .slots
                .iter()
                .enumerate()
                .filter(|(i, _)| !overlapping.contains(i))
                .map(|(_, s)| s.profile);
            let after: Vec<usize> = remaining.chain([profile]).collect();
            if !within_limits(&self.profiles, geometry, &after) {
                continue;
            }
            if best
                .as_ref()
                .is_none_or(|b| overlapping.len() < b.destroys.len())
            {
                best = Some(Addition {
                    profile,
                    start,
                    destroys: overlapping,
                });
            }
        }
        best
    }

    /// Make `addition`, the new instance promised to `to`.
    pub(crate) fn add(&mut self, addition: &Addition, to: &str) {
        let mut i = 0;
        self.slots.retain(|_| {
            let keep = !addition.destroys.contains(&i);
            i += 1;
            keep
        });
        self.slots.push(Slot {
            profile: addition.profile,
            placement: Placement {
                start: addition.start,
                size: self.profiles[addition.profile].size,
            },
            pinned: Some(format!("promised to {to}")),
        });
        self.slots.sort_by_key(|s| s.placement.start);
    }

    /// Whether the GPU's instances are what its baseline asks for (by profile).
    pub(crate) fn is_baseline(&self) -> bool {
        let Some(baseline) = &self.baseline else {
            return true;
        };
        let mut want: Vec<&str> = baseline.iter().map(|w| w.profile.as_str()).collect();
        let mut have: Vec<&str> = self
            .slots
            .iter()
            .map(|s| self.profiles[s.profile].name.as_str())
            .collect();
        want.sort_unstable();
        have.sort_unstable();
        want == have
    }

    /// The baseline layout keeping every pinned instance where it is (and as many idle ones
    /// as fit); `None` when none keeps them.
    pub(crate) fn back_to_baseline(&self) -> Option<Vec<Slot>> {
        let baseline = self.baseline.as_ref()?;
        let requests: Vec<Request> = baseline
            .iter()
            .map(|w| {
                self.profile_index(&w.profile).map(|profile| Request {
                    profile,
                    start: w.start,
                    compute_profile: 0,
                })
            })
            .collect::<Option<_>>()?;
        let existing: Vec<Existing> = self
            .slots
            .iter()
            .map(|s| Existing {
                profile: Some(s.profile),
                placement: s.placement,
                compute_profiles: vec![0],
                must_keep: s.pinned.is_some(),
            })
            .collect();
        let placed = solver::solve(&self.profiles, &requests, &existing).ok()?;
        let mut slots: Vec<Slot> = placed
            .iter()
            .zip(&requests)
            .map(|(slot, r)| match *slot {
                SolverSlot::Keep(e) => self.slots[e].clone(),
                SolverSlot::New(placement) => Slot {
                    profile: r.profile,
                    placement,
                    pinned: None,
                },
            })
            .collect();
        slots.sort_by_key(|s| s.placement.start);
        Some(slots)
    }

    /// The solver's own check of the layout as it stands (every instance pinned where it is).
    pub(crate) fn check(&self) -> Result<(), String> {
        let requests: Vec<Request> = self
            .slots
            .iter()
            .map(|s| Request {
                profile: s.profile,
                start: Some(s.placement.start),
                compute_profile: 0,
            })
            .collect();
        solver::solve(&self.profiles, &requests, &[])
            .map(|_| ())
            .map_err(|e| format!("GPU {}: {e}", self.index))
    }

    /// `[(profile name, start)]` in start order.
    pub(crate) fn layout(&self) -> Vec<(String, u32)> {
        self.slots
            .iter()
            .map(|s| (self.profiles[s.profile].name.clone(), s.placement.start))
            .collect()
    }
}

fn overlaps(a: Placement, b: Placement) -> bool {
    a.start < b.end() && b.start < a.end()
}

/// The driver's counts: per-profile maximum, instances per GPU, compute slices.
fn within_limits(profiles: &[GpuInstanceProfile], geometry: Geometry, layout: &[usize]) -> bool {
    let per_profile_ok = profiles
        .iter()
        .enumerate()
        .all(|(i, p)| layout.iter().filter(|&&x| x == i).count() as u32 <= p.max_instances);
    let slices: u32 = layout.iter().map(|&i| profiles[i].slices).sum();
    per_profile_ok
        && layout.len() as u32 <= geometry.max_gpu_instances
        && slices <= geometry.compute_slices
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::cluster::on_demand::bench::{a100_sevens, a100_state};

    /// An A100 40GB with seven 1g.5gb (baseline: the same), those at `held` held by pods.
    pub(crate) fn sevens(held: &[u32]) -> GpuShape {
        let state = a100_state(vec![a100_sevens(0, |s| held.contains(&s))]);
        GpuShape::all(&state).unwrap().remove(0)
    }

    #[test]
    fn an_unhealthy_gpu_gets_nothing_new_and_offers_nothing() {
        let mut gpu = a100_sevens(0, |_| false);
        gpu.unhealthy = Some("Xid 79 (fatal)".into());
        let g = GpuShape::all(&a100_state(vec![gpu])).unwrap().remove(0);
        assert!(
            g.slots
                .iter()
                .all(|s| s.pinned.as_deref() == Some("unhealthy: Xid 79 (fatal)"))
        );
        for p in 0..g.profiles.len() {
            assert_eq!(g.best_addition(p), None);
        }
        let mut g = g;
        assert!(!g.promise_idle(g.profile_index("1g.5gb").unwrap(), "ns/p"));
        // An unhealthy MIG device alone: it is pinned, the others are offered.
        let mut gpu = a100_sevens(0, |_| false);
        gpu.instances[3].unhealthy = Some("Xid 62 on MIG device 7:0 (recoverable)".into());
        let g = GpuShape::all(&a100_state(vec![gpu])).unwrap().remove(0);
        let pinned: Vec<u32> = g
            .slots
            .iter()
            .filter(|s| s.pinned.is_some())
            .map(|s| s.placement.start)
            .collect();
        assert_eq!(pinned, [3]);
        assert!(
            g.best_addition(g.profile_index("3g.20gb").unwrap())
                .is_some()
        );
    }

    #[test]
    fn a_new_instance_goes_where_it_destroys_the_fewest_idle_ones() {
        let g = sevens(&[]);
        let three = g.profile_index("3g.20gb").unwrap();
        // At 4 it takes the 1g.5gb at 4, 5, 6 (slice 7 is free); at 0 it would take four.
        let a = g.best_addition(three).unwrap();
        assert_eq!((a.start, a.destroys.len()), (4, 3));
        // A held 1g.5gb at 5 leaves only the start at 0.
        let g = sevens(&[5]);
        let a = g.best_addition(three).unwrap();
        assert_eq!((a.start, a.destroys.len()), (0, 4));
        // Held at 1 and 5: no 3g.20gb fits; a 2g.10gb does, at 2 (or 4: the lowest wins).
        let g = sevens(&[1, 5]);
        assert_eq!(g.best_addition(three), None);
        let a = g
            .best_addition(g.profile_index("2g.10gb").unwrap())
            .unwrap();
        assert_eq!(a.start, 2);
        assert_eq!(g.best_addition(g.profile_index("7g.40gb").unwrap()), None);
    }

    #[test]
    fn additions_keep_the_drivers_limits_and_the_solver_agrees() {
        let mut g = sevens(&[]);
        let three = g.profile_index("3g.20gb").unwrap();
        let a = g.best_addition(three).unwrap();
        g.add(&a, "ns/a");
        let a = g.best_addition(three).unwrap();
        g.add(&a, "ns/b");
        assert_eq!(
            g.layout(),
            [("3g.20gb".to_string(), 0), ("3g.20gb".to_string(), 4)]
        );
        g.check().unwrap();
        // Both 3g.20gb are promised: nothing else fits.
        assert_eq!(g.best_addition(g.profile_index("1g.5gb").unwrap()), None);
        assert!(!g.is_baseline());
    }

    #[test]
    fn back_to_baseline_keeps_what_is_held() {
        let mut g = sevens(&[]);
        let three = g.profile_index("3g.20gb").unwrap();
        let a = g.best_addition(three).unwrap();
        g.add(&a, "ns/a");
        // Still promised (held): the baseline cannot keep it.
        assert_eq!(g.back_to_baseline(), None);
        g.slots.iter_mut().for_each(|s| s.pinned = None);
        let back = g.back_to_baseline().unwrap();
        assert_eq!(back.len(), 7);
        assert!(back.iter().all(|s| s.profile == 0));
        // The four idle 1g.5gb it kept stay where they were.
        assert!(
            g.slots
                .iter()
                .filter(|s| s.profile == 0)
                .all(|s| back.contains(s))
        );
        assert!(sevens(&[3]).is_baseline());
    }
}
