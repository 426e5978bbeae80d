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
//! | `NVML_STANDIN_CI_STARTS_UNALIGNED=1` | compute-instance profiles may start at any compute slice: more placements than instances |
//! | `NVML_STANDIN_MIG_PARENT_NO_COMPUTE_MODE=1` | with MIG on, a whole GPU's compute-mode query answers NOT_SUPPORTED |
//! | `NVML_STANDIN_GPU_NAME=…`, `NVML_STANDIN_GPU_PCI_ID=0x…` | every GPU's name and PCI device id (a GPU the catalog does not know) |
//! | `NVML_STANDIN_PROFILES_NEED_MIG=1` | with MIG off, the v1 profile-info and placement calls answer NOT_SUPPORTED too |
//! | `NVML_STANDIN_MAX_MIG_DEVICES_ALWAYS=1` | the maximum MIG device count is reported with MIG off too (nvml.h: 0) |
//! | `NVML_STANDIN_OLD_DRIVER=1` | the `_v2`/`_v3`/`V` calls answer FUNCTION_NOT_FOUND; the older ones answer |
//! | `NVML_STANDIN_MIG_DEVICE_FAIL=FN:CODE,…` | every call of FN on a MIG device handle fails with CODE |
//! | `NVML_STANDIN_FAIL=FN:N[:CODE],…` | the N-th call of FN in this process fails with CODE (default 999, UNKNOWN) and changes nothing |
//! | `NVML_STANDIN_STRICT=1` | an entry point go-nvml binds that the stand-in does not implement names itself on stderr and aborts the caller (without it: NOT_SUPPORTED, logged) |
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
mod unimplemented;

pub const STATE_ENV: &str = "NVML_STANDIN_STATE";
pub const NODE_ENV: &str = "NVML_STANDIN_NODE";
pub const LOG_ENV: &str = "NVML_STANDIN_LOG";
pub const NON_ROOT_ENV: &str = "NVML_STANDIN_NON_ROOT";
pub const CI_ID_OFFSET_ENV: &str = "NVML_STANDIN_CI_PROFILE_ID_OFFSET";
pub const NVL_ENV: &str = "NVML_STANDIN_CI_NVL";
pub const FAIL_ENV: &str = "NVML_STANDIN_FAIL";
pub const CI_UNALIGNED_ENV: &str = "NVML_STANDIN_CI_STARTS_UNALIGNED";
pub const PARENT_COMPUTE_MODE_ENV: &str = "NVML_STANDIN_MIG_PARENT_NO_COMPUTE_MODE";
pub const GPU_NAME_ENV: &str = "NVML_STANDIN_GPU_NAME";
pub const GPU_PCI_ID_ENV: &str = "NVML_STANDIN_GPU_PCI_ID";
pub const PROFILES_NEED_MIG_ENV: &str = "NVML_STANDIN_PROFILES_NEED_MIG";
pub const MAX_MIG_ALWAYS_ENV: &str = "NVML_STANDIN_MAX_MIG_DEVICES_ALWAYS";
pub const OLD_DRIVER_ENV: &str = "NVML_STANDIN_OLD_DRIVER";
pub const MIG_DEVICE_FAIL_ENV: &str = "NVML_STANDIN_MIG_DEVICE_FAIL";
pub const STRICT_ENV: &str = "NVML_STANDIN_STRICT";

/// The init and shutdown entry points, for the stand-in's own programs (nvml-client).
pub use api::{nvmlInit_v2, nvmlShutdown};

#[cfg(test)]
mod tests;
