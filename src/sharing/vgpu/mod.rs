//! vGPU on KVM hosts: discover and configure the vGPU devices of the NVIDIA vGPU Manager through
//! sysfs, for both of its frameworks (mdev up to Ampere; vendor-specific VFIO on SR-IOV virtual
//! functions from Ada on).
//!
//! The pieces, in the order a change uses them: [`session`] reads the host under a sysfs root
//! ([`discover`]); [`from_config`] (gpushare.toml), [`dm_config`] (vgpu-device-manager YAML) and
//! [`input`] (either, from `-f`) say what is wanted; [`steps`] checks it against the host and
//! orders the steps without touching anything. The change wing makes them vGPU's part of the
//! one plan (`crate::change::pipeline::planner::vgpu`: devices VMs hold are blockers) and makes
//! each step (`crate::change::pipeline::host_change::vgpu_device`): `vgpu apply|clear` and
//! `apply` run them through the one pipeline, with the journal, signals and progress of every
//! changing command.

pub(crate) mod device_writes;
pub(crate) mod discover;
pub(crate) mod dm_config;
pub(crate) mod fake_kernel;
pub(crate) mod from_config;
pub(crate) mod host;
pub(crate) mod in_use;
pub(crate) mod input;
pub(crate) mod mdev;
pub(crate) mod mdevctl;
pub(crate) mod registry;
pub(crate) mod session;
pub(crate) mod sriov;
pub(crate) mod steps;
pub(crate) mod sysfs;
pub(crate) mod sysfs_writer;
pub(crate) mod type_name;
pub(crate) mod vfio;
