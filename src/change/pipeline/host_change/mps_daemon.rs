//! The MPS daemons started and stopped by a plan: MPS's change on the host, run through
//! [`daemon`](crate::sharing::mps::daemon) and [`stop`](crate::sharing::mps::stop).

use crate::change::pipeline::host_change::{HostChange, StepHost};
use crate::change::plan::phase::Phase;
use crate::sharing::mps::DaemonHost;
use crate::sharing::mps::daemon::start_daemon;
use crate::sharing::mps::settings::DaemonSpec;
use crate::sharing::mps::stop::stop_daemon;
use crate::support::error::Result;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum DaemonChange {
    /// Stop a daemon gpushare started: its record says which devices it serves.
    Stop(DaemonSpec),
    /// Start a daemon with its limits (all or nothing, see `mps::daemon`).
    Start(DaemonSpec),
}

impl HostChange for DaemonChange {
    fn action(&self) -> &'static str {
        match self {
            DaemonChange::Stop(_) => "stop_mps_daemon",
            DaemonChange::Start(_) => "start_mps_daemon",
        }
    }

    fn phase(&self) -> Phase {
        Phase::Daemons
    }

    fn run(&self, host: &mut StepHost<'_>, _gpu: u32) -> Result<()> {
        let control = host.mps_control()?;
        let options = host.mps_options();
        let backend = host.backend()?;
        let events = host.events()?;
        let out = host.out();
        let daemons = DaemonHost {
            backend: &*backend,
            events: &*events,
            paths: host.paths(),
            out,
        };
        match self {
            DaemonChange::Stop(spec) => {
                let stopped = stop_daemon(&daemons, &control, spec, options)?;
                if !stopped.terminated_clients.is_empty() {
                    let ended: Vec<String> = stopped
                        .terminated_clients
                        .iter()
                        .map(|c| c.describe())
                        .collect();
                    out.note(format!(
                        "`{}`: ended its clients {}",
                        spec.name,
                        ended.join(", ")
                    ));
                }
            }
            DaemonChange::Start(spec) => {
                let started = start_daemon(&daemons, &control, spec.clone(), options)?;
                out.note(format!(
                    "`{}`: clients connect with CUDA_MPS_PIPE_DIRECTORY={} (and the host's /dev/shm)",
                    started.name,
                    started.pipe_dir.display()
                ));
            }
        }
        Ok(())
    }
}
