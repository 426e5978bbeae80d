//! The CUDA probe: memory, bandwidth and latency of every full GPU, MIG device and MPS client of
//! the node, alone and with N clients at once, checked against what each was promised.
//!
//! The parent ([`run`], for `gpushare probe` and `init`) never calls CUDA: it finds the
//! [`targets`], checks that their MPS daemons answer ([`mps_reach`]), runs one [`worker`] process
//! per client with its own CUDA environment ([`worker_env`], [`workers`], [`protocol`]), sums up
//! ([`summary`]) and judges ([`verdict`]) what they measured, and prints the [`report`]. The
//! worker binds to the GPU's local CPUs ([`affinity`]), talks to the driver ([`driver_api`],
//! [`cuda`]) and measures ([`measure`], [`timing`], [`sm_count`]) with the embedded PTX kernels
//! ([`ptx`]).

pub(crate) mod affinity;
pub(crate) mod clients;
pub(crate) mod cuda;
pub(crate) mod cuda_error;
pub(crate) mod driver_api;
pub(crate) mod kept;
pub(crate) mod measure;
pub(crate) mod mps_reach;
pub(crate) mod mps_settings;
pub(crate) mod protocol;
pub(crate) mod ptx;
pub(crate) mod report;
pub(crate) mod run;
pub(crate) mod session;
pub(crate) mod share;
pub(crate) mod sharers;
pub(crate) mod sm_count;
pub(crate) mod stats;
pub(crate) mod summary;
pub(crate) mod targets;
pub(crate) mod timing;
pub(crate) mod verdict;
pub(crate) mod worker;
pub(crate) mod worker_env;
pub(crate) mod workers;
