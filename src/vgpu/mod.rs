//! vGPU on KVM hosts: discover and configure the vGPU devices of the NVIDIA vGPU Manager through
//! sysfs, for both of its frameworks (mdev up to Ampere; vendor-specific VFIO on SR-IOV virtual
//! functions from Ada on).
//!
//! The pieces, in the order `apply` uses them (the unified `gpushare apply` calls the same):
//! [`discover`] reads the host under a sysfs root, [`desired`] (gpushare.toml) or [`dm_config`]
//! (vgpu-device-manager YAML) says what is wanted, [`plan`] checks it against the host and orders
//! the steps without touching anything, and [`execute`] makes them.

pub mod apply;
pub mod desired;
pub mod discover;
pub mod dm_config;
pub mod execute;
pub mod fake_kernel;
pub mod host;
pub mod in_use;
pub mod mdev;
pub mod plan;
pub mod registry;
pub mod sriov;
pub mod sysfs;
pub mod type_name;
pub mod vfio;
pub mod writer;
