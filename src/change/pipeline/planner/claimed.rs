//! Instances made for DRA claims are the claims' ([`crate::sharing::mig::claimed`]): a plan that would
//! destroy one, or turn MIG off under it, is blocked, with `--force` too. Its claim's unprepare
//! removes it. So are the MPS daemons claims share ([`crate::sharing::mps::shared`]): a plan that would
//! stop one is blocked.

use crate::change::pipeline::host_change::mps_daemon::DaemonChange;
use crate::change::plan::{Blocker, Operation, Plan};
use crate::node::model::MigMode;
use crate::node::model::Node;
use crate::sharing::mig::claimed::Made;
use crate::sharing::mps::shared::Share;

/// Block every change of `plan` that takes an instance of `claimed` away.
pub(super) fn guard(plan: &mut Plan, node: &Node, claimed: &[(String, Made)]) {
    for change in &plan.changes {
        let Some(gpu) = node.gpu(change.gpu) else {
            continue;
        };
        let taken: Vec<&(String, Made)> = match &change.operation {
            Operation::DestroyGpuInstance { gpu_instance_id }
            | Operation::DestroyComputeInstance {
                gpu_instance_id, ..
            } => {
                let gi = gpu
                    .mig
                    .instances
                    .iter()
                    .flatten()
                    .find(|gi| gi.gpu_instance_id == *gpu_instance_id);
                claimed
                    .iter()
                    .filter(|(_, m)| gi.is_some_and(|gi| m.is(gpu, gi)))
                    .collect()
            }
            Operation::SetMigMode(MigMode::Disabled) => claimed
                .iter()
                .filter(|(_, m)| m.gpu_uuid == gpu.uuid)
                .collect(),
            _ => Vec::new(),
        };
        for (uid, m) in taken {
            let message = format!(
                "GPU {}: the {} instance at {}:{} was made for DRA claim {uid}; the plan would take it away",
                gpu.index, m.profile, m.start, m.size
            );
            if !plan.blockers.iter().any(|b| b.message == message) {
                plan.blockers.push(Blocker {
                    gpu: gpu.index,
                    message,
                    hint: Some(
                        "it goes when its claim's pod does (gpushare dra-plugin removes it); \
                         give this GPU to dynamic MIG (mig.dynamic = true) or leave it out of \
                         the layout"
                            .into(),
                    ),
                });
            }
        }
    }
}

/// Block every change of `plan` that stops a daemon a claim holds a share of.
pub(super) fn guard_shares(plan: &mut Plan, shares: &[(String, Share)]) {
    for change in &plan.changes {
        let Some(DaemonChange::Stop(spec)) = change.operation.host_change() else {
            continue;
        };
        for (_, share) in shares.iter().filter(|(_, s)| s.daemon == spec.name) {
            let message = format!(
                "the MPS daemon `{}` serves a share of {} to DRA claim {}; the plan would stop it",
                spec.name, share.device, share.claim
            );
            if !plan.blockers.iter().any(|b| b.message == message) {
                plan.blockers.push(Blocker {
                    gpu: change.gpu,
                    message,
                    hint: Some(
                        "it stops when the last claim sharing it goes (gpushare dra-plugin stops it)"
                            .into(),
                    ),
                });
            }
        }
    }
}
