//! The command line. Doc comments here are the help text, the completions and the man page.

use crate::node::model::selector::GpuSelector;
use crate::support::output::{ColorChoice, Format};
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
    max_term_width = 100,
    after_long_help = "Guides, one per task (share a node, MIG, MPS and time-slicing, vGPU, roll out on a cluster, \
the probe, CI provisioning, running as root, the gpushare.toml reference): the docs/ folder of \
gpushare's source, linked from its README."
)]
pub(crate) struct Cli {
    /// Listed after each command's own options.
    #[command(flatten, next_help_heading = "Global options")]
    pub global: GlobalArgs,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args)]
pub(crate) struct GlobalArgs {
    /// Use a simulated node: a preset name or a node file (TOML)
    #[arg(long, global = true, env = "GPUSHARE_SIM", value_name = "PRESET|FILE")]
    pub sim: Option<String>,

    /// Keep the simulated node's changes in FILE (loaded when it exists, each change kept as it is
    /// made)
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

    /// Seconds a changing command (init, apply) waits for another one to finish; 0: fail at once
    #[arg(long, global = true, env = "GPUSHARE_LOCK_TIMEOUT", value_name = "SECONDS",
          default_value = "60", value_parser = parse_lock_timeout)]
    pub lock_timeout: std::time::Duration,

    /// How many GPUs a changing command changes at once (default: every GPU it changes; 1: one
    /// change after another, in plan order)
    #[arg(long, global = true, env = "GPUSHARE_JOBS", value_name = "N")]
    pub jobs: Option<std::num::NonZeroUsize>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Set up a bare node in one go: choose a layout, write gpushare.toml, apply it, write the
    /// cluster manifests, and check the result with the probe
    ///
    /// The layout comes from -c FILE or from --mode: `mig --profile P` (as many instances of P as
    /// fit on each MIG-capable GPU), `mps --clients N`, `time-slicing --replicas N`, or
    /// `auto --slices N [--min-memory SIZE]` (MIG where a profile gives N instances of at least
    /// that memory, MPS with N clients elsewhere). Running it again with the same layout changes
    /// nothing.
    Init(InitArgs),

    /// Show what `apply` would change to bring the node to gpushare.toml (every mode)
    ///
    /// With --check: exit 0 when the node is as the file says, 3 when it differs, 5 when only a
    /// reboot is missing.
    Plan(PlanArgs),

    /// Change the node to gpushare.toml: MIG, MPS, time-slicing and vGPU, in one plan
    ///
    /// The whole file is checked against the node before anything changes. Changes run in order
    /// under the node lock, each one journalled; what is in use is never destroyed. Interrupted
    /// (a failure, Ctrl-C, SIGTERM, a crash), running it again continues from the node as it is;
    /// on a node that matches it changes nothing. Asks before changing on a terminal unless
    /// --yes.
    Apply(ApplyArgs),

    /// Show the GPUs of this node: models, memory, MIG, compute mode, processes and whose they
    /// are (pod and container, or host, from each process's cgroup under --host-root)
    Detect(DetectArgs),

    /// One screen of what the node shares now: per GPU its mode, its MIG instances drawn over
    /// its memory slices with their holders, its MPS daemon and claims' shares, time-slicing
    /// replicas and health; then the layout in force and what `apply` would still change
    Status(StatusArgs),

    /// Check that this node is ready to share its GPUs (driver, devices, runtime, CDI, blockers)
    Doctor(DoctorArgs),

    /// MIG: profiles, declarative layouts (gpushare.toml or mig-parted v1), safe incremental apply
    #[command(subcommand)]
    Mig(MigCommand),

    /// MPS: several processes at once on a GPU or MIG device, with per-client limits
    #[command(subcommand)]
    Mps(MpsCommand),

    /// vGPU on KVM hosts: list types, show devices, apply a layout (mdev and SR-IOV, through sysfs)
    #[command(subcommand)]
    Vgpu(VgpuCommand),

    /// Generate cluster wiring for this node: device plugin, gpushare extender, HAMi, DRA, CDI,
    /// node agent
    ///
    /// Without -c the node is described as it is now; with -c as gpushare.toml lays it out.
    /// Multi-document YAML goes to stdout, or one file per object under --out.
    Manifests(ManifestsArgs),

    /// Run as the node agent of a Kubernetes DaemonSet: apply the layout the node's label names
    ///
    /// Watches this Node and the layouts ConfigMap. The label `gpushare.io/config=<name>` (or the
    /// GPU Operator's `nvidia.com/mig.config=<label>`) names a layout of the ConfigMap: a data key
    /// holding a gpushare.toml, or a label of the mig-parted config under the key `config.yaml`.
    /// On start and on every change the node is brought to it through the pipeline of `apply`
    /// (node lock, journal, resume); the device plugin, GFD, DCGM and dcgm-exporter are paused
    /// around changes that need the GPUs free. Progress goes to the node label
    /// `gpushare.io/config.state` (pending, applying, success, failed, reboot-required; mirrored
    /// into `nvidia.com/mig.config.state` for the GPU Operator's label) and to events on the
    /// Node. It listens for the GPUs' Xid and ECC errors and tells the cluster which device is
    /// unhealthy (the Node condition GPUUnhealthy, events, DRA DeviceTaintRules), restarts the
    /// device plugins once every device has recovered, and with --reset-unhealthy-gpus resets
    /// an idle GPU a fatal fault left unhealthy. Runs until SIGTERM.
    Agent(AgentArgs),

    /// MIG on demand for the cluster: reshape idle MIG capacity of the nodes labelled
    /// gpushare.io/mig.on-demand=true for pods that wait for `nvidia.com/mig-<profile>`, never
    /// touching an instance a pod holds, and give it back to each node's own layout once no pod
    /// waits. One Deployment; replicas elect a leader with a Lease. It writes layouts in node
    /// annotations; each node's agent applies them. Runs until SIGTERM.
    Controller(ControllerArgs),

    /// gpushare's DRA kubelet plugin (driver gpu.gpushare.io): publishes the node's GPUs and MIG
    /// devices as a ResourceSlice (exactly the node, each unhealthy device tainted), registers
    /// with the kubelet, and prepares each claim's devices as a CDI spec from gpushare's CDI
    /// generator (removed at unprepare; a restarted plugin finds what it prepared). Runs until
    /// SIGTERM.
    DraPlugin(DraPluginArgs),

    /// Measure memory, bandwidth and latency on every GPU, MIG device and MPS client, and check
    /// that each gives what it was promised
    ///
    /// Each target runs in its own worker process with a built-in CUDA probe: memory total/free,
    /// allocation up to the promised limit and one chunk past it (which must fail), host-to-device,
    /// device-to-host and device-to-device bandwidth, empty-kernel launch latency, and the SMs its
    /// kernels really reach. Exit 3 when a promise is not kept, 4 without a CUDA driver.
    Probe(ProbeArgs),

    /// The node's metrics for Prometheus: GPUs and MIG devices (memory, processes, utilisation,
    /// the pod that holds each, the memory each pod's containers use, health), MIG, MPS and
    /// time-slicing, the changes made, the probe's last verdict
    ///
    /// With --listen, serves GET /metrics until SIGTERM, on a node without Kubernetes (`gpushare
    /// unit --metrics` installs it as a service; the node agent serves the same on its health
    /// address). Without it, prints one scrape. Each scrape reads the driver once. While it
    /// listens it also hears the GPUs' Xid and ECC errors (see `gpushare detect`'s health).
    Metrics(MetricsArgs),

    /// Reset the GPUs that a fatal fault left unhealthy: an Xid of `[health] fatal_xids` or a
    /// double-bit ECC error, as the health watch recorded it
    ///
    /// Through the pipeline of `apply` (node lock, journal, GPU clients stopped around the reset);
    /// a GPU that anything runs on is refused. Recoverable Xids clear by themselves after
    /// `[health] recover_after_seconds`.
    Recover(RecoverArgs),

    /// Print, install or remove the boot unit that applies gpushare.toml at every boot
    ///
    /// `gpushare-apply.service` is a oneshot ordered after the driver and nvidia-persistenced and
    /// before the container runtimes and kubelet; it runs `gpushare apply --yes` with the layout
    /// file. MIG instances do not survive a reboot; this brings them back before anything uses
    /// the GPUs. Exit 5 (a MIG mode waits for a reboot) is not a failure of the unit, and the
    /// unit never reboots the machine.
    Unit(UnitArgs),

    /// Simulated nodes: presets, the GPU models they can hold, a reboot
    #[command(subcommand)]
    Sim(SimCommand),

    /// Print a shell completion script
    Completions {
        /// The shell to complete for
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },

    /// Print the man page (roff), or write one per command
    Man {
        /// Write gpushare.1 and a page per command (gpushare-init.1, gpushare-mig-apply.1, …)
        /// into DIR instead, each with the exit codes
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

/// The gpushare.toml of `plan` and `apply`.
#[derive(Debug, Args)]
pub(crate) struct LayoutFileArgs {
    /// The desired layout (`-`: read it from stdin) [default: /etc/gpushare/gpushare.toml, under
    /// --state-root]
    #[arg(short = 'c', long = "config", value_name = "FILE")]
    pub config: Option<PathBuf>,

    #[command(flatten)]
    pub sysfs: SysfsArgs,
}

#[derive(Debug, Args)]
pub(crate) struct PlanArgs {
    #[command(flatten)]
    pub file: LayoutFileArgs,

    /// Exit 3 when the node differs from the file (5 when only a reboot is missing)
    #[arg(long)]
    pub check: bool,

    /// Plan as `apply --force` would
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ApplyArgs {
    #[command(flatten)]
    pub file: LayoutFileArgs,

    /// Print the plan and change nothing
    #[arg(long)]
    pub dry_run: bool,

    /// Go ahead where something is in use: MIG modes of busy GPUs change at the next reboot
    /// (exit 5), MPS daemons with clients are stopped (clients ended), vGPU devices VMs hold are
    /// removed. MIG instances in use are never destroyed.
    #[arg(long)]
    pub force: bool,

    /// Do not ask for confirmation (it is never asked without a terminal)
    #[arg(short, long)]
    pub yes: bool,

    #[command(flatten)]
    pub clients_and_hooks: ClientsAndHooksArgs,
}

/// What runs around the changes: GPU clients and mig-parted's hooks (`apply`, `mig apply`,
/// `unit`).
#[derive(Debug, Args)]
pub(crate) struct ClientsAndHooksArgs {
    /// mig-parted's GPU clients file: host services that hold the GPUs, stopped before MIG mode
    /// changes and resets and started again after them (with those of `[clients]`)
    #[arg(long, value_name = "FILE", env = "GPU_CLIENTS_FILE")]
    pub gpu_clients_file: Option<PathBuf>,

    /// mig-parted's hooks file: commands run at apply-start, pre-apply-mode, pre-apply-config and
    /// apply-exit
    #[arg(short = 'k', long, value_name = "FILE", env = "MIG_PARTED_HOOKS_FILE")]
    pub hooks_file: Option<PathBuf>,

    /// Seconds one hook command may run; then it is killed with what it started, and the apply
    /// stops as after a failed step (GPU clients started again, the apply-exit hook run)
    #[arg(long, value_name = "SECONDS", default_value_t = 300,
          value_parser = clap::value_parser!(u64).range(1..=86400))]
    pub hooks_timeout: u64,
}

/// How `init` shares the GPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum InitMode {
    /// MIG instances of one profile (--profile), optionally time-sliced (--replicas)
    Mig,
    /// MPS with N clients per GPU (--clients)
    Mps,
    /// Time-slicing with N replicas per GPU (--replicas)
    TimeSlicing,
    /// N slices per GPU (--slices): MIG where a profile gives them, MPS elsewhere
    Auto,
}

#[derive(Debug, Args)]
pub(crate) struct InitArgs {
    /// Take the layout from this gpushare.toml instead of --mode
    #[arg(
        short = 'c',
        long = "config",
        value_name = "FILE",
        conflicts_with = "mode"
    )]
    pub config: Option<PathBuf>,

    /// How to share the GPUs
    #[arg(long, value_enum)]
    pub mode: Option<InitMode>,

    /// --mode mig: the MIG profile, e.g. 1g.10gb (`gpushare mig profiles` lists them)
    #[arg(long, value_name = "PROFILE")]
    pub profile: Option<String>,

    /// --mode mps: clients per GPU (each gets 1/N of the threads and of the memory)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub clients: Option<u32>,

    /// --mode time-slicing: workloads that take turns on each GPU, 2 to 1024; --mode mig: on
    /// each MIG device
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(2..=1024))]
    pub replicas: Option<u32>,

    /// --mode auto: slices per GPU
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub slices: Option<u32>,

    /// --mode auto: the least memory a slice may have, e.g. 10G
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub min_memory: Option<u64>,

    /// Where to write gpushare.toml [default: /etc/gpushare/gpushare.toml, under --state-root]
    #[arg(long, value_name = "FILE")]
    pub config_out: Option<PathBuf>,

    /// Where to write the manifests of the `[kubernetes] targets` [default:
    /// /etc/gpushare/manifests, under --state-root]
    #[arg(long, value_name = "DIR")]
    pub manifests_out: Option<PathBuf>,

    /// Overwrite a gpushare.toml that says something else, and change the node as `apply
    /// --force` does (a MIG mode change that processes keep from its reset is left pending until
    /// the next reboot, MPS clients in the way are ended)
    #[arg(long)]
    pub force: bool,

    /// Do not ask for confirmation (it is never asked without a terminal)
    #[arg(short, long)]
    pub yes: bool,

    /// Print the layout and the plan, and stop: nothing is written or changed
    #[arg(long)]
    pub dry_run: bool,

    /// Do not run the probe at the end
    #[arg(long)]
    pub no_probe: bool,

    #[command(flatten)]
    pub sysfs: SysfsArgs,
}

#[derive(Debug, Args)]
pub(crate) struct ManifestsArgs {
    /// What to generate (repeatable; default: `[kubernetes] targets` of -c)
    #[arg(long, value_enum, value_name = "TARGET")]
    pub target: Vec<crate::cluster::manifests::Target>,

    /// The desired layout (gpushare.toml; `-`: from stdin) [default:
    /// /etc/gpushare/gpushare.toml, under --state-root, when it exists; without one, the node as
    /// it is now]
    #[arg(short, long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Write one file per object (and NOTES.txt) into DIR instead of stdout; a run for another
    /// node class adds to the manifests already there (one device-plugin ConfigMap with a key
    /// per layout), so `kubectl apply -f DIR` applies the whole fleet
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Kubernetes release of the cluster, 1.29 to 1.37 [default: 1.34]
    #[arg(long, value_name = "VERSION")]
    pub k8s_version: Option<String>,

    /// Namespace of the namespaced objects (default: each target's usual one)
    #[arg(long, value_name = "NS")]
    pub namespace: Option<String>,

    /// Image of a component: device-plugin, gpushare-extender, gpushare-device-plugin, hami,
    /// cuda, kube-scheduler, gpushare (repeatable)
    #[arg(long = "image", value_name = "NAME=REF")]
    pub images: Vec<String>,

    /// Name of this layout: the node label value that selects it, and part of object names
    /// [default: the stem of -c; for gpushare.toml or no file, gpushare-HASH, from the layout]
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,

    /// Kubernetes name of this node, for the label commands in the notes (and HAMi's node config)
    #[arg(long, value_name = "NODE")]
    pub node_name: Option<String>,

    /// nvidia-device-plugin: write Helm values for the chart instead of plain manifests
    #[arg(long)]
    pub helm_values: bool,

    /// The device plugin's MIG strategy: `auto` is `single` where every GPU has MIG devices of
    /// one profile, `mixed` otherwise; `mixed` always names a resource per profile (what MIG on
    /// demand needs: `gpushare controller` changes the profiles)
    #[arg(long, value_enum, value_name = "STRATEGY", default_value = "auto")]
    pub mig_strategy: MigStrategyChoice,

    /// Add a pod per target that requests one slice
    #[arg(long)]
    pub examples: bool,

    /// cdi: write the spec to /etc/cdi/nvidia.yaml (atomically, 0644) instead of printing it
    #[arg(long)]
    pub install: bool,

    #[command(flatten)]
    pub cdi_source: CdiSourceArgs,
}

/// Where a CDI spec's device nodes, driver files and hooks come from (`--target cdi`, and the
/// DRA plugin's claims).
#[derive(Debug, Args)]
pub(crate) struct CdiSourceArgs {
    /// CDI: read device nodes and MIG minors under DIR (`DIR/dev`, `DIR/proc/driver`), every
    /// link resolved inside it [default: /]
    #[arg(long, value_name = "DIR")]
    pub dev_root: Option<PathBuf>,

    /// CDI: mount the driver's libraries, tools and firmware from under DIR (a containerized
    /// driver's root) [default: the --dev-root, or / on a node]
    #[arg(long, value_name = "DIR")]
    pub driver_root: Option<PathBuf>,

    /// CDI from inside a container whose host's / is mounted at DIR (gpushare's DRA plugin
    /// DaemonSet mounts it at /host): device nodes and driver files are read under DIR (the
    /// default of --dev-root), and the spec names them as the host's container runtime sees them
    #[arg(long, value_name = "DIR")]
    pub host_root: Option<PathBuf>,

    /// CDI: the nvidia-cdi-hook program (on the host) that the spec's hooks run: SONAME links,
    /// the loader's cache, CUDA compatibility [default: /usr/bin/nvidia-cdi-hook when it exists;
    /// no hooks otherwise]
    #[arg(long, value_name = "PATH")]
    pub nvidia_cdi_hook_path: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct AgentArgs {
    /// This node's name in Kubernetes
    #[arg(long, env = "NODE_NAME", value_name = "NAME")]
    pub node: String,

    /// The ConfigMap of named layouts
    #[arg(long, value_name = "NAMESPACE/NAME")]
    pub configmap: String,

    /// kubeconfig file(s) to reach the API server [default: the pod's service account]
    #[arg(long, env = "KUBECONFIG", value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,

    /// Serve the health endpoint (GET /healthz) and the node's metrics (GET /metrics, as
    /// `gpushare metrics`) on this address
    #[arg(long, value_name = "ADDR", default_value = "0.0.0.0:8081")]
    pub health_addr: std::net::SocketAddr,

    /// Seconds the paused GPU clients get to leave the node before the change is given up
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    pub pause_timeout: u64,

    /// Seconds before a failed run is tried again (bad layouts wait for a change instead)
    #[arg(long, value_name = "SECONDS", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub retry: u64,

    /// Ask the kubelet under DIR which pods hold which devices
    /// (DIR/var/lib/kubelet/pod-resources/kubelet.sock), and read whose each GPU process is
    /// (DIR/proc/PID/cgroup; names from the API) [default: / on a real node; a simulated node
    /// reads them only when it is given]
    #[arg(long, value_name = "DIR")]
    pub host_root: Option<PathBuf>,

    /// The kubelet's cgroup roots, comma-separated (its `cgroupRoot`; for a node in a container,
    /// that root's path as this host sees it): a process is a pod's only under the pods' cgroup
    /// there (`ROOT/kubepods`, or the systemd driver's `…kubepods.slice`), never where anyone may
    /// make a cgroup named like a pod
    #[arg(long, value_name = "PATH", env = "GPUSHARE_KUBELET_CGROUP_ROOT", default_value = "/",
          value_parser = crate::observe::owners::cgroup::PodCgroups::parse)]
    pub kubelet_cgroup_root: crate::observe::owners::cgroup::PodCgroups,

    /// Seconds between publications of the node's MIG state for `gpushare controller` (on a
    /// node labelled gpushare.io/mig.on-demand=true; only a change is written)
    #[arg(long, value_name = "SECONDS", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub publish_every: u64,

    /// Reset a GPU that a fatal fault left unhealthy (an Xid of `[health] fatal_xids`, a
    /// double-bit ECC error) once no pod holds it and nothing runs on it, through the pipeline
    /// of `gpushare recover`
    #[arg(long)]
    pub reset_unhealthy_gpus: bool,

    #[command(flatten)]
    pub sysfs: SysfsArgs,
}

/// `manifests --mig-strategy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum MigStrategyChoice {
    Auto,
    Mixed,
}

#[derive(Debug, Args)]
pub(crate) struct DraPluginArgs {
    /// This node's name in Kubernetes (the pool and the slice's node)
    #[arg(long, env = "NODE_NAME", value_name = "NAME")]
    pub node_name: String,

    /// Talk to the API server through this kubeconfig [default: the pod's service account]
    #[arg(long, env = "KUBECONFIG", value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,

    /// The kubelet's plugin registry
    #[arg(
        long,
        value_name = "DIR",
        default_value = "/var/lib/kubelet/plugins_registry"
    )]
    pub registry_dir: PathBuf,

    /// The plugin's own directory (its DRA socket)
    #[arg(
        long,
        value_name = "DIR",
        default_value = "/var/lib/kubelet/plugins/gpu.gpushare.io"
    )]
    pub plugin_dir: PathBuf,

    /// Where the container runtime reads CDI specs (each prepared claim's is written there)
    #[arg(long, value_name = "DIR", default_value = "/var/run/cdi")]
    pub cdi_root: PathBuf,

    /// The claims' CDI specs
    #[command(flatten)]
    pub cdi_source: CdiSourceArgs,

    /// Listen for the GPUs' Xid and ECC errors itself (where no `gpushare agent` or `gpushare
    /// metrics --listen` does: one watch per node), so unhealthy devices are tainted in the slice
    #[arg(long)]
    pub watch_health: bool,

    /// Taint a device that a cause `[health]` calls fatal made unhealthy `NoExecute` rather than
    /// `NoSchedule`: the pods of its claims are evicted (unless they tolerate it)
    #[arg(long)]
    pub evict_on_fatal: bool,

    /// The node's gpushare.toml: each GPU it gives to dynamic MIG (`mig.dynamic = true`) is
    /// published as every placement, its instance made when a claim is prepared [default:
    /// /etc/gpushare/gpushare.toml when it exists]
    #[arg(short = 'c', long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    #[command(flatten)]
    pub sysfs: SysfsArgs,
}

#[derive(Debug, Args)]
pub(crate) struct ControllerArgs {
    /// kubeconfig file(s) to reach the API server [default: the pod's service account]
    #[arg(long, env = "KUBECONFIG", value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,

    /// Namespace of the leader-election Lease
    #[arg(
        long,
        env = "POD_NAMESPACE",
        value_name = "NAMESPACE",
        default_value = "kube-system"
    )]
    pub namespace: String,

    /// Name of the leader-election Lease
    #[arg(long, value_name = "NAME", default_value = "gpushare-controller")]
    pub lease: String,

    /// This replica's identity in the Lease [default: hostname-pid]
    #[arg(long, env = "POD_NAME", value_name = "ID")]
    pub id: Option<String>,

    /// Seconds a leader's Lease lasts unrenewed before another replica takes over
    #[arg(long, value_name = "SECONDS", default_value_t = 15,
          value_parser = clap::value_parser!(u64).range(2..=3600))]
    pub lease_seconds: u64,

    /// Milliseconds between two looks at the cluster
    #[arg(long = "interval", value_name = "MS", default_value_t = 2000,
          value_parser = clap::value_parser!(u64).range(100..=600_000))]
    pub interval_ms: u64,

    /// At most this many nodes reshaping at once
    #[arg(long, value_name = "N", default_value_t = 2,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_reshaping: u32,

    /// Seconds after a layout is written before that node is changed again
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub cooldown: u64,

    /// Seconds a node's reshaped capacity stays once no pod waits for it, before it goes back
    /// to the node's own layout
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    pub give_back_after: u64,

    /// Serve the health endpoint (GET /healthz) on this address
    #[arg(long, value_name = "ADDR", default_value = "0.0.0.0:8082")]
    pub health_addr: std::net::SocketAddr,
}

#[derive(Debug, Args)]
pub(crate) struct ProbeArgs {
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

    /// Read whose the other processes on each target's device are under DIR
    /// (DIR/proc/PID/cgroup, DIR/var/log/pods) [default: / on a real node; a simulated node reads
    /// them only when it is given]
    #[arg(long, value_name = "DIR")]
    pub host_root: Option<PathBuf>,

    /// Probe the share of a device this container holds (a pod of gpushare's DRA driver on a
    /// device shared by claims): its memory and compute limits from inside, against what the
    /// claim was given (GPUSHARE_SHARE_*); no NVML needed
    #[arg(long, conflicts_with_all = ["target", "config", "mps_pipe_dir", "host_root"])]
    pub share: bool,

    /// The kubelet's cgroup roots, comma-separated (its `cgroupRoot`; for a node in a container,
    /// that root's path as this host sees it): a process is a pod's only under the pods' cgroup
    /// there (`ROOT/kubepods`, or the systemd driver's `…kubepods.slice`), never where anyone may
    /// make a cgroup named like a pod
    #[arg(long, value_name = "PATH", env = "GPUSHARE_KUBELET_CGROUP_ROOT", default_value = "/",
          value_parser = crate::observe::owners::cgroup::PodCgroups::parse)]
    pub kubelet_cgroup_root: crate::observe::owners::cgroup::PodCgroups,

    /// Run N clients on each target at once and report their sum and each client; `promised`:
    /// as many as each target is promised to (MPS clients, time-slicing replicas of a GPU or of
    /// each MIG device), one where nothing is promised
    #[arg(long, value_name = "N|promised", default_value = "1",
          value_parser = crate::observe::probe::clients::Clients::parse)]
    pub clients: crate::observe::probe::clients::Clients,

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

    /// Where each GPU's local CPUs are read (`/sys/bus/pci/devices/<bdf>/local_cpulist`)
    #[command(flatten)]
    pub sysfs: SysfsArgs,
}

fn parse_size(text: &str) -> Result<u64, String> {
    crate::support::output::parse_size_mib(text)
}

#[derive(Debug, Args)]
pub(crate) struct MetricsArgs {
    /// Serve GET /metrics on this address until SIGTERM [default: print one scrape]
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<std::net::SocketAddr>,

    /// The layout in force, for its time-slicing replicas [default:
    /// /etc/gpushare/gpushare.toml, under --state-root, when it exists]
    #[arg(short = 'c', long = "config", value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Ask the kubelet under DIR which pods hold the devices
    /// (DIR/var/lib/kubelet/pod-resources/kubelet.sock), and read whose each GPU process is
    /// (DIR/proc/PID/cgroup, DIR/var/log/pods); on a real node DIR is / unless given, on a
    /// simulated one both are read only when it is given
    #[arg(long, value_name = "DIR")]
    pub host_root: Option<PathBuf>,

    /// The kubelet's cgroup roots, comma-separated (its `cgroupRoot`; for a node in a container,
    /// that root's path as this host sees it): a process is a pod's only under the pods' cgroup
    /// there (`ROOT/kubepods`, or the systemd driver's `…kubepods.slice`), never where anyone may
    /// make a cgroup named like a pod
    #[arg(long, value_name = "PATH", env = "GPUSHARE_KUBELET_CGROUP_ROOT", default_value = "/",
          value_parser = crate::observe::owners::cgroup::PodCgroups::parse)]
    pub kubelet_cgroup_root: crate::observe::owners::cgroup::PodCgroups,

    /// Print OpenMetrics text rather than the Prometheus text format
    #[arg(long, conflicts_with = "listen")]
    pub openmetrics: bool,
}

#[derive(Debug, Args)]
pub(crate) struct RecoverArgs {
    /// Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids
    #[arg(long, value_name = "SEL", default_value = "all")]
    pub gpu: GpuSelector,

    /// The health policy's file [default: /etc/gpushare/gpushare.toml, under --state-root, when
    /// it exists; the defaults otherwise]
    #[arg(short = 'c', long = "config", value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Print the plan and change nothing
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args)]
pub(crate) struct UnitArgs {
    /// The layout the unit applies [default: /etc/gpushare/gpushare.toml, under --state-root]
    #[arg(short = 'c', long = "config", value_name = "FILE")]
    pub config: Option<PathBuf>,

    #[command(flatten)]
    pub clients_and_hooks: ClientsAndHooksArgs,

    /// The unit that serves `gpushare metrics --listen` (gpushare-metrics.service) instead
    #[arg(long, conflicts_with_all = ["gpu_clients_file", "hooks_file"])]
    pub metrics: bool,

    /// Where the metrics unit serves GET /metrics
    #[arg(
        long,
        value_name = "ADDR",
        default_value = "0.0.0.0:9407",
        requires = "metrics"
    )]
    pub listen: std::net::SocketAddr,

    /// Write the unit under /etc/systemd/system (atomically) and enable it
    #[arg(long, conflicts_with = "uninstall")]
    pub install: bool,

    /// Disable the unit and remove it
    #[arg(long)]
    pub uninstall: bool,
}

#[derive(Debug, Args)]
pub(crate) struct DetectArgs {
    /// Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids
    #[arg(long, value_name = "SEL", default_value = "all")]
    pub gpu: GpuSelector,

    #[command(flatten)]
    pub holders: HolderArgs,
}

/// Where `detect` and `status` learn who holds the devices.
#[derive(Debug, Args)]
pub(crate) struct HolderArgs {
    /// Ask the kubelet under DIR which pods hold the devices
    /// (DIR/var/lib/kubelet/pod-resources/kubelet.sock), and read whose each GPU process is
    /// (DIR/proc/PID/cgroup, DIR/var/log/pods); on a real node DIR is / unless given, on a
    /// simulated one both are read only when it is given
    #[arg(long, value_name = "DIR")]
    pub host_root: Option<PathBuf>,

    /// The kubelet's cgroup roots, comma-separated (its `cgroupRoot`; for a node in a container,
    /// that root's path as this host sees it): a process is a pod's only under the pods' cgroup
    /// there (`ROOT/kubepods`, or the systemd driver's `…kubepods.slice`), never where anyone may
    /// make a cgroup named like a pod
    #[arg(long, value_name = "PATH", env = "GPUSHARE_KUBELET_CGROUP_ROOT", default_value = "/",
          value_parser = crate::observe::owners::cgroup::PodCgroups::parse)]
    pub kubelet_cgroup_root: crate::observe::owners::cgroup::PodCgroups,
}

#[derive(Debug, Args)]
pub(crate) struct StatusArgs {
    /// The layout to compare the node with [default: /etc/gpushare/gpushare.toml, under
    /// --state-root, when it exists]
    #[arg(short = 'c', long = "config", value_name = "FILE")]
    pub config: Option<PathBuf>,

    #[command(flatten)]
    pub holders: HolderArgs,
}

#[derive(Debug, Args)]
pub(crate) struct DoctorArgs {
    /// Check the host files (/dev, /proc, /sys, /etc) under DIR instead of /
    #[arg(long, value_name = "DIR")]
    pub host_root: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum SimCommand {
    /// List the built-in simulated nodes
    Presets,
    /// List the GPU models a node file may name
    Models,
    /// Reboot the simulated node kept in --sim-state: pending MIG modes apply, instances and
    /// processes are gone
    Reboot,
    /// Raise an Xid error on a GPU of the node kept in --sim-state, as the driver reports one
    /// to the NVML clients that wait for events (gpushare, NVIDIA's device plugin and DRA driver
    /// on the NVML stand-in)
    Xid(SimEventArgs),
    /// Raise an ECC error (single-bit, or double-bit with --double-bit) the same way
    Ecc {
        #[command(flatten)]
        on: SimEventTarget,
        /// A double-bit (uncorrectable) error
        #[arg(long)]
        double_bit: bool,
    },
    /// Start or end a GPU process of the node kept in --sim-state: every NVML client lists it as
    /// the driver would (a real process of this host, e.g. a container's, by its host PID)
    #[command(subcommand)]
    Process(SimProcessCommand),
}

#[derive(Debug, Subcommand)]
pub(crate) enum SimProcessCommand {
    /// List PID as a process on a GPU or MIG device, using memory
    Start(SimProcessArgs),
    /// End the process PID: no GPU lists it any more
    End {
        /// Its host PID
        #[arg(long)]
        pid: u32,
    },
}

#[derive(Debug, Args)]
pub(crate) struct SimProcessArgs {
    #[command(flatten)]
    pub on: SimEventTarget,
    /// Its host PID
    #[arg(long)]
    pub pid: u32,
    /// The memory it uses on the device, in MiB
    #[arg(long, value_name = "MIB")]
    pub memory_mib: u64,
    /// Its name; the PID's own (`/proc/PID/comm`) when it runs here
    #[arg(long)]
    pub name: Option<String>,
    /// Listed as a client of an MPS server (`nvidia-smi`'s `M+C`)
    #[arg(long)]
    pub mps_client: bool,
}

#[derive(Debug, Args)]
pub(crate) struct SimEventArgs {
    /// The Xid (79: fallen off the bus, 48: double-bit ECC, 13: a graphics engine exception, …)
    pub xid: u64,
    #[command(flatten)]
    pub on: SimEventTarget,
}

/// Where a simulated event happens.
#[derive(Debug, Args)]
pub(crate) struct SimEventTarget {
    /// The GPU's index
    #[arg(long)]
    pub gpu: u32,
    /// On its MIG device GI:CI (GPU instance and compute instance ids, as `detect` shows them)
    #[arg(long, value_name = "GI:CI", value_parser = parse_mig_device)]
    pub mig_device: Option<(u32, u32)>,
}

fn parse_mig_device(text: &str) -> std::result::Result<(u32, u32), String> {
    let (gi, ci) = text
        .split_once(':')
        .ok_or_else(|| format!("`{text}` is not GI:CI"))?;
    let id = |t: &str| {
        t.parse::<u32>()
            .map_err(|_| format!("`{t}` in `{text}` is not an instance id"))
    };
    Ok((id(gi)?, id(ci)?))
}

#[derive(Debug, Subcommand)]
pub(crate) enum MigCommand {
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
pub(crate) struct MigProfilesArgs {
    /// Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids
    #[arg(long, value_name = "SEL", default_value = "all")]
    pub gpu: GpuSelector,
}

#[derive(Debug, Args)]
pub(crate) struct MigFileArgs {
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
pub(crate) struct MigApplyArgs {
    #[command(flatten)]
    pub file: MigFileArgs,

    /// Print the plan and change nothing
    #[arg(long)]
    pub dry_run: bool,

    /// Change the MIG mode of GPUs that processes or services keep busy, leaving the change
    /// pending until the next reboot (exit 5). Instances in use are never destroyed.
    #[arg(long)]
    pub force: bool,

    /// Only the MIG mode of the layout: instances are neither created nor destroyed
    #[arg(short = 'm', long, env = "MIG_PARTED_MODE_CHANGE_ONLY",
          value_parser = clap::builder::BoolishValueParser::new())]
    pub mode_only: bool,

    /// Set the MIG mode without resetting GPUs: a change a GPU leaves pending takes effect at its
    /// next reset or reboot (exit 5)
    #[arg(short = 's', long, env = "MIG_PARTED_SKIP_RESET",
          value_parser = clap::builder::BoolishValueParser::new())]
    pub skip_reset: bool,

    #[command(flatten)]
    pub clients_and_hooks: ClientsAndHooksArgs,
}

#[derive(Debug, Args)]
pub(crate) struct MigExportArgs {
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
pub(crate) struct MigClearArgs {
    /// Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids
    #[arg(long, value_name = "SEL", default_value = "all")]
    pub gpu: GpuSelector,

    /// Print the plan and change nothing
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Subcommand)]
pub(crate) enum MpsCommand {
    /// Start MPS daemons: compute mode EXCLUSIVE_PROCESS, limits sent before any client connects
    ///
    /// One daemon serves the selected whole GPUs; a GPU with MIG enabled gets one daemon per MIG
    /// device. Clients connect with CUDA_MPS_PIPE_DIRECTORY set to the pipe dir printed.
    Start(MpsStartArgs),

    /// Show the MPS daemons gpushare started: servers, clients, limits, compute modes
    ///
    /// Exits 3 when a daemon does not answer or the node differs from what it was started with.
    Status(MpsStatusArgs),

    /// Stop MPS daemons: refuse while clients are connected, restore compute mode DEFAULT
    Stop(MpsStopArgs),

    /// Print, or install, a systemd unit that starts the daemons at boot with the same settings
    Unit(MpsUnitArgs),
}

/// What a daemon is started with (`mps start` and `mps unit`).
#[derive(Debug, Args)]
pub(crate) struct MpsSettingsArgs {
    /// GPUs to share: `all`, indexes `0,2`, ranges `0-3`, UUIDs (`MIG-…` for single MIG devices)
    #[arg(
        long,
        value_name = "SEL",
        default_value = "all",
        conflicts_with = "config"
    )]
    pub gpu: GpuSelector,

    /// An equal share for N clients: 100/N percent of the threads, 1/N of the memory each
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..), conflicts_with = "config")]
    pub clients: Option<u32>,

    /// Active thread percentage per client, 1 to 100
    #[arg(long, value_name = "P", value_parser = clap::value_parser!(u32).range(1..=100), conflicts_with_all = ["clients", "config"])]
    pub thread_percentage: Option<u32>,

    /// Pinned device memory per client, e.g. `4G` or `512M` (overrides the share of --clients)
    #[arg(long, value_name = "SIZE", value_parser = crate::support::output::parse_size_mib, conflicts_with = "config")]
    pub memory_limit: Option<u64>,

    /// Pipe directory of the daemon (default /run/gpushare/mps/NAME/pipe)
    #[arg(long, value_name = "DIR")]
    pub pipe_dir: Option<PathBuf>,

    /// Log directory of the daemon (default /run/gpushare/mps/NAME/log)
    #[arg(long, value_name = "DIR")]
    pub log_dir: Option<PathBuf>,

    /// Let clients of every user share one server (-multiuser-server; Volta or newer, root)
    #[arg(long)]
    pub multiuser: bool,

    /// Start what the `mps` and `mig.mps` sections of gpushare.toml ask for
    #[arg(short, long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Seconds to wait for each answer of the daemon
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = parse_timeout)]
    pub timeout: std::time::Duration,
}

#[derive(Debug, Args)]
pub(crate) struct MpsStartArgs {
    #[command(flatten)]
    pub settings: MpsSettingsArgs,
}

#[derive(Debug, Args)]
pub(crate) struct MpsStatusArgs {
    /// Seconds to wait for each answer of a daemon
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = parse_timeout)]
    pub timeout: std::time::Duration,
}

#[derive(Debug, Args)]
pub(crate) struct MpsStopArgs {
    /// Stop only the daemons that serve these GPUs
    #[arg(long, value_name = "SEL", default_value = "all")]
    pub gpu: GpuSelector,

    /// Stop even while clients are connected: end them with terminate_client first
    #[arg(long)]
    pub force: bool,

    /// Seconds to wait for each answer of a daemon, and for it to exit
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = parse_timeout)]
    pub timeout: std::time::Duration,
}

#[derive(Debug, Args)]
pub(crate) struct MpsUnitArgs {
    #[command(flatten)]
    pub settings: MpsSettingsArgs,

    /// Write the unit under /etc/systemd/system (atomically) instead of printing it
    #[arg(long)]
    pub install: bool,
}

/// `--lock-timeout`: seconds, 0 to a day.
fn parse_lock_timeout(text: &str) -> Result<std::time::Duration, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !(0.0..=86400.0).contains(&seconds) {
        return Err(format!("`{text}`: give 0 to 86400 seconds"));
    }
    Ok(std::time::Duration::from_secs_f64(seconds))
}

/// `--timeout`: seconds, more than 0 and at most an hour.
fn parse_timeout(text: &str) -> Result<std::time::Duration, String> {
    let seconds: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !(seconds > 0.0 && seconds <= 3600.0) {
        return Err(format!(
            "`{text}`: give more than 0 and at most 3600 seconds"
        ));
    }
    Ok(std::time::Duration::from_secs_f64(seconds))
}

#[derive(Debug, Subcommand)]
pub(crate) enum VgpuCommand {
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
pub(crate) struct SysfsArgs {
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
pub(crate) struct VgpuShowArgs {
    /// Only these GPUs: `all`, indexes `0,2`, ranges `0-3`, UUIDs or PCI bus ids
    #[arg(long, value_name = "SEL", default_value = "all")]
    pub gpu: GpuSelector,

    #[command(flatten)]
    pub sysfs: SysfsArgs,
}

#[derive(Debug, Args)]
pub(crate) struct VgpuFileArgs {
    /// gpushare.toml (its `mode = "vgpu"` entries) or a vgpu-device-manager config (YAML); `-`
    /// reads stdin [default: /etc/gpushare/gpushare.toml]
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    pub file: Option<PathBuf>,

    /// Which config of a vgpu-device-manager file to apply (a label under `vgpu-configs`)
    #[arg(short = 'c', long = "config", value_name = "LABEL")]
    pub config: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct VgpuApplyArgs {
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
pub(crate) struct VgpuAssertArgs {
    #[command(flatten)]
    pub input: VgpuFileArgs,

    /// Only these GPUs of the file's layout
    #[arg(long, value_name = "SEL", default_value = "all")]
    pub gpu: GpuSelector,

    /// The GPUs run in heterogeneous mode (`nvidia-smi vgpu -shm 1`): allow several time-sliced
    /// types on one GPU, as `vgpu apply --heterogeneous` does
    #[arg(long)]
    pub heterogeneous: bool,

    #[command(flatten)]
    pub sysfs: SysfsArgs,
}

#[derive(Debug, Args)]
pub(crate) struct VgpuClearArgs {
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

/// The command line, for parsing, completions and the man pages. Plain styles: clap then writes no escape sequence of its own, so the one
/// an argument carries survives into the error text, where [`parse_error`](crate::support::output::parse_error) shows it
/// escaped (clap's own plain rendering would drop it unseen).
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command().styles(clap::builder::Styles::plain())
}
