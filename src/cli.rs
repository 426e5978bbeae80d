//! The command line. Doc comments here are the help text, the completions and the man page.

use crate::node::selector::GpuSelector;
use crate::output::{ColorChoice, Format};
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// Share NVIDIA GPUs on bare metal: MIG, MPS, time-slicing and vGPU, set up safely and proven by a
/// built-in probe.
///
/// Without a GPU, every command runs against a simulated node: `--sim dgx-a100`
/// (`gpushare sim presets` lists them).
#[derive(Debug, Parser)]
#[command(
    name = "gpushare",
    version,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Use a simulated node: a preset name or a node file (TOML)
    #[arg(long, global = true, env = "GPUSHARE_SIM", value_name = "PRESET|FILE")]
    pub sim: Option<String>,

    /// Keep the simulated node's changes in FILE (loaded when it exists, saved after each change)
    #[arg(long, global = true, env = "GPUSHARE_SIM_STATE", value_name = "FILE")]
    pub sim_state: Option<PathBuf>,

    /// Output format of the data on stdout
    #[arg(long, global = true, value_enum, default_value_t = Format::Table)]
    pub format: Format,

    /// Print only data and errors (no progress or notes on stderr)
    #[arg(short, long, global = true)]
    pub quiet: bool,

    /// When to use colour (NO_COLOR is honoured with `auto`)
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,

    /// Path of libnvidia-ml.so.1 when the driver is installed somewhere unusual
    #[arg(long, global = true, env = "GPUSHARE_NVML_LIB", value_name = "PATH")]
    pub nvml_lib: Option<PathBuf>,

    /// Keep every state path (lock, journal, run dirs, written files) under DIR
    #[arg(long, global = true, env = "GPUSHARE_ROOT", value_name = "DIR")]
    pub state_root: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show the GPUs of this node: models, memory, MIG, compute mode, processes
    Detect(DetectArgs),

    /// Check that this node is ready to share its GPUs (driver, devices, runtime, CDI, blockers)
    Doctor(DoctorArgs),

    /// Simulated nodes: list presets and the GPU models they can hold
    #[command(subcommand)]
    Sim(SimCommand),

    /// Print a shell completion script
    Completions {
        /// The shell to complete for
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },

    /// Print the man page (roff)
    Man,
}

#[derive(Debug, Args)]
pub struct DetectArgs {
    /// Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids
    #[arg(long, value_name = "SEL", default_value = "all")]
    pub gpu: GpuSelector,
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Check the host files (/dev, /proc, /sys, /etc) under DIR instead of /
    #[arg(long, value_name = "DIR")]
    pub host_root: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum SimCommand {
    /// List the built-in simulated nodes
    Presets,
    /// List the GPU models a node file may name
    Models,
}
