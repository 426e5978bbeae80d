//! The entry: parse the command line, build the context, dispatch, and turn the outcome into an
//! exit code.

use super::cli::{Cli, command};
use crate::node::Context;
use crate::node::backend::BackendOptions;
use crate::observe::probe;
use crate::support::error::Exit;
use crate::support::output::{self, Output};
use crate::support::paths;
use std::process::ExitCode;

/// Parse the command line, run the command, and turn the outcome into an exit code.
pub fn run() -> ExitCode {
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == probe::worker::ARG)
    {
        return ExitCode::from(probe::worker::run().code());
    }
    let parsed = command()
        .try_get_matches()
        .and_then(|m| <Cli as clap::FromArgMatches>::from_arg_matches(&m).map(|cli| (cli, m)));
    let (cli, matches) = match parsed {
        Ok(parsed) => parsed,
        // Help and version go out as clap writes them; an error quotes the arguments (and
        // environment values) as given, so it is escaped like every other message.
        Err(e) if e.use_stderr() => {
            output::parse_error(&e.render().ansi().to_string());
            return ExitCode::from(Exit::Usage.code());
        }
        Err(e) => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
    };
    let g = &cli.global;
    let out = Output::new(g.format, g.quiet, g.color);
    let from_env =
        |id: &str| matches.value_source(id) == Some(clap::parser::ValueSource::EnvVariable);
    // The environment alone switched the simulator on: no flag asked for it.
    let by_flag =
        (g.sim.is_some() && !from_env("sim")) || (g.sim_state.is_some() && !from_env("sim_state"));
    let sim_from_env = match (by_flag, from_env("sim"), from_env("sim_state")) {
        (false, true, _) => Some("GPUSHARE_SIM"),
        (false, false, true) => Some("GPUSHARE_SIM_STATE"),
        _ => None,
    };
    let options = BackendOptions {
        sim: g.sim.clone(),
        sim_state: g.sim_state.clone(),
        nvml_lib: g.nvml_lib.clone(),
        sim_from_env,
    };
    let paths = paths::Paths::new(g.state_root.clone());
    let mut ctx = Context::new(out.clone(), paths, options);
    ctx.lock_timeout = g.lock_timeout;
    ctx.jobs = g.jobs;
    std::panic::set_hook(Box::new(|info| {
        let info = output::escape_controls(&info.to_string(), false).into_owned();
        output::stderr_line(&format!("error: internal error: {info}"));
        output::stderr_line(
            "hint: this is a bug in gpushare; please report it with the command you ran",
        );
    }));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        super::dispatch(&mut ctx, cli.command)
    }));
    match outcome {
        Ok(Ok(exit)) => ExitCode::from(exit.code()),
        Ok(Err(e)) => {
            out.error(&e);
            ExitCode::from(e.exit.code())
        }
        Err(_) => ExitCode::from(Exit::Failed.code()),
    }
}
