//! What an agent published, checked before the controller plans from it: any agent's service
//! account may write a node's annotations, so the state is input from outside. Sizes and
//! placements must be ones a GPU can have, names must be MIG profile names, and every list is
//! bounded, so nothing read here reaches a division by zero, a shift past 64 bits or an
//! allocation of a size someone chose.

use super::{GpuState, MigState, Profile};
use crate::sharing::mig::profile_name::ProfileName;
use std::collections::{BTreeMap, BTreeSet};

/// Memory slices a GPU may have (today's have 8; the solver's masks hold 64).
const MAX_MEMORY_SLICES: u32 = 32;
/// GPU instances a GPU may hold, compute slices it may have, and so placements per profile.
const MAX_INSTANCES: u32 = 32;
const MAX_GPUS: usize = 64;
const MAX_MODELS: usize = 16;
const MAX_PROFILES: usize = 64;
const MAX_NAME: usize = 256;
/// `namespace/name` of a pod: 63 + 1 + 253.
const MAX_POD_NAME: usize = 317;

/// Why the state cannot be planned from, naming the field.
pub(super) fn check(state: &MigState) -> Result<(), String> {
    if state.gpus.len() > MAX_GPUS {
        return Err(format!(
            "{} GPUs; a node has at most {MAX_GPUS}",
            state.gpus.len()
        ));
    }
    if state.profiles.len() > MAX_MODELS {
        return Err(format!(
            "{} GPU models; at most {MAX_MODELS} are read",
            state.profiles.len()
        ));
    }
    for (model, profiles) in &state.profiles {
        check_model(model, profiles).map_err(|e| format!("profiles[{}]: {e}", shown(model)))?;
    }
    let mut indexes = BTreeSet::new();
    for gpu in &state.gpus {
        if !indexes.insert(gpu.index) {
            return Err(format!("GPU {} is listed twice", gpu.index));
        }
        let profiles = state
            .profiles
            .get(&gpu.model)
            .ok_or_else(|| format!("GPU {} names a model without profiles", gpu.index))?;
        check_gpu(gpu, profiles).map_err(|e| format!("GPU {}: {e}", gpu.index))?;
    }
    Ok(())
}

fn check_model(model: &str, profiles: &[Profile]) -> Result<(), String> {
    if model.len() > MAX_NAME {
        return Err(format!("a model name of {} bytes", model.len()));
    }
    if profiles.is_empty() || profiles.len() > MAX_PROFILES {
        return Err(format!(
            "{} profiles; a GPU has between 1 and {MAX_PROFILES}",
            profiles.len()
        ));
    }
    let mut names = BTreeSet::new();
    for p in profiles {
        profile_name(&p.name)?;
        if !names.insert(&p.name) {
            return Err(format!("profile {} is listed twice", p.name));
        }
        let at = |field: &str, why: String| format!("profile {}: {field} {why}", p.name);
        if !(1..=MAX_MEMORY_SLICES).contains(&p.size) {
            return Err(at(
                "size",
                format!("= {}: between 1 and {MAX_MEMORY_SLICES}", p.size),
            ));
        }
        if !(1..=MAX_INSTANCES).contains(&p.slices) {
            return Err(at(
                "slices",
                format!("= {}: between 1 and {MAX_INSTANCES}", p.slices),
            ));
        }
        if !(1..=MAX_INSTANCES).contains(&p.max_instances) {
            return Err(at(
                "max_instances",
                format!("= {}: between 1 and {MAX_INSTANCES}", p.max_instances),
            ));
        }
        if p.starts.len() > MAX_INSTANCES as usize {
            return Err(at(
                "starts",
                format!("has {}: at most {MAX_INSTANCES}", p.starts.len()),
            ));
        }
        let mut seen = BTreeSet::new();
        for &start in &p.starts {
            if start.saturating_add(p.size) > MAX_MEMORY_SLICES {
                return Err(at(
                    "starts",
                    format!(
                        "holds {start}: a {}-slice instance there ends past the GPU's {MAX_MEMORY_SLICES} memory slices",
                        p.size
                    ),
                ));
            }
            if !seen.insert(start) {
                return Err(at("starts", format!("holds {start} twice")));
            }
        }
    }
    Ok(())
}

/// A GPU-instance profile name in the driver's grammar, written as the driver writes it.
fn profile_name(name: &str) -> Result<(), String> {
    // Not the parser's words: they quote the name as it is, newlines and all.
    let parsed = ProfileName::parse(name)
        .map_err(|_| format!("{} is not a MIG profile name", shown(name)))?;
    if parsed.is_partial_compute() || parsed.to_string() != name {
        return Err(format!(
            "{} is not a GPU-instance profile name as the driver writes it",
            shown(name)
        ));
    }
    Ok(())
}

fn check_gpu(gpu: &GpuState, profiles: &[Profile]) -> Result<(), String> {
    let why_lengths = gpu
        .unhealthy
        .iter()
        .chain(gpu.instances.iter().flat_map(|i| &i.unhealthy));
    if let Some(why) = why_lengths.into_iter().find(|w| w.len() > MAX_NAME) {
        return Err(format!("an unhealthy reason of {} bytes", why.len()));
    }
    let by_name: BTreeMap<&str, &Profile> = profiles.iter().map(|p| (p.name.as_str(), p)).collect();
    let most = profiles.iter().map(|p| p.max_instances).max().unwrap_or(0);
    if gpu.instances.len() > most as usize {
        return Err(format!(
            "{} GPU instances; its model holds at most {most}",
            gpu.instances.len()
        ));
    }
    let mut taken = 0u64;
    let mut counts: BTreeMap<&str, u32> = BTreeMap::new();
    for i in &gpu.instances {
        let p = by_name.get(i.profile.as_str()).ok_or_else(|| {
            format!(
                "an instance of {}, a profile its model does not list",
                shown(&i.profile)
            )
        })?;
        if i.size != p.size || !p.starts.contains(&i.start) {
            return Err(format!(
                "the {} at {}:{} is not a placement of {} (size {}, starts {:?})",
                p.name, i.start, i.size, p.name, p.size, p.starts
            ));
        }
        // Sizes and starts are bounded above, so the mask fits.
        let mask = ((1u64 << i.size) - 1) << i.start;
        if taken & mask != 0 {
            return Err(format!(
                "the {} at {} overlaps another instance",
                p.name, i.start
            ));
        }
        taken |= mask;
        let n = counts.entry(p.name.as_str()).or_default();
        *n += 1;
        if *n > p.max_instances {
            return Err(format!(
                "{} instances of {}; it holds at most {}",
                n, p.name, p.max_instances
            ));
        }
        if i.held_by.len() > MAX_INSTANCES as usize * 2
            || i.held_by.iter().any(|h| h.len() > MAX_POD_NAME)
        {
            return Err(format!(
                "the {} at {} names too many or too long holders",
                p.name, i.start
            ));
        }
    }
    for w in gpu.baseline.iter().flatten() {
        let p = by_name.get(w.profile.as_str()).ok_or_else(|| {
            format!(
                "its baseline asks for {}, a profile its model does not list",
                shown(&w.profile)
            )
        })?;
        if w.start.is_some_and(|s| !p.starts.contains(&s)) {
            return Err(format!(
                "its baseline pins a {} where it cannot start",
                p.name
            ));
        }
    }
    let wanted = gpu.baseline.as_ref().map_or(0, Vec::len);
    if wanted > most as usize {
        return Err(format!(
            "its baseline asks for {wanted} GPU instances; its model holds at most {most}"
        ));
    }
    Ok(())
}

/// A name from outside, quoted and shortened for a message.
fn shown(text: &str) -> String {
    let short: String = text.chars().take(64).collect();
    format!("{short:?}")
}
