//! `--target hami`: values for the HAMi Helm chart (2.10) matching the node: how many tasks
//! share a GPU (`deviceSplitCount`, from time-slicing replicas), memory scaling, the MIG strategy
//! for MIG devices gpushare partitions, and the `gpu=on` node label HAMi's device plugin selects.

use super::device_plugin::MigStrategy;
use super::node_offer::Sharing;
use super::{Bundle, DocKind, Document, Request};
use crate::support::error::{Error, Result};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Values {
    scheduler: Scheduler,
    device_plugin: DevicePlugin,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Scheduler {
    kube_scheduler: KubeScheduler,
}

#[derive(Serialize)]
struct KubeScheduler {
    image: ImageTag,
}

#[derive(Serialize)]
struct ImageTag {
    tag: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DevicePlugin {
    device_split_count: u32,
    device_memory_scaling: u32,
    device_core_scaling: u32,
    mig_strategy: &'static str,
    nvidia_node_selector: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    node_configuration: Option<NodeConfiguration>,
}

#[derive(Serialize)]
struct NodeConfiguration {
    /// JSON text, as the chart expects it.
    config: String,
}

/// One entry of HAMi's per-node device-plugin config (`nodeconfig`).
#[derive(Serialize)]
struct NodeConfig {
    name: String,
    operatingmode: &'static str,
    devicememoryscaling: u32,
    devicesplitcount: u32,
    migstrategy: &'static str,
    filterdevices: FilterDevices,
}

#[derive(Serialize)]
struct FilterDevices {
    uuid: Vec<String>,
    index: Vec<u32>,
}

/// How many tasks share each whole GPU: one per time-slicing replica, one when exclusive.
fn split_count(req: &Request) -> Result<u32> {
    let mut counts: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for g in req.layout.whole_gpus() {
        let n = match g.sharing {
            Sharing::Exclusive => 1,
            Sharing::TimeSlicing { replicas } => replicas,
            Sharing::Vgpu => continue,
            Sharing::Claims => {
                return Err(Error::usage(format!(
                    "GPU {} ({}) is shared by claims (shares): gpushare's DRA driver serves it, not HAMi",
                    g.index, g.origin
                ))
                .with_hint("generate --target dra-plugin for it"));
            }
            Sharing::Mps(_) => {
                return Err(Error::usage(format!(
                    "GPU {} ({}) uses MPS: HAMi has no MPS mode (Project-HAMi/HAMi#759); it shares GPUs with its own CUDA interception",
                    g.index, g.origin
                ))
                .with_hint("use mode = \"time-slicing\" for HAMi nodes, or --target nvidia-device-plugin / dra for MPS"));
            }
        };
        counts.entry(n).or_default().push(g.index);
    }
    if counts.len() > 1 {
        let parts: Vec<String> = counts
            .iter()
            .map(|(n, gpus)| format!("GPU {:?} split {n} ways", gpus))
            .collect();
        return Err(Error::usage(format!(
            "HAMi splits every GPU of a node the same number of ways, but {}",
            parts.join(", ")
        ))
        .with_hint("give these GPUs the same time-slicing replicas in gpushare.toml"));
    }
    Ok(counts.keys().next().copied().unwrap_or(1))
}

pub(crate) fn generate(req: &Request) -> Result<Bundle> {
    if let Some(g) = req
        .layout
        .gpus
        .iter()
        .find(|g| matches!(g.mig_sharing, Sharing::TimeSlicing { .. }))
    {
        return Err(Error::usage(format!(
            "GPU {} ({}) time-slices its MIG devices: HAMi hands each MIG device to one pod",
            g.index, g.origin
        ))
        .with_hint(
            "drop mig.time_slicing for HAMi nodes, or use --target nvidia-device-plugin / dra",
        ));
    }
    let split = split_count(req)?;
    let strategy = match MigStrategy::of(&req.layout) {
        MigStrategy::None => "none",
        // HAMi advertises gpushare's static MIG devices as nvidia.com/mig-<profile>.
        _ => "mixed",
    };
    let excluded: Vec<String> = req
        .layout
        .gpus
        .iter()
        .filter(|g| g.sharing == Sharing::Vgpu)
        .map(|g| g.uuid.clone())
        .collect();
    let mut bundle = Bundle::default();
    let node_configuration = match &req.node_name {
        Some(name) => {
            let config = BTreeMap::from([(
                "nodeconfig",
                vec![NodeConfig {
                    name: name.clone(),
                    operatingmode: "hami-core",
                    devicememoryscaling: 1,
                    devicesplitcount: split,
                    migstrategy: strategy,
                    filterdevices: FilterDevices {
                        uuid: excluded.clone(),
                        index: Vec::new(),
                    },
                }],
            )]);
            let text = serde_json::to_string_pretty(&config)
                .map_err(|e| Error::failed(format!("cannot write HAMi node config: {e}")))?;
            Some(NodeConfiguration { config: text })
        }
        None => {
            if !excluded.is_empty() {
                bundle.warn("vGPU GPUs can only be kept from HAMi per node: pass --node-name to exclude them");
            }
            None
        }
    };
    let values = Values {
        scheduler: Scheduler {
            kube_scheduler: KubeScheduler {
                image: ImageTag {
                    tag: format!("v1.{}.0", req.version.minor),
                },
            },
        },
        device_plugin: DevicePlugin {
            device_split_count: split,
            // 1: no oversubscription; a task gets at most the memory it asks for.
            device_memory_scaling: 1,
            device_core_scaling: 1,
            mig_strategy: strategy,
            nvidia_node_selector: BTreeMap::from([("gpu".to_string(), "on".to_string())]),
            node_configuration,
        },
    };
    bundle.push(Document::new(
        "hami-values.yaml",
        DocKind::HelmValues,
        &values,
    )?);
    let ns = req.namespace_or("kube-system");
    let mig = req.layout.mig_profiles();
    bundle.note(format!(
        "HAMi: each whole GPU is split {split} way(s) (nvidia.com/gpu with nvidia.com/gpumem, nvidia.com/gpucores){}.",
        if mig.is_empty() {
            String::new()
        } else {
            format!(
                "; MIG devices as {}",
                mig.iter()
                    .map(|p| super::device_plugin::mig_resource(p))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    ));
    bundle.note(format!(
        "Install:\n  {}\n  helm repo add hami-charts https://project-hami.github.io/HAMi/\n  helm upgrade -i hami hami-charts/hami --version 2.10.0 -n {ns} -f hami-values.yaml",
        req.label_command("gpu", "on")
    ));
    Ok(bundle)
}
