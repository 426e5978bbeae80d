//! The integration tests, one binary: each module runs the real `gpushare` (or the library) on
//! simulated nodes, stand-in libraries and a real kube-apiserver; `common` holds the helpers they
//! share (the binary in a clean environment, the stand-ins, snapshots).
//!
//! `cargo test --test integration NAME` runs a part, e.g. `apply::` or `nvml_standin::`.

// Helpers are `pub` for the modules of this crate; a test that skips says so on stderr.
#![allow(unreachable_pub, clippy::print_stdout, clippy::print_stderr)]

mod agent;
mod aliyun_gpushare;
mod apply;
mod common;
mod deployed;
mod detect;
mod docs;
mod doctor;
mod dra_driver;
mod false_success;
mod fleet;
mod generated;
mod gpu_health;
mod gpushare_dra;
mod gpushare_dra_dynamic;
mod gpushare_dra_shares;
mod hostile;
mod image;
mod install;
mod manifests;
mod mig;
mod mig_parted_compat;
mod mock_nvml;
mod mps;
mod nvidia_device_plugin;
mod nvidia_gfd;
mod nvidia_mig_parted;
mod nvidia_runtime;
mod nvml_standin;
mod nvml_standin_driver;
mod pod_usage;
mod pods_on_slices;
mod probe;
mod probe_driver;
mod probe_mps;
mod rootsafe;
mod vgpu;
