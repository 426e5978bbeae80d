//! The MPS daemons gpushare started, as the probe sees them: read from the settings files
//! `gpushare mps start` writes (`<run_dir>/mps/<name>/settings.json`, see `crate::sharing::mps::settings`),
//! reduced to what the probe needs: the pipe dir, the devices served, and each client's limits.

use crate::sharing::mps::settings::DaemonSpec;
use crate::support::error::Result;
use crate::support::paths::Paths;
use std::path::PathBuf;

/// One device a daemon serves, with the pinned-memory limit each client gets on it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MpsDevice {
    pub uuid: String,
    pub memory_limit_mib: Option<u64>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MpsDaemon {
    pub name: String,
    /// The daemon's `CUDA_MPS_PIPE_DIRECTORY`.
    pub pipe_dir: PathBuf,
    pub devices: Vec<MpsDevice>,
    pub clients: Option<u32>,
    pub thread_percentage: Option<u32>,
}

impl MpsDaemon {
    /// The device with this UUID, when the daemon serves it.
    pub(crate) fn device(&self, uuid: &str) -> Option<&MpsDevice> {
        self.devices
            .iter()
            .find(|d| d.uuid.eq_ignore_ascii_case(uuid))
    }
}

impl From<DaemonSpec> for MpsDaemon {
    fn from(spec: DaemonSpec) -> Self {
        MpsDaemon {
            name: spec.name,
            pipe_dir: spec.pipe_dir,
            devices: spec
                .devices
                .into_iter()
                .map(|d| MpsDevice {
                    uuid: d.uuid,
                    memory_limit_mib: d.memory_limit_mib,
                })
                .collect(),
            clients: spec.clients,
            thread_percentage: spec.thread_percentage,
        }
    }
}

/// Every daemon gpushare has a record of, in name order; none when there is no MPS directory.
pub(crate) fn load_all(paths: &Paths) -> Result<Vec<MpsDaemon>> {
    Ok(crate::sharing::mps::settings::load_all(paths)?
        .into_iter()
        .map(MpsDaemon::from)
        .collect())
}
