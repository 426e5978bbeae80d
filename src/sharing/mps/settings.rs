//! What an MPS daemon is (its devices, limits and directories) and `settings.json`, the record
//! gpushare keeps of each daemon it starts.
//!
//! `<run_dir>/mps/<name>/settings.json` (mode 0600; 0644 with `--multiuser`) is read by `mps status`, `mps stop` and the
//! probe, so its fields are a contract (docs/mps-and-time-slicing.md):
//!
//! ```json
//! {"version": 1, "name": "gpu0-3",
//!  "pipe_dir": "/run/gpushare/mps/gpu0-3/pipe", "log_dir": "/run/gpushare/mps/gpu0-3/log",
//!  "multiuser": false, "clients": 4, "thread_percentage": 25,
//!  "devices": [{"ordinal": 0, "gpu": 0, "uuid": "GPU-…", "name": "Tesla T4", "mig": null,
//!               "memory_mib": 15360, "memory_limit_mib": 3840, "client_cap": 48,
//!               "previous_compute_mode": "default"}],
//!  "created_dirs": ["/run/gpushare/mps/gpu0-3/pipe", "…"]}
//! ```
//!
//! `ordinal` is the device's CUDA ordinal inside the daemon: its place in the daemon's
//! `CUDA_VISIBLE_DEVICES`, which is what its clients see and what the memory limits are keyed by.

use super::limits::{MpsRequest, MpsTarget};
use crate::node::backend::DeviceRef;
use crate::node::model::{ComputeInstance, ComputeMode, Gpu, GpuInstance, Node};
use crate::support::error::{Error, Result};
use crate::support::paths::Paths;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub(crate) const SETTINGS_VERSION: u32 = 1;
pub(crate) const SETTINGS_FILE: &str = "settings.json";
/// What a start is about to do, written before it changes anything (devices, the compute modes
/// to go back to, the directories it made) and removed once `settings.json` is written: a start
/// that dies between the two leaves it for the next run, which stops what it began.
pub(crate) const STARTING_FILE: &str = "starting.json";

/// A MIG device's place in its GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MigDeviceId {
    pub gpu_instance_id: u32,
    pub compute_instance_id: u32,
}

/// One device a daemon serves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DaemonDevice {
    /// CUDA ordinal inside the daemon (its place in `CUDA_VISIBLE_DEVICES`).
    pub ordinal: u32,
    /// NVML index of the GPU.
    pub gpu: u32,
    /// `GPU-…`, or `MIG-…` for a MIG device.
    pub uuid: String,
    /// The GPU model.
    pub name: String,
    pub mig: Option<MigDeviceId>,
    /// Memory of the device (the MIG instance's for a MIG device).
    pub memory_mib: u64,
    /// Pinned device memory per client; `None`: no limit.
    pub memory_limit_mib: Option<u64>,
    /// Most clients the device takes.
    pub client_cap: u32,
    /// Compute mode before gpushare set EXCLUSIVE_PROCESS (known once started).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_compute_mode: Option<ComputeMode>,
}

impl DaemonDevice {
    pub(crate) fn device_ref(&self) -> DeviceRef {
        match self.mig {
            None => DeviceRef::Gpu(self.gpu),
            Some(m) => DeviceRef::Mig {
                gpu: self.gpu,
                gpu_instance_id: m.gpu_instance_id,
                compute_instance_id: m.compute_instance_id,
            },
        }
    }

    /// `GPU 2` or `MIG device 0:1:0`.
    pub(crate) fn describe(&self) -> String {
        self.device_ref().to_string()
    }
}

/// The compute mode of a device on `node`; `None` when it is not there.
pub(crate) fn compute_mode_of(node: &Node, device: DeviceRef) -> Option<ComputeMode> {
    let gpu = node.gpu(device.gpu())?;
    match device {
        DeviceRef::Gpu(_) => gpu.compute_mode,
        DeviceRef::Mig {
            gpu_instance_id,
            compute_instance_id,
            ..
        } => gpu
            .instance(gpu_instance_id)?
            .compute_instances
            .iter()
            .find(|c| c.compute_instance_id == compute_instance_id)
            .and_then(|c| c.compute_mode),
    }
}

impl DaemonDevice {
    /// Whether the device is still on `node` under the same UUID (a re-created MIG device gets a
    /// new one).
    pub(crate) fn present_on(&self, node: &Node) -> bool {
        let Some(gpu) = node.gpu(self.gpu) else {
            return false;
        };
        match self.mig {
            None => gpu.uuid == self.uuid,
            Some(m) => gpu.instance(m.gpu_instance_id).is_some_and(|gi| {
                gi.compute_instances.iter().any(|c| {
                    c.compute_instance_id == m.compute_instance_id
                        && c.uuid.as_deref() == Some(self.uuid.as_str())
                })
            }),
        }
    }
}

/// A daemon: what `mps start` makes, and what `settings.json` records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DaemonSpec {
    pub version: u32,
    pub name: String,
    pub pipe_dir: PathBuf,
    pub log_dir: PathBuf,
    /// Started with `-multiuser-server`: clients of every user share one server.
    pub multiuser: bool,
    /// The equal share asked for, when it was.
    pub clients: Option<u32>,
    /// Default active thread percentage of the daemon's servers; `None`: the daemon's 100.
    pub thread_percentage: Option<u32>,
    pub devices: Vec<DaemonDevice>,
    /// Directories gpushare created for the daemon; `mps stop` removes them (and nothing else).
    #[serde(default)]
    pub created_dirs: Vec<PathBuf>,
}

/// Where a daemon's directories go: defaults under the run dir, or given.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DirChoice<'a> {
    pub paths: &'a Paths,
    pub pipe_dir: Option<&'a Path>,
    pub log_dir: Option<&'a Path>,
}

/// `<run_dir>/mps`: one directory per daemon.
pub(crate) fn mps_dir(paths: &Paths) -> PathBuf {
    paths.run_dir().join("mps")
}

/// `<run_dir>/mps/<name>`.
pub(crate) fn daemon_dir(paths: &Paths, name: &str) -> PathBuf {
    mps_dir(paths).join(name)
}

/// The name of the daemon for whole GPUs: `gpu0-3`, `gpu0_2`, `gpu1`.
pub(crate) fn whole_gpu_name(gpus: &[u32]) -> String {
    let mut sorted = gpus.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut runs: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        let mut end = start;
        while i + 1 < sorted.len() && sorted[i + 1] == end + 1 {
            i += 1;
            end = sorted[i];
        }
        runs.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    format!("gpu{}", runs.join("_"))
}

/// The name of a MIG device's daemon: `gpu0-gi1-ci0`.
pub(crate) fn mig_name(gpu: u32, gpu_instance_id: u32, compute_instance_id: u32) -> String {
    format!("gpu{gpu}-gi{gpu_instance_id}-ci{compute_instance_id}")
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

impl DaemonSpec {
    fn new(name: String, dirs: DirChoice, request: &MpsRequest, multiuser: bool) -> Self {
        let home = daemon_dir(dirs.paths, &name);
        DaemonSpec {
            version: SETTINGS_VERSION,
            pipe_dir: dirs.pipe_dir.map_or_else(|| home.join("pipe"), absolute),
            log_dir: dirs.log_dir.map_or_else(|| home.join("log"), absolute),
            name,
            multiuser,
            clients: request.clients,
            thread_percentage: request.thread_percentage(),
            devices: Vec::new(),
            created_dirs: Vec::new(),
        }
    }

    /// One daemon for whole GPUs (MIG disabled), ordinals in the given order.
    pub(crate) fn for_gpus(
        gpus: &[(&Gpu, MpsTarget)],
        request: &MpsRequest,
        dirs: DirChoice,
        multiuser: bool,
    ) -> Self {
        let indexes: Vec<u32> = gpus.iter().map(|(g, _)| g.index).collect();
        let mut spec = Self::new(whole_gpu_name(&indexes), dirs, request, multiuser);
        for (ordinal, (gpu, target)) in gpus.iter().enumerate() {
            spec.devices.push(DaemonDevice {
                ordinal: ordinal as u32,
                gpu: gpu.index,
                uuid: gpu.uuid.clone(),
                name: gpu.name.clone(),
                mig: None,
                memory_mib: target.memory_mib,
                memory_limit_mib: request.memory_limit_mib(target.memory_mib),
                client_cap: target.client_cap,
                previous_compute_mode: None,
            });
        }
        spec
    }

    /// One daemon for one MIG device (`CUDA_VISIBLE_DEVICES=MIG-…`, ordinal 0); an error when the
    /// driver does not say the MIG device's UUID, which the daemon is started with.
    pub(crate) fn for_mig_device(
        gpu: &Gpu,
        gi: &GpuInstance,
        ci: &ComputeInstance,
        target: &MpsTarget,
        request: &MpsRequest,
        dirs: DirChoice,
        multiuser: bool,
    ) -> Result<Self> {
        let uuid = gpu.mig_uuid(gi, ci)?.to_string();
        let name = mig_name(gpu.index, gi.gpu_instance_id, ci.compute_instance_id);
        let mut spec = Self::new(name, dirs, request, multiuser);
        spec.devices.push(DaemonDevice {
            ordinal: 0,
            gpu: gpu.index,
            uuid,
            name: gpu.name.clone(),
            mig: Some(MigDeviceId {
                gpu_instance_id: gi.gpu_instance_id,
                compute_instance_id: ci.compute_instance_id,
            }),
            memory_mib: target.memory_mib,
            memory_limit_mib: request.memory_limit_mib(target.memory_mib),
            client_cap: target.client_cap,
            previous_compute_mode: None,
        });
        Ok(spec)
    }

    /// `CUDA_VISIBLE_DEVICES` of the daemon.
    pub(crate) fn visible_devices(&self) -> String {
        self.devices
            .iter()
            .map(|d| d.uuid.as_str())
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Whether a running daemon recorded as `self` does what `wanted` asks.
    pub(crate) fn same_settings(&self, wanted: &DaemonSpec) -> bool {
        let key = |s: &DaemonSpec| {
            (
                s.name.clone(),
                s.pipe_dir.clone(),
                s.log_dir.clone(),
                s.multiuser,
                s.thread_percentage,
                s.devices
                    .iter()
                    .map(|d| (d.ordinal, d.uuid.clone(), d.memory_limit_mib))
                    .collect::<Vec<_>>(),
            )
        };
        key(self) == key(wanted)
    }

    pub(crate) fn serves_gpu(&self, gpu: u32) -> bool {
        self.devices.iter().any(|d| d.gpu == gpu)
    }

    /// Devices served by both daemons (`GPU 1`, `MIG device 0:1:0`).
    pub(crate) fn overlap(&self, other: &DaemonSpec) -> Vec<String> {
        self.devices
            .iter()
            .filter(|d| {
                other.devices.iter().any(|o| {
                    o.uuid == d.uuid || (o.gpu == d.gpu && (o.mig.is_none() || d.mig.is_none()))
                })
            })
            .map(DaemonDevice::describe)
            .collect()
    }

    /// `GPU 0, GPU 1` or `MIG device 0:1:0`.
    pub(crate) fn describe_devices(&self) -> String {
        self.devices
            .iter()
            .map(DaemonDevice::describe)
            .collect::<Vec<_>>()
            .join(", ")
    }

    pub(crate) fn settings_path(&self, paths: &Paths) -> PathBuf {
        daemon_dir(paths, &self.name).join(SETTINGS_FILE)
    }

    /// Remove what gpushare made for the daemon (its own directory, and the given pipe and log
    /// directories when it made them); returns what could not be removed.
    pub(crate) fn remove_dirs(&self, paths: &Paths) -> Vec<String> {
        super::dirs::remove(
            &daemon_dir(paths, &self.name),
            &[self.pipe_dir.as_path(), self.log_dir.as_path()],
            &self.created_dirs,
        )
    }

    /// Write `settings.json` atomically: 0600, or 0644 for a `--multiuser` daemon whose clients
    /// may read their limits (gpushare itself reads it as root). The start it records is then
    /// complete: its `starting.json` goes.
    pub(crate) fn write(&self, paths: &Paths) -> Result<()> {
        self.write_as(&self.settings_path(paths))?;
        let starting = daemon_dir(paths, &self.name).join(STARTING_FILE);
        match std::fs::remove_file(&starting) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(Error::failed(format!(
                "cannot remove {}: {e}",
                starting.display()
            ))),
        }
    }

    /// Write `starting.json`, before a start changes anything.
    pub(crate) fn write_starting(&self, paths: &Paths) -> Result<()> {
        self.write_as(&daemon_dir(paths, &self.name).join(STARTING_FILE))
    }

    fn write_as(&self, path: &Path) -> Result<()> {
        let mut json = serde_json::to_string_pretty(self)
            .map_err(|e| Error::failed(format!("cannot write {}: {e}", path.display())))?;
        json.push('\n');
        let mode = super::dirs::Modes::of(self.multiuser).settings;
        crate::support::fsutil::write_atomic(path, json.as_bytes(), mode)
            .map_err(|e| Error::failed(format!("cannot write {}: {e}", path.display())))
    }
}

/// Every daemon gpushare has a record of, sorted by name.
pub(crate) fn load_all(paths: &Paths) -> Result<Vec<DaemonSpec>> {
    let dir = mps_dir(paths);
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(Error::failed(format!("cannot read {}: {e}", dir.display())));
        }
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path().join(SETTINGS_FILE);
        if !path.is_file() {
            continue;
        }
        out.push(load(&path)?);
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// The daemon directories under `<run_dir>/mps` that hold no record: what a start that did not
/// finish leaves (its directories, maybe a daemon listening in its pipe directory). What it was
/// about to do is in its `starting.json`; without one (it died before writing it, and before
/// changing a compute mode) only the name and the default directories are known. Sorted by
/// name.
pub(crate) fn orphans(paths: &Paths) -> Result<Vec<DaemonSpec>> {
    let dir = mps_dir(paths);
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(Error::failed(format!("cannot read {}: {e}", dir.display())));
        }
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        // gpushare's own directories only: a link is never followed.
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        if !is_dir || entry.path().join(SETTINGS_FILE).symlink_metadata().is_ok() {
            continue;
        }
        let home = entry.path();
        let starting = home.join(STARTING_FILE);
        if starting.symlink_metadata().is_ok() {
            out.push(load(&starting)?);
            continue;
        }
        out.push(DaemonSpec {
            version: SETTINGS_VERSION,
            pipe_dir: home.join("pipe"),
            log_dir: home.join("log"),
            name,
            multiuser: false,
            clients: None,
            thread_percentage: None,
            devices: Vec::new(),
            created_dirs: Vec::new(),
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

fn load(path: &Path) -> Result<DaemonSpec> {
    let broken = |message: String, position: Option<(usize, usize)>| {
        Error::in_file(path, position, message).with_hint(format!(
            "it is written by `gpushare mps start`; if no daemon uses it, remove {}",
            path.parent().unwrap_or(path).display()
        ))
    };
    let text =
        crate::support::fsutil::read_own_text(path, crate::support::source_file::MAX_INPUT_BYTES)
            .and_then(|t| t.ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound)))
            .map_err(|e| Error::failed(format!("cannot read {}: {e}", path.display())))?;
    let spec: DaemonSpec = serde_json::from_str(&text).map_err(|e| {
        broken(
            format!("not a gpushare MPS settings file: {e}"),
            Some((e.line(), e.column())),
        )
    })?;
    if spec.version != SETTINGS_VERSION {
        return Err(broken(
            format!(
                "settings version {} is not {SETTINGS_VERSION}",
                spec.version
            ),
            None,
        ));
    }
    let expected = path.parent().and_then(Path::file_name);
    if expected.is_none_or(|n| n != spec.name.as_str()) {
        return Err(broken(
            format!("names the daemon `{}`, not its directory", spec.name),
            None,
        ));
    }
    Ok(spec)
}

#[cfg(test)]
mod tests;
