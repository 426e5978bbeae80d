//! The one way a node is changed. Every changing command (`apply`, `init`, `mig apply|clear`,
//! `mps start|stop`, `vgpu apply|clear`, and the node agent) names what it wants as a
//! [`DesiredSource`](desired::DesiredSource) and comes through [`converge`](converge::converge):
//!
//! ```text
//!  Source ──► desired ──► observe ──► planner ──► execute ──► observe, plan again ──► verify
//!  (file,     (checked     (driver,    (pure:      (phase by   (until nothing is      (the node
//!   flags)     against      MPS,        one Plan)   phase,      left, or only what      as desired,
//!              the node)    vGPU host)              journal)    waits for a reboot)     or exit 3)
//! ```
//!
//! - [`desired`]: what the command asks for, limited to its scope (every mode for a gpushare.toml;
//!   MIG only for `mig apply`; these MPS daemons for `mps start`…), checked against the node before
//!   anything changes (bad input is exit 2 with file:line:column);
//! - [`observe`]: the node as it is — the driver's snapshot, the MPS daemons gpushare recorded (and
//!   which answer, and daemons whose record was lost), the vGPU host;
//! - [`planner`]: desired + observed → one [`Plan`](crate::change::plan::Plan) in phases: the
//!   `apply-start` hook, MPS daemons whose devices MIG takes away, GPU clients stopped, MIG
//!   modes, resets, MIG layouts, MPS daemons and compute modes, vGPU devices, what can only be
//!   planned once those are made (`Later`), and last GPU clients started again and the
//!   `apply-exit` hook. Pure;
//! - [`execute`](mod@execute): runs a plan's changes phase by phase through the backend and a
//!   [`Runner`](execute::Runner) for the steps that are not driver calls, with progress, stopping
//!   at the first failure; the MIG phases run on every GPU they change at once (`--jobs`), the
//!   node-wide ones (clients, hooks) one step after another;
//! - [`runner`]: that runner — MPS daemons, vGPU devices, GPU clients, hooks, the journal,
//!   signals;
//! - [`run`]: the passes: run what can run now, observe and plan again, until nothing is left;
//! - [`verify`]: when a run is finished, and when the node does not settle (exit 3);
//! - [`converge`]: ties them together under the node lock and journal ([`guard`]), with the signal
//!   trap ([`signals`]) and the CDI refresh after MIG changes.
//!
//! Every pass plans from the node as it is, so whatever stopped a run (a failure, a signal, a
//! crash), running the same command again continues from there.

pub(crate) mod converge;
pub(crate) mod desired;
pub(crate) mod execute;
pub(crate) mod guard;
pub(crate) mod host_change;
pub(crate) mod observe;
pub mod planner;
pub(crate) mod run;
pub(crate) mod runner;
pub(crate) mod signals;
pub(crate) mod verify;

// What the MIG bench and the mig-parted compatibility test drive directly.
pub use execute::execute;
