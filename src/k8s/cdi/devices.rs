//! The device nodes of the GPUs and MIG devices: read under a root directory on a real node, or
//! derived the way the driver numbers them on a simulated one.

use crate::error::{Error, Result};
use crate::node::Gpu;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where a spec's device nodes, driver files and hooks come from (`--dev-root`,
/// `--driver-root`, `--nvidia-cdi-hook-path`), as nvidia-ctk separates them: a containerized
/// driver has its files in one root and its device nodes in another.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct DeviceSource {
    /// The root holding `dev/` and `proc/driver/`; `None` is `/` on a real node and the derived
    /// layout on a simulated one.
    pub root: Option<PathBuf>,
    /// The root holding the driver's libraries, tools and firmware; `None` is the device root
    /// when the device nodes are read, and no files on a simulated node without one.
    #[serde(default)]
    pub driver_root: Option<PathBuf>,
    /// The `nvidia-cdi-hook` program the spec's hooks run; `None` is the toolkit's own path when
    /// it exists on a node whose devices are read, and no hooks otherwise.
    #[serde(default)]
    pub hook: Option<PathBuf>,
    /// The manifests of a layout are checked before the node has its devices (`init`): the CDI
    /// spec, which lists the devices the node has, is then not built.
    #[serde(skip)]
    pub before_apply: bool,
}

/// MIG capability minors: `gpu<G>/gi<I>/access` and `gpu<G>/gi<I>/ci<C>/access` → minor.
pub(super) type MigMinors = BTreeMap<String, u32>;

/// The driver's control nodes, in the order nvidia-ctk lists them.
pub(super) const CONTROL_NODES: [&str; 4] = [
    "/dev/nvidia-modeset",
    "/dev/nvidia-uvm-tools",
    "/dev/nvidia-uvm",
    "/dev/nvidiactl",
];

/// What the spec needs to know about the node's device files.
#[derive(Debug, Clone)]
pub(crate) struct DeviceTree {
    /// Root on the host (`/` = none): device nodes get `hostPath` under it.
    pub host_root: Option<PathBuf>,
    /// Control nodes present.
    pub control: Vec<String>,
    /// GPU index → minor number (`/dev/nvidia<minor>`).
    pub gpu_minors: BTreeMap<u32, u32>,
    pub mig_minors: MigMinors,
    /// Read from the node (false: derived for a simulated node).
    pub read: bool,
}

/// The mig-minors table the driver creates: `config` 1, `monitor` 2, then for every GPU minor
/// G (0..31) and GPU instance I (0..14) the GI cap followed by its 8 compute-instance caps
/// (nvidia-caps numbering: 3 + G·135 + I·9 for the GI, +1+C for compute instance C).
pub(super) fn derived_mig_minors(gpu_minors: impl IntoIterator<Item = u32>) -> MigMinors {
    let mut m = MigMinors::new();
    for g in gpu_minors {
        for i in 0..15u32 {
            let gi = 3 + g * 135 + i * 9;
            m.insert(format!("gpu{g}/gi{i}/access"), gi);
            for c in 0..8u32 {
                m.insert(format!("gpu{g}/gi{i}/ci{c}/access"), gi + 1 + c);
            }
        }
    }
    m
}

/// Parse `/proc/driver/nvidia-caps/mig-minors` (`<cap> <minor>` per line; others ignored).
pub(super) fn parse_mig_minors(text: &str) -> MigMinors {
    text.lines()
        .filter_map(|l| {
            let mut parts = l.split_whitespace();
            let cap = parts.next()?;
            let minor = parts.next()?.parse().ok()?;
            parts.next().is_none().then(|| (cap.to_string(), minor))
        })
        .collect()
}

impl DeviceSource {
    /// The device tree of `gpus`: derived on a simulated node without `--dev-root`, read otherwise.
    pub(crate) fn tree(&self, simulated: bool, gpus: &[Gpu]) -> Result<DeviceTree> {
        let read = self
            .root
            .clone()
            .or_else(|| (!simulated).then(|| PathBuf::from("/")));
        let Some(root) = read else {
            // The driver numbers GPUs in PCI order, as NVML indexes them.
            let gpu_minors: BTreeMap<u32, u32> = gpus.iter().map(|g| (g.index, g.index)).collect();
            return Ok(DeviceTree {
                host_root: None,
                control: CONTROL_NODES.iter().map(|s| s.to_string()).collect(),
                mig_minors: derived_mig_minors(gpu_minors.values().copied()),
                gpu_minors,
                read: false,
            });
        };
        let exists = |p: &str| root.join(p.trim_start_matches('/')).exists();
        let control = CONTROL_NODES
            .iter()
            .filter(|p| exists(p))
            .map(|s| s.to_string())
            .collect();
        let mut gpu_minors = BTreeMap::new();
        for g in gpus {
            let minor = crate::node::minor::gpu_minor(&root, g)?.unwrap_or(g.index);
            let node = format!("/dev/nvidia{minor}");
            if !exists(&node) {
                return Err(Error::failed(format!(
                    "GPU {} ({}): device node {} does not exist",
                    g.index,
                    g.pci_bus_id,
                    root.join(node.trim_start_matches('/')).display()
                ))
                .with_hint("create the device nodes with `nvidia-modprobe` or `nvidia-ctk system create-device-nodes` (`gpushare manifests --dev-root DIR` reads them under another root)"));
            }
            gpu_minors.insert(g.index, minor);
        }
        let uses_mig = gpus
            .iter()
            .any(|g| g.mig.instances.as_ref().is_none_or(|list| !list.is_empty()));
        let minors_file = root.join("proc/driver/nvidia-caps/mig-minors");
        let mig_minors = match crate::fsutil::read_host(&minors_file) {
            Ok(Some(text)) => parse_mig_minors(&text),
            Ok(None) if !uses_mig => MigMinors::new(),
            Ok(None) => {
                return Err(Error::failed(format!("cannot read {}: it does not exist", minors_file.display()))
                    .with_hint("the MIG capability minors come from the nvidia driver (nvidia-caps); is the driver loaded?"));
            }
            Err(e) => {
                return Err(Error::failed(format!(
                    "cannot read {}: {e}",
                    minors_file.display()
                ))
                .with_hint("the MIG capability minors come from the nvidia driver (nvidia-caps); is the driver loaded?"));
            }
        };
        let host_root = (root != Path::new("/")).then_some(root);
        Ok(DeviceTree {
            host_root,
            control,
            gpu_minors,
            mig_minors,
            read: true,
        })
    }
}

impl DeviceTree {
    /// The cap node of a MIG capability, checked to exist when the tree was read.
    pub(crate) fn cap_node(&self, cap: &str) -> Result<String> {
        let minor = self.mig_minors.get(cap).ok_or_else(|| {
            Error::failed(format!("the MIG capability {cap} has no minor in mig-minors"))
                .with_hint("the driver lists every capability of its MIG devices; re-read the node after the MIG change")
        })?;
        let path = format!("/dev/nvidia-caps/nvidia-cap{minor}");
        if let Some(root) = &self.host_root
            && !root.join(path.trim_start_matches('/')).exists()
        {
            return Err(Error::failed(format!(
                "{cap}: device node {} does not exist",
                root.join(path.trim_start_matches('/')).display()
            ))
            .with_hint(
                "create it with `nvidia-ctk system create-device-nodes` (or nvidia-modprobe)",
            ));
        }
        if self.read && self.host_root.is_none() && !Path::new(&path).exists() {
            return Err(
                Error::failed(format!("{cap}: device node {path} does not exist")).with_hint(
                    "create it with `nvidia-ctk system create-device-nodes` (or nvidia-modprobe)",
                ),
            );
        }
        Ok(path)
    }

    /// A device node with its host path when the root is not `/`, and, when the tree was read
    /// from the node, its numbers and mode as the host node has them.
    pub(crate) fn node(&self, path: &str) -> super::spec::DeviceNode {
        use std::os::unix::fs::{FileTypeExt, MetadataExt};
        let host = self
            .host_root
            .as_ref()
            .map(|r| r.join(path.trim_start_matches('/')));
        let stat = self
            .read
            .then(|| std::fs::metadata(host.as_deref().unwrap_or(Path::new(path))).ok())
            .flatten()
            .filter(|m| m.file_type().is_char_device());
        super::spec::DeviceNode {
            path: path.to_string(),
            host_path: host.map(|h| h.display().to_string()),
            major: stat.as_ref().map(|m| libc::major(m.rdev())),
            minor: stat.as_ref().map(|m| libc::minor(m.rdev())),
            file_mode: stat.as_ref().map(|m| m.mode() & 0o7777),
            permissions: stat.as_ref().map(|_| "rwm".to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_minors_follow_the_driver_numbering() {
        let m = derived_mig_minors([0, 1]);
        assert_eq!(m["gpu0/gi0/access"], 3);
        assert_eq!(m["gpu0/gi0/ci0/access"], 4);
        assert_eq!(m["gpu0/gi1/access"], 12);
        assert_eq!(m["gpu0/gi14/ci7/access"], 137);
        assert_eq!(m["gpu1/gi0/access"], 138);
    }

    #[test]
    fn parses_the_minors_file_leniently() {
        let m = parse_mig_minors("config 1\nmonitor 2\ngpu0/gi1/access 12\nbad line here\nx y\n");
        assert_eq!(m.len(), 3);
        assert_eq!(m["gpu0/gi1/access"], 12);
    }
}
