//! `gpushare mps unit [--install]`: a systemd unit that runs `gpushare mps start` at boot with
//! the same settings; printed, or written atomically under /etc/systemd/system.

use super::super::unit::{absolute, global_args};
use super::start_request;
use crate::commands::cli::{MpsSettingsArgs, MpsUnitArgs};
use crate::node::Context;
use crate::node::model::selector::GpuSelector;
use crate::sharing::mps::DEFAULT_TIMEOUT;
use crate::sharing::mps::control::PID_FILE;
use crate::sharing::mps::settings::{DaemonSpec, daemon_dir, whole_gpu_name};
use crate::sharing::mps::start::mig_uuids;
use crate::sharing::mps::systemd_unit::{UnitSpec, runtime_dir};
use crate::support::error::{Error, Exit, Result};
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// `mps unit --format json`.
#[derive(Serialize)]
struct UnitReport {
    unit: String,
    path: PathBuf,
    installed: bool,
    text: String,
    commands: Vec<String>,
}

pub(super) fn run(ctx: &mut Context, args: &MpsUnitArgs) -> Result<Exit> {
    let s = &args.settings;
    if !mig_uuids(&s.gpu).is_empty() {
        return Err(Error::usage(
            "a unit cannot name MIG devices by UUID: they get new UUIDs when they are re-created",
        )
        .with_hint("select their GPUs instead (`--gpu 0`): each MIG device gets a daemon"));
    }
    let node = ctx.snapshot()?;
    let specs = start_request(s).daemons(&node, &ctx.paths, &ctx.out)?;
    let gpus: BTreeSet<u32> = specs
        .iter()
        .flat_map(|d| d.devices.iter().map(|dev| dev.gpu))
        .collect();
    let gpus: Vec<u32> = gpus.into_iter().collect();
    let program = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| Error::failed(format!("cannot find the gpushare binary: {e}")))?;
    let everything = s.config.is_some() || matches!(s.gpu, GpuSelector::All);
    let name = if everything {
        "gpushare-mps.service".to_string()
    } else {
        format!("gpushare-mps-{}.service", whole_gpu_name(&gpus))
    };
    let unit = UnitSpec {
        description: format!(
            "NVIDIA MPS for {} (gpushare)",
            specs
                .iter()
                .map(DaemonSpec::describe_devices)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        program,
        start_args: start_args(ctx, s, &gpus),
        stop_args: stop_args(ctx, s, &gpus),
        pid_file: match specs.as_slice() {
            [one] => Some(one.pipe_dir.join(PID_FILE)),
            _ => None,
        },
        runtime_dirs: specs
            .iter()
            .filter_map(|d| runtime_dir(&daemon_dir(&ctx.paths, &d.name)))
            .collect(),
        runtime_dir_mode: crate::sharing::mps::dirs::Modes::of(s.multiuser).home,
        name,
    };
    if ctx.backend_options.sim.is_some() || ctx.backend_options.sim_state.is_some() {
        ctx.out
            .warn("checked against a simulated node: the unit itself drives the real GPUs at boot");
    }
    let path = ctx.paths.systemd_dir().join(&unit.name);
    let text = unit.render();
    if args.install {
        install(&path, &text)?;
        ctx.out
            .note(format!("installed {}; enable it with:", path.display()));
    }
    let report = UnitReport {
        unit: unit.name.clone(),
        path,
        installed: args.install,
        commands: unit.enable_commands(),
        text,
    };
    ctx.out.data(&report, |_| {
        if report.installed {
            let mut lines = report.commands.join("\n");
            lines.push('\n');
            lines
        } else {
            report.text.clone()
        }
    })?;
    Ok(Exit::Ok)
}

fn install(path: &Path, text: &str) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::failed(format!("cannot create {}: {e}", dir.display())))?;
    }
    crate::support::fsutil::write_atomic(path, text.as_bytes(), 0o644).map_err(|e| {
        Error::failed(format!("cannot write {}: {e}", path.display()))
            .with_hint("run as root, or pass --state-root to write under another directory")
    })
}

fn gpu_arg(gpus: &[u32]) -> String {
    gpus.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

fn start_args(ctx: &Context, s: &MpsSettingsArgs, gpus: &[u32]) -> Vec<String> {
    let mut a = global_args(ctx);
    a.extend(["mps".into(), "start".into()]);
    if let Some(config) = &s.config {
        a.extend(["--config".into(), absolute(config)]);
    } else {
        if !matches!(s.gpu, GpuSelector::All) {
            a.extend(["--gpu".into(), gpu_arg(gpus)]);
        }
        if let Some(n) = s.clients {
            a.extend(["--clients".into(), n.to_string()]);
        }
        if let Some(p) = s.thread_percentage {
            a.extend(["--thread-percentage".into(), p.to_string()]);
        }
        if let Some(m) = s.memory_limit {
            a.extend(["--memory-limit".into(), format!("{m}M")]);
        }
    }
    if let Some(dir) = &s.pipe_dir {
        a.extend(["--pipe-dir".into(), absolute(dir)]);
    }
    if let Some(dir) = &s.log_dir {
        a.extend(["--log-dir".into(), absolute(dir)]);
    }
    if s.multiuser {
        a.push("--multiuser".into());
    }
    a.extend(timeout_arg(s));
    a
}

/// Stopping the unit stops its daemons, ending their clients like stopping any service ends its
/// work.
fn stop_args(ctx: &Context, s: &MpsSettingsArgs, gpus: &[u32]) -> Vec<String> {
    let mut a = global_args(ctx);
    a.extend([
        "mps".into(),
        "stop".into(),
        "--gpu".into(),
        gpu_arg(gpus),
        "--force".into(),
    ]);
    a.extend(timeout_arg(s));
    a
}

fn timeout_arg(s: &MpsSettingsArgs) -> Vec<String> {
    if s.timeout == DEFAULT_TIMEOUT {
        return Vec::new();
    }
    vec!["--timeout".into(), s.timeout.as_secs_f64().to_string()]
}
