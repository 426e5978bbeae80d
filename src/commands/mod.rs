//! The commands wing, at the top: the command line ([`cli`]), the entry that runs it
//! ([`entry`]), and one file per command, thin: parse the arguments, call a wing, print. Each
//! takes the context and its arguments and returns an exit status. The changing commands share
//! [`changing`]: they name a desired state and run it through `crate::change::pipeline`. It may
//! use every wing; none uses it.

mod agent;
mod apply;
mod changing;
pub(crate) mod cli;
mod controller;
mod detect;
mod dra_plugin;
pub(crate) mod entry;
mod generate;
mod init;
mod manifests;
mod metrics;
mod mig;
mod mps;
mod probe;
mod recover;
mod sim;
mod status;
mod unit;
mod vgpu;

use crate::commands::cli::Command;
use crate::node::Context;
use crate::support::error::{Exit, Result};

pub(crate) fn dispatch(ctx: &mut Context, command: Command) -> Result<Exit> {
    match command {
        Command::Detect(args) => detect::run(ctx, &args),
        Command::Init(args) => init::run(ctx, &args),
        Command::Plan(args) => apply::plan(ctx, &args),
        Command::Apply(args) => apply::apply(ctx, &args),
        Command::Doctor(args) => crate::observe::doctor::run(ctx, args.host_root),
        Command::Mig(cmd) => mig::run(ctx, &cmd),
        Command::Sim(cmd) => sim::run(ctx, &cmd),
        Command::Mps(cmd) => mps::run(ctx, cmd),
        Command::Vgpu(cmd) => vgpu::run(ctx, &cmd),
        Command::Completions { shell } => generate::completions(ctx, shell),
        Command::Status(args) => status::run(ctx, &args),
        Command::Man { dir } => generate::man(ctx, dir.as_deref()),
        Command::Manifests(args) => manifests::run(ctx, &args),
        Command::Agent(args) => agent::run(ctx, &args),
        Command::Controller(args) => controller::run(ctx, &args),
        Command::DraPlugin(args) => dra_plugin::run(ctx, &args),
        Command::Probe(args) => probe::run(ctx, &args),
        Command::Metrics(args) => metrics::run(ctx, &args),
        Command::Recover(args) => recover::run(ctx, &args),
        Command::Unit(args) => unit::run(ctx, &args),
    }
}
