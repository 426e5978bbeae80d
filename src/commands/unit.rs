//! `gpushare unit [--install | --uninstall]`: the boot unit that applies gpushare.toml at every
//! boot (see `crate::change::boot`), printed, or written atomically and enabled, or disabled and removed.

use super::apply::config_path;
use super::changing::clients_and_hooks;
use crate::change::boot::{self, BootUnit, UNIT};
use crate::change::hooks::FlagValues;
use crate::commands::cli::{LayoutFileArgs, SysfsArgs, UnitArgs};
use crate::node::Context;
use crate::node::clients::systemd::Systemctl;
use crate::node::config::Config;
use crate::observe::metrics::systemd_unit as metrics_unit;
use crate::support::error::{Error, Exit, Result};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// `unit --format json`.
#[derive(Serialize)]
struct UnitReport {
    unit: &'static str,
    path: PathBuf,
    /// Written and enabled by this command.
    installed: bool,
    /// Disabled and removed by this command.
    removed: bool,
    text: String,
}

pub(super) fn run(ctx: &mut Context, args: &UnitArgs) -> Result<Exit> {
    let unit = if args.metrics {
        metrics_unit::UNIT
    } else {
        UNIT
    };
    let path = ctx.paths.systemd_dir().join(unit);
    if args.uninstall {
        return uninstall(ctx, unit, &path);
    }
    if args.metrics {
        let text = metrics_text(ctx, args)?;
        return finish(ctx, args, unit, path, text, "serves `gpushare metrics`");
    }
    let file = LayoutFileArgs {
        config: args.config.clone(),
        sysfs: SysfsArgs {
            sysfs_root: PathBuf::from("/"),
        },
    };
    let config = PathBuf::from(absolute(&config_path(ctx, &file)));
    // What fails here would fail at every boot: check it now.
    if config.exists() {
        Config::load(&config)?;
    } else {
        ctx.out.warn(format!(
            "{} does not exist yet: the unit does nothing until it does (`gpushare init` writes it)",
            config.display()
        ));
    }
    clients_and_hooks(&ctx.out, &args.clients_and_hooks, FlagValues::default())?;
    let program = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| Error::failed(format!("cannot find the gpushare binary: {e}")))?;
    let mut unit_args = global_args(ctx);
    unit_args.extend(["apply", "--yes", "-c"].map(String::from));
    unit_args.push(config.to_string_lossy().into_owned());
    if let Some(f) = &args.clients_and_hooks.gpu_clients_file {
        unit_args.extend(["--gpu-clients-file".to_string(), absolute(f)]);
    }
    if let Some(f) = &args.clients_and_hooks.hooks_file {
        unit_args.extend(["--hooks-file".to_string(), absolute(f)]);
    }
    let text = BootUnit {
        program,
        config,
        args: unit_args,
    }
    .render();
    finish(
        ctx,
        args,
        unit,
        path,
        text,
        "runs `gpushare apply` at every boot",
    )
}

/// The metrics unit: `gpushare metrics --listen ADDR` with the layout file and this command's
/// global options.
fn metrics_text(ctx: &Context, args: &UnitArgs) -> Result<String> {
    let program = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| Error::failed(format!("cannot find the gpushare binary: {e}")))?;
    let mut unit_args = global_args(ctx);
    unit_args.extend([
        "metrics".to_string(),
        "--listen".to_string(),
        args.listen.to_string(),
    ]);
    if let Some(config) = &args.config {
        unit_args.extend(["-c".to_string(), absolute(config)]);
    }
    Ok(metrics_unit::MetricsUnit {
        program,
        args: unit_args,
    }
    .render())
}

/// Print the unit, or install it.
fn finish(
    ctx: &mut Context,
    args: &UnitArgs,
    unit: &'static str,
    path: PathBuf,
    text: String,
    does: &str,
) -> Result<Exit> {
    if args.install {
        install(ctx, unit, &path, &text, does)?;
    }
    let report = UnitReport {
        unit,
        path,
        installed: args.install,
        removed: false,
        text,
    };
    ctx.out.data(&report, |_| {
        if report.installed {
            format!("installed and enabled {}\n", report.path.display())
        } else {
            report.text.clone()
        }
    })?;
    Ok(Exit::Ok)
}

/// `systemctl` for the unit directory in use: with --state-root, `--root` so that enabling links
/// it there and never on the host.
fn systemctl_args<'a>(ctx: &'a Context, root: &'a mut String, args: &[&'a str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    if let Some(r) = ctx.paths.root() {
        *root = format!("--root={}", absolute(r));
        out.push(root.as_str());
    }
    out.extend_from_slice(args);
    out
}

fn install(ctx: &Context, unit: &str, path: &Path, text: &str, does: &str) -> Result<()> {
    let systemctl = Systemctl::find()?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::failed(format!("cannot create {}: {e}", dir.display())))?;
    }
    crate::support::fsutil::write_atomic(path, text.as_bytes(), 0o644).map_err(|e| {
        Error::failed(format!("cannot write {}: {e}", path.display()))
            .with_hint("run as root, or pass --state-root to write under another directory")
    })?;
    let mut root = String::new();
    if ctx.paths.root().is_none() {
        systemctl.run(&["daemon-reload"])?;
    }
    systemctl.run(&systemctl_args(ctx, &mut root, &["enable", unit]))?;
    let flag = if unit == UNIT { "" } else { " --metrics" };
    ctx.out.note(format!(
        "{unit} {does}; `gpushare unit{flag} --uninstall` removes it"
    ));
    Ok(())
}

fn uninstall(ctx: &mut Context, unit: &'static str, path: &Path) -> Result<Exit> {
    let present = std::fs::symlink_metadata(path).is_ok();
    let link = boot::enabled_link(&ctx.paths.systemd_dir(), unit);
    let enabled = std::fs::symlink_metadata(link).is_ok();
    if present || enabled {
        let systemctl = Systemctl::find()?;
        let mut root = String::new();
        systemctl.run(&systemctl_args(ctx, &mut root, &["disable", unit]))?;
        if present {
            crate::support::fsutil::own::check_replaceable(path)
                .and_then(|_| std::fs::remove_file(path))
                .map_err(|e| Error::failed(format!("cannot remove {}: {e}", path.display())))?;
        }
        if ctx.paths.root().is_none() {
            systemctl.run(&["daemon-reload"])?;
        }
        ctx.out
            .note(format!("disabled and removed {}", path.display()));
    } else {
        ctx.out
            .note(format!("{unit} is not installed: nothing to remove"));
    }
    let report = UnitReport {
        unit,
        path: path.to_path_buf(),
        installed: false,
        removed: present || enabled,
        text: String::new(),
    };
    ctx.out.data(&report, |_| String::new())?;
    Ok(Exit::Ok)
}

pub(super) fn absolute(path: &Path) -> String {
    std::path::absolute(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

/// Global options that change where gpushare looks, so a unit sees what this command saw.
pub(super) fn global_args(ctx: &Context) -> Vec<String> {
    let mut a = Vec::new();
    if let Some(root) = ctx.paths.root() {
        a.extend(["--state-root".to_string(), absolute(root)]);
    }
    if let Some(lib) = &ctx.backend_options.nvml_lib {
        a.extend(["--nvml-lib".to_string(), absolute(lib)]);
    }
    a
}
