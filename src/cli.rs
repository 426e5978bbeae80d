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

    /// vGPU on KVM hosts: list types, show devices, apply a layout (mdev and SR-IOV, through sysfs)
    #[command(subcommand)]
    Vgpu(VgpuCommand),

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
}

#[derive(Debug, Subcommand)]
pub enum VgpuCommand {
    /// List the vGPU types each GPU supports and how many more of each it can create now
    Types(VgpuShowArgs),
    /// Show the vGPU devices that exist, their types, and which VMs hold them
    Status(VgpuShowArgs),
    /// Create and remove vGPU devices to match gpushare.toml or a vgpu-device-manager config
    ///
    /// Matching devices are kept, extra ones removed, missing ones created; SR-IOV is enabled first
    /// where needed (`sriov-manage -e`). Everything is checked before the first change, devices a
    /// VM uses are never removed without --force, and running it again changes nothing.
    Apply(VgpuApplyArgs),
    /// Exit 0 when the vGPU devices match the file, 3 when they differ
    Assert(VgpuAssertArgs),
    /// Remove every vGPU device of the selected GPUs
    Clear(VgpuClearArgs),
}

#[derive(Debug, Args)]
pub struct SysfsArgs {
    /// Read and write sysfs and /proc under DIR instead of / (a fake tree, for tests and trials)
    #[arg(
        long,
        value_name = "DIR",
        default_value = "/",
        env = "GPUSHARE_SYSFS_ROOT"
    )]
    pub sysfs_root: PathBuf,
}

#[derive(Debug, Args)]
pub struct VgpuShowArgs {
    /// Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids
    #[arg(long, value_name = "SEL", default_value = "all")]
    pub gpu: GpuSelector,

    #[command(flatten)]
    pub sysfs: SysfsArgs,
}

#[derive(Debug, Args)]
pub struct VgpuFileArgs {
    /// gpushare.toml (its `mode = "vgpu"` entries) or a vgpu-device-manager config (YAML); `-`
    /// reads stdin [default: /etc/gpushare/gpushare.toml]
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    pub file: Option<PathBuf>,

    /// Which config of a vgpu-device-manager file to apply (a label under `vgpu-configs`)
    #[arg(short = 'c', long = "config", value_name = "LABEL")]
    pub config: Option<String>,
}

#[derive(Debug, Args)]
pub struct VgpuApplyArgs {
    #[command(flatten)]
    pub input: VgpuFileArgs,

    /// Only these GPUs of the file's layout: `all`, indexes, ranges, UUIDs or PCI bus ids
    #[arg(long, value_name = "SEL", default_value = "all")]
    pub gpu: GpuSelector,

    /// Show the changes without making them
    #[arg(long)]
    pub dry_run: bool,

    /// Also remove vGPU devices that a VM holds open (the kernel may still refuse)
    #[arg(long)]
    pub force: bool,

    /// The GPUs run in heterogeneous mode (`nvidia-smi vgpu -shm 1`): allow several time-sliced
    /// types on one GPU
    #[arg(long)]
    pub heterogeneous: bool,

    #[command(flatten)]
    pub sysfs: SysfsArgs,
}

#[derive(Debug, Args)]
pub struct VgpuAssertArgs {
    #[command(flatten)]
    pub input: VgpuFileArgs,

    /// Only these GPUs of the file's layout
    #[arg(long, value_name = "SEL", default_value = "all")]
    pub gpu: GpuSelector,

    #[command(flatten)]
    pub sysfs: SysfsArgs,
}

#[derive(Debug, Args)]
pub struct VgpuClearArgs {
    /// GPUs to clear: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids
    #[arg(long, value_name = "SEL", default_value = "all")]
    pub gpu: GpuSelector,

    /// Show the changes without making them
    #[arg(long)]
    pub dry_run: bool,

    /// Also remove vGPU devices that a VM holds open (the kernel may still refuse)
    #[arg(long)]
    pub force: bool,

    #[command(flatten)]
    pub sysfs: SysfsArgs,
}
