//! `gpushare manifests`: cluster wiring for this node (device plugin, extender, HAMi, DRA, CDI,
//! node agent), generated in memory and then printed, written under `--out`, or installed.

use crate::Context;
use crate::cli::ManifestsArgs;
use crate::config::Config;
use crate::error::{Error, Exit, Result};
use crate::k8s::{self, Bundle, DocKind, Images, K8sVersion, NodeLayout, Request, Target, cdi};
use crate::output::Format;

pub(super) fn run(ctx: &mut Context, args: &ManifestsArgs) -> Result<Exit> {
    let config = args.config.as_deref().map(Config::load).transpose()?;
    let bundle = generate(ctx, args, config.as_ref())?;
    for w in &bundle.warnings {
        ctx.out.warn(w);
    }
    if args.install {
        let spec = bundle
            .documents
            .iter()
            .find(|d| d.kind == DocKind::CdiSpec)
            .ok_or_else(|| Error::failed("no CDI spec was generated"))?;
        let path = cdi::install(&ctx.paths, &spec.yaml)?;
        ctx.out
            .note(format!("installed the CDI spec {}", path.display()));
        return Ok(Exit::Ok);
    }
    if let Some(dir) = &args.out {
        let written = bundle.write_to(dir)?;
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

/// Every object of every target, in memory, with its warnings; nothing printed or written yet.
/// `config`: the layout of `args.config`, loaded (`init` checks one before writing it).
pub(super) fn generate(
    ctx: &mut Context,
    args: &ManifestsArgs,
    config: Option<&Config>,
) -> Result<Bundle> {
    let devices = cdi::DeviceSource {
        root: args.dev_root.clone(),
        before_apply: false,
    };
    generate_with(ctx, args, config, devices)
}

/// [`generate`] with the device nodes from `devices` (`init` checks a layout before applying it).
pub(super) fn generate_with(
    ctx: &mut Context,
    args: &ManifestsArgs,
    config: Option<&Config>,
    devices: cdi::DeviceSource,
) -> Result<Bundle> {
    let kubernetes = config.and_then(|c| c.file.kubernetes.as_ref());
    let targets = targets(args, config)?;
    if args.install && targets != [Target::Cdi] {
        return Err(Error::usage(
            "--install writes the CDI spec: use it with --target cdi alone",
        ));
    }
    if args.helm_values && !targets.contains(&Target::NvidiaDevicePlugin) {
        return Err(Error::usage(
            "--helm-values is for --target nvidia-device-plugin (HAMi is always Helm values)",
        ));
    }
    // A bad value from the file is placed in it; one from a flag is not.
    let place = |span: std::ops::Range<usize>, e: Error| match config {
        Some(c) => c.place(span, e),
        None => e,
    };
    let version = match (
        args.k8s_version.as_deref(),
        kubernetes.and_then(|k| k.version.as_ref()),
    ) {
        (Some(v), _) => K8sVersion::parse(v)?,
        (None, Some(v)) => K8sVersion::parse(v.get_ref()).map_err(|e| place(v.span(), e))?,
        (None, None) => k8s::version::DEFAULT,
    };
    let namespace = match (
        &args.namespace,
        kubernetes.and_then(|k| k.namespace.as_ref()),
    ) {
        (Some(ns), _) => {
            k8s::check_namespace(ns)?;
            Some(ns.clone())
        }
        (None, Some(ns)) => {
            k8s::check_namespace(ns.get_ref()).map_err(|e| place(ns.span(), e))?;
            Some(ns.get_ref().clone())
        }
        (None, None) => None,
    };
    let name = match (&args.name, &args.config) {
        (Some(n), _) => n.clone(),
        (None, Some(path)) => path
            .file_stem()
            .map(|s| {
                s.to_string_lossy()
                    .to_ascii_lowercase()
                    .replace(['_', '.', ' '], "-")
            })
            .unwrap_or_else(|| "gpushare".into()),
        (None, None) => "gpushare".into(),
    };
    k8s::check_name(&name)?;
    let images = Images::parse(&args.images)?;
    if let Some(n) = &args.node_name {
        k8s::check_node_name(n)?;
    }
    let node = ctx.snapshot()?;
    // The manifests describe the node's devices: never from a MIG layout the driver would not
    // list.
    for gpu in &node.gpus {
        gpu.mig_instances()?;
    }
    let mut layout = match config {
        Some(c) => NodeLayout::desired(&node, c)?,
        None => NodeLayout::observed(&node)
            .with_running_mps(&node, &crate::mps::settings::load_all(&ctx.paths)?),
    };
    layout.mixed = args.mig_strategy == crate::cli::MigStrategyChoice::Mixed;
    let req = Request {
        node: &node,
        layout,
        config,
        version,
        namespace,
        images,
        helm_values: args.helm_values,
        examples: args.examples,
        name,
        node_name: args.node_name.clone(),
        devices,
    };
    // Every target is generated before anything is printed or written.
    let mut bundle = Bundle::default();
    for target in &targets {
        bundle.extend(k8s::generate(*target, &req)?);
    }
    dedup(&mut bundle);
    Ok(bundle)
}

/// `--target`s, or the `[kubernetes] targets` of the config.
fn targets(args: &ManifestsArgs, config: Option<&Config>) -> Result<Vec<Target>> {
    let mut out: Vec<Target> = args.target.clone();
    if out.is_empty()
        && let Some(c) = config
        && let Some(k) = &c.file.kubernetes
    {
        for t in &k.targets {
            out.push(Target::parse(t.get_ref()).map_err(|e| c.error_at(t.span(), e))?);
        }
    }
    if out.is_empty() {
        return Err(Error::usage("no target: pass --target").with_hint(format!(
            "targets are {} (or list them in [kubernetes] targets of -c FILE)",
            Target::all_names().join(", ")
        )));
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// Two targets may both create the same object (a namespace): keep the first.
fn dedup(bundle: &mut Bundle) {
    let mut seen = std::collections::BTreeSet::new();
    bundle
        .documents
        .retain(|d| seen.insert((d.file.clone(), d.yaml.clone())));
}
