//! Where each GPU stands with respect to its MIG layout: what the MPS part of the plan may say
//! about it exactly, and what must wait.

use crate::change::plan::Plan;
use std::collections::BTreeMap;

/// Where a GPU stands with respect to its MIG layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum GpuState {
    /// Nothing to change in MIG: MPS can be planned exactly.
    Settled,
    /// MIG changes (or a MIG blocker) on it: its MIG devices are not what they will be.
    Changing,
    /// Its MIG mode changes at the next reboot.
    AwaitingReboot,
}

/// The state of every GPU the MIG plan names; the others are settled.
#[derive(Debug, Clone, Default)]
pub(crate) struct GpuStates(BTreeMap<u32, GpuState>);

impl GpuStates {
    pub(crate) fn of(mig: &Plan) -> Self {
        let mut states = BTreeMap::new();
        let changing = mig
            .changes
            .iter()
            .filter(|c| c.operation.changes_the_node())
            .map(|c| c.gpu)
            .chain(mig.blockers.iter().map(|b| b.gpu));
        for gpu in changing {
            states.insert(gpu, GpuState::Changing);
        }
        for gpu in &mig.reboot_gpus {
            states.insert(*gpu, GpuState::AwaitingReboot);
        }
        GpuStates(states)
    }

    pub(crate) fn get(&self, gpu: u32) -> GpuState {
        self.0.get(&gpu).copied().unwrap_or(GpuState::Settled)
    }
}
