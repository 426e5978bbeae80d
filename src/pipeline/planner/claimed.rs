//! Instances made for DRA claims are the claims' ([`crate::mig::claimed`]): a plan that would
//! destroy one, or turn MIG off under it, is blocked, with `--force` too. Its claim's unprepare
//! removes it.

use crate::mig::claimed::Made;
use crate::node::MigMode;
use crate::node::Node;
use crate::plan::{Blocker, Operation, Plan};

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
