//! One file per command; each takes the context and its arguments and returns an exit status.

mod detect;
mod generate;
mod mig;
mod sim;

use crate::Context;
use crate::cli::Command;
use crate::error::{Exit, Result};

pub fn dispatch(ctx: &mut Context, command: Command) -> Result<Exit> {
    match command {
        Command::Detect(args) => detect::run(ctx, &args),
        Command::Mig(cmd) => mig::run(ctx, &cmd),
        Command::Sim(cmd) => sim::run(ctx, &cmd),
        Command::Completions { shell } => generate::completions(ctx, shell),
        Command::Man => generate::man(ctx),
    }
}
