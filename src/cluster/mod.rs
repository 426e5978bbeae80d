//! The cluster wing (see `../shared/DESIGN.md`, the wings issue): what runs on Kubernetes.
//! It holds gpushare's DRA driver now; the agent, the controller and the API client move here
//! with the wings issue. It may use every wing below it (observe, change, sharing, node,
//! support), never the commands.

pub(crate) mod dra_plugin;
