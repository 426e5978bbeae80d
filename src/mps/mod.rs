//! MPS (Multi-Process Service) and time-slicing on a bare-metal node.
//!
//! - [`control`]: the `nvidia-cuda-mps-control` program, found on `PATH` and run with `duct`;
//! - [`limits`]: client caps and the limits each device gets (`--clients`, explicit values);
//! - [`settings`]: what a daemon is (devices, limits, directories) and its `settings.json`;
//! - [`daemon`]: start (all or nothing), query and stop daemons;
//! - [`desired`]: what `gpushare.toml` asks of MPS and time-slicing, for `apply`;
//! - [`unit`]: the systemd unit that starts the daemons at boot.
//!
//! One daemon serves the selected whole GPUs; a MIG GPU gets one daemon per MIG device. Each
//! daemon lives in `<run_dir>/mps/<name>/` (`settings.json`, `pipe/`, `log/`).

pub mod control;
pub mod daemon;
pub mod desired;
pub mod dirs;
pub mod limits;
pub mod process;
pub mod query;
pub mod settings;
pub mod stop;
pub mod unit;

use std::time::Duration;

/// How long one exchange with the control daemon (or a daemon start or stop) may take.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// Options shared by every daemon operation.
#[derive(Debug, Clone, Copy)]
pub struct MpsOptions {
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
