//! `gpushare mps start|status|stop|unit`: MPS daemons with per-device limits (see `crate::mps`).

mod start;
mod status;
mod stop;
mod unit;

use crate::Context;
use crate::apply::guard::guarded;
use crate::cli::{MpsCommand, MpsSettingsArgs};
use crate::config::Config;
use crate::error::{Error, Exit, Result};
use crate::mps::desired;
use crate::mps::limits::{self, LimitProblem, MpsRequest, MpsTarget};
use crate::mps::settings::{DaemonSpec, DirChoice};
use crate::node::selector::{GpuSelector, SelectorItem};
use crate::node::{Gpu, Node};
use crate::output::Output;

pub fn run(ctx: &mut Context, command: MpsCommand) -> Result<Exit> {
    match command {
        MpsCommand::Start(args) => guarded(ctx, "mps start", false, |ctx| start::run(ctx, &args)),
        MpsCommand::Status(args) => status::run(ctx, &args),
        MpsCommand::Stop(args) => guarded(ctx, "mps stop", false, |ctx| stop::run(ctx, &args)),
        MpsCommand::Unit(args) => unit::run(ctx, &args),
    }
}

/// The daemons `mps start` (or the unit) would start, checked against the node: a value the
/// devices cannot take is bad input (exit 2), found before anything changes.
fn plan_start(ctx: &mut Context, s: &MpsSettingsArgs) -> Result<Vec<DaemonSpec>> {
    let node = ctx.snapshot()?;
    let dirs = DirChoice {
        paths: &ctx.paths,
        pipe_dir: s.pipe_dir.as_deref(),
        log_dir: s.log_dir.as_deref(),
    };
    let specs = match &s.config {
        Some(path) => {
            let config = Config::load(path)?;
            let assignments = config.assign(&node)?;
            desired::validate(&config, &assignments, &node)?;
            let d = desired::desired(&config, &assignments, &node, dirs, s.multiuser)?;
            if d.daemons.is_empty() {
                return Err(Error::usage(format!(
                    "{} asks for no MPS daemon on this node",
                    path.display()
                ))
                .with_hint(
                    "MPS comes from mode = \"mps\" entries, and from mig.mps on GPUs whose MIG \
                     devices exist",
                ));
            }
            d.daemons
        }
        None => from_flags(&ctx.out, &node, s, dirs)?,
    };
    if (s.pipe_dir.is_some() || s.log_dir.is_some()) && specs.len() > 1 {
        let names: Vec<&str> = specs.iter().map(|d| d.name.as_str()).collect();
        return Err(Error::usage(format!(
            "--pipe-dir/--log-dir name one directory, and this starts {} daemons ({})",
            specs.len(),
            names.join(", ")
        ))
        .with_hint("leave them out (each daemon gets its own), or select one device with --gpu"));
    }
    Ok(specs)
}

/// `MIG-…` items of `--gpu`: they name single MIG devices.
fn mig_uuids(selector: &GpuSelector) -> Vec<&str> {
    match selector {
        GpuSelector::All => Vec::new(),
        GpuSelector::Items(items) => items
            .iter()
            .filter_map(|i| match i {
                SelectorItem::Uuid(u) if u.starts_with("MIG-") => Some(u.as_str()),
                _ => None,
            })
            .collect(),
    }
}

fn from_flags(
    out: &Output,
    node: &Node,
    s: &MpsSettingsArgs,
    dirs: DirChoice,
) -> Result<Vec<DaemonSpec>> {
    let request = MpsRequest {
        clients: s.clients,
        thread_percentage: s.thread_percentage,
        memory_limit_mib: s.memory_limit,
    };
    let named_mig = mig_uuids(&s.gpu);
    let mut whole: Vec<(&Gpu, MpsTarget)> = Vec::new();
    let mut specs = Vec::new();
    for index in s.gpu.resolve(node)? {
        let Some(gpu) = node.gpu(index) else { continue };
        if gpu.mig.current != gpu.mig.pending {
            out.warn(format!(
                "GPU {index} has MIG {} pending a reset: this starts MPS for MIG {}",
                gpu.mig.pending.as_str(),
                gpu.mig.current.as_str()
            ));
        }
        if !gpu.mig.current.is_enabled() {
            let target = limits::gpu_target(node, gpu);
            check_flags(&request, &target)?;
            whole.push((gpu, target));
            continue;
        }
        let devices: Vec<_> = gpu
            .mig_instances()?
            .iter()
            .flat_map(|gi| gi.compute_instances.iter().map(move |ci| (gi, ci)))
            .collect();
        // A MIG UUID in --gpu picks single devices of its GPU; otherwise all of them.
        let picked = devices.iter().any(|(_, ci)| {
            named_mig
                .iter()
                .any(|u| ci.uuid.as_deref().is_some_and(|c| c.starts_with(u)))
        });
        let mut any = false;
        for (gi, ci) in devices {
            if picked
                && !named_mig
                    .iter()
                    .any(|u| ci.uuid.as_deref().is_some_and(|c| c.starts_with(u)))
            {
                continue;
            }
            let target = limits::mig_target(node, gpu, gi, ci);
            check_flags(&request, &target)?;
            specs.push(DaemonSpec::for_mig_device(
                gpu,
                gi,
                ci,
                &target,
                &request,
                dirs,
                s.multiuser,
            )?);
            any = true;
        }
        if !any {
            return Err(Error::usage(format!(
                "GPU {index} has MIG enabled but no MIG devices to run MPS on"
            ))
            .with_hint("create MIG devices first, or disable MIG to share the whole GPU"));
        }
    }
    if !whole.is_empty() {
        let targets: Vec<&MpsTarget> = whole.iter().map(|(_, t)| t).collect();
        limits::check_shared(&targets, s.multiuser).map_err(|m| {
            Error::usage(m).with_hint("start them separately, one --gpu selection each")
        })?;
        specs.insert(0, DaemonSpec::for_gpus(&whole, &request, dirs, s.multiuser));
    }
    Ok(specs)
}

/// A limit a device cannot take, named by the flag that asked for it.
fn check_flags(request: &MpsRequest, target: &MpsTarget) -> Result<()> {
    limits::check(request, target).map_err(|p| {
        let flag = match p {
            LimitProblem::TooManyClients { clients } => format!("--clients {clients}"),
            LimitProblem::MemoryTooLarge { limit_mib } => format!("--memory-limit {limit_mib}M"),
        };
        Error::usage(format!("{flag}: {}", p.describe(target))).with_hint(p.hint(target))
    })
}

/// `3840 MiB` or `-`.
fn mib(value: Option<u64>) -> String {
    value.map_or("-".into(), |m| format!("{m} MiB"))
}

/// `25%`, or `100% (default)` when no percentage was set.
fn percent(value: Option<u32>) -> String {
    value.map_or("100% (default)".into(), |p| format!("{p}%"))
}
