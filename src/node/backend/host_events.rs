//! What a simulated node hears of the steps gpushare takes on the host outside the driver (MPS
//! daemons, GPU clients, vGPU devices in sysfs): the simulator injects its faults around them,
//! follows the GPU clients gpushare stops and starts, and keeps its state once a command is
//! done. On a real host nothing listens ([`RealHost`]): the driver sees a stopped service's
//! processes close the GPUs by itself, and keeps its own state.

use super::DriverResult;
use crate::node::clients::Client;

pub(crate) trait HostEvents: Send + Sync {
    /// Before such a step (`start_mps_daemon`, `stop_mps_daemon`, `stop_client`,
    /// `enable_sriov`, `create_vgpu`, …): the simulator's injected failure of it
    /// (`GPUSHARE_SIM_FAIL`), so tests reach those steps too.
    fn before_step(&self, step: &'static str) -> DriverResult<()>;

    /// Right after the step took effect: the simulator's injected crash or signal
    /// (`GPUSHARE_SIM_CRASH`), at the window a real crash would leave.
    fn after_step(&self, step: &'static str);

    /// gpushare stopped (`running: false`) or started a GPU client: the simulator's holders
    /// that run in that unit (or are that module) follow.
    fn client_changed(&self, client: &Client, running: bool) -> DriverResult<()>;

    /// Keep what this command changed for the next one: the simulator writes its state file
    /// (once per command, under the node lock).
    fn keep(&self) -> DriverResult<()>;
}

/// A real host: no faults are injected, and the driver keeps its own state.
pub(crate) struct RealHost;

impl HostEvents for RealHost {
    fn before_step(&self, _: &'static str) -> DriverResult<()> {
        Ok(())
    }

    fn after_step(&self, _: &'static str) {}

    fn client_changed(&self, _: &Client, _: bool) -> DriverResult<()> {
        Ok(())
    }

    fn keep(&self) -> DriverResult<()> {
        Ok(())
    }
}
