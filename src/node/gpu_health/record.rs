//! The health record (`/var/lib/gpushare/health.json`): what the watch heard of each GPU, kept
//! by its UUID, and when gpushare last reset it. Per GPU and per cause (an Xid or an ECC error,
//! on the GPU or one MIG device): how many, first and last seen. Bounded: at most
//! [`MAX_GPUS`] GPUs and [`MAX_CAUSES`] causes each (the longest quiet goes first).
//!
//! Written by the watch (the agent, `gpushare metrics --listen`) and by the pipeline after a
//! reset, each under an flock of `health.lock`; read by `detect`, `doctor` and the metrics.

use crate::node::backend::events::{Cause, DeviceEvent};
use crate::support::error::{Error, Result};
use crate::support::fsutil;
use crate::support::paths::Paths;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::path::PathBuf;

pub(crate) const VERSION: u32 = 1;
pub(crate) const MAX_GPUS: usize = 64;
pub(crate) const MAX_CAUSES: usize = 64;
/// Far more than [`MAX_GPUS`] × [`MAX_CAUSES`] records take.
const MAX_BYTES: u64 = 4 << 20;
const MODE: u32 = 0o644;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct HealthRecord {
    pub version: u32,
    /// The watch that keeps the record: when it last said it was listening.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watch: Option<WatchMark>,
    /// By GPU UUID.
    #[serde(default)]
    pub gpus: BTreeMap<String, GpuRecord>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WatchMark {
    pub pid: u32,
    pub since: f64,
    /// Renewed every [`crate::node::gpu_health::listener::MARK_EVERY`] while it listens.
    pub alive_at: f64,
    /// GPUs the driver delivers no health events for, with why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unwatched: Vec<(u32, String)>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GpuRecord {
    /// The GPU's index when it was last heard of.
    pub index: u32,
    #[serde(default)]
    pub causes: Vec<CauseRecord>,
    /// When gpushare last reset the GPU: what came before is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reset_at: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CauseRecord {
    pub cause: Cause,
    /// The MIG device (GPU instance, compute instance); None: the whole GPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mig_device: Option<(u32, u32)>,
    pub count: u64,
    pub first_at: f64,
    pub last_at: f64,
}

impl HealthRecord {
    pub(crate) fn path(paths: &Paths) -> PathBuf {
        paths.lib_dir().join("health.json")
    }

    /// The record; None when no watch has written one.
    pub(crate) fn load(paths: &Paths) -> Result<Option<HealthRecord>> {
        let path = Self::path(paths);
        let text = fsutil::read_own_text(&path, MAX_BYTES)
            .map_err(|e| Error::failed(format!("cannot read {}: {e}", path.display())))?;
        let Some(text) = text else { return Ok(None) };
        let record: HealthRecord = serde_json::from_str(&text).map_err(|e| {
            Error::failed(format!("cannot read {}: {e}", path.display()))
                .with_hint("it is gpushare's own file; move it away and the watch starts a new one")
        })?;
        if record.version != VERSION {
            return Err(Error::failed(format!(
                "{} is version {}, this gpushare reads version {VERSION}",
                path.display(),
                record.version
            )));
        }
        // The bounds hold for what is read too: a file written by anything else keeps them.
        let mut record = record;
        record.bound();
        Ok(Some(record))
    }

    /// Change the record under its lock, and write it back.
    pub(crate) fn update(paths: &Paths, change: impl FnOnce(&mut HealthRecord)) -> Result<()> {
        let dir = paths.lib_dir();
        fsutil::own_dir(&dir, 0o755)?;
        let lock_path = dir.join("health.lock");
        let lock = fsutil::open_own_file(
            &lock_path,
            OpenOptions::new().create(true).truncate(false).write(true),
        )
        .map_err(|e| Error::failed(format!("cannot open {}: {e}", lock_path.display())))?;
        lock.lock()
            .map_err(|e| Error::failed(format!("cannot lock {}: {e}", lock_path.display())))?;
        let mut record = Self::load(paths)?.unwrap_or(HealthRecord {
            version: VERSION,
            ..HealthRecord::default()
        });
        change(&mut record);
        record.bound();
        let path = Self::path(paths);
        let text = serde_json::to_vec(&record)
            .map_err(|e| Error::failed(format!("cannot write {}: {e}", path.display())))?;
        fsutil::write_atomic(&path, &text, MODE)
            .map_err(|e| Error::failed(format!("cannot write {}: {e}", path.display())))
    }

    /// Add events heard at `at`.
    pub(crate) fn add(&mut self, events: &[DeviceEvent], at: f64) {
        for e in events {
            let gpu = self.gpus.entry(e.uuid.clone()).or_default();
            gpu.index = e.gpu;
            match gpu
                .causes
                .iter_mut()
                .find(|c| c.cause == e.cause && c.mig_device == e.mig_device)
            {
                Some(c) => {
                    c.count = c.count.saturating_add(1);
                    c.last_at = at;
                }
                None => gpu.causes.push(CauseRecord {
                    cause: e.cause,
                    mig_device: e.mig_device,
                    count: 1,
                    first_at: at,
                    last_at: at,
                }),
            }
        }
    }

    /// gpushare reset these GPUs at `at`.
    pub(crate) fn reset(&mut self, uuids: &[String], at: f64) {
        for uuid in uuids {
            if let Some(gpu) = self.gpus.get_mut(uuid) {
                gpu.reset_at = Some(at);
            }
        }
    }

    /// Keep within [`MAX_GPUS`] and [`MAX_CAUSES`]: what was heard of longest ago goes first.
    /// A cause listed twice for the same device is one.
    fn bound(&mut self) {
        for gpu in self.gpus.values_mut() {
            let mut merged: Vec<CauseRecord> = Vec::with_capacity(gpu.causes.len().min(MAX_CAUSES));
            let mut at: std::collections::HashMap<(Cause, Option<(u32, u32)>), usize> =
                std::collections::HashMap::new();
            for c in gpu.causes.drain(..) {
                match at.get(&(c.cause, c.mig_device)) {
                    Some(&i) => {
                        let m = &mut merged[i];
                        m.count = m.count.saturating_add(c.count);
                        m.first_at = m.first_at.min(c.first_at);
                        m.last_at = m.last_at.max(c.last_at);
                    }
                    None => {
                        at.insert((c.cause, c.mig_device), merged.len());
                        merged.push(c);
                    }
                }
            }
            gpu.causes = merged;
            gpu.causes.sort_by(|a, b| b.last_at.total_cmp(&a.last_at));
            gpu.causes.truncate(MAX_CAUSES);
        }
        while self.gpus.len() > MAX_GPUS {
            let last_heard = |g: &GpuRecord| g.causes.first().map_or(0.0, |c| c.last_at);
            let Some(oldest) = self
                .gpus
                .iter()
                .min_by(|a, b| last_heard(a.1).total_cmp(&last_heard(b.1)))
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            self.gpus.remove(&oldest);
        }
    }
}

/// The record's faults as a reader (the agent) last saw them, so that a change made outside it
/// (`gpushare recover` run by hand records a reset) is noticed without a new event. The file
/// is looked at (stat) each turn of the loop and read only when it was rewritten.
#[derive(Debug, Default)]
pub(crate) struct RecordSeen {
    file: Option<(u64, u64, i64, i64, i64, i64, u64)>,
    gpus: Option<BTreeMap<String, GpuRecord>>,
}

impl RecordSeen {
    /// Whether the record's faults or resets changed since the last call (not the watch's
    /// own liveness marks); the first call only learns them.
    pub(crate) fn changed(&mut self, paths: &Paths) -> bool {
        use std::os::unix::fs::MetadataExt;
        let file = std::fs::metadata(HealthRecord::path(paths)).ok().map(|m| {
            (
                m.dev(),
                m.ino(),
                m.mtime(),
                m.mtime_nsec(),
                m.ctime(),
                m.ctime_nsec(),
                m.size(),
            )
        });
        if file == self.file {
            return false;
        }
        self.file = file;
        let Ok(record) = HealthRecord::load(paths) else {
            return false;
        };
        let gpus = record.map(|r| r.gpus).unwrap_or_default();
        let changed = self.gpus.as_ref().is_some_and(|seen| *seen != gpus);
        self.gpus = Some(gpus);
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(uuid: &str, cause: Cause, mig_device: Option<(u32, u32)>) -> DeviceEvent {
        DeviceEvent {
            gpu: 0,
            uuid: uuid.into(),
            cause,
            mig_device,
        }
    }

    #[test]
    fn events_are_counted_per_cause_and_device() {
        let mut r = HealthRecord::default();
        r.add(&[event("GPU-a", Cause::Xid(79), None)], 1.0);
        r.add(&[event("GPU-a", Cause::Xid(79), None)], 2.0);
        r.add(&[event("GPU-a", Cause::Xid(79), Some((1, 0)))], 3.0);
        let gpu = &r.gpus["GPU-a"];
        assert_eq!(gpu.causes.len(), 2);
        assert_eq!(
            (
                gpu.causes[0].count,
                gpu.causes[0].first_at,
                gpu.causes[0].last_at
            ),
            (2, 1.0, 2.0)
        );
    }

    #[test]
    fn the_record_stays_bounded() {
        let mut r = HealthRecord::default();
        for x in 0..(MAX_CAUSES as u64 + 10) {
            r.add(&[event("GPU-a", Cause::Xid(x), None)], x as f64);
        }
        for g in 0..(MAX_GPUS + 3) {
            r.add(
                &[event(&format!("GPU-{g}"), Cause::Xid(1), None)],
                1000.0 + g as f64,
            );
        }
        r.bound();
        assert_eq!(r.gpus.len(), MAX_GPUS);
        assert!(
            !r.gpus.contains_key("GPU-a"),
            "the GPU heard of longest ago goes"
        );
        r.add(&[event("GPU-b", Cause::Xid(1), None)], 5000.0);
        for x in 0..(MAX_CAUSES as u64 + 10) {
            r.add(
                &[event("GPU-b", Cause::Xid(x + 2), None)],
                6000.0 + x as f64,
            );
        }
        r.bound();
        let b = &r.gpus["GPU-b"];
        assert_eq!(b.causes.len(), MAX_CAUSES);
        assert_eq!(
            b.causes[0].cause,
            Cause::Xid(MAX_CAUSES as u64 + 11),
            "the latest first"
        );
    }

    #[test]
    fn a_record_round_trips() {
        let mut r = HealthRecord {
            version: VERSION,
            ..HealthRecord::default()
        };
        r.add(&[event("GPU-a", Cause::EccDoubleBit, Some((2, 0)))], 1.5);
        r.reset(&["GPU-a".into()], 2.5);
        let text = serde_json::to_string(&r).unwrap();
        assert_eq!(serde_json::from_str::<HealthRecord>(&text).unwrap(), r);
    }

    /// A record written by anything else keeps the bounds when read: 10,000 causes of one GPU,
    /// 200 GPUs and one cause listed twice are read as at most the bounds, the twice-listed
    /// cause once with its counts summed (saturating).
    #[test]
    fn a_planted_record_is_read_within_the_bounds() {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::new(Some(dir.path().to_path_buf()));
        let cause = |x: u64, count: u64| CauseRecord {
            cause: Cause::Xid(x),
            mig_device: None,
            count,
            first_at: x as f64,
            last_at: x as f64,
        };
        let mut planted = HealthRecord {
            version: VERSION,
            ..HealthRecord::default()
        };
        planted.gpus.insert(
            "GPU-many".into(),
            GpuRecord {
                index: 0,
                causes: (0..10_000).map(|x| cause(x, 1)).collect(),
                reset_at: None,
            },
        );
        planted.gpus.insert(
            "GPU-twice".into(),
            GpuRecord {
                index: 1,
                causes: vec![cause(79, u64::MAX), cause(79, 5)],
                reset_at: None,
            },
        );
        for g in 0..200 {
            planted.gpus.insert(
                format!("GPU-{g}"),
                GpuRecord {
                    index: 2,
                    causes: vec![cause(13, 1)],
                    reset_at: None,
                },
            );
        }
        let path = HealthRecord::path(&paths);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, serde_json::to_vec(&planted).unwrap()).unwrap();
        let read = HealthRecord::load(&paths).unwrap().unwrap();
        assert!(read.gpus.len() <= MAX_GPUS, "{}", read.gpus.len());
        assert!(read.gpus.values().all(|g| g.causes.len() <= MAX_CAUSES));
        assert_eq!(read.gpus["GPU-many"].causes.len(), MAX_CAUSES);
        let twice = &read.gpus["GPU-twice"].causes;
        assert_eq!((twice.len(), twice[0].count), (1, u64::MAX));
    }
}
