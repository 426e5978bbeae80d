//! `gpushare mps stop`: stop the daemons gpushare started (those serving `--gpu`).

use crate::Context;
use crate::cli::MpsStopArgs;
use crate::error::{Exit, Result};
use crate::mps::MpsOptions;
use crate::mps::control::MpsControl;
use crate::mps::settings;
use crate::mps::stop::{Stopped, stop_daemons};
use crate::node::selector::GpuSelector;
use crate::output::table;
use serde::Serialize;

/// `mps stop --format json`.
#[derive(Serialize)]
struct StopReport {
    stopped: Vec<Stopped>,
}

pub fn run(ctx: &mut Context, args: &MpsStopArgs) -> Result<Exit> {
    let mut records = settings::load_all(&ctx.paths)?;
    if !matches!(args.gpu, GpuSelector::All) {
        let node = ctx.snapshot()?;
        let gpus = args.gpu.resolve(&node)?;
        records.retain(|r| gpus.iter().any(|g| r.serves_gpu(*g)));
    }
    let stopped = if records.is_empty() {
        ctx.out.note("no MPS daemon started by gpushare to stop");
        Vec::new()
    } else {
        let control = MpsControl::find(args.timeout)?;
        let opts = MpsOptions {
            timeout: args.timeout,
            force: args.force,
        };
        stop_daemons(ctx, &control, records, opts)?
    };
    let report = StopReport { stopped };
    ctx.out.data(&report, |_| {
        if report.stopped.is_empty() {
            return String::new();
        }
        let rows = report
            .stopped
            .iter()
            .map(|s| {
                vec![
                    s.name.clone(),
                    if s.was_running {
                        "stopped"
                    } else {
                        "record cleared (was not answering)"
                    }
                    .to_string(),
                    s.terminated_clients
                        .iter()
                        .map(|c| c.describe())
                        .collect::<Vec<_>>()
                        .join(", "),
                ]
            })
            .collect();
        table(&["DAEMON", "RESULT", "CLIENTS ENDED"], rows)
    })?;
    Ok(Exit::Ok)
}
