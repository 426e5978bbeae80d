//! `gpushare mps start|status|stop|unit`: MPS daemons with per-device limits (see `crate::sharing::mps`).
//! `start` and `stop` run through the one pipeline (`crate::change::pipeline`) with an MPS-only desired
//! state.

mod status;
mod unit;

use super::changing::{self, Changing};
use crate::change::pipeline::desired::DesiredSource;
use crate::change::plan::PlanOptions;
use crate::commands::cli::{MpsCommand, MpsSettingsArgs};
use crate::node::Context;
use crate::sharing::mps::limits::MpsRequest;
use crate::sharing::mps::start::StartRequest;
use crate::support::error::{Exit, Result};
use std::path::Path;

pub(super) fn run(ctx: &mut Context, command: MpsCommand) -> Result<Exit> {
    let change = |command, force| Changing {
        command,
        sysfs_root: Path::new("/"),
        options: PlanOptions {
            force,
            ..PlanOptions::default()
        },
        dry_run: false,
        clients_and_hooks: Default::default(),
    };
    match command {
        MpsCommand::Start(args) => changing::run(
            ctx,
            DesiredSource::MpsStart(start_request(&args.settings)),
            &change("mps start", false),
        ),
        MpsCommand::Status(args) => status::run(ctx, &args),
        MpsCommand::Stop(args) => changing::run(
            ctx,
            DesiredSource::MpsStop {
                gpus: args.gpu,
                timeout: args.timeout,
            },
            &change("mps stop", args.force),
        ),
        MpsCommand::Unit(args) => unit::run(ctx, &args),
    }
}

/// What `mps start` (and `mps unit`) is asked to start.
fn start_request(s: &MpsSettingsArgs) -> StartRequest {
    StartRequest {
        gpus: s.gpu.clone(),
        limits: MpsRequest {
            clients: s.clients,
            thread_percentage: s.thread_percentage,
            memory_limit_mib: s.memory_limit,
        },
        pipe_dir: s.pipe_dir.clone(),
        log_dir: s.log_dir.clone(),
        multiuser: s.multiuser,
        config: s.config.clone(),
        timeout: s.timeout,
    }
}

/// `3840 MiB` or `-`.
fn mib(value: Option<u64>) -> String {
    value.map_or("-".into(), |m| format!("{m} MiB"))
}

/// `25%`, or `100% (default)` when no percentage was set.
fn percent(value: Option<u32>) -> String {
    value.map_or("100% (default)".into(), |p| format!("{p}%"))
}
