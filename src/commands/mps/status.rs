//! `gpushare mps status`: each daemon gpushare started, what it answers, and whether the node
//! still matches what it was started with (exit 3 when not).

use super::{mib, percent};
use crate::Context;
use crate::cli::MpsStatusArgs;
use crate::error::{Exit, Result};
use crate::mps::control::MpsControl;
use crate::mps::query::{self, DaemonState, Server, reported_granularity_mib};
use crate::mps::settings::{self, DaemonSpec, MigDeviceId, compute_mode_of};
use crate::node::{ComputeMode, Node};
use crate::output::{Output, Style, table};
use serde::Serialize;
use std::path::PathBuf;

/// `mps status --format json`.
#[derive(Serialize)]
struct StatusReport {
    daemons: Vec<DaemonStatus>,
}

#[derive(Serialize)]
struct DaemonStatus {
    name: String,
    running: bool,
    pid: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    pipe_dir: PathBuf,
    log_dir: PathBuf,
    multiuser: bool,
    clients: Option<u32>,
    /// As started; `null`: the daemon's default, 100.
    thread_percentage: Option<u32>,
    /// As the daemon reports it now.
    reported_thread_percentage: Option<f64>,
    devices: Vec<DeviceStatus>,
    servers: Vec<Server>,
    /// How the daemon or the node differs from what it was started with.
    problems: Vec<String>,
}

#[derive(Serialize)]
struct DeviceStatus {
    ordinal: u32,
    gpu: u32,
    uuid: String,
    mig: Option<MigDeviceId>,
    memory_mib: u64,
    memory_limit_mib: Option<u64>,
    /// The daemon's answer, in MiB when it reads as a size.
    reported_memory_limit_mib: Option<u64>,
    /// `null` when the device is gone.
    compute_mode: Option<ComputeMode>,
}

pub fn run(ctx: &mut Context, args: &MpsStatusArgs) -> Result<Exit> {
    let records = settings::load_all(&ctx.paths)?;
    if records.is_empty() {
        ctx.out
            .note("no MPS daemon started by gpushare (`gpushare mps start` starts one)");
        let report = StatusReport {
            daemons: Vec::new(),
        };
        ctx.out.data(&report, |_| String::new())?;
        return Ok(Exit::Ok);
    }
    let control = MpsControl::find(args.timeout)?;
    let node = ctx.snapshot()?;
    let daemons: Vec<DaemonStatus> = records
        .into_iter()
        .map(|r| {
            let state = query::query(&control, &r);
            status(r, state, &node)
        })
        .collect();
    let report = StatusReport { daemons };
    ctx.out.data(&report, |out| render(out, &report))?;
    let problems: Vec<String> = report
        .daemons
        .iter()
        .flat_map(|d| d.problems.iter().map(move |p| format!("`{}`: {p}", d.name)))
        .collect();
    if problems.is_empty() {
        return Ok(Exit::Ok);
    }
    for p in &problems {
        ctx.out.warn(p);
    }
    Ok(Exit::Differs)
}

fn status(record: DaemonSpec, state: DaemonState, node: &Node) -> DaemonStatus {
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

fn render(out: &Output, report: &StatusReport) -> String {
    let mut rows = Vec::new();
    for d in &report.daemons {
        let state = if d.running {
            out.paint(Style::Good, "running")
        } else {
            out.paint(Style::Bad, "not answering")
        };
        let clients: Vec<String> = d
            .servers
            .iter()
            .flat_map(|s| s.clients.iter().map(|c| c.describe()))
            .collect();
        for (i, dev) in d.devices.iter().enumerate() {
            let first = i == 0;
            let blank = String::new;
            rows.push(vec![
                if first { d.name.clone() } else { blank() },
                if first { state.clone() } else { blank() },
                if first {
                    d.pid.map_or("-".into(), |p| p.to_string())
                } else {
                    blank()
                },
                dev.mig.map_or(format!("GPU {}", dev.gpu), |m| {
                    format!(
                        "MIG {}:{}:{}",
                        dev.gpu, m.gpu_instance_id, m.compute_instance_id
                    )
                }),
                dev.compute_mode
                    .map_or("gone", ComputeMode::as_str)
                    .to_string(),
                if first {
                    percent(d.thread_percentage)
                } else {
                    blank()
                },
                mib(dev.memory_limit_mib),
                if first {
                    if clients.is_empty() {
                        "none".into()
                    } else {
                        clients.join(", ")
                    }
                } else {
                    blank()
                },
            ]);
        }
    }
    let mut text = table(
        &[
            "DAEMON",
            "STATE",
            "PID",
            "DEVICE",
            "COMPUTE MODE",
            "THREADS",
            "MEMORY LIMIT",
            "CLIENTS",
        ],
        rows,
    );
    for d in &report.daemons {
        text.push_str(&format!(
            "\n{}: pipe dir {}, log dir {}",
            d.name,
            d.pipe_dir.display(),
            d.log_dir.display()
        ));
    }
    text.push('\n');
    text
}
