//! `gpushare mps status`: each daemon gpushare started, what it answers, and whether the node
//! still matches what it was started with (exit 3 when not; the check is `mps::drift`).

use super::{mib, percent};
use crate::commands::cli::MpsStatusArgs;
use crate::node::Context;
use crate::node::model::ComputeMode;
use crate::sharing::mps::control::MpsControl;
use crate::sharing::mps::drift::{DaemonStatus, status};
use crate::sharing::mps::query;
use crate::sharing::mps::settings;
use crate::support::error::{Exit, Result};
use crate::support::output::{Output, Style, table};
use serde::Serialize;

/// `mps status --format json`.
#[derive(Serialize)]
struct StatusReport {
    daemons: Vec<DaemonStatus>,
}

pub(super) fn run(ctx: &mut Context, args: &MpsStatusArgs) -> Result<Exit> {
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
