//! What `gpushare.toml` asks of MPS and time-slicing, and how to get there: for `apply`, and for
//! `mps start --config`.
//!
//! - `mode = "mps"`: one daemon for the GPUs of the entry (whole GPUs), limits from `mps`;
//! - `mode = "mig"` with `mig.mps`: one daemon per MIG device of those GPUs;
//! - `mode = "time-slicing"` and `mode = "none"`: compute mode DEFAULT and no daemon (the
//!   replicas only feed the Kubernetes config);
//! - `mode = "vgpu"`: not touched here.
//!
//! The order: [`validate`] before anything changes; once the MIG layout is in place,
//! [`wanted`] on the node as it is, then [`plan`] (pure) for the pipeline's planner, which runs
//! the steps with every other change.

use super::limits::{self, LimitProblem, MpsRequest, MpsTarget};
use super::settings::{DaemonSpec, DirChoice, compute_mode_of};
use crate::node::backend::DeviceRef;
use crate::node::config::{Assignment, Config, Mode, MpsSection, by_entry};
use crate::node::model::catalog::catalog;
use crate::node::model::{ComputeMode, Gpu, Node};
use crate::support::error::{Error, Result};
use std::collections::BTreeSet;
use toml::Spanned;

/// The MPS side of the node the file asks for.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct WantedMps {
    pub daemons: Vec<DaemonSpec>,
    /// Devices that take turns or are not shared: compute mode DEFAULT, no daemon.
    pub default_mode: Vec<DeviceRef>,
    /// GPUs whose MPS state the file decides; gpushare daemons elsewhere are left alone.
    pub covered: BTreeSet<u32>,
    /// GPUs shared by DRA claims (`shares`): their daemons are the DRA driver's, which starts
    /// one for a device's first share and stops it after the last.
    pub shared: BTreeSet<u32>,
}

/// The steps from the node as it is to [`WantedMps`].
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct MpsPlan {
    /// Recorded daemons to stop: not asked for, not answering, or with other settings.
    pub stop: Vec<DaemonSpec>,
    pub start: Vec<DaemonSpec>,
    /// Running with the asked-for settings.
    pub keep: Vec<DaemonSpec>,
    /// Devices to put back to compute mode DEFAULT (not already covered by a stop).
    pub set_default: Vec<DeviceRef>,
}

/// Check the MPS and time-slicing parts of the file against the node, before anything changes:
/// client caps, memory limits (of the GPU, or of each MIG profile the file asks for), and GPUs
/// that cannot share a daemon. Errors name the file, line and column.
pub(crate) fn validate(config: &Config, assignments: &[Assignment], node: &Node) -> Result<()> {
    for group in by_entry(assignments) {
        let entry = group.entry.get_ref();
        let gpus: Vec<&Gpu> = group.gpus.iter().filter_map(|g| node.gpu(*g)).collect();
        match *entry.mode.get_ref() {
            Mode::Mps => {
                let Some(mps) = &entry.mps else { continue };
                let targets: Vec<MpsTarget> =
                    gpus.iter().map(|g| limits::gpu_target(node, g)).collect();
                for target in &targets {
                    check_section(config, "mps", mps, target)?;
                }
                if mps.get_ref().shares.is_some() {
                    continue;
                }
                let refs: Vec<&MpsTarget> = targets.iter().collect();
                limits::check_shared(&refs, false).map_err(|m| {
                    config
                        .error_at(entry.select.span(), m)
                        .with_hint("give these GPUs separate [[gpus]] entries")
                })?;
            }
            Mode::Mig => {
                let Some(mig) = &entry.mig else { continue };
                let Some(mps) = &mig.get_ref().mps else {
                    continue;
                };
                let profiles = mig
                    .get_ref()
                    .devices
                    .keys()
                    .map(|k| k.get_ref().clone())
                    .chain(
                        mig.get_ref()
                            .instances
                            .iter()
                            .map(|i| i.get_ref().profile.get_ref().clone()),
                    );
                let profiles: BTreeSet<String> = profiles.collect();
                for gpu in &gpus {
                    for profile in &profiles {
                        // Unknown profiles are the MIG checks' to report.
                        if let Some(target) = planned_mig_target(node, gpu, profile) {
                            check_section(config, "mig.mps", mps, &target)?;
                        }
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// An `mps` section against one device: `file:line:col: clients = 60: …`.
fn check_section(
    config: &Config,
    name: &str,
    section: &Spanned<MpsSection>,
    target: &MpsTarget,
) -> Result<()> {
    let s = section.get_ref();
    if let Some(shares) = &s.shares {
        return check_shares(config, name, shares, target);
    }
    let request = MpsRequest::from_section(s);
    let Err(problem) = limits::check(&request, target) else {
        return Ok(());
    };
    let (span, value) = match problem {
        LimitProblem::TooManyClients { clients } => (
            s.clients.as_ref().map(Spanned::span),
            format!("{name}.clients = {clients}"),
        ),
        LimitProblem::MemoryTooLarge { limit_mib } => (
            s.memory_limit.as_ref().map(Spanned::span),
            format!("{name}.memory_limit = {limit_mib} MiB"),
        ),
    };
    let span = span.unwrap_or_else(|| section.span());
    Err(config
        .error_at(span, format!("{value}: {}", problem.describe(target)))
        .with_hint(problem.hint(target)))
}

/// A shared device must hold the least a claim can ask for, and what one gets by default.
fn check_shares(
    config: &Config,
    name: &str,
    shares: &Spanned<crate::node::config::shares::SharesSection>,
    target: &MpsTarget,
) -> Result<()> {
    let Ok(policy) = shares.get_ref().resolve() else {
        return Ok(()); // Config::load reports it
    };
    let memory = policy.memory_mib;
    let Some((field, mib)) = [("min", memory.min), ("default", memory.default)]
        .into_iter()
        .find(|(_, mib)| *mib > target.memory_mib)
    else {
        return Ok(());
    };
    let span = shares
        .get_ref()
        .memory
        .as_ref()
        .map_or(shares.span(), Spanned::span);
    Err(config
        .error_at(
            span,
            format!(
                "{name}.shares.memory.{field} = {mib} MiB: more than the {} MiB of {}",
                target.memory_mib, target.label
            ),
        )
        .with_hint("a claim's share must fit the device: lower it"))
}

/// A MIG device of a profile the file names (`3g.20gb`, or `2c.3g.20gb` for a compute-instance
/// profile), before it exists.
pub(crate) fn planned_mig_target(node: &Node, gpu: &Gpu, profile: &str) -> Option<MpsTarget> {
    let c = catalog();
    let table = c.mig_table(c.model_of(gpu)?)?;
    let (ci_slices, gi_name) = match profile.split_once("c.") {
        Some((n, gi)) if n.chars().all(|ch| ch.is_ascii_digit()) => (n.parse().ok()?, gi),
        _ => (0, profile),
    };
    let gi = table.profile(gi_name)?;
    let slices = if ci_slices == 0 { gi.slices } else { ci_slices };
    Some(limits::profile_target(
        node,
        gpu,
        profile,
        gi.memory_mib,
        slices,
    ))
}

/// What the file asks of MPS on the node as it is now (MIG devices must already exist for
/// `mig.mps`; a GPU of a `mode = "mps"` entry must have MIG disabled).
pub(crate) fn wanted(
    config: &Config,
    assignments: &[Assignment],
    node: &Node,
    dirs: DirChoice,
    multiuser: bool,
) -> Result<WantedMps> {
    let mut out = WantedMps::default();
    for group in by_entry(assignments) {
        let entry = group.entry.get_ref();
        let gpus: Vec<&Gpu> = group.gpus.iter().filter_map(|g| node.gpu(*g)).collect();
        let mode = *entry.mode.get_ref();
        if mode != Mode::Vgpu {
            out.covered.extend(gpus.iter().map(|g| g.index));
        }
        match mode {
            Mode::Mps => {
                let Some(mps) = &entry.mps else { continue };
                if let Some(g) = gpus.iter().find(|g| g.mig.current.is_enabled()) {
                    return Err(config
                        .error_at(
                            entry.mode.span(),
                            format!(
                                "mode = \"mps\" shares whole GPUs, and GPU {} has MIG enabled",
                                g.index
                            ),
                        )
                        .with_hint(
                            "disable MIG on it first (gpushare apply does), or use mode = \"mig\" \
                             with mig.mps for MPS inside each MIG device",
                        ));
                }
                if mps.get_ref().shares.is_some() {
                    out.shared.extend(gpus.iter().map(|g| g.index));
                    continue;
                }
                let request = MpsRequest::from_section(mps.get_ref());
                let targets: Vec<(&Gpu, MpsTarget)> = gpus
                    .iter()
                    .map(|g| (*g, limits::gpu_target(node, g)))
                    .collect();
                for (_, target) in &targets {
                    check_section(config, "mps", mps, target)?;
                }
                let refs: Vec<&MpsTarget> = targets.iter().map(|(_, t)| t).collect();
                limits::check_shared(&refs, multiuser)
                    .map_err(|m| config.error_at(entry.select.span(), m))?;
                out.daemons
                    .push(DaemonSpec::for_gpus(&targets, &request, dirs, multiuser));
            }
            Mode::Mig => {
                let Some(mps) = entry.mig.as_ref().and_then(|m| m.get_ref().mps.as_ref()) else {
                    continue;
                };
                if mps.get_ref().shares.is_some() {
                    out.shared.extend(gpus.iter().map(|g| g.index));
                    continue;
                }
                let request = MpsRequest::from_section(mps.get_ref());
                for gpu in gpus.iter().filter(|g| g.mig.current.is_enabled()) {
                    for gi in gpu.mig_instances()? {
                        for ci in &gi.compute_instances {
                            let target = limits::mig_target(node, gpu, gi, ci);
                            check_section(config, "mig.mps", mps, &target)?;
                            out.daemons.push(DaemonSpec::for_mig_device(
                                gpu, gi, ci, &target, &request, dirs, multiuser,
                            )?);
                        }
                    }
                }
            }
            Mode::TimeSlicing | Mode::None => {
                for gpu in &gpus {
                    if gpu.mig.current.is_enabled() {
                        for gi in gpu.mig_instances()? {
                            for ci in &gi.compute_instances {
                                out.default_mode.push(DeviceRef::Mig {
                                    gpu: gpu.index,
                                    gpu_instance_id: gi.gpu_instance_id,
                                    compute_instance_id: ci.compute_instance_id,
                                });
                            }
                        }
                    } else {
                        out.default_mode.push(DeviceRef::Gpu(gpu.index));
                    }
                }
            }
            Mode::Vgpu => {}
        }
    }
    let many_dirs = dirs.pipe_dir.is_some() || dirs.log_dir.is_some();
    if many_dirs && out.daemons.len() > 1 {
        return Err(Error::usage(format!(
            "--pipe-dir/--log-dir name one directory, and the file asks for {} daemons",
            out.daemons.len()
        ))
        .with_hint("leave them out: each daemon gets its own under /run/gpushare/mps/<name>"));
    }
    Ok(out)
}

/// The steps from `records` (the daemons gpushare recorded; `answering`: the names of those
/// that answer) to `desired`. Pure.
pub(crate) fn plan(
    desired: &WantedMps,
    records: &[DaemonSpec],
    answering: &BTreeSet<String>,
    node: &Node,
) -> MpsPlan {
    let mut out = MpsPlan::default();
    for record in records {
        // The DRA driver's, for its claims.
        if record
            .devices
            .iter()
            .all(|d| desired.shared.contains(&d.gpu))
        {
            continue;
        }
        let covered = record
            .devices
            .iter()
            .any(|d| desired.covered.contains(&d.gpu));
        let wanted = desired
            .daemons
            .iter()
            .find(|d| d.name == record.name)
            .is_some_and(|d| record.same_settings(d));
        if wanted && answering.contains(&record.name) {
            out.keep.push(record.clone());
        } else if covered || desired.daemons.iter().any(|d| d.name == record.name) {
            out.stop.push(record.clone());
        }
    }
    for daemon in &desired.daemons {
        if !out.keep.iter().any(|k| k.name == daemon.name) {
            out.start.push(daemon.clone());
        }
    }
    for device in &desired.default_mode {
        let stopped = out
            .stop
            .iter()
            .flat_map(|s| s.devices.iter())
            .any(|d| d.device_ref() == *device);
        if !stopped && compute_mode_of(node, *device).is_some_and(|m| m != ComputeMode::Default) {
            out.set_default.push(*device);
        }
    }
    out
}

#[cfg(test)]
mod tests;
