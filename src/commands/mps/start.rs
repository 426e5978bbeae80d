//! `gpushare mps start`: start the daemons, then report them (and how clients connect).

use super::{mib, percent, plan_start};
use crate::Context;
use crate::cli::MpsStartArgs;
use crate::error::{Exit, Result};
use crate::mps::MpsOptions;
use crate::mps::control::MpsControl;
use crate::mps::daemon::{StartStatus, start_daemons};
use crate::mps::settings::DaemonSpec;
use crate::output::{Output, table};
use serde::Serialize;

/// `mps start --format json`: `{"daemons": [{"status": "started", …settings.json fields}]}`.
#[derive(Serialize)]
struct StartReport {
    daemons: Vec<StartedDaemon>,
}

#[derive(Serialize)]
struct StartedDaemon {
    status: StartStatus,
    #[serde(flatten)]
    spec: DaemonSpec,
}

pub fn run(ctx: &mut Context, args: &MpsStartArgs) -> Result<Exit> {
    let s = &args.settings;
    let specs = plan_start(ctx, s)?;
    let control = MpsControl::find(s.timeout)?;
    let opts = MpsOptions {
        timeout: s.timeout,
        force: false,
    };
    let started = start_daemons(ctx, &control, specs, opts)?;
    let report = StartReport {
        daemons: started
            .into_iter()
            .map(|s| StartedDaemon {
                status: s.status,
                spec: s.spec,
            })
            .collect(),
    };
    ctx.out.data(&report, |out| render(out, &report))?;
    for d in &report.daemons {
        ctx.out.note(format!(
            "`{}`: clients connect with CUDA_MPS_PIPE_DIRECTORY={} (and the host's /dev/shm)",
            d.spec.name,
            d.spec.pipe_dir.display()
        ));
    }
    Ok(Exit::Ok)
}

fn render(_out: &Output, report: &StartReport) -> String {
    let mut rows = Vec::new();
    for d in &report.daemons {
        for (i, device) in d.spec.devices.iter().enumerate() {
            let first = i == 0;
            rows.push(vec![
                if first {
                    d.spec.name.clone()
                } else {
                    String::new()
                },
                if first {
                    match d.status {
                        StartStatus::Started => "started".into(),
                        StartStatus::AlreadyRunning => "already running".into(),
                    }
                } else {
                    String::new()
                },
                device.describe(),
                device.ordinal.to_string(),
                if first {
                    percent(d.spec.thread_percentage)
                } else {
                    String::new()
                },
                mib(device.memory_limit_mib),
                if first {
                    d.spec.pipe_dir.display().to_string()
                } else {
                    String::new()
                },
            ]);
        }
    }
    table(
        &[
            "DAEMON",
            "STATUS",
            "DEVICE",
            "ORDINAL",
            "THREADS",
            "MEMORY LIMIT",
            "PIPE DIR",
        ],
        rows,
    )
}
