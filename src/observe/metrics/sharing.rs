//! The series of the sharing gpushare set up beyond MIG: the MPS daemons it started (up, and
//! the limits each client gets) and the time-slicing replicas of the layout in force.

use super::devices::gpu_labels;
use super::sheet::{Sheet, Spec};
use crate::node::config::{AssignedConfig, Mode};
use crate::node::model::Node;
use crate::sharing::mps::control::daemon_pid;
use crate::sharing::mps::process;
use crate::sharing::mps::settings::DaemonSpec;

pub(crate) static MPS_UP: Spec = Spec::gauge(
    "mps_daemon_up",
    "Whether an MPS control daemon gpushare started runs (its pid file names a live process): 1 or 0",
);
pub(crate) static MPS_THREADS: Spec = Spec::gauge(
    "mps_client_thread_percentage",
    "The active thread percentage each client of an MPS daemon gets (100: the daemon's default)",
);
pub(crate) static MPS_MEMORY: Spec = Spec::gauge(
    "mps_client_pinned_memory_limit",
    "The pinned device memory each client of an MPS daemon gets on a device",
)
.unit("bytes");
pub(crate) static REPLICAS: Spec = Spec::gauge(
    "time_slicing_replicas",
    "How many workloads take turns on a GPU, as the layout in force says",
);

pub(crate) static MIG_REPLICAS: Spec = Spec::gauge(
    "mig_device_time_slicing_replicas",
    "How many workloads take turns on a MIG device, as the layout in force says",
);

pub(crate) static SHARE_MEMORY: Spec = Spec::gauge(
    "share_memory_limit",
    "The device memory a DRA claim's share of a device gpushare's DRA driver shares was given",
)
.unit("bytes");
pub(crate) static SHARE_THREADS: Spec = Spec::gauge(
    "share_thread_percentage",
    "The share of the multiprocessors a DRA claim's share was given (its MPS active thread percentage)",
);
pub(crate) static SHARE_USED: Spec = Spec::gauge(
    "share_memory_used",
    "The device memory the processes of a share's pods use on its device (only when whose the processes are was read)",
)
.unit("bytes");

const MIB: f64 = 1024.0 * 1024.0;

/// Each share a claim holds: what it was given and, where known, what its pods use.
pub(crate) fn add_shares(
    sheet: &mut Sheet,
    shares: &[crate::sharing::mps::shared::Share],
    node: &Node,
) {
    for share in shares {
        let (namespace, claim) = share.claim.split_once('/').unwrap_or(("", &share.claim));
        let l = vec![
            ("namespace", namespace.to_string()),
            ("claim", claim.to_string()),
            ("device", share.device.clone()),
            ("uuid", share.uuid.clone()),
        ];
        sheet.set(&SHARE_MEMORY, l.clone(), share.memory_mib as f64 * MIB);
        sheet.set(
            &SHARE_THREADS,
            l.clone(),
            f64::from(share.thread_percentage),
        );
        if let Some(used) = share.used_mib(node) {
            sheet.set(&SHARE_USED, l, used as f64 * MIB);
        }
    }
}

pub(crate) fn add_mps(sheet: &mut Sheet, daemons: &[DaemonSpec]) {
    for d in daemons {
        let l = vec![("daemon", d.name.clone())];
        let up = daemon_pid(&d.pipe_dir).is_some_and(process::alive);
        sheet.set(&MPS_UP, l.clone(), f64::from(u8::from(up)));
        sheet.set(
            &MPS_THREADS,
            l.clone(),
            f64::from(d.thread_percentage.unwrap_or(100)),
        );
        for device in &d.devices {
            if let Some(mib) = device.memory_limit_mib {
                let mut l = l.clone();
                l.push(("gpu", device.gpu.to_string()));
                l.push(("uuid", device.uuid.clone()));
                sheet.set(&MPS_MEMORY, l, mib as f64 * MIB);
            }
        }
    }
}

/// The replicas of the time-slicing entries of `config` on this node, of whole GPUs and of
/// the MIG devices of `mig.time_slicing`; an entry that selects nothing here adds nothing.
pub(crate) fn add_time_slicing(sheet: &mut Sheet, config: &AssignedConfig, node: &Node) {
    for a in config.assignments() {
        let entry = a.entry.get_ref();
        let Some(gpu) = node.gpu(a.gpu) else {
            continue;
        };
        match entry.mode.get_ref() {
            Mode::TimeSlicing => {
                if let Some(ts) = &entry.time_slicing {
                    let replicas = *ts.get_ref().replicas.get_ref();
                    sheet.set(&REPLICAS, gpu_labels(gpu), f64::from(replicas));
                }
            }
            Mode::Mig => {
                let Some(ts) = entry
                    .mig
                    .as_ref()
                    .and_then(|m| m.get_ref().time_slicing.as_ref())
                else {
                    continue;
                };
                let replicas = f64::from(*ts.get_ref().replicas.get_ref());
                for gi in gpu.mig.instances.iter().flatten() {
                    for ci in &gi.compute_instances {
                        if let Some(uuid) = &ci.uuid {
                            let mut l = gpu_labels(gpu);
                            l.push(("profile", ci.profile.clone()));
                            l.push(("mig_uuid", uuid.clone()));
                            sheet.set(&MIG_REPLICAS, l, replicas);
                        }
                    }
                }
            }
            _ => {}
        }
    }
}
