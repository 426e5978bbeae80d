//! vGPU on KVM hosts: discover and configure the vGPU devices of the NVIDIA vGPU Manager through
//! sysfs, for both of its frameworks (mdev up to Ampere; vendor-specific VFIO on SR-IOV virtual
//! functions from Ada on).
//!
//! The pieces, in the order `apply` uses them (the unified `gpushare apply` calls the same):
//! [`discover`] reads the host under a sysfs root, [`desired`] (gpushare.toml) or [`dm_config`]
//! (vgpu-device-manager YAML) says what is wanted, [`plan`] checks it against the host and orders
//! the steps without touching anything, and [`execute`] makes them.
//!
//! From a loaded gpushare.toml, the whole of it is:
//!
//! ```text
//! let desired = vgpu::desired::from_gpushare_toml(&config, &node)?; // file:line:col errors
//! let mut session = vgpu::apply::Session::new(SysfsRoot::new("/"), &paths, &out);
//! let applied = vgpu::apply::apply(&mut session, &node, &desired, ApplyOptions::default())?;
//! session.save()?; // what was learned about vendor-VFIO type ids
//! // applied.steps: what was done; applied.error: the failure that stopped it half-way
//! ```

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
pub mod write;
pub mod writer;
