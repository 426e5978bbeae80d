//! The placement solver: where each GPU instance of a layout goes on one GPU.
//!
//! The driver's rules (the simulator enforces the same ones): an instance starts only at one of its
//! profile's placements, instances never share a memory slice, each profile has a maximum count,
//! and the GPU has a maximum number of instances and of compute slices. The solver searches every
//! arrangement (depth first, identical instances in increasing order so that no arrangement is
//! tried twice), so it finds a layout whenever one exists. Among the layouts it keeps as many of
//! the instances that already exist as it can; ties go to the lowest starts, so the answer is
//! deterministic.

mod explain;
mod terms;

use crate::node::model::Placement;
use crate::node::model::catalog::GpuInstanceProfile;
use explain::{alignment_reason, check_pins, check_totals};

pub(crate) use explain::{format_placements, placements_text};
pub(crate) use terms::Geometry;
pub use terms::Request;
pub(crate) use terms::{Existing, Infeasible, Slot};

/// Place every request (the result has one slot per request, in request order).
pub fn solve(
    profiles: &[GpuInstanceProfile],
    requests: &[Request],
    existing: &[Existing],
) -> Result<Vec<Slot>, Infeasible> {
    if existing.len() > 64 || requests.len() > 64 {
        return Err(Infeasible(format!(
            "{} instances asked for and {} present: more than any GPU holds",
            requests.len(),
            existing.len()
        )));
    }
    let geometry = Geometry::of(profiles);
    check_totals(profiles, geometry, requests)?;
    check_pins(profiles, requests)?;
    let mut search = Search::new(profiles, requests, existing);
    search.run(0, 0, 0, 0);
    match search.best {
        Some((_, slots)) => Ok(slots),
        None if existing.iter().any(|e| e.must_keep) => {
            let kept: Vec<String> = existing
                .iter()
                .filter(|e| e.must_keep)
                .map(|e| {
                    let name = e.profile.map_or("?", |p| profiles[p].name.as_str());
                    format!("{name} at {}", e.placement)
                })
                .collect();
            Err(Infeasible(format!(
                "no layout keeps the GPU instance(s) in use ({}) where they are",
                kept.join(", ")
            )))
        }
        None => Err(Infeasible(alignment_reason(profiles, requests))),
    }
}

/// Depth-first search over the requests, best keep score first.
struct Search<'a> {
    profiles: &'a [GpuInstanceProfile],
    requests: &'a [Request],
    existing: &'a [Existing],
    /// Request indexes in search order: pinned first, then largest first.
    order: Vec<usize>,
    /// The best score each request (in search order) could still add.
    best_possible: Vec<u32>,
    /// For each position in `order`: the previous position holds an identical request.
    same_as_previous: Vec<bool>,
    slots: Vec<Option<Slot>>,
    best: Option<(u32, Vec<Slot>)>,
    /// The best total score possible: the search stops once it is reached.
    ceiling: u32,
    /// Existing instances of a known profile (the ones a slot can keep).
    keepable: u32,
}

impl<'a> Search<'a> {
    fn new(
        profiles: &'a [GpuInstanceProfile],
        requests: &'a [Request],
        existing: &'a [Existing],
    ) -> Self {
        let mut order: Vec<usize> = (0..requests.len()).collect();
        order.sort_by_key(|&i| {
            let r = &requests[i];
            let p = &profiles[r.profile];
            (
                r.start.is_none(),
                std::cmp::Reverse(p.size),
                std::cmp::Reverse(p.slices),
                r.profile,
                r.compute_profile,
                r.start,
                i,
            )
        });
        let same_as_previous: Vec<bool> = order
            .iter()
            .enumerate()
            .map(|(k, &i)| {
                k > 0 && {
                    let (a, b) = (&requests[order[k - 1]], &requests[i]);
                    a.start.is_none()
                        && b.start.is_none()
                        && a.profile == b.profile
                        && a.compute_profile == b.compute_profile
                }
            })
            .collect();
        let best_possible: Vec<u32> = order
            .iter()
            .map(|&i| {
                (0..existing.len())
                    .map(|e| score(&requests[i], &existing[e]))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        // No more instances can be kept than exist for each profile: a tighter ceiling lets the
        // search stop as soon as it is reached.
        let mut per_profile: Vec<(usize, u32, u32)> = Vec::new();
        for r in requests {
            match per_profile.iter_mut().find(|(p, _, _)| *p == r.profile) {
                Some((_, n, _)) => *n += 1,
                None => per_profile.push((r.profile, 1, 0)),
            }
        }
        for e in existing {
            if let Some((_, _, n)) = per_profile
                .iter_mut()
                .find(|(p, _, _)| Some(*p) == e.profile)
            {
                *n += 1;
            }
        }
        let by_profile: u32 = per_profile
            .iter()
            .map(|(_, want, have)| 2 * want.min(have))
            .sum();
        let ceiling = best_possible.iter().sum::<u32>().min(by_profile);
        let keepable = existing.iter().filter(|e| e.profile.is_some()).count() as u32;
        Search {
            profiles,
            requests,
            existing,
            order,
            best_possible,
            same_as_previous,
            slots: vec![None; requests.len()],
            best: None,
            ceiling,
            keepable,
        }
    }

    /// `k`: position in `order`; `occupied`: memory-slice bit mask; `used`: existing instances
    /// already kept (bit mask); `points`: keep score so far.
    fn run(&mut self, k: usize, occupied: u64, used: u64, points: u32) {
        if self.best.as_ref().is_some_and(|(b, _)| *b == self.ceiling) {
            return;
        }
        // What the remaining requests could still add: their best scores, but never more than
        // the existing instances not kept yet allow.
        let unused = self.keepable - used.count_ones();
        let still_possible: u32 = self.best_possible[k..].iter().sum::<u32>().min(2 * unused);
        if let Some((best, _)) = &self.best
            && points + still_possible <= *best
        {
            return;
        }
        if k == self.order.len() {
            let kept_all_in_use = self
                .existing
                .iter()
                .enumerate()
                .all(|(e, x)| !x.must_keep || used & (1 << e) != 0);
            if kept_all_in_use {
                let slots = self
                    .slots
                    .iter()
                    .map(|s| s.expect("every slot set"))
                    .collect();
                self.best = Some((points, slots));
            }
            return;
        }
        let unkept_in_use = self
            .existing
            .iter()
            .enumerate()
            .filter(|(e, x)| x.must_keep && used & (1 << e) == 0)
            .count();
        if unkept_in_use > self.order.len() - k {
            return;
        }
        let i = self.order[k];
        let request = &self.requests[i];
        let min_start = if self.same_as_previous[k] {
            self.slots[self.order[k - 1]].map(|s| s.placement(self.existing).start)
        } else {
            None
        };
        for (slot, gained) in self.candidates(request, occupied, used) {
            let placement = slot.placement(self.existing);
            if min_start.is_some_and(|m| placement.start <= m) {
                continue;
            }
            let used = match slot {
                Slot::Keep(e) => used | (1 << e),
                Slot::New(_) => used,
            };
            self.slots[i] = Some(slot);
            self.run(k + 1, occupied | mask(placement), used, points + gained);
            self.slots[i] = None;
        }
    }

    /// Where a request may go now, best first: existing instances it can keep (better match
    /// first), then free placements from the lowest start.
    fn candidates(&self, request: &Request, occupied: u64, used: u64) -> Vec<(Slot, u32)> {
        let mut keeps: Vec<(Slot, u32)> = self
            .existing
            .iter()
            .enumerate()
            .filter(|(e, x)| used & (1 << e) == 0 && mask(x.placement) & occupied == 0)
            .filter_map(|(e, x)| {
                let s = score(request, x);
                (s > 0).then_some((Slot::Keep(e), s))
            })
            .collect();
        keeps.sort_by_key(|&(slot, s)| (std::cmp::Reverse(s), slot.placement(self.existing).start));
        let profile = &self.profiles[request.profile];
        let fresh =
            profile
                .placements()
                .filter(|p| request.start.is_none_or(|s| s == p.start))
                .filter(|p| mask(*p) & occupied == 0)
                // An in-use instance stays, so nothing new may cover it.
                .filter(|p| {
                    !self.existing.iter().enumerate().any(|(e, x)| {
                        x.must_keep && used & (1 << e) == 0 && x.placement.overlaps(*p)
                    })
                })
                .map(|p| (Slot::New(p), 0));
        keeps.extend(fresh);
        keeps
    }
}

/// How much keeping `existing` for `request` is worth: 0 when it cannot serve it, 2 when it
/// already holds exactly the compute instance asked for, 1 when its compute instances change.
fn score(request: &Request, existing: &Existing) -> u32 {
    let fits = existing.profile == Some(request.profile)
        && request.start.is_none_or(|s| s == existing.placement.start);
    match fits {
        false => 0,
        true if existing.compute_profiles == [request.compute_profile] => 2,
        true => 1,
    }
}

fn mask(p: Placement) -> u64 {
    let bits = if p.size >= 64 {
        u64::MAX
    } else {
        (1u64 << p.size) - 1
    };
    bits.checked_shl(p.start).unwrap_or(0)
}

#[cfg(test)]
mod tests;
