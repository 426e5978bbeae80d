//! The sharing wing: what each sharing mode is. MIG (profiles, layouts, the placement solver,
//! mig-parted's files), MPS (daemons, per-client limits, records), vGPU (the host's sysfs), and
//! the modes behind one trait (`mode`: what a GPU under a mode offers, what the probe promises,
//! how `init` describes it). How a node gets there is the change wing's. It uses `node` and
//! `support`.

pub(crate) mod choose;
pub mod mig;
pub(crate) mod mode;
pub(crate) mod mps;
pub(crate) mod vgpu;
