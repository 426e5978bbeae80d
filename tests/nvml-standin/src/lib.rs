//! A stand-in `libnvidia-ml.so` for gpushare's tests: the NVML calls gpushare makes, with the
//! semantics `nvml.h` documents, answered from a simulated node.
//!
//! The node is a gpushare simulator state file (`--sim-state`), so the MIG rules (placements in
//! memory slices, maximum instances, INSUFFICIENT_RESOURCES, IN_USE for instances with processes
//! or compute instances, MIG modes pending until a reset) are the simulator's own. What is the
//! stand-in's is the C interface around them: handles, versioned structs, GPU-instance profile
//! indices next to profile ids, compute-instance profile indices next to ids, MIG device handles,
//! `NO_PERMISSION` for calls that need root, and a log of every call.
//!
//! Environment of the process that loads it:
//!
//! | variable | meaning |
//! |---|---|
//! | `NVML_STANDIN_STATE` | the simulator state file (required: without it `nvmlInit` answers DRIVER_NOT_LOADED) |
//! | `NVML_STANDIN_NODE` | a preset or node file to create the state file from when it does not exist |
//! | `NVML_STANDIN_LOG` | append one JSON line per call: `{"pid","fn","args","ret","out","changing","detail"}` |
//! | `NVML_STANDIN_NON_ROOT=1` | calls `nvml.h` marks "requires root/privileged user" answer NO_PERMISSION |
//! | `NVML_STANDIN_CI_PROFILE_ID_OFFSET=N` | compute-instance profile ids are their index + N (default 0, as on A100/H100) |
//! | `NVML_STANDIN_CI_NVL=1` | full-GPU GPU instances also offer `NVML_COMPUTE_INSTANCE_PROFILE_7_SLICE_NVL` (0x8) |
//! | `NVML_STANDIN_FAIL=FN:N[:CODE],…` | the N-th call of FN in this process fails with CODE (default 999, UNKNOWN) and changes nothing |
//!
//! Every process that holds NVML initialised has a pid file in `<state>.holders/`; the stand-in
//! `nvidia-smi -r` (src/bin/nvidia-smi.rs) refuses to reset while another live process is there,
//! as the driver refuses a reset while a client holds the GPU.

// The exported functions are C entry points: their safety contract is nvml.h's.
#![allow(clippy::missing_safety_doc)]

mod api;
pub mod call;
pub mod handles;
pub mod holders;
pub mod log;
pub mod node;
pub mod profiles;
pub mod switches;

pub const STATE_ENV: &str = "NVML_STANDIN_STATE";
pub const NODE_ENV: &str = "NVML_STANDIN_NODE";
pub const LOG_ENV: &str = "NVML_STANDIN_LOG";
pub const NON_ROOT_ENV: &str = "NVML_STANDIN_NON_ROOT";
pub const CI_ID_OFFSET_ENV: &str = "NVML_STANDIN_CI_PROFILE_ID_OFFSET";
pub const NVL_ENV: &str = "NVML_STANDIN_CI_NVL";
pub const FAIL_ENV: &str = "NVML_STANDIN_FAIL";

/// The init and shutdown entry points, for the stand-in's own programs (nvml-client).
pub use api::{nvmlInit_v2, nvmlShutdown};

#[cfg(test)]
mod tests;
