//! The change wing: the one way a node is changed. The pipeline (desired → observe → plan →
//! execute → verify, under the lock and the journal), the plan type and each mode's planner,
//! mig-parted's hooks, the journal, the node lock, the boot unit that applies the layout at
//! boot, and the CDI spec the container runtime reads, refreshed after every MIG change. It uses
//! `sharing`, `node` and `support`, and one module above it:
//!
//! Upward: `crate::change::pipeline::desired` → `crate::cluster::manifests`: it checks
//! gpushare.toml's `[kubernetes]` (targets, namespace, version) with the manifests' own parsers,
//! so a file that `manifests` would refuse fails before anything changes, and the two cannot
//! disagree.

pub(crate) mod boot;
pub(crate) mod cdi;
pub(crate) mod hooks;
pub(crate) mod journal;
pub mod lock;
pub mod pipeline;
pub mod plan;
