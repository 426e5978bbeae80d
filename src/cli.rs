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

    /// MIG: profiles, declarative layouts (gpushare.toml or mig-parted v1), safe incremental apply
    #[command(subcommand)]
    Mig(MigCommand),

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

#[derive(Debug, Subcommand)]
pub enum SimCommand {
    /// List the built-in simulated nodes
    Presets,
    /// List the GPU models a node file may name
    Models,
    /// Reboot the simulated node kept in --sim-state: pending MIG modes apply, instances and
    /// processes are gone
    Reboot,
}

#[derive(Debug, Subcommand)]
pub enum MigCommand {
    /// Every GPU-instance profile of the MIG-capable GPUs: id, slices, memory, counts, placements
    Profiles(MigProfilesArgs),

    /// Change the node to the MIG layout of a file, with the fewest changes
    ///
    /// FILE is a gpushare.toml (entries with mode = "mig" or "none"; "mps" and "time-slicing"
    /// turn MIG off) or an NVIDIA mig-parted v1 config with -c LABEL. Instances that fit the
    /// layout are kept (same ids and MIG UUIDs), only the extras are destroyed, the missing ones
    /// are created at exact placements, and only GPUs whose MIG mode changes are reset.
    /// Applying the same layout again changes nothing.
    Apply(MigApplyArgs),

    /// Exit 0 when the node has the MIG layout of a file, 3 when it does not
    Assert(MigFileArgs),

    /// Print the node's MIG layout as a mig-parted v1 config
    Export(MigExportArgs),

    /// Destroy every GPU and compute instance of the selected GPUs (MIG stays enabled)
    Clear(MigClearArgs),
}

#[derive(Debug, Args)]
pub struct MigProfilesArgs {
    /// Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids
    #[arg(long, value_name = "SEL", default_value = "all")]
    pub gpu: GpuSelector,
}

#[derive(Debug, Args)]
pub struct MigFileArgs {
    /// The desired layout: a gpushare.toml or a mig-parted v1 YAML config (`-` reads stdin)
    #[arg(
        short = 'f',
        long = "file",
        visible_alias = "config-file",
        value_name = "FILE",
        env = "MIG_PARTED_CONFIG_FILE"
    )]
    pub file: PathBuf,

    /// The label of the mig-parted config to use (not needed when the file has one label)
    #[arg(
        short = 'c',
        long = "selected-config",
        visible_alias = "label",
        value_name = "LABEL",
        env = "MIG_PARTED_SELECTED_CONFIG"
    )]
    pub label: Option<String>,
}

#[derive(Debug, Args)]
pub struct MigApplyArgs {
    #[command(flatten)]
    pub file: MigFileArgs,

    /// Print the plan and change nothing
    #[arg(long)]
    pub dry_run: bool,

    /// Change the MIG mode of GPUs that processes or services keep busy, leaving the change
    /// pending until the next reboot (exit 5). Instances in use are never destroyed.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct MigExportArgs {
    /// The label of the exported config
    #[arg(
        short = 'l',
        long = "config-label",
        value_name = "LABEL",
        default_value = "current"
    )]
    pub label: String,
}

#[derive(Debug, Args)]
pub struct MigClearArgs {
    /// Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids
    #[arg(long, value_name = "SEL", default_value = "all")]
    pub gpu: GpuSelector,

    /// Print the plan and change nothing
    #[arg(long)]
    pub dry_run: bool,
}
