//! `gpushare plan` / `apply` (and `init`): the whole `gpushare.toml` (MIG, MPS, time-slicing,
//! vGPU) through one planner and one executor, safe to interrupt and to run again.
//!
//! - [`desired`]: the file checked against the node, every mode at once, before anything changes
//!   (bad input is exit 2 with file:line:column);
//! - [`observe`]: the node as it is (the driver, the MPS daemons gpushare recorded, the vGPU host);
//! - [`planner`]: desired + observed → one [`Plan`](crate::plan::Plan), in the order the changes
//!   must run: MPS daemons whose devices MIG changes take away are stopped, then the MIG changes,
//!   then MPS daemons and compute modes, then vGPU devices. Steps that depend on devices not made
//!   yet (MPS on MIG devices still to be created) are in the plan as `Later` changes, described by
//!   the MIG profile;
//! - [`run`]: runs the plan's changes up to the first `Later` one through
//!   [`plan::executor`](crate::plan::executor), observes and plans again, and so on until nothing
//!   is left; each step goes into the journal, and a SIGINT/SIGTERM stops it after the step in
//!   flight ([`signals`]);
//! - [`guard`]: the node lock and the journal of a changing command, with warnings about a lock
//!   left by a dead process and an interrupted previous run.
//!
//! [`converge`] ties them together for `apply`, `init` and the node agent.
//!
//! Every pass plans from the node as it is, so whatever stopped a run (a failure, a signal, a
//! crash), running `apply` again continues from there.

pub mod converge;
pub mod desired;
pub mod guard;
pub mod observe;
pub mod planner;
mod planner_mps;
mod planner_vgpu;
pub mod run;
pub mod signals;

/// What the user allowed.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// MIG: change the mode of busy GPUs anyway (pending until a reboot); MPS: stop daemons
    /// with clients connected (they are ended); vGPU: remove devices that VMs hold.
    pub force: bool,
}
