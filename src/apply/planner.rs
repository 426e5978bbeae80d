//! The one planner: the checked file + the node as it is → one [`Plan`] for every mode. Pure: no
//! I/O, so `plan` shows exactly what `apply` runs.
//!
//! Order of the changes:
//! 1. MPS daemons whose devices the MIG changes take away (a MIG device destroyed, a GPU whose
//!    MIG mode changes) are stopped;
//! 2. the MIG changes (modes, resets, layouts; see `mig::planner`);
//! 3. MPS on GPUs the MIG changes leave alone: daemons stopped and started, compute modes set
//!    (EXCLUSIVE_PROCESS under MPS, DEFAULT for time-slicing and unshared GPUs);
//! 4. vGPU devices (SR-IOV enabled first where it is off);
//! 5. `Later` changes: MPS on GPUs the MIG changes touch, described by the MIG profile (their
//!    devices do not exist yet; `apply` plans them exactly once the MIG changes are made), and
//!    vGPU devices on virtual functions that SR-IOV is about to create.
//!
//! GPUs whose MIG mode waits for a reboot get no MPS changes until then.

use super::Options;
use super::desired::Desired;
use super::observe::Observed;
use super::{planner_mps, planner_vgpu};
use crate::error::Result;
use crate::mig::planner::{self as mig_planner, PlanOptions};
use crate::paths::Paths;
use crate::plan::Plan;
use std::collections::BTreeMap;

/// Where a GPU stands with respect to its MIG layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuState {
    /// Nothing to change in MIG: MPS can be planned exactly.
    Settled,
    /// MIG changes (or a MIG blocker) on it: its MIG devices are not what they will be.
    Changing,
    /// Its MIG mode changes at the next reboot.
    AwaitingReboot,
}

/// The state of every GPU the MIG plan names; the others are settled.
#[derive(Debug, Clone, Default)]
pub struct GpuStates(BTreeMap<u32, GpuState>);

impl GpuStates {
    pub fn of(mig: &Plan) -> Self {
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

    pub fn get(&self, gpu: u32) -> GpuState {
        self.0.get(&gpu).copied().unwrap_or(GpuState::Settled)
    }
}

/// Plan every change from `seen` to `desired`. Errors are bad input found only against the node
/// as it is (an MPS limit a MIG device cannot take, a vGPU type the host lacks).
pub fn plan(desired: &Desired, seen: &Observed, paths: &Paths, options: Options) -> Result<Plan> {
    let mig = mig_planner::plan(
        &seen.node,
        &desired.mig,
        PlanOptions {
            force: options.force,
        },
    );
    let states = GpuStates::of(&mig);
    let mps = planner_mps::plan(desired, seen, &mig, &states, paths)?;
    let vgpu = planner_vgpu::plan(desired, seen, options)?;
    let mut plan = Plan {
        reboot_required: mig.reboot_required,
        reboot_gpus: mig.reboot_gpus,
        blockers: mig.blockers,
        ..Plan::default()
    };
    plan.changes.extend(mps.before_mig);
    plan.changes.extend(mig.changes);
    plan.changes.extend(mps.after_mig);
    plan.changes.extend(vgpu.changes);
    // What waits for devices not made yet goes last, so everything else runs in the first pass.
    plan.changes.extend(mps.later);
    plan.changes.extend(vgpu.later);
    plan.blockers.extend(vgpu.blockers);
    Ok(plan)
}

/// The changes that can run now: those before the first `Later` one.
pub fn runnable(plan: &Plan) -> Plan {
    let end = plan
        .changes
        .iter()
        .position(|c| matches!(c.operation, crate::plan::Operation::Later(_)))
        .unwrap_or(plan.changes.len());
    Plan {
        changes: plan.changes[..end].to_vec(),
        ..plan.clone()
    }
}

/// Whether running the plan would change the node, now or later (a note that a GPU waits for a
/// reboot does not).
pub fn changes_anything(plan: &Plan) -> bool {
    plan.changes
        .iter()
        .any(|c| c.operation != crate::plan::Operation::AwaitReboot)
}

#[cfg(test)]
mod tests;
