//! The device nodes of the GPUs and MIG devices: read under a root directory on a real node, or
//! derived the way the driver numbers them on a simulated one.

use crate::node::model::Gpu;
use crate::support::error::{Error, Result};
use crate::support::fsutil::in_root::InRoot;
use crate::support::fsutil::own::kind_of;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
    /// Where the host's `/` is mounted when gpushare runs in a container: the roots are read
    /// under it, and the spec's host paths are the host's, without it.
    #[serde(default)]
    pub host_root: Option<PathBuf>,
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
    /// The root the nodes are read under (`/` on a node); `None`: derived for a simulated node.
    pub root: Option<Arc<InRoot>>,
    /// Control nodes present.
    pub control: Vec<String>,
    /// GPU index → minor number (`/dev/nvidia<minor>`).
    pub gpu_minors: BTreeMap<u32, u32>,
    pub mig_minors: MigMinors,
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

/// The NVIDIA driver's fixed major (`nvidia-frontend`): the GPUs, `nvidiactl` and
/// `nvidia-modeset` are its character devices. The UVM and capability majors are dynamic.
const NVIDIA_MAJOR: u32 = 195;

fn create_nodes_hint() -> &'static str {
    "create the device nodes with `nvidia-modprobe` or `nvidia-ctk system create-device-nodes` (`gpushare manifests --dev-root DIR` reads them under another root)"
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
                root: None,
                control: CONTROL_NODES.iter().map(|s| s.to_string()).collect(),
                mig_minors: derived_mig_minors(gpu_minors.values().copied()),
                gpu_minors,
            });
        };
        let root = InRoot::open(&root)
            .map_err(|e| Error::usage(format!("--dev-root {}: {e}", root.display())))?;
        let mut tree = DeviceTree {
            root: Some(Arc::new(root)),
            control: Vec::new(),
            gpu_minors: BTreeMap::new(),
            mig_minors: MigMinors::new(),
        };
        let in_root = tree.root.clone().expect("read above");
        // A control node that is there must be a device; nvidiactl must be there at all.
        for path in CONTROL_NODES {
            match tree.node(path) {
                Ok(_) => tree.control.push(path.to_string()),
                Err(e) if e.message.ends_with(MISSING) && path != "/dev/nvidiactl" => {}
                Err(e) => return Err(e.context("the driver's control node")),
            }
        }
        for g in gpus {
            let minor = crate::node::model::minor::gpu_minor(in_root.path(), g)?.unwrap_or(g.index);
            tree.node(&format!("/dev/nvidia{minor}"))
                .map_err(|e| e.context(format!("GPU {} ({})", g.index, g.pci_bus_id)))?;
            tree.gpu_minors.insert(g.index, minor);
        }
        let uses_mig = gpus
            .iter()
            .any(|g| g.mig.instances.as_ref().is_none_or(|list| !list.is_empty()));
        let minors_file = in_root.path().join("proc/driver/nvidia-caps/mig-minors");
        let hint = "the MIG capability minors come from the nvidia driver (nvidia-caps); is the driver loaded?";
        tree.mig_minors = match crate::support::fsutil::read_host(&minors_file) {
            Ok(Some(text)) => parse_mig_minors(&text),
            Ok(None) if !uses_mig => MigMinors::new(),
            Ok(None) => {
                return Err(Error::failed(format!(
                    "cannot read {}: it does not exist",
                    minors_file.display()
                ))
                .with_hint(hint));
            }
            Err(e) => {
                return Err(
                    Error::failed(format!("cannot read {}: {e}", minors_file.display()))
                        .with_hint(hint),
                );
            }
        };
        Ok(tree)
    }
}

/// How [`DeviceTree::node`] ends the message of a node that is not there.
const MISSING: &str = "does not exist";

impl DeviceTree {
    /// Whether the tree was read from the node (false: derived for a simulated node).
    pub(crate) fn read(&self) -> bool {
        self.root.is_some()
    }

    /// The device node of a MIG capability.
    pub(crate) fn cap_node(&self, cap: &str) -> Result<super::spec::DeviceNode> {
        let minor = self.mig_minors.get(cap).ok_or_else(|| {
            Error::failed(format!("the MIG capability {cap} has no minor in mig-minors"))
                .with_hint("the driver lists every capability of its MIG devices; re-read the node after the MIG change")
        })?;
        self.node(&format!("/dev/nvidia-caps/nvidia-cap{minor}"))
            .map_err(|e| e.context(cap))
    }

    /// A device node. Read from the node, it is resolved inside the root and must be a character
    /// device (of the NVIDIA driver's major for the GPUs and control nodes); it gets the host
    /// path it resolved to when that is not its own path, and its numbers and mode.
    pub(crate) fn node(&self, path: &str) -> Result<super::spec::DeviceNode> {
        use std::os::unix::fs::{FileTypeExt, MetadataExt};
        let Some(root) = &self.root else {
            return Ok(super::spec::DeviceNode {
                path: path.to_string(),
                ..Default::default()
            });
        };
        let shown = root.path().join(path.trim_start_matches('/'));
        let found = root
            .find(path)
            .map_err(|e| Error::failed(format!("device node {e}")).with_hint(create_nodes_hint()))?
            .ok_or_else(|| {
                Error::failed(format!("device node {} {MISSING}", shown.display()))
                    .with_hint(create_nodes_hint())
            })?;
        let meta = &found.meta;
        if !meta.file_type().is_char_device() {
            return Err(Error::failed(format!(
                "device node {} is {}, not a character device",
                shown.display(),
                kind_of(meta)
            ))
            .with_hint(create_nodes_hint()));
        }
        let (major, minor) = (libc::major(meta.rdev()), libc::minor(meta.rdev()));
        let frontend = path
            .strip_prefix("/dev/nvidia")
            .is_some_and(|rest| rest == "ctl" || rest == "-modeset" || rest.parse::<u32>().is_ok());
        if frontend && major != NVIDIA_MAJOR {
            return Err(Error::failed(format!(
                "device node {} is the device {major}:{minor}, not one of the NVIDIA driver's ({NVIDIA_MAJOR}:*)",
                shown.display()
            ))
            .with_hint(create_nodes_hint()));
        }
        Ok(super::spec::DeviceNode {
            path: path.to_string(),
            host_path: (found.path != Path::new(path)).then(|| found.path.display().to_string()),
            major: Some(major),
            minor: Some(minor),
            file_mode: Some(meta.mode() & 0o7777),
            permissions: Some("rwm".to_string()),
        })
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
