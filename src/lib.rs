//! gpushare: turn a bare-metal NVIDIA node into a shared GPU node, and prove the sharing works.

pub mod agent;
pub mod apply;
pub mod backend;
pub mod cli;
mod commands;
pub mod config;
pub mod doctor;
pub mod error;
pub mod fsutil;
pub mod journal;
pub mod k8s;
pub mod lock;
pub mod mig;
pub mod mps;
pub mod node;
pub mod output;
pub mod paths;
pub mod plan;
pub mod probe;
pub mod source_file;
pub mod vgpu;

use backend::{Backend, BackendOptions};
use clap::Parser;
use cli::Cli;
use error::{Exit, Result};
use output::Output;
use std::process::ExitCode;

/// What every command gets: how to print, and the node (opened on first use, so commands that do
/// not need a GPU never load NVML).
pub struct Context {
    pub out: Output,
    pub paths: paths::Paths,
    pub backend_options: BackendOptions,
    /// How long a changing command waits for the node lock (`--lock-timeout`).
    pub lock_timeout: std::time::Duration,
    backend: Option<Box<dyn Backend>>,
}

impl Context {
    pub fn new(out: Output, paths: paths::Paths, backend_options: BackendOptions) -> Self {
        Context {
            out,
            paths,
            backend_options,
            lock_timeout: std::time::Duration::from_secs(60),
            backend: None,
        }
    }

    pub fn backend(&mut self) -> Result<&mut dyn Backend> {
        if self.backend.is_none() {
            self.backend = Some(backend::open(&self.backend_options)?);
        }
        Ok(self.backend.as_deref_mut().expect("opened above"))
    }

    /// Close the backend: the next use opens it again and sees the node afresh, as a new command
    /// would (the agent does this before every pass).
    pub fn reopen_backend(&mut self) {
        self.backend = None;
    }

    /// The node as it is now.
    pub fn snapshot(&mut self) -> Result<node::Node> {
        Ok(self.backend()?.snapshot()?)
    }
}

/// Parse the command line, run the command, and turn the outcome into an exit code.
pub fn run() -> ExitCode {
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == probe::worker::ARG)
    {
        return ExitCode::from(probe::worker::run().code());
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() {
                Exit::Usage.code()
            } else {
                0
            });
        }
    };
    let g = &cli.global;
    let out = Output::new(g.format, g.quiet, g.color);
    let options = BackendOptions {
        sim: g.sim.clone(),
        sim_state: g.sim_state.clone(),
        nvml_lib: g.nvml_lib.clone(),
    };
    let paths = paths::Paths::new(g.state_root.clone());
    let mut ctx = Context::new(out.clone(), paths, options);
    ctx.lock_timeout = g.lock_timeout;
    std::panic::set_hook(Box::new(|info| {
        eprintln!("error: internal error: {info}");
        eprintln!("hint: this is a bug in gpushare; please report it with the command you ran");
    }));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        commands::dispatch(&mut ctx, cli.command)
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

/// The clap command, for completions and the man page.
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}
