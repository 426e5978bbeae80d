//! Which VFIO device nodes processes hold open: a VM (QEMU) opens its vGPU's IOMMU group
//! (`/dev/vfio/<group>`) or its VFIO cdev (`/dev/vfio/devices/vfioN`) for as long as it runs.
//!
//! Read from `/proc/<pid>/fd` under the sysfs root; other users' fds need root to read.

use super::host::Opener;
use super::sysfs::{SysfsRoot, link_name, list_dir, read_attr};
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Clone, Default)]
pub(crate) struct OpenVfioNodes {
    /// `/dev/vfio/...` path → processes holding it.
    by_path: BTreeMap<String, Vec<Opener>>,
    /// False when some process's fds could not be read.
    pub complete: bool,
}

impl OpenVfioNodes {
    pub(crate) fn scan(root: &SysfsRoot) -> OpenVfioNodes {
        let mut nodes = OpenVfioNodes {
            by_path: BTreeMap::new(),
            complete: true,
        };
        let proc_dir = root.path("/proc");
        let Ok(pids) = list_dir(&proc_dir) else {
            nodes.complete = false;
            return nodes;
        };
        for pid in pids.iter().filter_map(|p| p.parse::<u32>().ok()) {
            let fd_dir = proc_dir.join(pid.to_string()).join("fd");
            let fds = match std::fs::read_dir(&fd_dir) {
                Ok(fds) => fds,
                // The process ended while we looked.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(_) => {
                    nodes.complete = false;
                    continue;
                }
            };
            let mut opened: Vec<String> = fds
                .flatten()
                .filter_map(|fd| std::fs::read_link(fd.path()).ok())
                .map(|t| t.to_string_lossy().into_owned())
                .filter(|t| t.starts_with("/dev/vfio/"))
                .collect();
            opened.sort();
            opened.dedup();
            if opened.is_empty() {
                continue;
            }
            let name = read_attr(&proc_dir.join(pid.to_string()).join("comm"))
                .ok()
                .flatten()
                .unwrap_or_else(|| "?".into());
            for path in opened {
                nodes.by_path.entry(path).or_default().push(Opener {
                    pid,
                    name: name.clone(),
                });
            }
        }
        nodes
    }

    /// Processes that hold a device open, given its sysfs directory: through its IOMMU group or
    /// through one of its `vfio-dev/vfioN` cdevs.
    pub(crate) fn openers_of(&self, device_dir: &Path) -> Vec<Opener> {
        let mut paths = Vec::new();
        if let Some(group) = link_name(&device_dir.join("iommu_group")) {
            paths.push(format!("/dev/vfio/{group}"));
        }
        for cdev in list_dir(&device_dir.join("vfio-dev")).unwrap_or_default() {
            paths.push(format!("/dev/vfio/devices/{cdev}"));
        }
        let mut out: Vec<Opener> = paths
            .iter()
            .filter_map(|p| self.by_path.get(p))
            .flatten()
            .cloned()
            .collect();
        out.sort_by_key(|o| o.pid);
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn finds_the_vm_holding_a_group_or_a_cdev() {
        let dir = tempfile::tempdir().unwrap();
        let root = SysfsRoot::new(dir.path());
        let groups = root.path("/sys/kernel/iommu_groups");
        std::fs::create_dir_all(groups.join("42")).unwrap();
        let mdev = dir.path().join("mdev");
        std::fs::create_dir_all(&mdev).unwrap();
        symlink(groups.join("42"), mdev.join("iommu_group")).unwrap();
        let vf = dir.path().join("vf");
        std::fs::create_dir_all(vf.join("vfio-dev/vfio7")).unwrap();

        let qemu = root.path("/proc/4242");
        std::fs::create_dir_all(qemu.join("fd")).unwrap();
        std::fs::write(qemu.join("comm"), "qemu-system-x86\n").unwrap();
        symlink("/dev/vfio/42", qemu.join("fd/31")).unwrap();
        symlink("/dev/vfio/devices/vfio7", qemu.join("fd/32")).unwrap();
        symlink("/dev/null", qemu.join("fd/0")).unwrap();
        std::fs::create_dir_all(root.path("/proc/self-ish")).unwrap();

        let open = OpenVfioNodes::scan(&root);
        assert!(open.complete);
        let holders = open.openers_of(&mdev);
        assert_eq!(
            holders,
            vec![Opener {
                pid: 4242,
                name: "qemu-system-x86".into()
            }]
        );
        assert_eq!(open.openers_of(&vf).len(), 1);
        assert!(open.openers_of(&dir.path().join("nothing")).is_empty());
    }
}
