//! The observe wing: what reads the node and proves the sharing. The CUDA probe and its workers,
//! Prometheus metrics, owners (which pod or unit uses a GPU), doctor, the kubelet's
//! pod-resources API, and the liveness endpoint of the long-running commands. It reads, never
//! changes: it uses `change` only for what the journal and the boot unit record, and `sharing`,
//! `node` and `support`, and one module above it:
//!
//! Upward: `crate::observe::pod_resources` → `crate::cluster::dra_plugin`: it names who holds
//! a device of gpushare's DRA driver from the plugin's own record of prepared claims and its
//! device names; they stay with the plugin that writes them, so reader and writer cannot
//! disagree.

pub(crate) mod doctor;
pub(crate) mod liveness;
pub mod metrics;
pub(crate) mod owners;
pub(crate) mod pod_resources;
pub(crate) mod probe;
