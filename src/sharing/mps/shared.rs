//! Shares of MPS daemons held by DRA claims: the record gpushare's DRA plugin keeps of each
//! claim's shares (`<lib>/dra-plugin/shares/<claim uid>.json`), written before its daemon is
//! started and removed by its unprepare. The plugin starts a shared device's daemon for its
//! first share, keeps it running while any share is recorded, and stops it after the last;
//! every plan reads the records, and one that would stop a daemon claims share is blocked.

use crate::node::model::{Node, Owner};
use crate::support::error::Result;
use crate::support::fsutil::claim_records;
use crate::support::paths::Paths;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// One share of a device a claim was allocated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Share {
    /// The claim, `namespace/name`.
    pub claim: String,
    /// The driver's device name, and the device's UUID (`GPU-…`, `MIG-…`).
    pub device: String,
    pub uuid: String,
    /// The MPS daemon that serves it.
    pub daemon: String,
    /// The scheduler's share ID of the allocation.
    pub share_id: String,
    /// The client's pinned device memory limit and active thread percentage.
    pub memory_mib: u64,
    pub thread_percentage: u32,
    /// The pods the claim was reserved for when it was prepared.
    pub pods: Vec<String>,
}

impl Share {
    /// The memory its pods' processes use on its device now, MiB: unknown (None) when a process
    /// there has no known owner or memory (whose processes are was not read, or not said).
    pub(crate) fn used_mib(&self, node: &Node) -> Option<u64> {
        let (gpu, mig) = node.gpus.iter().find_map(|g| {
            if g.uuid == self.uuid {
                return Some((g, None));
            }
            g.mig.instances.iter().flatten().find_map(|gi| {
                gi.compute_instances
                    .iter()
                    .find(|ci| ci.uuid.as_deref() == Some(self.uuid.as_str()))
                    .map(|ci| (g, Some((gi.gpu_instance_id, ci.compute_instance_id))))
            })
        })?;
        let namespace = self.claim.split_once('/').map(|(ns, _)| ns)?;
        let mut used = 0;
        for p in gpu.processes.as_ref()? {
            if mig.is_some_and(|(gi, ci)| {
                p.gpu_instance_id != Some(gi) || p.compute_instance_id != Some(ci)
            }) {
                continue;
            }
            match p.owner.as_ref()? {
                Owner::Pod(pc)
                    if pc.namespace.as_deref() == Some(namespace)
                        && pc.pod.as_ref().is_some_and(|pod| self.pods.contains(pod)) =>
                {
                    used += p.used_memory_mib?;
                }
                _ => {}
            }
        }
        Some(used)
    }
}

fn dir(paths: &Paths) -> PathBuf {
    paths.lib_dir().join("dra-plugin/shares")
}

/// Claim `uid`'s shares (none when it has none).
pub(crate) fn recorded(paths: &Paths, uid: &str) -> Result<Vec<Share>> {
    claim_records::read(&dir(paths), uid)
}

/// Every share held, with its claim's UID.
pub(crate) fn all(paths: &Paths) -> Result<Vec<(String, Share)>> {
    claim_records::all(&dir(paths))
}

/// Record claim `uid`'s shares; none: the record goes.
pub(crate) fn record(paths: &Paths, uid: &str, shares: &[Share]) -> Result<()> {
    claim_records::write(&dir(paths), uid, shares)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_round_trip_by_claim() {
        let root = tempfile::tempdir().unwrap();
        let paths = Paths::new(Some(root.path().to_path_buf()));
        let share = Share {
            claim: "default/a".into(),
            device: "gpu-7".into(),
            uuid: "GPU-7".into(),
            daemon: "gpu7".into(),
            share_id: "f00d".into(),
            memory_mib: 10240,
            thread_percentage: 25,
            pods: vec!["p".into()],
        };
        let uid = "0b6f0c9e-3a51-4c55-9a5e-1f0e0d8c7b6a";
        record(&paths, uid, std::slice::from_ref(&share)).unwrap();
        assert_eq!(recorded(&paths, uid).unwrap(), vec![share.clone()]);
        assert_eq!(all(&paths).unwrap(), vec![(uid.to_string(), share)]);
        record(&paths, uid, &[]).unwrap();
        assert!(all(&paths).unwrap().is_empty());
        assert!(recorded(&paths, "../x").is_err());
    }
}
