//! `mps status`'s check: what each daemon answers, and how it and the node differ from what it
//! was started with (a daemon that does not answer, limits it does not report, devices gone or
//! no longer in EXCLUSIVE_PROCESS mode).

use super::query::{DaemonState, Server, reported_granularity_mib};
use super::settings::{DaemonSpec, MigDeviceId, compute_mode_of};
use crate::node::model::{ComputeMode, Node};
use serde::Serialize;
use std::path::PathBuf;

/// One daemon as `mps status --format json` shows it.
#[derive(Debug, Serialize)]
pub(crate) struct DaemonStatus {
    pub name: String,
    pub running: bool,
    pub pid: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub pipe_dir: PathBuf,
    pub log_dir: PathBuf,
    pub multiuser: bool,
    pub clients: Option<u32>,
    /// As started; `null`: the daemon's default, 100.
    pub thread_percentage: Option<u32>,
    /// As the daemon reports it now.
    pub reported_thread_percentage: Option<f64>,
    pub devices: Vec<DeviceStatus>,
    pub servers: Vec<Server>,
    /// How the daemon or the node differs from what it was started with.
    pub problems: Vec<String>,
}

#[derive(Debug, Serialize)]
pub(crate) struct DeviceStatus {
    pub ordinal: u32,
    pub gpu: u32,
    pub uuid: String,
    pub mig: Option<MigDeviceId>,
    pub memory_mib: u64,
    pub memory_limit_mib: Option<u64>,
    /// The daemon's answer, in MiB when it reads as a size.
    pub reported_memory_limit_mib: Option<u64>,
    /// `null` when the device is gone.
    pub compute_mode: Option<ComputeMode>,
}

/// How a daemon and the node differ from what it was started with (`problems`; none: it is
/// as started).
pub(crate) fn status(record: DaemonSpec, state: DaemonState, node: &Node) -> DaemonStatus {
    let mut problems = Vec::new();
    match (&state.error, state.running) {
        (Some(e), false) => problems.push(format!("does not answer: {e}")),
        (Some(e), true) => problems.push(e.clone()),
        _ => {}
    }
    if state.running
        && let Some(p) = record.thread_percentage
        && state
            .reported_thread_percentage
            .is_none_or(|r| (r - f64::from(p)).abs() > 0.5)
    {
        problems.push(format!(
            "reports a thread percentage of {}, started with {p}",
            state
                .reported_thread_percentage
                .map_or("nothing readable".into(), |r| r.to_string())
        ));
    }
    let mut devices = Vec::new();
    for d in &record.devices {
        let reported = state
            .reported_memory_limits
            .iter()
            .find(|l| l.ordinal == d.ordinal);
        if let (Some(limit), Some(reported)) = (d.memory_limit_mib, reported) {
            let close = reported.mib.is_some_and(|got| {
                got == limit || got.abs_diff(limit) < reported_granularity_mib(&reported.reply)
            });
            if !close {
                problems.push(format!(
                    "reports `{}` as the memory limit of ordinal {}, started with {limit} MiB",
                    reported.reply, d.ordinal
                ));
            }
        }
        let present = d.present_on(node);
        let mode = present
            .then(|| compute_mode_of(node, d.device_ref()))
            .flatten();
        match mode {
            None => problems.push(format!(
                "{} ({}) is no longer on this node",
                d.describe(),
                d.uuid
            )),
            Some(ComputeMode::ExclusiveProcess) => {}
            Some(m) => problems.push(format!(
                "{} is in {} compute mode, not exclusive_process",
                d.describe(),
                m.as_str()
            )),
        }
        devices.push(DeviceStatus {
            ordinal: d.ordinal,
            gpu: d.gpu,
            uuid: d.uuid.clone(),
            mig: d.mig,
            memory_mib: d.memory_mib,
            memory_limit_mib: d.memory_limit_mib,
            reported_memory_limit_mib: reported.and_then(|r| r.mib),
            compute_mode: mode,
        });
    }
    DaemonStatus {
        name: record.name,
        running: state.running,
        pid: state.pid,
        error: state.error,
        pipe_dir: record.pipe_dir,
        log_dir: record.log_dir,
        multiuser: record.multiuser,
        clients: record.clients,
        thread_percentage: record.thread_percentage,
        reported_thread_percentage: state.reported_thread_percentage,
        devices,
        servers: state.servers,
        problems,
    }
}
