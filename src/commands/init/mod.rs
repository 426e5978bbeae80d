//! `gpushare init`: from a bare node to a shared, checked one in one command.
//!
//! detect → choose a layout (`config::choose`, or `-c FILE`) → check it against the node → plan →
//! (confirm) → write gpushare.toml (atomically; an existing file that says something else only
//! with --force) → apply → manifests of `[kubernetes] targets` (into `<etc>/manifests`, or
//! --manifests-out) → probe (skipped with a note when there is no CUDA) → what the node offers
//! ([`summary`]). Each step finds what an earlier run did: running it again changes nothing.

mod summary;

use super::changing::report;
use crate::change::cdi::DeviceSource;
use crate::change::pipeline::converge::{Converge, Converged, converge, take_guard};
use crate::change::pipeline::desired::DesiredSource;
use crate::change::pipeline::guard::Guard;
use crate::change::plan::PlanOptions;
use crate::cluster::manifests::wiring::{self, Wiring};
use crate::commands::cli::{InitArgs, InitMode};
use crate::node::Context;
use crate::node::config::Config;
use crate::observe::probe::report::Verdict;
use crate::observe::probe::run::Request;
use crate::sharing::choose::{self as layout, SharingMode};
use crate::sharing::mig::layout::ProfileBook;
use crate::support::error::{Error, Exit, Result};
use crate::support::source_file::SourceFile;
use std::path::{Path, PathBuf};
use summary::{ConfigReport, InitReport, ManifestsReport, ProbeReport};

/// `/etc/gpushare`: gpushare.toml and the manifests, readable by all.
const ETC_DIR_MODE: u32 = 0o755;

pub(super) fn run(ctx: &mut Context, args: &InitArgs) -> Result<Exit> {
    let mut guard = take_guard(ctx, "init", args.dry_run)?;
    let result = run_locked(ctx, args, guard.as_mut());
    if let Some(guard) = guard.as_mut() {
        // The journal says how the run ended, also when it failed before its first change.
        let outcome = match &result {
            Ok(Exit::Ok) => Ok(()),
            Ok(_) => Err("finished with changes left"),
            Err(e) => Err(e.message.as_str()),
        };
        guard.finish_once(outcome)?;
    }
    result
}

fn run_locked(ctx: &mut Context, args: &InitArgs, mut guard: Option<&mut Guard>) -> Result<Exit> {
    let node = ctx.snapshot()?;
    ctx.out.note(format!(
        "detected {} ({}, driver {})",
        layout::models(&node),
        node.source,
        node.driver_version
    ));
    let config_out = args
        .config_out
        .clone()
        .unwrap_or_else(|| ctx.paths.etc_dir().join("gpushare.toml"));
    let (config, text) = match &args.config {
        Some(path) => {
            refuse_layout_flags(args)?;
            let config = Config::load(path)?;
            // The manifests are written once the node has the layout; whether its targets can
            // describe it at all is bad input, found now.
            check_targets(ctx, &config, &config_out)?;
            let text = config.source.text.clone();
            (config, text)
        }
        None => {
            let book = ProfileBook::load(ctx.backend()?, &node);
            let mut chosen = layout::choose(&flags(args), &node, &book)?;
            for n in &chosen.notes {
                ctx.out.note(n);
            }
            let (config, text) = generated(args, &node, &chosen.file, &config_out)?;
            if let Err(e) = check_targets(ctx, &config, &config_out) {
                ctx.out.note(format!(
                    "the device plugin cannot describe this layout ({}): the manifests are for DRA",
                    e.message
                ));
                layout::set_targets(&mut chosen.file, &layout::FALLBACK_TARGETS);
                let (config, text) = generated(args, &node, &chosen.file, &config_out)?;
                check_targets(ctx, &config, &config_out)?;
                (config, text)
            } else {
                (config, text)
            }
        }
    };
    let write = needs_writing(&config_out, &text, args.force)?;
    let targets = targets_of(&config);
    preflight_outputs(ctx, args, &config_out, write, targets > 0)?;
    let how = Converge {
        sysfs_root: &args.sysfs.sysfs_root,
        // The blockers' hints say "pass --force": init's does what apply's does, too.
        options: PlanOptions {
            force: args.force,
            ..PlanOptions::default()
        },
        dry_run: args.dry_run,
        yes: args.yes,
        clients_and_hooks: Default::default(),
    };
    let mut write_config = |ctx: &Context| -> Result<()> {
        if write {
            write_file(&config_out, &text, args.config_out.is_none())?;
            ctx.out.note(format!("wrote {}", config_out.display()));
        }
        Ok(())
    };
    let applied = match converge(
        ctx,
        DesiredSource::Gpushare(config),
        &how,
        guard.take(),
        &mut write_config,
    )? {
        Converged::DryRun(plan) => {
            ctx.out.data(&plan, |out| plan.render(out))?;
            if write {
                ctx.out
                    .note(format!("would write {}:\n{text}", config_out.display()));
            }
            ctx.out.note(
                "dry run: nothing was written or changed (the manifests and the probe follow apply)",
            );
            return Ok(Exit::Ok);
        }
        Converged::Applied(applied) => applied,
    };
    let what = config_out.display().to_string();
    if applied.error.is_some() || applied.made.reboot_required {
        ctx.out
            .data(&applied.made, |out| applied.made.render(out))?;
        let exit = report(&ctx.out, &applied)?;
        ctx.out.note(format!(
            "after the reboot, run the same `gpushare init` (or `gpushare apply -c {what}`) again to finish"
        ));
        return Ok(exit);
    }
    report(&ctx.out, &applied)?;

    let manifests = if targets == 0 {
        ctx.out
            .note("no [kubernetes] targets in the file: no manifests written");
        None
    } else {
        let dir = match &args.manifests_out {
            Some(dir) => dir.clone(),
            None => {
                let dir = ctx.paths.etc_dir().join("manifests");
                crate::support::fsutil::own_dir(&ctx.paths.etc_dir(), ETC_DIR_MODE)?;
                crate::support::fsutil::own_dir(&dir, ETC_DIR_MODE)?;
                dir
            }
        };
        Some(write_manifests(ctx, &config_out, &dir)?)
    };
    let probe = if args.no_probe {
        ProbeReport::skipped("--no-probe")
    } else {
        probe(ctx, &config_out, &args.sysfs.sysfs_root)?
    };
    let report = InitReport {
        config: ConfigReport {
            path: config_out.clone(),
            written: write,
        },
        changes: applied.made,
        manifests,
        gpus: summary::offers(ctx, &config_out)?,
        probe,
    };
    ctx.out.data(&report, |out| summary::render(out, &report))?;
    if report.probe.status == summary::ProbeStatus::Failed {
        return Err(Error::new(
            Exit::Differs,
            "the probe found a slice that does not keep its promise",
        )
        .with_hint("`gpushare probe -c FILE` shows the measurements"));
    }
    Ok(Exit::Ok)
}

fn flags(args: &InitArgs) -> layout::Flags {
    layout::Flags {
        mode: args.mode.map(|m| match m {
            InitMode::Mig => SharingMode::Mig,
            InitMode::Mps => SharingMode::Mps,
            InitMode::TimeSlicing => SharingMode::TimeSlicing,
            InitMode::Auto => SharingMode::Auto,
        }),
        profile: args.profile.clone(),
        clients: args.clients,
        replicas: args.replicas,
        slices: args.slices,
        min_memory_mib: args.min_memory,
    }
}

/// With -c FILE the layout is the file's: the layout flags have nothing to say.
fn refuse_layout_flags(args: &InitArgs) -> Result<()> {
    let given = [
        ("--profile", args.profile.is_some()),
        ("--clients", args.clients.is_some()),
        ("--replicas", args.replicas.is_some()),
        ("--slices", args.slices.is_some()),
        ("--min-memory", args.min_memory.is_some()),
    ];
    match given.iter().find(|(_, set)| *set) {
        Some((flag, _)) => Err(Error::usage(format!(
            "{flag} does not go with -c: the layout comes from the file"
        ))
        .with_hint("drop -c to choose the layout with --mode")),
        None => Ok(()),
    }
}

/// ` --mode mig --profile 1g.5gb`, for the file's header.
fn command_line(args: &InitArgs) -> String {
    let mut s = String::new();
    if let Some(m) = args.mode {
        let name = match m {
            InitMode::Mig => "mig",
            InitMode::Mps => "mps",
            InitMode::TimeSlicing => "time-slicing",
            InitMode::Auto => "auto",
        };
        s.push_str(&format!(" --mode {name}"));
    }
    let opt = |flag: &str, v: Option<String>| v.map(|v| format!(" {flag} {v}")).unwrap_or_default();
    s.push_str(&opt("--profile", args.profile.clone()));
    s.push_str(&opt("--clients", args.clients.map(|n| n.to_string())));
    s.push_str(&opt("--replicas", args.replicas.map(|n| n.to_string())));
    s.push_str(&opt("--slices", args.slices.map(|n| n.to_string())));
    s.push_str(&opt(
        "--min-memory",
        args.min_memory.map(|m| format!("{m}M")),
    ));
    s
}

/// Every path `init` writes after its changes, checked before the first one: gpushare.toml, the
/// manifests directory and what is in it, an installed CDI spec it refreshes. A path it could
/// not write is bad input (exit 2): the node is not changed and then left half done.
fn preflight_outputs(
    ctx: &Context,
    args: &InitArgs,
    config_out: &Path,
    write_config: bool,
    manifests: bool,
) -> Result<()> {
    let refuse = |path: &Path, problem: String| {
        Err(
            Error::usage(format!("cannot write {}: {problem}", path.display()))
                .with_hint("remove or fix it (or pick another path); nothing was changed"),
        )
    };
    if write_config && let Some(p) = crate::support::fsutil::own::write_target_problem(config_out) {
        return refuse(config_out, p);
    }
    let etc = ctx.paths.etc_dir();
    let own_dirs: Vec<PathBuf> = match (&args.manifests_out, manifests) {
        (None, true) => vec![etc.clone(), etc.join("manifests")],
        _ if args.config_out.is_none() && write_config => vec![etc.clone()],
        _ => Vec::new(),
    };
    for dir in &own_dirs {
        if std::fs::symlink_metadata(dir).is_ok()
            && let Err(e) = crate::support::fsutil::check_own_dir(dir)
        {
            return refuse(dir, e.message);
        }
    }
    if manifests {
        let dir = args
            .manifests_out
            .clone()
            .unwrap_or_else(|| etc.join("manifests"));
        if let Some(p) = crate::support::fsutil::own::write_dir_problem(&dir) {
            return refuse(&dir, p);
        }
        // The directory holds the files gpushare writes there, regular files all.
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for entry in entries.flatten() {
                let path = entry.path();
                if let Err(e) = crate::support::fsutil::own::check_replaceable(&path) {
                    return refuse(&path, e.to_string());
                }
            }
        }
    }
    let cdi = crate::change::cdi::installed_path(&ctx.paths);
    if std::fs::symlink_metadata(&cdi).is_ok()
        && let Some(p) = crate::support::fsutil::own::write_target_problem(&cdi)
    {
        return refuse(&cdi, p);
    }
    Ok(())
}

/// Whether `path` must be written: not when it already says exactly this; an error when it says
/// something else and --force was not given.
fn needs_writing(path: &Path, text: &str, force: bool) -> Result<bool> {
    match crate::support::fsutil::read_own_text(path, crate::support::source_file::MAX_INPUT_BYTES)
    {
        Ok(None) => Ok(true),
        Ok(Some(existing)) if existing == text => Ok(false),
        Ok(Some(_)) if !force => Err(Error::failed(format!(
            "{} exists and says something else; nothing was changed",
            path.display()
        ))
        .with_hint(
            "pass --force to overwrite it, --config-out FILE to write elsewhere, or \
             `gpushare init -c FILE` to use it",
        )),
        Ok(Some(_)) => Ok(true),
        Err(e) => Err(
            Error::usage(format!("cannot read {}: {e}", path.display())).with_hint(
                "remove or fix it (or pick another path with --config-out); nothing was changed",
            ),
        ),
    }
}

/// Write gpushare.toml; `etc`: the path is the default one, in gpushare's own `/etc/gpushare`.
fn write_file(path: &Path, text: &str, etc: bool) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if etc {
            crate::support::fsutil::own_dir(dir, ETC_DIR_MODE)?;
        }
        std::fs::create_dir_all(dir).map_err(|e| {
            Error::failed(format!("cannot create {}: {e}", dir.display()))
                .with_hint("run as root, or move state paths with --state-root DIR")
        })?;
    }
    crate::support::fsutil::write_atomic(path, text.as_bytes(), 0o644)
        .map_err(|e| Error::failed(format!("cannot write {}: {e}", path.display())))
}

/// The text of a chosen layout, and the file it is once written at `path`.
fn generated(
    args: &InitArgs,
    node: &crate::node::model::Node,
    file: &crate::node::config::ConfigFile,
    path: &Path,
) -> Result<(Config, String)> {
    let text = format!(
        "# Written by `gpushare init{}` for {}.\n\
         # Edit it and run `gpushare apply` to change the node.\n\n{}",
        command_line(args),
        layout::models(node),
        Config::to_toml(file)?
    );
    let name = path.display().to_string();
    Ok((Config::parse(SourceFile::inline(&name, &text))?, text))
}

/// Generate the manifests of the file's targets in memory: an error when they cannot describe
/// the layout. The node does not have the layout's devices yet: the CDI spec, which lists them,
/// is left to the manifests written after apply.
fn check_targets(ctx: &mut Context, config: &Config, path: &Path) -> Result<()> {
    if targets_of(config) > 0 {
        let before_apply = DeviceSource {
            before_apply: true,
            ..DeviceSource::default()
        };
        wiring::generate_with(ctx, &Wiring::of_layout(path), Some(config), before_apply)?;
    }
    Ok(())
}

fn targets_of(config: &Config) -> usize {
    config
        .file
        .kubernetes
        .as_ref()
        .map_or(0, |k| k.targets.len())
}

/// The manifests of the file's `[kubernetes] targets`, written into `dir`.
fn write_manifests(ctx: &mut Context, config: &Path, dir: &Path) -> Result<ManifestsReport> {
    let loaded = Config::load(config)?;
    let bundle = wiring::generate(ctx, &Wiring::of_layout(config), Some(&loaded))?;
    for w in &bundle.warnings {
        ctx.out.warn(w);
    }
    let (written, warnings) = crate::cluster::manifests::compose::write(dir, &bundle)?;
    for w in warnings {
        ctx.out.warn(w);
    }
    let files: Vec<String> = written
        .iter()
        .filter_map(|f| f.file_name())
        .map(|f| f.to_string_lossy().into_owned())
        .collect();
    forget_stale(ctx, dir, &files)?;
    ctx.out.note(format!(
        "wrote {} manifest file(s) to {}",
        files.len(),
        dir.display()
    ));
    Ok(ManifestsReport {
        dir: dir.to_path_buf(),
        files,
    })
}

/// The list of files `init` wrote into a manifests directory, so that the next run removes the
/// ones it no longer writes (`kubectl apply -f DIR` must not see an old layout) and nothing else.
const WRITTEN_LIST: &str = ".gpushare-manifests";

fn forget_stale(ctx: &Context, dir: &Path, files: &[String]) -> Result<()> {
    let list = dir.join(WRITTEN_LIST);
    if let Ok(Some(previous)) = crate::support::fsutil::read_own_text(&list, 1024 * 1024) {
        for name in previous.lines().map(str::trim) {
            // Only plain names this list holds: never a path out of the directory.
            let plain = !name.is_empty() && !name.contains('/') && name != "..";
            if plain && !files.iter().any(|f| f == name) {
                match std::fs::remove_file(dir.join(name)) {
                    Ok(()) => ctx
                        .out
                        .note(format!("removed the stale {}", dir.join(name).display())),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => ctx.out.warn(format!(
                        "cannot remove the stale {}: {e}",
                        dir.join(name).display()
                    )),
                }
            }
        }
    }
    let text: String = files.iter().map(|f| format!("{f}\n")).collect();
    crate::support::fsutil::write_atomic(&list, text.as_bytes(), 0o644)
        .map_err(|e| Error::failed(format!("cannot write {}: {e}", list.display())))
}

/// A quick probe of every slice against the file; skipped with a note when there is no CUDA.
fn probe(ctx: &mut Context, config: &Path, sysfs_root: &Path) -> Result<ProbeReport> {
    match crate::observe::probe::run::probe(ctx, &Request::after_init(config, sysfs_root)) {
        Ok(report) => {
            let passed = report.verdict == Verdict::Pass;
            for f in &report.failures {
                ctx.out.warn(format!("probe: {}: {}", f.target, f.message));
            }
            Ok(if passed {
                ProbeReport::passed(report.targets.len())
            } else {
                ProbeReport::failed(report.failures.len())
            })
        }
        Err(e) if e.exit == Exit::NoDriver => {
            ctx.out.note(format!(
                "probe skipped: {}; run `gpushare probe -c {}` once the driver is there",
                e.message,
                config.display()
            ));
            Ok(ProbeReport::skipped(&e.message))
        }
        Err(e) => Err(e),
    }
}
