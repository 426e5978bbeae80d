//! Where first fit should find a GPU instance. Kubernetes 1.36 places a partitionable device
//! first fit in the order its driver lists the devices, so the driver's order is the placement
//! policy. [`order`] lists every placement of every profile a GPU can still take, ordered so
//! that taking the first one of a profile leaves the GPU able to take as many of its largest
//! profiles as possible, then of the next largest, and so on; ties go to the higher start, where
//! the driver's own tables put the small profiles. Recomputed as instances come and go, the order
//! follows what the GPU holds.
//!
//! [`churn`] measures an order: mixed-profile claims made and released at random on a number of
//! GPUs, each placed first fit in a list, counting the claims refused while one GPU had enough
//! free memory slices and compute slices for them (refused for fragmentation, not for want of
//! room).

use crate::node::model::Placement;
use crate::node::model::catalog::MigTable;
use std::cmp::Reverse;

/// One place a GPU instance can go: a profile (its index in the table) at a placement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Partition {
    pub profile: usize,
    pub placement: Placement,
}

/// What a GPU holds: its GPU instances, as partitions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Taken {
    pub instances: Vec<Partition>,
}

impl Taken {
    fn compute(&self, table: &MigTable) -> u32 {
        self.instances
            .iter()
            .map(|i| table.profiles[i.profile].slices)
            .sum()
    }

    fn memory(&self) -> u32 {
        self.instances.iter().map(|i| i.placement.size).sum()
    }

    /// Whether `p` can be made next to what is there: no shared memory slice, within the GPU's
    /// compute slices, its instance count and the profile's.
    pub fn fits(&self, table: &MigTable, p: Partition) -> bool {
        let profile = &table.profiles[p.profile];
        let same = self
            .instances
            .iter()
            .filter(|i| i.profile == p.profile)
            .count() as u32;
        !self
            .instances
            .iter()
            .any(|i| i.placement.overlaps(p.placement))
            && self.compute(table) + profile.slices <= table.compute_slices
            && (self.instances.len() as u32) < table.max_gpu_instances
            && same < profile.max_instances
    }
}

/// Every partition of the GPU's profiles, in the driver's table order.
pub fn partitions(table: &MigTable) -> Vec<Partition> {
    table
        .profiles
        .iter()
        .enumerate()
        .flat_map(|(profile, p)| {
            p.placements()
                .map(move |placement| Partition { profile, placement })
        })
        .collect()
}

/// The profiles, largest first: more memory slices, then more compute slices.
fn largest_first(table: &MigTable) -> Vec<usize> {
    let mut order: Vec<usize> = (0..table.profiles.len()).collect();
    order.sort_by_key(|&i| {
        let p = &table.profiles[i];
        (Reverse(p.size), Reverse(p.slices), i)
    });
    order
}

/// How many more instances of each profile (largest first) the GPU could take, each counted on
/// its own: placements chosen by earliest end, which packs the most intervals.
fn room(table: &MigTable, taken: &Taken, largest: &[usize]) -> Vec<u32> {
    largest
        .iter()
        .map(|&profile| {
            let mut more = taken.clone();
            let mut placements: Vec<Placement> = table.profiles[profile].placements().collect();
            placements.sort_by_key(|p| (p.end(), p.start));
            let mut n = 0;
            for placement in placements {
                let p = Partition { profile, placement };
                if more.fits(table, p) {
                    more.instances.push(p);
                    n += 1;
                }
            }
            n
        })
        .collect()
}

/// The partitions the GPU can take now, in the order first fit should find them: by profile (a
/// claim asks for one), then by the room each leaves for the largest profiles, then by the
/// higher start.
pub fn order(table: &MigTable, taken: &Taken) -> Vec<Partition> {
    let largest = largest_first(table);
    let mut scored: Vec<(Partition, Vec<u32>)> = partitions(table)
        .into_iter()
        .filter(|&p| taken.fits(table, p))
        .map(|p| {
            let mut after = taken.clone();
            after.instances.push(p);
            (p, room(table, &after, &largest))
        })
        .collect();
    scored.sort_by(|(a, ra), (b, rb)| {
        a.profile
            .cmp(&b.profile)
            .then_with(|| rb.cmp(ra))
            .then_with(|| b.placement.start.cmp(&a.placement.start))
    });
    scored.into_iter().map(|(p, _)| p).collect()
}

/// How a churn lists the GPUs' partitions for first fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listing {
    /// [`order`], GPU by GPU, recomputed after every change (the driver republishes it).
    Packed,
    /// The driver's table order, GPU by GPU, placements by start.
    Index,
    /// Shuffled once, as a driver that places at random.
    Random,
}

/// What a churn saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Churn {
    pub claims: u64,
    pub placed: u64,
    /// Refused although one GPU had the memory and compute slices free.
    pub fragmented: u64,
    /// Refused for want of room on every GPU.
    pub full: u64,
}

/// A small deterministic generator (xorshift64*): the same seed, the same churn.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// `events` claims made and released at random on `gpus` GPUs of `table`, the cluster kept
/// about `fill` percent full: while fewer memory slices than that are taken and the last claim
/// was placed, an event makes a claim of a profile drawn by `weights` (one per profile, in table
/// order), else it releases a random claim. A claim takes the first partition of its profile that fits in the `listing`'s
/// list.
pub fn churn(
    table: &MigTable,
    gpus: usize,
    weights: &[u32],
    listing: Listing,
    fill: u32,
    events: u64,
    seed: u64,
) -> Churn {
    let mut rng = Rng(seed.max(1));
    let mut held: Vec<Taken> = vec![Taken::default(); gpus];
    let mut claims: Vec<(usize, Partition)> = Vec::new();
    let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
    let mut fixed: Vec<(usize, Partition)> = (0..gpus)
        .flat_map(|g| partitions(table).into_iter().map(move |p| (g, p)))
        .collect();
    fixed.sort_by_key(|(g, p)| (*g, p.profile, p.placement.start));
    if listing == Listing::Random {
        // A generator of its own: every listing sees the same draws of claims.
        let mut shuffle = Rng(seed.rotate_left(32) | 1);
        for i in (1..fixed.len()).rev() {
            let j = shuffle.below(i as u64 + 1) as usize;
            fixed.swap(i, j);
        }
    }
    let mut seen = Churn::default();
    // A refused claim is followed by a release: a full cluster does not stay full.
    let mut refused = false;
    for _ in 0..events {
        let used: u32 = held.iter().map(Taken::memory).sum();
        let target = table.memory_slices * gpus as u32 * fill.min(100) / 100;
        if !claims.is_empty() && (used >= target || refused) {
            refused = false;
            let (g, p) = claims.swap_remove(rng.below(claims.len() as u64) as usize);
            held[g].instances.retain(|i| *i != p);
            continue;
        }
        let mut draw = rng.below(total);
        let profile = weights
            .iter()
            .position(|&w| {
                let hit = draw < u64::from(w);
                draw = draw.saturating_sub(u64::from(w));
                hit
            })
            .unwrap_or(0);
        seen.claims += 1;
        let found = match listing {
            // GPU by GPU, so that the later ones stay whole.
            Listing::Packed => (0..gpus).find_map(|g| {
                order(table, &held[g])
                    .into_iter()
                    .find(|p| p.profile == profile)
                    .map(|p| (g, p))
            }),
            Listing::Index | Listing::Random => fixed
                .iter()
                .find(|(g, p)| p.profile == profile && held[*g].fits(table, *p))
                .copied(),
        };
        match found {
            Some((g, p)) => {
                held[g].instances.push(p);
                claims.push((g, p));
                seen.placed += 1;
            }
            None => {
                refused = true;
                let wanted = &table.profiles[profile];
                let room = held.iter().any(|t| {
                    table.memory_slices - t.memory() >= wanted.size
                        && table.compute_slices - t.compute(table) >= wanted.slices
                });
                if room {
                    seen.fragmented += 1;
                } else {
                    seen.full += 1;
                }
            }
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::model::catalog::catalog;

    fn a100() -> &'static MigTable {
        let c = catalog();
        c.mig_table(c.model("NVIDIA A100-SXM4-40GB").unwrap())
            .unwrap()
    }

    fn index_of(table: &MigTable, name: &str) -> usize {
        table.profiles.iter().position(|p| p.name == name).unwrap()
    }

    fn starts(table: &MigTable, taken: &Taken, name: &str) -> Vec<u32> {
        let profile = index_of(table, name);
        order(table, taken)
            .into_iter()
            .filter(|p| p.profile == profile)
            .map(|p| p.placement.start)
            .collect()
    }

    #[test]
    fn on_an_empty_a100_small_profiles_go_where_the_large_ones_cannot_be_hurt() {
        let t = a100();
        let empty = Taken::default();
        // 1g from the end; 2g and 3g at 4, keeping 0-3 for a 4g; 7g has one place.
        assert_eq!(starts(t, &empty, "1g.5gb")[0], 6);
        assert_eq!(starts(t, &empty, "2g.10gb")[0], 4);
        assert_eq!(starts(t, &empty, "3g.20gb"), [4, 0]);
        assert_eq!(starts(t, &empty, "7g.40gb"), [0]);
    }

    #[test]
    fn the_order_follows_what_the_gpu_holds() {
        let t = a100();
        let three = index_of(t, "3g.20gb");
        let taken = Taken {
            instances: vec![Partition {
                profile: three,
                placement: Placement { start: 4, size: 4 },
            }],
        };
        // Only the lower half is left: nothing overlaps the 3g, no 7g.
        assert!(starts(t, &taken, "7g.40gb").is_empty());
        assert_eq!(starts(t, &taken, "3g.20gb"), [0]);
        assert!(starts(t, &taken, "1g.5gb").iter().all(|&s| s < 4));
        for p in order(t, &taken) {
            assert!(taken.fits(t, p), "{p:?}");
        }
    }

    #[test]
    fn packed_first_fit_refuses_fewer_claims_than_index_or_random_order() {
        let t = a100();
        // 1g, 2g, 3g, 4g and 7g claims, the small ones most often.
        let weights: Vec<u32> = t
            .profiles
            .iter()
            .map(|p| match p.name.as_str() {
                "1g.5gb" => 8,
                "2g.10gb" => 4,
                "3g.20gb" => 3,
                "4g.20gb" => 2,
                "7g.40gb" => 1,
                _ => 0,
            })
            .collect();
        // At 70 % full, where fragmentation, not the lack of room, refuses claims.
        let run = |listing| churn(t, 8, &weights, listing, 70, 4000, 7);
        let (packed, index, random) = (
            run(Listing::Packed),
            run(Listing::Index),
            run(Listing::Random),
        );
        assert!(packed.claims > 1500 && packed.placed > 1000, "{packed:?}");
        assert!(
            packed.fragmented <= index.fragmented && packed.fragmented * 2 <= random.fragmented,
            "packed {packed:?}, index {index:?}, random {random:?}"
        );
    }
}
