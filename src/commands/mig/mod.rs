//! `gpushare mig …`: profiles, apply, assert, export, clear. `apply` and `clear` run through the
//! one pipeline (`crate::change::pipeline`) with a MIG-only desired state.

mod apply;
mod export;
mod profiles;

use super::changing::{self, Changing};
use crate::change::pipeline::desired::DesiredSource;
use crate::change::plan::PlanOptions;
use crate::commands::cli::MigCommand;
use crate::node::Context;
use crate::support::error::{Exit, Result};
use std::path::Path;

pub(super) fn run(ctx: &mut Context, cmd: &MigCommand) -> Result<Exit> {
    match cmd {
        MigCommand::Profiles(args) => profiles::run(ctx, args),
        MigCommand::Apply(args) => apply::apply(ctx, args),
        MigCommand::Assert(args) => apply::assert(ctx, args),
        MigCommand::Export(args) => export::run(ctx, args),
        MigCommand::Clear(args) => changing::run(
            ctx,
            DesiredSource::MigClear(args.gpu.clone()),
            &Changing {
                command: "mig clear",
                sysfs_root: Path::new("/"),
                options: PlanOptions::default(),
                dry_run: args.dry_run,
                clients_and_hooks: Default::default(),
            },
        ),
    }
}
