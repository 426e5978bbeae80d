//! The node wing: what a node is and how it is read. The backends (NVML, the simulator) and the
//! one node model every command reads (with the GPU catalog that fills only what the driver
//! cannot say yet); the GPUs' health (Xid and ECC events, weighed by a policy); the GPU clients
//! on the host (systemd units, kernel modules) that the backends name as holders; gpushare.toml
//! as declared; and the [`Context`] each command gets. It uses only `support`.

pub mod backend;
pub(crate) mod clients;
pub(crate) mod config;
mod context;
pub(crate) mod gpu_health;
pub mod model;

pub use context::Context;
