//! The CUDA probe: memory, bandwidth and latency of every full GPU, MIG device and MPS client of
//! the node, alone and with N clients at once, checked against what each was promised.
//!
//! The parent (`gpushare probe`, see `commands/probe.rs`) never calls CUDA: it finds the
//! [`targets`], checks that their MPS daemons answer ([`mps_reach`]), runs one [`worker`] process
//! per client with its own CUDA environment ([`worker_env`], [`workers`], [`protocol`]), sums up
//! ([`summary`]) and judges ([`verdict`]) what they measured, and prints the [`report`]. The
//! worker binds to the GPU's local CPUs ([`affinity`]), talks to the driver ([`driver_api`],
//! [`cuda`]) and measures ([`measure`], [`timing`], [`sm_count`]) with the embedded PTX kernels
//! ([`ptx`]).

pub mod affinity;
pub mod cuda;
pub mod cuda_error;
pub mod driver_api;
pub mod measure;
pub mod mps_reach;
pub mod mps_settings;
pub mod protocol;
pub mod ptx;
pub mod report;
pub mod session;
pub mod sm_count;
pub mod stats;
pub mod summary;
pub mod targets;
pub mod timing;
pub mod verdict;
pub mod worker;
pub mod worker_env;
pub mod workers;
