//! The cluster wing: what runs on Kubernetes. The node agent, the controller (MIG on demand),
//! gpushare's DRA kubelet plugin, the API client they share, and the manifests that deploy
//! them and the other components (NVIDIA's device plugin, Aliyun's, HAMi, DRA classes). It may
//! use every wing below it (observe, change, sharing, node, support), never the commands.

pub(crate) mod agent;
pub(crate) mod api_client;
pub(crate) mod controller;
pub(crate) mod dra_plugin;
pub(crate) mod manifests;
pub mod on_demand;
