//! The CUDA probe: memory, bandwidth and latency of every full GPU, MIG device and MPS client of
//! the node, alone and with N clients at once, checked against what each was promised.
//!
//! The parent (`gpushare probe`, see `commands/probe.rs`) never calls CUDA: it finds the
//! [`targets`], runs one [`worker`] process per client ([`workers`], [`protocol`]), sums up
//! ([`summary`]) and judges ([`verdict`]) what they measured, and prints the [`report`]. The
//! worker talks to the driver through cudarc ([`cuda`]) and measures ([`measure`]) with the
//! embedded PTX kernels ([`ptx`]).

pub mod cuda;
pub mod cuda_error;
pub mod measure;
pub mod mps_settings;
pub mod protocol;
pub mod ptx;
pub mod report;
pub mod session;
pub mod stats;
pub mod summary;
pub mod targets;
pub mod verdict;
pub mod worker;
pub mod workers;
