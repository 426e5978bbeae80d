//! Recovery: a GPU that a fatal fault left unhealthy (its health record says so, by the policy)
//! is reset, in the resets phase, with the GPU clients stopped around it as for any reset. A
//! GPU that anything runs on is a blocker: the driver would refuse, and what runs there would
//! be lost.

use super::super::desired::Desired;
use super::super::observe::Observed;
use crate::change::plan::{Blocker, Change, Operation, Plan};

pub(super) fn add(plan: &mut Plan, desired: &Desired, seen: &Observed) {
    let Some((gpus, _)) = &desired.recover else {
        return;
    };
    for gpu in gpus {
        let Some(why) = seen.needs_reset.get(gpu) else {
            continue;
        };
        let busy = match seen.node.gpu(*gpu).map(|g| g.processes.as_deref()) {
            Some(Some([])) => None,
            Some(Some(list)) => Some(
                list.iter()
                    .map(|p| format!("{} (pid {})", p.name, p.pid))
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
            _ => Some("processes the driver would not list".to_string()),
        };
        match busy {
            Some(what) => plan.blockers.push(Blocker {
                gpu: *gpu,
                message: format!("GPU {gpu} needs a reset ({why}) but {what} run on it"),
                hint: Some("stop them, then recover again".into()),
            }),
            None => plan.changes.push(Change::new(
                *gpu,
                Operation::ResetUnhealthy,
                format!("reset: {why}"),
            )),
        }
    }
}
