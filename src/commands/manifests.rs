//! `gpushare manifests`: cluster wiring for this node (device plugin, extender, HAMi, DRA, CDI,
//! node agent), generated in memory and then printed, written under `--out`, or installed.

use crate::change::cdi;
use crate::cluster::manifests::DocKind;
use crate::cluster::manifests::wiring::{self, Wiring};
use crate::commands::cli::{CdiSourceArgs, ManifestsArgs, MigStrategyChoice};
use crate::node::Context;
use crate::node::config::Config;
use crate::support::error::{Error, Exit, Result};
use crate::support::output::Format;
use std::path::PathBuf;

pub(super) fn run(ctx: &mut Context, args: &ManifestsArgs) -> Result<Exit> {
    // As `plan` and `apply`: the layout in force unless another is named.
    let config_path = args.config.clone().or_else(|| {
        let in_force = ctx.paths.etc_dir().join("gpushare.toml");
        in_force.exists().then_some(in_force)
    });
    if args.config.is_none()
        && let Some(path) = &config_path
    {
        ctx.out.note(format!(
            "manifests of the layout in force, {} (-c names another)",
            path.display()
        ));
    }
    let config = config_path.as_deref().map(Config::load_input).transpose()?;
    let wiring = wiring_of(args, config_path)?;
    let bundle = wiring::generate(ctx, &wiring, config.as_ref())?;
    for w in &bundle.warnings {
        ctx.out.warn(w);
    }
    if args.install {
        let spec = bundle
            .documents
            .iter()
            .find(|d| d.kind == DocKind::CdiSpec)
            .ok_or_else(|| Error::failed("no CDI spec was generated"))?;
        let path = cdi::install(&ctx.paths, &spec.yaml, &wiring.device_source())?;
        ctx.out
            .note(format!("installed the CDI spec {}", path.display()));
        return Ok(Exit::Ok);
    }
    if let Some(dir) = &args.out {
        let (written, warnings) = crate::cluster::manifests::compose::write(dir, &bundle)?;
        for w in warnings {
            ctx.out.warn(w);
        }
        ctx.out.note(format!(
            "wrote {} file(s) to {}",
            written.len(),
            dir.display()
        ));
        return Ok(Exit::Ok);
    }
    let text = match ctx.out.format {
        Format::Json => bundle.to_json()?,
        _ => bundle.to_yaml(),
    };
    ctx.out.stdout(&text)?;
    Ok(Exit::Ok)
}

/// Where a CDI spec's files come from, the paths made absolute: the spec and the recorded
/// sources must not depend on the directory gpushare was started in.
pub(super) fn device_source(args: &CdiSourceArgs) -> Result<cdi::DeviceSource> {
    let host_root = absolute("--host-root", &args.host_root)?;
    Ok(cdi::DeviceSource {
        root: absolute("--dev-root", &args.dev_root)?.or_else(|| host_root.clone()),
        driver_root: absolute("--driver-root", &args.driver_root)?,
        hook: absolute("--nvidia-cdi-hook-path", &args.nvidia_cdi_hook_path)?,
        host_root,
        before_apply: false,
    })
}

fn absolute(flag: &str, path: &Option<PathBuf>) -> Result<Option<PathBuf>> {
    path.as_deref()
        .map(|p| {
            std::path::absolute(p).map_err(|e| Error::usage(format!("{flag} {}: {e}", p.display())))
        })
        .transpose()
}

fn wiring_of(args: &ManifestsArgs, config: Option<PathBuf>) -> Result<Wiring> {
    let source = device_source(&args.cdi_source)?;
    Ok(Wiring {
        targets: args.target.clone(),
        config,
        k8s_version: args.k8s_version.clone(),
        namespace: args.namespace.clone(),
        images: args.images.clone(),
        name: args.name.clone(),
        node_name: args.node_name.clone(),
        helm_values: args.helm_values,
        mixed: args.mig_strategy == MigStrategyChoice::Mixed,
        examples: args.examples,
        install: args.install,
        dev_root: source.root,
        driver_root: source.driver_root,
        cdi_hook: source.hook,
        host_root: source.host_root,
    })
}
