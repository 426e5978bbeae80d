//! Why a layout does not fit, in words: the checks that need no search (counts, compute and
//! memory slices, pinned starts) and the message when only the placements are in the way.

use super::terms::{Geometry, Infeasible, Request};
use crate::node::model::Placement;
use crate::node::model::catalog::GpuInstanceProfile;

/// `3g.20gb ×2 + 1g.5gb ×1`, largest first.
fn describe(profiles: &[GpuInstanceProfile], counts: &[(usize, u32)]) -> String {
    counts
        .iter()
        .map(|(p, n)| format!("{} ×{n}", profiles[*p].name))
        .collect::<Vec<_>>()
        .join(" + ")
}

/// Requests grouped by profile, largest (memory, then compute) first.
fn grouped(profiles: &[GpuInstanceProfile], requests: &[Request]) -> Vec<(usize, u32)> {
    let mut counts: Vec<(usize, u32)> = Vec::new();
    for r in requests {
        match counts.iter_mut().find(|(p, _)| *p == r.profile) {
            Some((_, n)) => *n += 1,
            None => counts.push((r.profile, 1)),
        }
    }
    counts.sort_by_key(|&(p, _)| {
        (
            std::cmp::Reverse(profiles[p].size),
            std::cmp::Reverse(profiles[p].slices),
            p,
        )
    });
    counts
}

/// The rules that do not depend on where instances go.
pub(super) fn check_totals(
    profiles: &[GpuInstanceProfile],
    geometry: Geometry,
    requests: &[Request],
) -> Result<(), Infeasible> {
    let counts = grouped(profiles, requests);
    for &(p, n) in &counts {
        let profile = &profiles[p];
        if n > profile.max_instances {
            return Err(Infeasible(format!(
                "{} ×{n}: a GPU holds at most {}",
                profile.name, profile.max_instances
            )));
        }
    }
    let total = requests.len() as u32;
    if total > geometry.max_gpu_instances {
        return Err(Infeasible(format!(
            "{total} GPU instances: a GPU holds at most {}",
            geometry.max_gpu_instances
        )));
    }
    let compute: u64 = counts
        .iter()
        .map(|&(p, n)| u64::from(profiles[p].slices) * u64::from(n))
        .sum();
    if compute > u64::from(geometry.compute_slices) {
        return Err(Infeasible(format!(
            "{} need {compute} compute slices; the GPU has {}",
            describe(profiles, &counts),
            geometry.compute_slices
        )));
    }
    // Memory: fill largest first and name the first profile that no longer fits.
    let mut used = 0;
    for (i, &(p, n)) in counts.iter().enumerate() {
        let size = profiles[p].size;
        // A profile of no memory slices (only a hostile driver says so) takes none.
        let fit = (geometry.memory_slices.saturating_sub(used))
            .checked_div(size)
            .map_or(n, |f| f.min(n));
        if fit < n {
            let before: Vec<(usize, u32)> = counts[..i]
                .iter()
                .copied()
                .chain((fit > 0).then_some((p, fit)))
                .collect();
            let taken = used + fit * size;
            let left = geometry.memory_slices - taken;
            let need = if size == 1 {
                "one more".to_string()
            } else {
                format!("{size} more")
            };
            let (prefix, verb) = if before.is_empty() {
                (String::new(), String::new())
            } else if taken == geometry.memory_slices {
                (
                    describe(profiles, &before),
                    format!(
                        " {} all {} memory slices; ",
                        fills(&before),
                        geometry.memory_slices
                    ),
                )
            } else {
                (
                    describe(profiles, &before),
                    format!(
                        " {} {taken} of the {} memory slices; ",
                        takes(&before),
                        geometry.memory_slices
                    ),
                )
            };
            let tail = if before.is_empty() {
                format!(
                    "{} needs {size} memory slices; the GPU has {}",
                    profiles[p].name, geometry.memory_slices
                )
            } else if left == 0 {
                format!("{} needs {need}", profiles[p].name)
            } else {
                format!("{} needs {size}, {left} left", profiles[p].name)
            };
            return Err(Infeasible(format!("{prefix}{verb}{tail}")));
        }
        used += n * size;
    }
    Ok(())
}

fn fills(before: &[(usize, u32)]) -> &'static str {
    if before.len() == 1 { "fills" } else { "fill" }
}

fn takes(before: &[(usize, u32)]) -> &'static str {
    if before.len() == 1 { "takes" } else { "take" }
}

/// Pinned starts must be valid placements and must not overlap each other.
pub(super) fn check_pins(
    profiles: &[GpuInstanceProfile],
    requests: &[Request],
) -> Result<(), Infeasible> {
    let mut pinned: Vec<(Placement, &str)> = Vec::new();
    for r in requests {
        let Some(start) = r.start else { continue };
        let p = &profiles[r.profile];
        if !p.starts.contains(&start) {
            return Err(Infeasible(format!(
                "{} cannot start at memory slice {start}; its placements are {}",
                p.name,
                placements_text(p)
            )));
        }
        let here = Placement {
            start,
            size: p.size,
        };
        if let Some((other, name)) = pinned.iter().find(|(o, _)| o.overlaps(here)) {
            return Err(Infeasible(format!(
                "{} at {here} and {name} at {other} overlap",
                p.name
            )));
        }
        pinned.push((here, &p.name));
    }
    Ok(())
}

/// `{0,4}:4`, as `nvidia-smi mig -lgipp` prints placements.
pub(crate) fn placements_text(p: &GpuInstanceProfile) -> String {
    format_placements(&p.starts, p.size)
}

/// `{0,4}:4` from starts and a size.
pub(crate) fn format_placements(starts: &[u32], size: u32) -> String {
    let starts: Vec<String> = starts.iter().map(u32::to_string).collect();
    format!("{{{}}}:{size}", starts.join(","))
}

pub(super) fn alignment_reason(profiles: &[GpuInstanceProfile], requests: &[Request]) -> String {
    let counts = grouped(profiles, requests);
    let parts: Vec<String> = counts
        .iter()
        .map(|&(p, _)| format!("{} at {}", profiles[p].name, placements_text(&profiles[p])))
        .collect();
    let pinned: Vec<String> = requests
        .iter()
        .filter_map(|r| {
            let p = &profiles[r.profile];
            r.start
                .map(|start| format!("{} pinned at {start}:{}", p.name, p.size))
        })
        .collect();
    let with = if pinned.is_empty() {
        String::new()
    } else {
        format!(" with {}", pinned.join(", "))
    };
    format!(
        "{} fit the slice counts, but their placements do not fit together{with}: {}",
        describe(profiles, &counts),
        parts.join(", ")
    )
}
