//! The one planner: a checked desired state + the node as it is → one [`Plan`] for every mode.
//! Pure: no I/O, so `plan` and `--dry-run` show exactly what runs.
//!
//! Each mode plans its part ([`mig`], [`mps`], [`vgpu`]); the changes are
//! then put in [`Phase`] order (each GPU's changes keep their order within a phase):
//! 1. MPS daemons whose devices the MIG changes take away (a MIG device destroyed, a GPU whose
//!    MIG mode changes) are stopped, and so are daemons whose record was lost;
//! 2. MIG modes, 3. resets, 4. MIG layouts (see [`mig`]);
//! 5. MPS on GPUs the MIG changes leave alone: daemons stopped and started, compute modes set
//!    (EXCLUSIVE_PROCESS under MPS, DEFAULT for time-slicing and unshared GPUs);
//!    (and GPUs a fatal fault left unhealthy, for `recover`: `planner/recover.rs`);
//! 6. vGPU devices (SR-IOV enabled first where it is off);
//! 7. `Later` changes: MPS on GPUs the MIG changes touch, described by the MIG profile (their
//!    devices do not exist yet; they are planned exactly once the MIG changes are made), and
//!    vGPU devices on virtual functions that SR-IOV is about to create.
//!
//! Around them, node-wide steps in phases of their own (`planner/around.rs`): GPU clients
//! stopped before MIG modes and resets and started again at the end, and mig-parted's hooks.
//! The MIG planner sees the node without the holders that listed GPU clients account for: they
//! are stopped before the reset, so they do not block it.
//!
//! GPUs whose MIG mode waits for a reboot get no MPS changes until then.

mod around;
mod claimed;
pub(crate) mod gpu_states;
pub mod mig;
pub(crate) mod mps;
mod recover;
pub(crate) mod vgpu;

pub(crate) use gpu_states::GpuStates;

use super::desired::Desired;
use super::observe::Observed;
use crate::change::plan::PlanOptions;
use crate::change::plan::{Operation, Phase, Plan};
use crate::support::error::Result;
use crate::support::paths::Paths;

/// Plan every change from `seen` to `desired`. Errors are bad input found only against the node
/// as it is (an MPS limit a MIG device cannot take, a vGPU type the host lacks). `first`: the
/// first plan of a run (`apply-start` runs once).
pub(crate) fn plan(
    desired: &Desired,
    seen: &Observed,
    paths: &Paths,
    options: PlanOptions,
    first: bool,
) -> Result<Plan> {
    let mig = mig::plan(
        &around::without_released_holders(&seen.node, desired, seen),
        &desired.mig,
        options,
    );
    let states = GpuStates::of(&mig);
    let mps = mps::plan(desired, seen, &mig, &states, paths)?;
    let vgpu = vgpu::plan(desired, seen, options)?;
    let mut plan = Plan {
        reboot_required: mig.reboot_required,
        reboot_gpus: mig.reboot_gpus,
        blockers: mig.blockers,
        ..Plan::default()
    };
    plan.changes.extend(mig.changes);
    plan.changes.extend(mps.changes);
    plan.changes.extend(vgpu.changes);
    recover::add(&mut plan, desired, seen);
    plan.blockers.extend(mps.blockers);
    plan.blockers.extend(vgpu.blockers);
    claimed::guard(&mut plan, &seen.node, &seen.claimed);
    claimed::guard_shares(&mut plan, &seen.shares);
    // Stable: within a phase each part, and each GPU, keeps its order.
    plan.changes.sort_by_key(|c| c.phase);
    around::add(&mut plan, desired, seen, first);
    Ok(plan)
}

/// The changes that can run now: those before the first `Later` one.
pub(crate) fn runnable(plan: &Plan) -> Plan {
    let end = plan
        .changes
        .iter()
        .position(|c| c.phase == Phase::Later)
        .unwrap_or(plan.changes.len());
    Plan {
        changes: plan.changes[..end].to_vec(),
        ..plan.clone()
    }
}

/// Whether running the plan would change the node, now or later (a note that a GPU waits for a
/// reboot does not, nor does a hook: hooks run around changes).
pub(crate) fn changes_anything(plan: &Plan) -> bool {
    plan.changes
        .iter()
        .any(|c| !matches!(c.operation, Operation::AwaitReboot | Operation::Hook(_)))
}

#[cfg(test)]
mod tests;
