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

    /// Measure memory, bandwidth and latency on every GPU, MIG device and MPS client, and check
    /// that each gives what it was promised
    ///
    /// Each target runs in its own worker process with a built-in CUDA probe: memory total/free,
    /// allocation up to the promised limit and one chunk past it (which must fail), host-to-device,
    /// device-to-host and device-to-device bandwidth, empty-kernel launch latency, and the SMs its
    /// kernels really reach. Exit 3 when a promise is not kept, 4 without a CUDA driver.
    Probe(ProbeArgs),

    /// Run one probe client (used by `gpushare probe`)
    #[command(hide = true)]
    ProbeWorker,

    /// Print the probe's embedded PTX (for checking it with ptxas)
    #[command(hide = true)]
    ProbePtx,
}

#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// Only these targets: GPUs as for --gpu (`all`, `0,2`, `0-3`, UUIDs, bus ids; all their MIG
    /// devices and MPS clients) or MIG devices by `MIG-…` UUID
    #[arg(long, value_name = "SEL", default_value = "all")]
    pub target: GpuSelector,

    /// What each target was promised: the gpushare.toml to check against (default: the applied
    /// state, i.e. MIG devices as they are and the settings of running MPS daemons)
    #[arg(short = 'c', long = "config", value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Reach MPS clients through this pipe directory (CUDA_MPS_PIPE_DIRECTORY), for an MPS daemon
    /// gpushare did not start; it serves the devices gpushare.toml puts under MPS, or every target
    /// without -c
    #[arg(long, value_name = "DIR")]
    pub mps_pipe_dir: Option<PathBuf>,

    /// Run N clients on each target at once and report their sum and each client
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=64))]
    pub clients: u32,

    /// Run each target alone, then with --clients N at once, and print the slowdown
    #[arg(long)]
    pub compare: bool,

    /// A few seconds per target: smaller copies, fewer repeats
    #[arg(long)]
    pub quick: bool,

    /// Size of each host-to-device and device-to-host copy (default 256M, 32M with --quick;
    /// device-to-device copies are 4 times larger)
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub buffer: Option<u64>,

    /// Seconds a worker may take for its setup, and again for its measurements, before it is
    /// reported as hung and killed
    #[arg(long, value_name = "SECONDS", default_value_t = 120,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub timeout: u64,
}

fn parse_size(text: &str) -> Result<u64, String> {
    crate::output::parse_size_mib(text)
}

#[derive(Debug, Args)]
pub struct DetectArgs {
    /// Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids
    #[arg(long, value_name = "SEL", default_value = "all")]
    pub gpu: GpuSelector,
}

#[derive(Debug, Subcommand)]
pub enum SimCommand {
    /// List the built-in simulated nodes
    Presets,
    /// List the GPU models a node file may name
    Models,
}
