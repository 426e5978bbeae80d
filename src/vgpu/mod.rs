//! vGPU on KVM hosts: discover and configure the vGPU devices of the NVIDIA vGPU Manager through
//! sysfs, for both of its frameworks (mdev up to Ampere; vendor-specific VFIO on SR-IOV virtual
//! functions from Ada on).
//!
//! The pieces, in the order a change uses them: [`session`] reads the host under a sysfs root
//! ([`discover`]); [`desired`] (gpushare.toml), [`dm_config`] (vgpu-device-manager YAML) and
//! [`input`] (either, from `-f`) say what is wanted; [`plan`] checks it against the host and
//! orders the steps without touching anything; [`make`] makes one step. `vgpu apply|clear` and
//! `apply` run them through the one pipeline (`crate::pipeline`), which plans every mode into
//! one plan and runs it with the journal, signals and progress of every changing command.

pub mod desired;
pub mod discover;
pub mod dm_config;
pub mod fake_kernel;
pub mod host;
pub mod in_use;
pub mod input;
pub mod make;
pub mod mdev;
pub mod mdevctl;
pub mod plan;
pub mod registry;
pub mod session;
pub mod sriov;
pub mod sysfs;
pub mod type_name;
pub mod vfio;
pub mod write;
pub mod writer;
