//! The CUDA environment of each worker: which device it opens, and nothing of the caller's CUDA
//! settings that would change what it measures.
//!
//! - Every `CUDA_*` variable of the caller is removed (a stray `CUDA_MPS_ACTIVE_THREAD_PERCENTAGE`,
//!   `CUDA_MPS_PINNED_DEVICE_MEM_LIMIT` or `CUDA_LAUNCH_BLOCKING` would shrink a share or serialise
//!   the copies), except the JIT cache settings, which change no figure.
//! - A whole GPU or MIG device: `CUDA_VISIBLE_DEVICES=<uuid>`, and `CUDA_MPS_PIPE_DIRECTORY` set to
//!   an empty private directory. Unsetting it is not enough: CUDA then looks in `/tmp/nvidia-mps`,
//!   and a daemon there would take the worker in as an MPS client.
//! - An MPS client: the daemon's `CUDA_MPS_PIPE_DIRECTORY`, and no `CUDA_VISIBLE_DEVICES` (it sees
//!   what the daemon exposes and finds its device by UUID).

use super::protocol::DeviceChoice;
use super::targets::{Target, TargetKind};
use crate::support::error::{Error, Result};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Caller variables a worker keeps: where and whether the driver caches JIT-compiled kernels.
const KEPT: [&str; 3] = [
    "CUDA_CACHE_PATH",
    "CUDA_CACHE_MAXSIZE",
    "CUDA_CACHE_DISABLE",
];

/// How a worker is pointed at its target.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TargetEnv {
    pub device: DeviceChoice,
    pub set: Vec<(String, OsString)>,
    pub remove: Vec<String>,
}

/// The environment policy of one probe run.
#[derive(Debug)]
pub(crate) struct WorkerEnv {
    no_mps_dir: PathBuf,
    caller_cuda: Vec<String>,
}

impl WorkerEnv {
    /// `no_mps_dir`: an empty directory no MPS daemon uses. `caller`: the names of the caller's
    /// environment variables.
    pub(crate) fn new(no_mps_dir: &Path, caller: impl IntoIterator<Item = OsString>) -> WorkerEnv {
        let mut caller_cuda: Vec<String> = caller
            .into_iter()
            .filter_map(|k| k.into_string().ok())
            .filter(|k| k.starts_with("CUDA_") && !KEPT.contains(&k.as_str()))
            .collect();
        caller_cuda.sort();
        caller_cuda.dedup();
        WorkerEnv {
            no_mps_dir: no_mps_dir.to_path_buf(),
            caller_cuda,
        }
    }

    pub(crate) fn for_target(&self, target: &Target) -> TargetEnv {
        let uuid = target.uuid.clone();
        let (device, mut set) = match (&target.mps_pipe_dir, target.kind) {
            (Some(pipe), TargetKind::Mps) => (
                DeviceChoice::ByUuid { uuid },
                vec![(
                    "CUDA_MPS_PIPE_DIRECTORY".to_string(),
                    pipe.clone().into_os_string(),
                )],
            ),
            _ => (
                DeviceChoice::Visible { uuid: uuid.clone() },
                vec![
                    ("CUDA_VISIBLE_DEVICES".to_string(), uuid.into()),
                    (
                        "CUDA_MPS_PIPE_DIRECTORY".to_string(),
                        self.no_mps_dir.clone().into_os_string(),
                    ),
                ],
            ),
        };
        set.push(("CUDA_DEVICE_ORDER".to_string(), "PCI_BUS_ID".into()));
        let mut remove: Vec<String> = self
            .caller_cuda
            .iter()
            .filter(|k| !set.iter().any(|(s, _)| s == *k))
            .cloned()
            .collect();
        if matches!(device, DeviceChoice::ByUuid { .. })
            && !remove.iter().any(|k| k == "CUDA_VISIBLE_DEVICES")
        {
            remove.push("CUDA_VISIBLE_DEVICES".to_string());
        }
        TargetEnv {
            device,
            set,
            remove,
        }
    }
}

/// An empty directory of our own (mode 0700) under the temporary directory, removed on drop:
/// the `CUDA_MPS_PIPE_DIRECTORY` of workers that must not reach any MPS daemon.
#[derive(Debug)]
pub(crate) struct PrivateDir(PathBuf);

impl PrivateDir {
    pub(crate) fn create() -> Result<PrivateDir> {
        use std::os::unix::fs::DirBuilderExt;
        let base = std::env::temp_dir();
        let mut last = None;
        for attempt in 0..100u32 {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos());
            let path = base.join(format!(
                "gpushare-probe-no-mps-{}-{nanos:x}-{attempt}",
                std::process::id()
            ));
            // mkdir never follows or reuses what is there: a name someone planted is skipped.
            match std::fs::DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => return Ok(PrivateDir(path)),
                Err(e) => last = Some(e),
            }
        }
        Err(Error::failed(format!(
            "cannot create a private directory under {} for the probe workers: {}",
            base.display(),
            last.map_or_else(|| "unknown error".into(), |e| e.to_string())
        ))
        .with_hint("set TMPDIR to a writable directory"))
    }

    pub(crate) fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        // Only an empty directory goes; anything a worker left there stays for a person to see.
        let _ = std::fs::remove_dir(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::probe::targets::Promise;

    fn target(kind: TargetKind) -> Target {
        Target {
            kind,
            gpu: 2,
            gpu_uuid: "GPU-g".into(),
            pci_bus_id: "00000000:07:00.0".into(),
            uuid: "MIG-m".into(),
            name: "1g.5gb".into(),
            device_memory_mib: 4864,
            device_multiprocessors: 14,
            mps_pipe_dir: (kind == TargetKind::Mps).then(|| "/run/gpushare/mps/m/pipe".into()),
            local_cpus: None,
            promise: Promise {
                memory_mib: 2432,
                memory_from: "x".into(),
                multiprocessors: None,
                max_multiprocessors: None,
                thread_percentage: None,
                clients: None,
                mps_missing: false,
            },
        }
    }

    fn caller() -> Vec<OsString> {
        [
            "PATH",
            "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
            "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT",
            "CUDA_LAUNCH_BLOCKING",
            "CUDA_VISIBLE_DEVICES",
            "CUDA_CACHE_PATH",
        ]
        .into_iter()
        .map(OsString::from)
        .collect()
    }

    #[test]
    fn mig_workers_see_only_their_device_and_no_mps_daemon() {
        let env = WorkerEnv::new(Path::new("/tmp/empty"), caller());
        let e = env.for_target(&target(TargetKind::Mig));
        assert_eq!(
            e.device,
            DeviceChoice::Visible {
                uuid: "MIG-m".into()
            }
        );
        assert!(
            e.set
                .contains(&("CUDA_VISIBLE_DEVICES".into(), "MIG-m".into()))
        );
        assert!(
            e.set
                .contains(&("CUDA_MPS_PIPE_DIRECTORY".into(), "/tmp/empty".into())),
            "a private empty pipe dir, not an unset one"
        );
        assert_eq!(
            e.remove,
            [
                "CUDA_LAUNCH_BLOCKING",
                "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
                "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT"
            ]
        );
    }

    #[test]
    fn mps_clients_go_through_the_pipe_dir_and_find_their_device() {
        let env = WorkerEnv::new(Path::new("/tmp/empty"), caller());
        let e = env.for_target(&target(TargetKind::Mps));
        assert_eq!(
            e.device,
            DeviceChoice::ByUuid {
                uuid: "MIG-m".into()
            }
        );
        assert!(e.set.contains(&(
            "CUDA_MPS_PIPE_DIRECTORY".into(),
            "/run/gpushare/mps/m/pipe".into()
        )));
        assert!(e.remove.contains(&"CUDA_VISIBLE_DEVICES".to_string()));
        assert!(
            e.remove
                .contains(&"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE".to_string())
        );
        assert!(!e.remove.contains(&"CUDA_CACHE_PATH".to_string()));
        // Without the variable in the caller's environment, it is still never inherited.
        let e = WorkerEnv::new(Path::new("/tmp/empty"), Vec::new())
            .for_target(&target(TargetKind::Mps));
        assert_eq!(e.remove, ["CUDA_VISIBLE_DEVICES"]);
    }

    #[test]
    fn the_private_dir_is_empty_ours_and_goes_away() {
        use std::os::unix::fs::PermissionsExt;
        let dir = PrivateDir::create().unwrap();
        let path = dir.path().to_path_buf();
        let meta = std::fs::metadata(&path).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0o700);
        assert_eq!(std::fs::read_dir(&path).unwrap().count(), 0);
        drop(dir);
        assert!(!path.exists());
    }
}
