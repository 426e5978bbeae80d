//! gpushare: turn a bare-metal NVIDIA node into a shared GPU node, and prove the sharing works.
//!
//! # The map
//!
//! `main.rs` calls [`run`]: [`cli`] parses the command line, a [`Context`] carries the output and
//! the node (a [`backend`]: NVML or the simulator, opened on first use), and `commands/`
//! dispatches. Command files are thin: parse, call the domain or the pipeline, print.
//!
//! Reading the node:
//! - [`backend`] → [`node::Node`]: one snapshot model every command reads (GPUs, MIG instances,
//!   processes, holders, MPS); the driver decides, [`node::catalog`] only fills what it cannot
//!   say yet;
//! - [`gpu_health`]: the driver's Xid and ECC events, heard by a watch in the long-running
//!   commands, recorded and weighed by a policy into each GPU's and MIG device's health;
//! - `detect`, [`doctor`], [`probe`] (the CUDA probe and its workers), [`k8s`] (manifests from the
//!   node and a layout) only read.
//!
//! Changing the node — every changing command (`apply`, `init`, `mig apply|clear`,
//! `mps start|stop`, `vgpu apply|clear`, the node [`agent`]) goes one way, [`pipeline`]:
//!
//! ```text
//!  commands/*  ──Source──►  pipeline::converge
//!                             desired   what the command asks for, checked (config, mig, mps, vgpu)
//!                             observe   the node, MPS records, the vGPU host
//!                             planner   pure: desired + observed → plan::Plan (in phases), each
//!                                       mechanism its part (mig, mps, vgpu ::planner)
//!                             execute   phase by phase: backend calls (the MIG phases on every GPU
//!                                       at once, one worker per GPU), the modes' HostChanges
//!                                       (MPS daemons, vGPU writes) run by their modules
//!                             runner    the journal, the signal trap around every step
//!                             run       observe and plan again until nothing is left
//!                             verify    nothing left: done; no progress: exit 3
//!                           under guard (lock + journal), then the CDI refresh after MIG changes
//!                           (a run that stops early starts the GPU clients it stopped, and runs
//!                           the apply-exit hook)
//! ```
//!
//! The domain modules hold what the pipeline plans from: [`config`] (gpushare.toml, `init`'s
//! layout chooser), [`mig`] (profiles, layouts, the placement solver, the MIG planner), [`mps`]
//! (daemons, limits, records, its planner), [`vgpu`] (sysfs discovery, steps, its planner, writes), [`clients`] (GPU
//! clients on the host: systemd units and kernel modules stopped around MIG mode changes) and
//! [`hooks`] (mig-parted's hooks file); [`plan`] is the pure plan type they all plan into, its
//! node-wide steps (clients, hooks) in phases of their own. Around them: [`error`] (exit codes),
//! [`output`] (everything printed), [`lock`] and [`journal`], [`fsutil`] and [`source_file`]
//! (root-safe files), [`paths`], [`program`] (the host's programs), [`boot`] (the boot unit);
//! for the cluster, [`kube_api`] (the agent's and the controller's API calls), [`health`]
//! (their liveness endpoint) and [`cluster`] (gpushare's own DRA kubelet plugin, `cluster::dra_plugin`).
//!
//! Only the modules that the integration tests, the benchmark and the NVML stand-in use are
//! `pub`; everything else is crate-private, so the compiler reports what nothing uses.

mod agent;
pub mod backend;
mod boot;
mod cli;
mod clients;
mod clock;
mod cluster;
mod commands;
mod config;
mod controller;
mod doctor;
mod endpoint;
pub mod error;
mod fsutil;
mod gpu_health;
mod health;
mod hooks;
mod journal;
mod k8s;
mod kube_api;
pub mod lock;
pub mod metrics;
pub mod mig;
mod mps;
pub mod node;
pub mod on_demand;
pub mod output;
mod owners;
mod paths;
pub mod pipeline;
mod plan;
mod pod_resources;
mod probe;
mod program;
mod sharing;
pub mod source_file;
mod vgpu;

use backend::{Backend, BackendOptions, SharedBackend};
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
    /// How many GPUs a changing command changes at once (`--jobs`); `None`: every GPU it changes.
    pub jobs: Option<std::num::NonZeroUsize>,
    backend: Option<backend::Opened>,
    /// The catalog's disagreements with the driver were printed (once a run).
    catalog_warned: bool,
    simulation_announced: bool,
}

impl Context {
    pub fn new(out: Output, paths: paths::Paths, backend_options: BackendOptions) -> Self {
        Context {
            out,
            paths,
            backend_options,
            lock_timeout: std::time::Duration::from_secs(60),
            jobs: None,
            backend: None,
            catalog_warned: false,
            simulation_announced: false,
        }
    }

    /// Whether the node is simulated (its GPUs are not this host's).
    pub(crate) fn simulated(&self) -> bool {
        self.backend_options.simulated()
    }

    pub fn backend(&mut self) -> Result<&dyn Backend> {
        Ok(self.open_backend()?.as_ref())
    }

    /// The backend, for threads that change GPUs at the same time (the executor's workers).
    pub fn shared_backend(&mut self) -> Result<SharedBackend> {
        self.open_backend().cloned()
    }

    /// A context for another thread of this command: the same settings, output and opened node.
    pub(crate) fn sibling(&mut self) -> Result<Context> {
        self.open_backend()?;
        let opened = self.backend.as_ref().map(|o| backend::Opened {
            backend: o.backend.clone(),
            events: o.events.clone(),
        });
        Ok(Context {
            out: self.out.clone(),
            paths: self.paths.clone(),
            backend_options: self.backend_options.clone(),
            lock_timeout: self.lock_timeout,
            jobs: self.jobs,
            backend: opened,
            catalog_warned: self.catalog_warned,
            simulation_announced: true,
        })
    }

    /// What hears of the steps taken on the host outside the driver (the simulator).
    pub(crate) fn host_events(
        &mut self,
    ) -> Result<std::sync::Arc<dyn backend::host_events::HostEvents>> {
        self.open_backend()?;
        Ok(self.backend.as_ref().expect("opened above").events.clone())
    }

    fn open_backend(&mut self) -> Result<&SharedBackend> {
        if self.backend.is_none() {
            let opened = backend::open(&self.backend_options)?;
            // Said once: the agent opens the backend afresh before every pass.
            if self.backend_options.simulated() && !self.simulation_announced {
                self.simulation_announced = true;
                self.announce_simulation(&opened.backend.source());
            }
            self.backend = Some(opened);
        }
        Ok(&self.backend.as_ref().expect("opened above").backend)
    }

    /// Say that the node is simulated, so that no one takes its answers for the host's GPUs; and
    /// warn when the simulator was switched on by the environment on a host where a driver
    /// answers (a `GPUSHARE_SIM` left in root's environment).
    fn announce_simulation(&self, source: &str) {
        self.out.note(format!(
            "simulated node ({source}): this host's GPUs are neither read nor changed"
        ));
        if let Some(var) = self.backend_options.sim_from_env
            && backend::driver_answers(self.backend_options.nvml_lib.as_deref())
        {
            self.out.warn(format!(
                "{var} in the environment selects the simulator, but an NVIDIA driver answers on \
                 this host: nothing this command reports or changes is on its GPUs (unset {var} to \
                 use them)"
            ));
        }
    }

    /// Close the backend: the next use opens it again and sees the node afresh, as a new command
    /// would (the agent does this before every pass).
    pub fn reopen_backend(&mut self) {
        self.backend = None;
    }

    /// The node as it is now. Where the catalog disagrees with the driver about a GPU, a
    /// warning says so (once a run): the catalog is then not used for it.
    pub fn snapshot(&mut self) -> Result<node::Node> {
        let node = self.snapshot_quiet()?;
        if !self.catalog_warned {
            self.catalog_warned = true;
            for line in node.note_lines(|n| n.field == "catalog") {
                self.out.warn(line);
            }
        }
        Ok(node)
    }

    /// The node as it is now, without warnings (`detect` prints every note itself).
    pub fn snapshot_quiet(&mut self) -> Result<node::Node> {
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
/// The command line. Plain styles: clap then writes no escape sequence of its own, so the one
/// an argument carries survives into the error text, where [`output::parse_error`] shows it
/// escaped (clap's own plain rendering would drop it unseen).
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command().styles(clap::builder::Styles::plain())
}
