//! One file per command, thin: parse the arguments, call the domain or the pipeline, print.
//! Each takes the context and its arguments and returns an exit status. The changing commands
//! share [`changing`]: they name a desired state and run it through `crate::pipeline`.

mod apply;
mod changing;
mod detect;
mod dra_plugin;
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

use crate::Context;
use crate::cli::Command;
use crate::error::{Exit, Result};

pub(crate) fn dispatch(ctx: &mut Context, command: Command) -> Result<Exit> {
    match command {
        Command::Detect(args) => detect::run(ctx, &args),
        Command::Init(args) => init::run(ctx, &args),
        Command::Plan(args) => apply::plan(ctx, &args),
        Command::Apply(args) => apply::apply(ctx, &args),
        Command::Doctor(args) => crate::doctor::run(ctx, args.host_root),
        Command::Mig(cmd) => mig::run(ctx, &cmd),
        Command::Sim(cmd) => sim::run(ctx, &cmd),
        Command::Mps(cmd) => mps::run(ctx, cmd),
        Command::Vgpu(cmd) => vgpu::run(ctx, &cmd),
        Command::Completions { shell } => generate::completions(ctx, shell),
        Command::Status(args) => status::run(ctx, &args),
        Command::Man { dir } => generate::man(ctx, dir.as_deref()),
        Command::Manifests(args) => manifests::run(ctx, &args),
        Command::Agent(args) => crate::agent::run(ctx, &args),
        Command::Controller(args) => crate::controller::run(ctx, &args),
        Command::DraPlugin(args) => dra_plugin::run(ctx, &args),
        Command::Probe(args) => probe::run(ctx, &args),
        Command::Metrics(args) => metrics::run(ctx, &args),
        Command::Recover(args) => recover::run(ctx, &args),
        Command::Unit(args) => unit::run(ctx, &args),
    }
}
