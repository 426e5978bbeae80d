//! The observe wing: what reads the node and proves the sharing. The CUDA probe and its workers,
//! Prometheus metrics, owners (which pod or unit uses a GPU), doctor, the kubelet's
//! pod-resources API, and the liveness endpoint of the long-running commands. It reads, never
//! changes: it uses `change` only for what the journal and the boot unit record, and `sharing`,
//! `node` and `support`.

pub(crate) mod doctor;
pub(crate) mod liveness;
pub mod metrics;
pub(crate) mod owners;
pub(crate) mod pod_resources;
pub(crate) mod probe;
