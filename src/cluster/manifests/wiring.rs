//! A node's cluster wiring: the targets and their settings (from `gpushare manifests`' flags,
//! the layout's `[kubernetes]` table, or `init`), checked, then generated for the node in memory.

use crate::change::cdi;
use crate::cluster::manifests::{self, Bundle, Images, K8sVersion, NodeOffer, Request, Target};
use crate::node::Context;
use crate::node::config::{AssignedConfig, Config};
use crate::sharing::mig::layout::ProfileBook;
use crate::support::error::{Error, Result};
use std::path::{Path, PathBuf};

/// What to generate, and how.
#[derive(Debug, Clone, Default)]
pub(crate) struct Wiring {
    /// Empty: the layout's `[kubernetes] targets`.
    pub targets: Vec<Target>,
    /// The layout file (its stem names the objects when `name` is None, unless it is
    /// `gpushare.toml`: see [`content_name`]).
    pub config: Option<PathBuf>,
    pub k8s_version: Option<String>,
    pub namespace: Option<String>,
    /// `NAME=REF` image overrides.
    pub images: Vec<String>,
    pub name: Option<String>,
    pub node_name: Option<String>,
    pub helm_values: bool,
    /// The device plugin's `mixed` MIG strategy even where `single` would do.
    pub mixed: bool,
    pub examples: bool,
    /// Only the CDI spec, to be installed.
    pub install: bool,
    /// Where the device nodes are read (None: `/`).
    pub dev_root: Option<PathBuf>,
    pub driver_root: Option<PathBuf>,
    pub cdi_hook: Option<PathBuf>,
    /// Where the host's `/` is when gpushare runs in a container.
    pub host_root: Option<PathBuf>,
}

impl Wiring {
    /// Where the CDI spec's device nodes, files and hooks come from.
    pub(crate) fn device_source(&self) -> cdi::DeviceSource {
        cdi::DeviceSource {
            root: self.dev_root.clone(),
            driver_root: self.driver_root.clone(),
            hook: self.cdi_hook.clone(),
            host_root: self.host_root.clone(),
            before_apply: false,
        }
    }

    /// The targets of `config`'s `[kubernetes]` table, as it sets them (`init`).
    pub(crate) fn of_layout(config: &Path) -> Wiring {
        Wiring {
            config: Some(config.to_path_buf()),
            ..Wiring::default()
        }
    }
}

/// Every object of every target, in memory, with its warnings; nothing printed or written yet.
/// `config`: the layout of `wiring.config`, loaded (`init` checks one before writing it).
pub(crate) fn generate(
    ctx: &mut Context,
    wiring: &Wiring,
    config: Option<&Config>,
) -> Result<Bundle> {
    generate_with(ctx, wiring, config, wiring.device_source())
}

/// [`generate`] with the device nodes from `devices` (`init` checks a layout before applying it).
pub(crate) fn generate_with(
    ctx: &mut Context,
    wiring: &Wiring,
    config: Option<&Config>,
    devices: cdi::DeviceSource,
) -> Result<Bundle> {
    let kubernetes = config.and_then(|c| c.file.kubernetes.as_ref());
    let targets = targets(wiring, config)?;
    if targets.contains(&Target::Dra) && targets.contains(&Target::DraPlugin) {
        return Err(Error::usage(
            "--target dra and --target dra-plugin make the same DeviceClasses, each on its own driver: choose one",
        )
        .with_hint("dra: NVIDIA's DRA driver (gpu.nvidia.com); dra-plugin: gpushare's (gpu.gpushare.io)"));
    }
    if wiring.install && targets != [Target::Cdi] {
        return Err(Error::usage(
            "--install writes the CDI spec: use it with --target cdi alone",
        ));
    }
    if wiring.helm_values && !targets.contains(&Target::NvidiaDevicePlugin) {
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
        wiring.k8s_version.as_deref(),
        kubernetes.and_then(|k| k.version.as_ref()),
    ) {
        (Some(v), _) => K8sVersion::parse(v)?,
        (None, Some(v)) => K8sVersion::parse(v.get_ref()).map_err(|e| place(v.span(), e))?,
        (None, None) => manifests::version::DEFAULT,
    };
    let namespace = match (
        &wiring.namespace,
        kubernetes.and_then(|k| k.namespace.as_ref()),
    ) {
        (Some(ns), _) => {
            manifests::check_namespace(ns)?;
            Some(ns.clone())
        }
        (None, Some(ns)) => {
            manifests::check_namespace(ns.get_ref()).map_err(|e| place(ns.span(), e))?;
            Some(ns.get_ref().clone())
        }
        (None, None) => None,
    };
    let stem = wiring.config.as_deref().and_then(Path::file_stem).map(|s| {
        s.to_string_lossy()
            .to_ascii_lowercase()
            .replace(['_', '.', ' '], "-")
    });
    let images = Images::parse(&wiring.images)?;
    if let Some(n) = &wiring.node_name {
        manifests::check_node_name(n)?;
    }
    let node = ctx.snapshot()?;
    // The manifests describe the node's devices: never from a MIG layout the driver would not
    // list.
    for gpu in &node.gpus {
        gpu.mig_instances()?;
    }
    let mut layout = match config {
        Some(c) => NodeOffer::desired(&node, &AssignedConfig::new(c.clone(), &node)?)?,
        None => NodeOffer::observed(&node)
            .with_running_mps(&node, &crate::sharing::mps::settings::load_all(&ctx.paths)?),
    };
    layout.mixed = wiring.mixed;
    let name = match (&wiring.name, stem) {
        (Some(n), _) => n.clone(),
        (None, Some(stem)) if stem != GENERIC_NAME => stem,
        // `init`'s file, or none: every node would have the same name.
        _ => content_name(config, &layout),
    };
    manifests::check_name(&name)?;
    // DRA has a class for every profile the MIG GPUs offer; only it asks the driver for them.
    let mut refused = Vec::new();
    let mut mig_profiles = Vec::new();
    if targets.contains(&Target::Dra) || targets.contains(&Target::DraPlugin) {
        let book = ProfileBook::load(ctx.backend()?, &node);
        let mig_gpus = layout
            .gpus
            .iter()
            .filter(|g| g.mig.is_some())
            .filter_map(|g| node.gpus.iter().find(|n| n.index == g.index));
        for gpu in mig_gpus {
            match book.known(gpu) {
                Ok(list) => mig_profiles.extend(list.into_iter().flatten().map(|p| p.name.clone())),
                Err(e) => refused.push(format!(
                    "GPU {}: its MIG profiles cannot be listed ({}): DRA classes only for the layout's profiles",
                    gpu.index, e.message
                )),
            }
        }
    }
    let req = Request {
        mig_profiles,
        node: &node,
        layout,
        config,
        version,
        namespace,
        images,
        helm_values: wiring.helm_values,
        examples: wiring.examples,
        name,
        node_name: wiring.node_name.clone(),
        devices,
    };
    // Every target is generated before anything is printed or written.
    let mut bundle = Bundle::default();
    for why in refused {
        bundle.warn(why);
    }
    for target in &targets {
        bundle.extend(manifests::generate(*target, &req)?);
    }
    dedup(&mut bundle);
    Ok(bundle)
}

/// The stem of `init`'s layout file, which every node has.
const GENERIC_NAME: &str = "gpushare";

/// A layout's name from what it holds, so that two node classes' manifests never share a name
/// for different layouts: `gpushare-` and 8 hex digits of a hash of the layout file (or, without
/// one, of the layout the node has). FNV-1a, written out: the name must not change with the
/// Rust release, as std's hasher may.
fn content_name(config: Option<&Config>, layout: &NodeOffer) -> String {
    let text = match config {
        Some(c) => c.source.text.clone(),
        None => format!("{layout:?}"),
    };
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{GENERIC_NAME}-{:08x}", hash >> 32)
}

/// `--target`s, or the `[kubernetes] targets` of the config.
fn targets(wiring: &Wiring, config: Option<&Config>) -> Result<Vec<Target>> {
    let mut out: Vec<Target> = wiring.targets.clone();
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
