//! The solver against brute force, the explanations, and the preference for existing instances.

use super::*;
use crate::node::model::catalog::{MigTable, catalog};
use std::collections::{BTreeMap, HashSet};

/// Every MIG table of the catalog, with the name of one model that uses it.
fn tables() -> Vec<(String, &'static MigTable)> {
    let mut seen = BTreeMap::new();
    for m in &catalog().models {
        if let Some(key) = &m.mig {
            seen.entry(key.clone())
                .or_insert((m.name.clone(), &catalog().mig[key]));
        }
    }
    seen.into_values().collect()
}

fn table(model: &str) -> &'static MigTable {
    let c = catalog();
    c.mig_table(c.model(model).unwrap()).unwrap()
}

fn requests(t: &MigTable, names: &[&str]) -> Vec<Request> {
    names
        .iter()
        .map(|n| Request {
            profile: t.profiles.iter().position(|p| p.name == *n).unwrap(),
            start: None,
            compute_profile: 0,
        })
        .collect()
}

fn err(t: &MigTable, names: &[&str]) -> String {
    solve(&t.profiles, &requests(t, names), &[]).unwrap_err().0
}

/// A layout the solver returned obeys every rule the simulator enforces.
fn assert_valid(t: &MigTable, reqs: &[Request], existing: &[Existing], slots: &[Slot]) {
    assert_eq!(reqs.len(), slots.len());
    let mut placed: Vec<Placement> = Vec::new();
    for (r, s) in reqs.iter().zip(slots) {
        let p = &t.profiles[r.profile];
        let pl = s.placement(existing);
        assert!(
            p.starts.contains(&pl.start) && pl.size == p.size,
            "{} at {pl}",
            p.name
        );
        if let Some(start) = r.start {
            assert_eq!(pl.start, start);
        }
        assert!(placed.iter().all(|o| !o.overlaps(pl)), "overlap at {pl}");
        placed.push(pl);
    }
}

/// Every multiset of profiles that some arrangement of placements can hold, by enumerating
/// arrangements directly (the rules, without any cleverness).
fn brute_force_feasible(t: &MigTable) -> HashSet<Vec<u32>> {
    let g = Geometry::of(&t.profiles);
    let all: Vec<(usize, Placement)> = t
        .profiles
        .iter()
        .enumerate()
        .flat_map(|(i, p)| p.placements().map(move |pl| (i, pl)))
        .collect();
    let mut found = HashSet::new();
    let mut counts = vec![0u32; t.profiles.len()];
    fn walk(
        t: &MigTable,
        g: Geometry,
        all: &[(usize, Placement)],
        from: usize,
        taken: &mut Vec<Placement>,
        counts: &mut Vec<u32>,
        found: &mut HashSet<Vec<u32>>,
    ) {
        found.insert(counts.clone());
        for k in from..all.len() {
            let (p, pl) = all[k];
            let profile = &t.profiles[p];
            let compute: u32 = counts
                .iter()
                .zip(&t.profiles)
                .map(|(n, q)| n * q.slices)
                .sum();
            if counts[p] >= profile.max_instances
                || taken.len() as u32 >= g.max_gpu_instances
                || compute + profile.slices > g.compute_slices
                || taken.iter().any(|o| o.overlaps(pl))
            {
                continue;
            }
            counts[p] += 1;
            taken.push(pl);
            walk(t, g, all, k + 1, taken, counts, found);
            taken.pop();
            counts[p] -= 1;
        }
    }
    walk(t, g, &all, 0, &mut Vec::new(), &mut counts, &mut found);
    found
}

#[test]
fn geometry_from_profiles_matches_the_catalog() {
    for (model, t) in tables() {
        let g = Geometry::of(&t.profiles);
        assert_eq!(
            (g.memory_slices, g.compute_slices, g.max_gpu_instances),
            (t.memory_slices, t.compute_slices, t.max_gpu_instances),
            "{model}"
        );
    }
}

#[test]
fn agrees_with_brute_force_on_every_multiset_of_every_model() {
    for (model, t) in tables() {
        let feasible = brute_force_feasible(t);
        // Every multiset with each count from 0 to the profile's maximum.
        let mut counts = vec![0u32; t.profiles.len()];
        let mut checked = 0;
        loop {
            let reqs: Vec<Request> = counts
                .iter()
                .enumerate()
                .flat_map(|(p, &n)| {
                    (0..n).map(move |_| Request {
                        profile: p,
                        start: None,
                        compute_profile: 0,
                    })
                })
                .collect();
            match solve(&t.profiles, &reqs, &[]) {
                Ok(slots) => {
                    assert!(
                        feasible.contains(&counts),
                        "{model} {counts:?}: solver found a layout brute force did not"
                    );
                    assert_valid(t, &reqs, &[], &slots);
                }
                Err(why) => assert!(
                    !feasible.contains(&counts),
                    "{model} {counts:?}: brute force found a layout, solver said: {why}"
                ),
            }
            checked += 1;
            // Next multiset (odometer over the counts).
            let mut i = 0;
            while i < counts.len() {
                if counts[i] < t.profiles[i].max_instances {
                    counts[i] += 1;
                    break;
                }
                counts[i] = 0;
                i += 1;
            }
            if i == counts.len() {
                break;
            }
        }
        let expected: u32 = t.profiles.iter().map(|p| p.max_instances + 1).product();
        assert_eq!(checked, expected, "{model}: every multiset checked");
    }
}

#[test]
fn order_dependent_layouts_succeed() {
    // First-fit in this order puts 1g.5gb at 0 and then finds no room for 4g.20gb.
    let t = table("NVIDIA A100-SXM4-40GB");
    let reqs = requests(t, &["1g.5gb", "4g.20gb", "2g.10gb"]);
    let slots = solve(&t.profiles, &reqs, &[]).unwrap();
    assert_valid(t, &reqs, &[], &slots);
    assert_eq!(slots[1], Slot::New(Placement { start: 0, size: 4 }));
}

#[test]
fn explains_why_no_layout_exists() {
    let t = table("NVIDIA A100-SXM4-40GB");
    assert_eq!(
        err(t, &["3g.20gb", "3g.20gb", "1g.5gb"]),
        "3g.20gb ×2 fills all 8 memory slices; 1g.5gb needs one more"
    );
    assert_eq!(
        err(t, &["1g.5gb+me", "1g.5gb+me"]),
        "1g.5gb+me ×2: a GPU holds at most 1"
    );
    assert_eq!(
        err(t, &["4g.20gb", "3g.20gb", "1g.5gb"]),
        "4g.20gb ×1 + 3g.20gb ×1 + 1g.5gb ×1 need 8 compute slices; the GPU has 7"
    );
    assert_eq!(
        err(t, &["1g.10gb", "1g.10gb", "1g.10gb", "1g.5gb", "2g.10gb"]),
        "2g.10gb ×1 + 1g.10gb ×3 fill all 8 memory slices; 1g.5gb needs one more"
    );
    let h = table("NVIDIA H100 80GB HBM3");
    assert_eq!(err(h, &["1g.10gb"; 8]), "1g.10gb ×8: a GPU holds at most 7");
}

#[test]
fn pins_are_checked_and_respected() {
    let t = table("NVIDIA A100-SXM4-40GB");
    let mut reqs = requests(t, &["3g.20gb", "1g.5gb"]);
    reqs[0].start = Some(4);
    let slots = solve(&t.profiles, &reqs, &[]).unwrap();
    assert_eq!(slots[0], Slot::New(Placement { start: 4, size: 4 }));
    assert_eq!(slots[1], Slot::New(Placement { start: 0, size: 1 }));
    reqs[0].start = Some(3);
    assert_eq!(
        solve(&t.profiles, &reqs, &[]).unwrap_err().0,
        "3g.20gb cannot start at memory slice 3; its placements are {0,4}:4"
    );
    // Without pins every multiset that fits the counts has a layout (the brute-force test shows
    // it for the catalog); a pin can still make one impossible.
    let mut reqs = requests(t, &["4g.20gb", "1g.5gb"]);
    reqs[1].start = Some(1);
    assert_eq!(
        solve(&t.profiles, &reqs, &[]).unwrap_err().0,
        "4g.20gb ×1 + 1g.5gb ×1 fit the slice counts, but their placements do not fit together \
         with 1g.5gb pinned at 1:1: 4g.20gb at {0}:4, 1g.5gb at {0,1,2,3,4,5,6}:1"
    );
    let mut reqs = requests(t, &["3g.20gb", "1g.5gb"]);
    reqs[0].start = Some(0);
    reqs[1].start = Some(2);
    assert_eq!(
        solve(&t.profiles, &reqs, &[]).unwrap_err().0,
        "1g.5gb at 2:1 and 3g.20gb at 0:4 overlap"
    );
}

fn existing(t: &MigTable, name: &str, start: u32, cis: &[u32], must_keep: bool) -> Existing {
    let profile = t.profiles.iter().position(|p| p.name == name).unwrap();
    Existing {
        profile: Some(profile),
        placement: Placement {
            start,
            size: t.profiles[profile].size,
        },
        compute_profiles: cis.to_vec(),
        must_keep,
    }
}

#[test]
fn keeps_existing_instances_when_a_layout_allows_it() {
    let t = table("NVIDIA A100-SXM4-40GB");
    // 1g.5gb at 6 and 3g.20gb at 0 exist; the layout wants them plus a 2g.10gb.
    let have = vec![
        existing(t, "1g.5gb", 6, &[0], false),
        existing(t, "3g.20gb", 0, &[2], false),
    ];
    let mut reqs = requests(t, &["2g.10gb", "3g.20gb", "1g.5gb"]);
    reqs[1].compute_profile = 2;
    let slots = solve(&t.profiles, &reqs, &have).unwrap();
    assert_valid(t, &reqs, &have, &slots);
    assert_eq!(slots[1], Slot::Keep(1));
    assert_eq!(slots[2], Slot::Keep(0));
    assert_eq!(slots[0], Slot::New(Placement { start: 4, size: 2 }));
}

#[test]
fn moves_an_idle_instance_when_the_layout_needs_its_place() {
    // 4g.20gb only starts at 0, so the 3g.20gb there must move to 4.
    let t = table("NVIDIA A100-SXM4-40GB");
    let have = vec![existing(t, "3g.20gb", 0, &[2], false)];
    let reqs = requests(t, &["4g.20gb", "3g.20gb"]);
    let slots = solve(&t.profiles, &reqs, &have).unwrap();
    assert_eq!(slots[0], Slot::New(Placement { start: 0, size: 4 }));
    assert_eq!(slots[1], Slot::New(Placement { start: 4, size: 4 }));
}

#[test]
fn an_instance_in_use_stays_or_the_layout_is_refused() {
    let t = table("NVIDIA A100-SXM4-40GB");
    let have = vec![existing(t, "3g.20gb", 0, &[2], true)];
    let reqs = requests(t, &["4g.20gb", "3g.20gb"]);
    let e = solve(&t.profiles, &reqs, &have).unwrap_err().0;
    assert_eq!(
        e,
        "no layout keeps the GPU instance(s) in use (3g.20gb at 0:4) where they are"
    );
    // Without the 4g.20gb, the in-use instance is kept and the rest is placed around it.
    let reqs = requests(t, &["3g.20gb", "3g.20gb"]);
    let slots = solve(&t.profiles, &reqs, &have).unwrap();
    assert!(slots.contains(&Slot::Keep(0)));
}

#[test]
fn prefers_instances_that_already_hold_the_right_compute_instance() {
    let t = table("NVIDIA A100-SXM4-40GB");
    let have = vec![
        existing(t, "3g.20gb", 0, &[0, 1], false),
        existing(t, "3g.20gb", 4, &[2], false),
    ];
    let mut reqs = requests(t, &["3g.20gb"]);
    reqs[0].compute_profile = 2;
    assert_eq!(solve(&t.profiles, &reqs, &have).unwrap(), [Slot::Keep(1)]);
}

#[test]
fn is_deterministic() {
    let t = table("NVIDIA A100-SXM4-40GB");
    let reqs = requests(t, &["1g.5gb", "1g.5gb", "2g.10gb", "3g.20gb"]);
    let first = solve(&t.profiles, &reqs, &[]).unwrap();
    for _ in 0..5 {
        assert_eq!(solve(&t.profiles, &reqs, &[]).unwrap(), first);
    }
}

/// (counts, pinned profile, pinned start) for every arrangement brute force can build.
fn brute_force_pinned(t: &MigTable) -> HashSet<(Vec<u32>, usize, u32)> {
    let g = Geometry::of(&t.profiles);
    let all: Vec<(usize, Placement)> = t
        .profiles
        .iter()
        .enumerate()
        .flat_map(|(i, p)| p.placements().map(move |pl| (i, pl)))
        .collect();
    let mut found = HashSet::new();
    let mut stack: Vec<(usize, Placement)> = Vec::new();
    fn walk(
        t: &MigTable,
        g: Geometry,
        all: &[(usize, Placement)],
        from: usize,
        stack: &mut Vec<(usize, Placement)>,
        found: &mut HashSet<(Vec<u32>, usize, u32)>,
    ) {
        let mut counts = vec![0u32; t.profiles.len()];
        for (p, _) in stack.iter() {
            counts[*p] += 1;
        }
        for (p, pl) in stack.iter() {
            found.insert((counts.clone(), *p, pl.start));
        }
        let compute: u32 = stack.iter().map(|(p, _)| t.profiles[*p].slices).sum();
        for k in from..all.len() {
            let (p, pl) = all[k];
            let profile = &t.profiles[p];
            if counts[p] >= profile.max_instances
                || stack.len() as u32 >= g.max_gpu_instances
                || compute + profile.slices > g.compute_slices
                || stack.iter().any(|(_, o)| o.overlaps(pl))
            {
                continue;
            }
            stack.push((p, pl));
            walk(t, g, all, k + 1, stack, found);
            stack.pop();
        }
    }
    walk(t, g, &all, 0, &mut stack, &mut found);
    found
}

#[test]
fn agrees_with_brute_force_when_one_instance_is_pinned() {
    // Without pins the slice counts decide (the test above); a pin makes the placements matter,
    // so here every multiset that fits the counts is tried with each of its profiles pinned at
    // each of its starts.
    for (model, t) in tables() {
        let g = Geometry::of(&t.profiles);
        let feasible = brute_force_pinned(t);
        let mut counts = vec![0u32; t.profiles.len()];
        let mut checked = 0;
        loop {
            let compute: u32 = counts
                .iter()
                .zip(&t.profiles)
                .map(|(n, p)| n * p.slices)
                .sum();
            let memory: u32 = counts
                .iter()
                .zip(&t.profiles)
                .map(|(n, p)| n * p.size)
                .sum();
            let total: u32 = counts.iter().sum();
            if compute <= g.compute_slices
                && memory <= g.memory_slices
                && total <= g.max_gpu_instances
            {
                for (pinned, _) in counts.iter().enumerate().filter(|(_, n)| **n > 0) {
                    for &start in &t.profiles[pinned].starts {
                        let mut reqs: Vec<Request> = counts
                            .iter()
                            .enumerate()
                            .flat_map(|(p, &n)| {
                                (0..n).map(move |_| Request {
                                    profile: p,
                                    start: None,
                                    compute_profile: 0,
                                })
                            })
                            .collect();
                        let first = reqs.iter().position(|r| r.profile == pinned).unwrap();
                        reqs[first].start = Some(start);
                        let want = feasible.contains(&(counts.clone(), pinned, start));
                        match solve(&t.profiles, &reqs, &[]) {
                            Ok(slots) => {
                                assert!(
                                    want,
                                    "{model} {counts:?} {} at {start}: solver found a layout brute force did not",
                                    t.profiles[pinned].name
                                );
                                assert_valid(t, &reqs, &[], &slots);
                            }
                            Err(why) => assert!(
                                !want,
                                "{model} {counts:?} {} at {start}: {why}",
                                t.profiles[pinned].name
                            ),
                        }
                        checked += 1;
                    }
                }
            }
            let mut i = 0;
            while i < counts.len() {
                if counts[i] < t.profiles[i].max_instances {
                    counts[i] += 1;
                    break;
                }
                counts[i] = 0;
                i += 1;
            }
            if i == counts.len() {
                break;
            }
        }
        assert!(checked > 0, "{model}");
    }
}
