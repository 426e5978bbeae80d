//! A simulator state file read back. It is JSON a user may have edited (or anything at all), so
//! everything the simulator relies on is checked before it is used — known models, MIG instances
//! at valid, free placements, processes on instances that exist — and a problem is placed in the
//! file (line and column).

use super::state::{STATE_VERSION, SimState};
use crate::node::model::catalog::catalog;
use crate::node::model::{MigMode, Placement};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_saphyr::Spanned;

/// Where in the state file a problem is: an object (`field` None) or one of its fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum At {
    Version,
    Gpu(usize, Option<&'static str>),
    Instance(usize, usize, Option<&'static str>),
    ComputeInstance(usize, usize, usize, Option<&'static str>),
    Process(usize, usize),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Problem {
    pub at: At,
    pub message: String,
}

fn problem(at: At, message: impl Into<String>) -> Problem {
    Problem {
        at,
        message: message.into(),
    }
}

/// Check a state loaded from a file.
pub(super) fn check(state: &SimState) -> Result<(), Problem> {
    if state.version != STATE_VERSION {
        return Err(problem(
            At::Version,
            format!("state version {} is not {STATE_VERSION}", state.version),
        ));
    }
    for (i, gpu) in state.gpus.iter().enumerate() {
        if let Some(j) = state.gpus[..i].iter().position(|g| g.uuid == gpu.uuid) {
            return Err(problem(
                At::Gpu(i, Some("uuid")),
                format!("GPU {i} has the UUID of GPU {j}"),
            ));
        }
        if let Some(j) = state.gpus[..i]
            .iter()
            .position(|g| g.pci_bus_id.eq_ignore_ascii_case(&gpu.pci_bus_id))
        {
            return Err(problem(
                At::Gpu(i, Some("pci_bus_id")),
                format!("GPU {i} has the PCI bus id of GPU {j}"),
            ));
        }
        check_gpu(state, i)?;
    }
    Ok(())
}

fn check_gpu(state: &SimState, i: usize) -> Result<(), Problem> {
    let gpu = &state.gpus[i];
    let model = catalog().model(&gpu.model).ok_or_else(|| {
        problem(
            At::Gpu(i, Some("model")),
            format!("unknown GPU model `{}`", gpu.model),
        )
    })?;
    let table = catalog().mig_table(model);
    if table.is_none()
        && (gpu.mig_current == MigMode::Enabled || gpu.mig_pending == MigMode::Enabled)
    {
        return Err(problem(
            At::Gpu(i, Some("mig_current")),
            format!("{} has no MIG mode", model.name),
        ));
    }
    if !gpu.instances.is_empty() && gpu.mig_current != MigMode::Enabled {
        return Err(problem(
            At::Gpu(i, Some("instances")),
            format!("GPU {i} has MIG instances but its MIG mode is not enabled"),
        ));
    }
    let Some(table) = table else {
        return check_processes(state, i);
    };
    // The GPU instances are made again, one by one, with the simulator's own operation: a
    // placement that is not valid, taken or out of room is refused as the driver refuses it.
    let mut scratch = state.clone();
    scratch.gpus[i].instances.clear();
    scratch.gpus[i].processes.clear();
    scratch.gpus[i].mig_current = MigMode::Enabled;
    for (j, gi) in gpu.instances.iter().enumerate() {
        if gpu.instances[..j].iter().any(|o| o.id == gi.id) {
            return Err(problem(
                At::Instance(i, j, Some("id")),
                format!("GPU {i} has two GPU instances {}", gi.id),
            ));
        }
        let profile = table.profile_by_id(gi.profile_id).ok_or_else(|| {
            problem(
                At::Instance(i, j, Some("profile_id")),
                format!(
                    "{} has no GPU-instance profile with id {}",
                    model.name, gi.profile_id
                ),
            )
        })?;
        let placement = Placement {
            start: gi.start,
            size: profile.size,
        };
        scratch
            .create_gpu_instance(i as u32, gi.profile_id, placement)
            .map_err(|e| problem(At::Instance(i, j, Some("start")), e.detail))?;
        let profiles = profile.compute_profiles();
        let mut used: Vec<(Placement, usize)> = Vec::new();
        for (k, ci) in gi.compute_instances.iter().enumerate() {
            let at = |field| At::ComputeInstance(i, j, k, field);
            if gi.compute_instances[..k].iter().any(|o| o.id == ci.id) {
                return Err(problem(
                    at(Some("id")),
                    format!("GPU instance {} has two compute instances {}", gi.id, ci.id),
                ));
            }
            let cp = profiles
                .iter()
                .find(|p| p.id == ci.profile_id)
                .ok_or_else(|| {
                    problem(
                        at(Some("profile_id")),
                        format!(
                            "{} has no compute-instance profile with id {}",
                            profile.name, ci.profile_id
                        ),
                    )
                })?;
            if !cp.starts.contains(&ci.start) {
                return Err(problem(
                    at(Some("start")),
                    format!(
                        "start {} is not a valid placement of {} (valid: {:?})",
                        ci.start, cp.name, cp.starts
                    ),
                ));
            }
            let here = Placement {
                start: ci.start,
                size: cp.slices,
            };
            if let Some((_, other)) = used.iter().find(|(p, _)| p.overlaps(here)) {
                return Err(problem(
                    at(None),
                    format!(
                        "compute instance {} overlaps compute instance {}",
                        ci.id, gi.compute_instances[*other].id
                    ),
                ));
            }
            used.push((here, k));
        }
    }
    check_processes(state, i)
}

fn check_processes(state: &SimState, i: usize) -> Result<(), Problem> {
    let gpu = &state.gpus[i];
    let used = gpu.processes_memory_mib();
    if let Some(model) = catalog().model(&gpu.model)
        && used.is_none_or(|u| u > model.memory_mib)
        && let Some(k) = gpu
            .processes
            .iter()
            .position(|p| p.used_memory_mib.is_some())
    {
        return Err(problem(
            At::Process(i, k),
            format!(
                "GPU {i}'s processes use more memory than {} has ({} MiB)",
                model.name, model.memory_mib
            ),
        ));
    }
    for (k, p) in gpu.processes.iter().enumerate() {
        let at = At::Process(i, k);
        match (p.gpu_instance_id, p.compute_instance_id) {
            (None, None) => {}
            (None, Some(_)) => {
                return Err(problem(
                    at,
                    "a process with a compute instance needs its GPU instance",
                ));
            }
            (Some(g), ci) => {
                let Some(gi) = gpu.instances.iter().find(|x| x.id == g) else {
                    return Err(problem(at, format!("GPU {i} has no GPU instance {g}")));
                };
                if let Some(c) = ci
                    && !gi.compute_instances.iter().any(|x| x.id == c)
                {
                    return Err(problem(
                        at,
                        format!("GPU instance {g} has no compute instance {c}"),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The state file's objects with their positions, read again as YAML (JSON is YAML) for errors.
#[derive(Deserialize)]
struct Located {
    version: Option<Spanned<IgnoredAny>>,
    #[serde(default)]
    gpus: Vec<Spanned<LocatedGpu>>,
}

#[derive(Deserialize)]
struct LocatedGpu {
    model: Option<Spanned<IgnoredAny>>,
    uuid: Option<Spanned<IgnoredAny>>,
    pci_bus_id: Option<Spanned<IgnoredAny>>,
    mig_current: Option<Spanned<IgnoredAny>>,
    #[serde(default)]
    instances: Vec<Spanned<LocatedInstance>>,
    #[serde(default)]
    processes: Vec<Spanned<IgnoredAny>>,
}

#[derive(Deserialize)]
struct LocatedInstance {
    id: Option<Spanned<IgnoredAny>>,
    profile_id: Option<Spanned<IgnoredAny>>,
    start: Option<Spanned<IgnoredAny>>,
    #[serde(default)]
    compute_instances: Vec<Spanned<LocatedFields>>,
}

#[derive(Deserialize)]
struct LocatedFields {
    id: Option<Spanned<IgnoredAny>>,
    profile_id: Option<Spanned<IgnoredAny>>,
    start: Option<Spanned<IgnoredAny>>,
}

fn pos<T>(s: &Spanned<T>) -> (usize, usize) {
    (s.referenced.line() as usize, s.referenced.column() as usize)
}

/// Line and column of `at` in the state file's `text`, when it can be found.
pub(super) fn locate(text: &str, at: At) -> Option<(usize, usize)> {
    let located: Located = serde_saphyr::from_str(text).ok()?;
    let field = |f: Option<&'static str>, gpu: &LocatedGpu| -> Option<(usize, usize)> {
        let s = match f? {
            "model" => gpu.model.as_ref(),
            "uuid" => gpu.uuid.as_ref(),
            "pci_bus_id" => gpu.pci_bus_id.as_ref(),
            "mig_current" => gpu.mig_current.as_ref(),
            _ => None,
        };
        s.map(pos)
    };
    let fields = |f: Option<&'static str>,
                  id: &Option<Spanned<IgnoredAny>>,
                  profile_id: &Option<Spanned<IgnoredAny>>,
                  start: &Option<Spanned<IgnoredAny>>| {
        match f? {
            "id" => id.as_ref(),
            "profile_id" => profile_id.as_ref(),
            "start" => start.as_ref(),
            _ => None,
        }
        .map(pos)
    };
    match at {
        At::Version => located.version.as_ref().map(pos),
        At::Gpu(i, f) => {
            let gpu = located.gpus.get(i)?;
            field(f, &gpu.value).or(Some(pos(gpu)))
        }
        At::Instance(i, j, f) => {
            let gi = located.gpus.get(i)?.value.instances.get(j)?;
            let v = &gi.value;
            fields(f, &v.id, &v.profile_id, &v.start).or(Some(pos(gi)))
        }
        At::ComputeInstance(i, j, k, f) => {
            let ci = located
                .gpus
                .get(i)?
                .value
                .instances
                .get(j)?
                .value
                .compute_instances
                .get(k)?;
            let v = &ci.value;
            fields(f, &v.id, &v.profile_id, &v.start).or(Some(pos(ci)))
        }
        At::Process(i, k) => located.gpus.get(i)?.value.processes.get(k).map(pos),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::backend::sim::node_file;

    fn state_text() -> (SimState, String) {
        let mut state = node_file::from_preset("dgx-a100").unwrap();
        state.set_mig_mode(0, MigMode::Enabled).unwrap();
        let gi = state
            .create_gpu_instance(0, 9, Placement { start: 4, size: 4 })
            .unwrap();
        state.create_compute_instance(0, gi, 2).unwrap();
        let text = serde_json::to_string_pretty(&state).unwrap();
        (state, text)
    }

    #[test]
    fn a_state_gpushare_wrote_passes() {
        let (state, _) = state_text();
        check(&state).unwrap();
    }

    #[test]
    fn problems_are_placed_in_the_file() {
        let (state, text) = state_text();
        let line_of = |needle: &str, nth: usize| {
            text.lines()
                .enumerate()
                .filter(|(_, l)| l.contains(needle))
                .nth(nth)
                .map(|(i, _)| i + 1)
                .unwrap()
        };
        let mut bad = state.clone();
        bad.gpus[1].model = "NVIDIA X100".into();
        let p = check(&bad).unwrap_err();
        assert_eq!(p.at, At::Gpu(1, Some("model")));
        assert_eq!(locate(&text, p.at).unwrap().0, line_of("\"model\"", 1));
        let mut bad = state.clone();
        bad.gpus[0].instances[0].start = 1;
        let p = check(&bad).unwrap_err();
        assert_eq!(p.at, At::Instance(0, 0, Some("start")));
        assert!(p.message.contains("not valid"), "{}", p.message);
        assert_eq!(locate(&text, p.at).unwrap().0, line_of("\"start\": 4", 0));
        let mut bad = state.clone();
        bad.gpus[0].instances[0].compute_instances[0].profile_id = 99;
        let p = check(&bad).unwrap_err();
        assert_eq!(p.at, At::ComputeInstance(0, 0, 0, Some("profile_id")));
        let mut bad = state.clone();
        bad.gpus[0].processes.push(crate::node::model::Process {
            pid: 1,
            name: "p".into(),
            used_memory_mib: Some(1),
            gpu_instance_id: Some(99),
            compute_instance_id: None,
            kind: Default::default(),
            owner: None,
        });
        assert_eq!(check(&bad).unwrap_err().at, At::Process(0, 0));
        // Two processes near u64::MAX: more than the GPU has, not a sum that wrapped to 1.
        let mut bad = state.clone();
        for pid in [1, 2] {
            bad.gpus[1].processes.push(crate::node::model::Process {
                pid,
                name: "p".into(),
                used_memory_mib: Some(u64::MAX / 2 + 1),
                gpu_instance_id: None,
                compute_instance_id: None,
                kind: Default::default(),
                owner: None,
            });
        }
        let p = check(&bad).unwrap_err();
        assert_eq!(p.at, At::Process(1, 0));
        assert!(p.message.contains("use more memory than"), "{}", p.message);
        let mut bad = state;
        bad.gpus[3].uuid = bad.gpus[2].uuid.clone();
        assert_eq!(check(&bad).unwrap_err().at, At::Gpu(3, Some("uuid")));
    }
}
