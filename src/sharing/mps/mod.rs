//! MPS (Multi-Process Service) and time-slicing on a bare-metal node.
//!
//! - [`control`]: the `nvidia-cuda-mps-control` program, found on `PATH` and run with `duct`;
//! - [`limits`]: client caps and the limits each device gets (`--clients`, explicit values);
//! - [`settings`]: what a daemon is (devices, limits, directories) and its `settings.json`;
//! - [`daemon`]: start (all or nothing), query and stop daemons;
//! - [`from_config`]: what `gpushare.toml` asks of MPS and time-slicing, for `apply`;
//! - [`start`]: what `mps start` asks for, from flags or a gpushare.toml;
//! - [`drift`]: how a daemon and the node differ from what it was started with (`mps status`);
//! - [`systemd_unit`]: the systemd unit that starts the daemons at boot;
//! - [`shared`]: the shares DRA claims hold of daemons gpushare's DRA plugin runs.
//!
//! The changes themselves (start, stop, compute modes) are steps of the one pipeline
//! (`crate::change::pipeline`), which plans them from these pieces.
//!
//! One daemon serves the selected whole GPUs; a MIG GPU gets one daemon per MIG device. Each
//! daemon lives in `<run_dir>/mps/<name>/` (`settings.json`, `pipe/`, `log/`).

pub(crate) mod control;
pub(crate) mod daemon;
pub(crate) mod dirs;
pub(crate) mod drift;
pub(crate) mod from_config;
pub(crate) mod limits;
pub(crate) mod process;
pub(crate) mod query;
pub(crate) mod settings;
pub(crate) mod shared;
pub(crate) mod start;
pub(crate) mod stop;
pub(crate) mod systemd_unit;

use std::time::Duration;

/// How long one exchange with the control daemon (or a daemon start or stop) may take.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// What starting and stopping a daemon use of the node: the driver (compute modes), what hears
/// of the step (the simulator's faults at its crash windows), gpushare's paths (records,
/// directories) and the output (warnings).
pub(crate) struct DaemonHost<'a> {
    pub backend: &'a dyn crate::node::backend::Backend,
    pub events: &'a dyn crate::node::backend::host_events::HostEvents,
    pub paths: &'a crate::support::paths::Paths,
    pub out: &'a crate::support::output::Output,
}

/// Options shared by every daemon operation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MpsOptions {
    /// Per command sent to the daemon, and for a daemon to come up or go away.
    pub timeout: Duration,
    /// Stop daemons even while clients are connected (their clients are terminated).
    pub force: bool,
}

impl Default for MpsOptions {
    fn default() -> Self {
        MpsOptions {
            timeout: DEFAULT_TIMEOUT,
            force: false,
        }
    }
}
