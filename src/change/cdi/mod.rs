//! The node's CDI spec (`nvidia.com/gpu`) of every whole GPU and MIG device, as the node is
//! now: names `N` and `N:M` (NVML index : MIG device index), their UUIDs, and `all`.
//! `manifests --target cdi` prints it (`crate::cluster::manifests::cdi`), `--install` writes it
//! to `/etc/cdi/nvidia.yaml`; [`refresh_installed`] rewrites an installed spec after MIG
//! changes, so containers never get stale device nodes.

mod devices;
mod driver_files;
pub(crate) mod hooks;
pub(crate) mod spec;

pub(crate) use devices::{DeviceSource, DeviceTree};

use crate::node::model::{Gpu, Node};
use crate::support::error::{Error, Result};
use crate::support::fsutil::in_root::InRoot;
use crate::support::paths::Paths;
use spec::{ContainerEdits, Device, DeviceNode, Spec};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub(crate) const KIND: &str = "nvidia.com/gpu";
/// The installed spec's file name (what nvidia-ctk and nvidia-cdi-refresh use).
pub(crate) const FILE_NAME: &str = "nvidia.yaml";

fn is_simulated(node: &Node) -> bool {
    node.source.starts_with("sim:")
}

/// MIG devices of a GPU in the order NVML indexes them: by GPU instance id, then compute
/// instance id. Returns (MIG device index, GI id, CI id, MIG UUID); an error for a MIG device
/// whose UUID the driver did not say, since the spec names each one by it.
fn mig_devices(gpu: &Gpu) -> Result<Vec<(usize, u32, u32, String)>> {
    let mut list: Vec<(u32, u32, String)> = Vec::new();
    for gi in gpu.mig.instances.iter().flatten() {
        for ci in &gi.compute_instances {
            let uuid = gpu.mig_uuid(gi, ci)?.to_string();
            list.push((gi.gpu_instance_id, ci.compute_instance_id, uuid));
        }
    }
    list.sort();
    Ok(list
        .into_iter()
        .enumerate()
        .map(|(i, (gi, ci, uuid))| (i, gi, ci, uuid))
        .collect())
}

/// The driver's files a spec mounts, and the hook that makes the rest in the container.
pub(crate) struct Driver<'a> {
    pub root: &'a InRoot,
    pub hook: Option<&'a Path>,
}

/// The spec of `node` with the device files of `tree`; `driver` adds the driver's files (and
/// hooks).
pub(crate) fn build_spec(node: &Node, tree: &DeviceTree, driver: Option<Driver>) -> Result<Spec> {
    let mut devices = Vec::new();
    let mut all_nodes: Vec<DeviceNode> = Vec::new();
    for gpu in &node.gpus {
        let minor = tree
            .gpu_minors
            .get(&gpu.index)
            .copied()
            .unwrap_or(gpu.index);
        let gpu_node = tree.node(&format!("/dev/nvidia{minor}"))?;
        let mut add = |names: [String; 2], nodes: Vec<DeviceNode>| {
            for n in &nodes {
                if !all_nodes.contains(n) {
                    all_nodes.push(n.clone());
                }
            }
            for name in names {
                devices.push(Device {
                    name,
                    container_edits: ContainerEdits {
                        device_nodes: nodes.clone(),
                        ..Default::default()
                    },
                });
            }
        };
        if !gpu.mig.current.is_enabled() {
            add([gpu.index.to_string(), gpu.uuid.clone()], vec![gpu_node]);
            continue;
        }
        // A MIG-enabled GPU is reachable only through its MIG devices.
        for (m, gi, ci, uuid) in mig_devices(gpu)? {
            let gi_cap = tree.cap_node(&format!("gpu{minor}/gi{gi}/access"))?;
            let ci_cap = tree.cap_node(&format!("gpu{minor}/gi{gi}/ci{ci}/access"))?;
            add(
                [format!("{}:{m}", gpu.index), uuid],
                vec![gpu_node.clone(), gi_cap, ci_cap],
            );
        }
    }
    if devices.is_empty() {
        return Err(Error::failed(
            "the node has no GPU or MIG device to describe (MIG is enabled without instances)",
        )
        .with_hint("create MIG instances first (gpushare apply)"));
    }
    devices.push(Device {
        name: "all".into(),
        container_edits: ContainerEdits {
            device_nodes: all_nodes,
            ..Default::default()
        },
    });
    // Turns off the legacy hook's own injection: the spec says what the container gets.
    let mut env = vec!["NVIDIA_VISIBLE_DEVICES=void".to_string()];
    let (mounts, hooks) = match driver {
        Some(d) => {
            let files = driver_files::find(d.root, &node.driver_version, d.hook.is_some())?;
            let hooks = d
                .hook
                .map(|h| hooks::for_files(h, &files, &node.driver_version))
                .unwrap_or_default();
            // Where enable-cuda-compat finds the driver's libcuda, as nvidia-ctk says it.
            if !hooks.is_empty()
                && let Some(dir) = files.lib_dirs.first()
            {
                env.insert(0, format!("NVIDIA_CTK_LIBCUDA_DIR={dir}"));
            }
            (files.mounts, hooks)
        }
        None => (Vec::new(), Vec::new()),
    };
    let mut spec = Spec {
        cdi_version: String::new(),
        annotations: Default::default(),
        kind: KIND.into(),
        devices,
        container_edits: ContainerEdits {
            env,
            device_nodes: tree
                .control
                .iter()
                .map(|p| tree.node(p))
                .collect::<Result<_>>()?,
            mounts,
            hooks,
        },
    };
    spec.cdi_version = spec::minimum_version(&spec).into();
    let problems = spec::validate(&spec);
    if !problems.is_empty() {
        return Err(Error::failed(format!(
            "the generated CDI spec is invalid: {}",
            problems.join("; ")
        )));
    }
    Ok(spec)
}

/// The spec of the node as it is, from a device source.
pub(crate) fn spec_for(node: &Node, source: &DeviceSource) -> Result<(Spec, DeviceTree)> {
    // A spec lists every MIG device: it is never written from a layout the driver would not list.
    for gpu in &node.gpus {
        gpu.mig_instances()?;
    }
    let tree = source.tree(is_simulated(node), &node.gpus)?;
    let driver_root = match &source.driver_root {
        Some(dir) => Some(Arc::new(InRoot::open(dir).map_err(|e| {
            Error::usage(format!("--driver-root {}: {e}", dir.display()))
        })?)),
        None => tree.root.clone(),
    };
    let hook = match &source.hook {
        Some(h) if h.is_file() => Some(h.clone()),
        Some(h) => {
            return Err(Error::usage(format!(
                "--nvidia-cdi-hook-path {}: no such program",
                h.display()
            ))
            .with_hint(format!(
                "NVIDIA's container toolkit installs it as {}",
                hooks::DEFAULT_PATH
            )));
        }
        None => (tree.read() && Path::new(hooks::DEFAULT_PATH).is_file())
            .then(|| PathBuf::from(hooks::DEFAULT_PATH)),
    };
    let driver = driver_root.as_deref().map(|root| Driver {
        root,
        hook: hook.as_deref(),
    });
    let mut spec = build_spec(node, &tree, driver)?;
    if let Some(host) = &source.host_root {
        as_the_host_sees(&mut spec, host);
    }
    Ok((spec, tree))
}

/// The spec's host paths as the host's container runtime sees them: read under `host` (where
/// a container has the host's `/`), named without it.
fn as_the_host_sees(spec: &mut Spec, host: &Path) {
    let on_host = |path: &str| match Path::new(path).strip_prefix(host) {
        Ok(rest) => Path::new("/").join(rest).display().to_string(),
        Err(_) => path.to_string(),
    };
    let edits = std::iter::once(&mut spec.container_edits)
        .chain(spec.devices.iter_mut().map(|d| &mut d.container_edits));
    for edits in edits {
        for node in &mut edits.device_nodes {
            node.host_path = node
                .host_path
                .as_deref()
                .map(on_host)
                .filter(|p| *p != node.path);
        }
        for mount in &mut edits.mounts {
            mount.host_path = on_host(&mount.host_path);
        }
        for hook in &mut edits.hooks {
            hook.path = on_host(&hook.path);
        }
    }
}

/// Where the installed spec lives.
pub(crate) fn installed_path(paths: &Paths) -> PathBuf {
    paths.cdi_dir().join(FILE_NAME)
}

/// Where an install records its sources, so a refresh builds the spec from the same roots.
fn sources_path(paths: &Paths) -> PathBuf {
    paths.lib_dir().join("cdi-sources.json")
}

/// Write `yaml` as the installed spec, atomically, mode 0644 (runtimes read it unprivileged),
/// and record `source` for [`refresh_installed`].
pub(crate) fn install(paths: &Paths, yaml: &str, source: &DeviceSource) -> Result<PathBuf> {
    let path = installed_path(paths);
    let dir = paths.cdi_dir();
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::failed(format!("cannot create {}: {e}", dir.display())))?;
    let record = sources_path(paths);
    if let Some(lib) = record.parent() {
        crate::support::fsutil::own_dir(lib, crate::support::paths::LIB_DIR_MODE)?;
    }
    let text = serde_json::to_vec(source)
        .map_err(|e| Error::failed(format!("cannot record the CDI sources: {e}")))?;
    crate::support::fsutil::write_atomic(&record, &text, 0o644)
        .map_err(|e| Error::failed(format!("cannot write {}: {e}", record.display())))?;
    crate::support::fsutil::write_atomic(&path, yaml.as_bytes(), 0o644)
        .map_err(|e| Error::failed(format!("cannot write {}: {e}", path.display())))?;
    Ok(path)
}

/// After a MIG change: rewrite the installed spec from `node`, with the roots it was installed
/// with, when one is installed. Returns the path written, or `None` when no spec is installed
/// (nothing to refresh).
pub(crate) fn refresh_installed(paths: &Paths, node: &Node) -> Result<Option<PathBuf>> {
    if !installed_path(paths).exists() {
        return Ok(None);
    }
    let record = sources_path(paths);
    let source: DeviceSource = match crate::support::fsutil::read_own_text(&record, 64 * 1024) {
        Ok(Some(text)) => serde_json::from_str(&text).map_err(|e| {
            Error::failed(format!("{}: {e}", record.display()))
                .with_hint("install the spec again: gpushare manifests --target cdi --install")
        })?,
        Ok(None) => DeviceSource::default(),
        Err(e) => {
            return Err(Error::failed(format!(
                "cannot read {}: {e}",
                record.display()
            )));
        }
    };
    let recorded = [&source.root, &source.driver_root, &source.hook];
    if let Some(relative) = recorded.into_iter().flatten().find(|p| p.is_relative()) {
        return Err(Error::failed(format!(
            "{} records the relative path {}, which names another place from every directory",
            record.display(),
            relative.display()
        ))
        .with_hint(
            "install the spec again with absolute roots: gpushare manifests --target cdi --install",
        ));
    }
    let (spec, _) = spec_for(node, &source)?;
    let yaml =
        crate::support::output::to_safe_yaml(&spec).map_err(|e| e.context("the CDI spec"))?;
    install(paths, &yaml, &source).map(Some)
}

#[cfg(test)]
mod hostile_tests;
#[cfg(test)]
pub(crate) mod tests;
