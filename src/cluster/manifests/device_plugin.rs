//! `--target nvidia-device-plugin`: NVIDIA k8s-device-plugin v0.20.0 configured for this node.
//!
//! The plugin's config v1 (MIG strategy, time-slicing or MPS replicas) goes into the fleet's one
//! ConfigMap, `nvidia-device-plugin-configs`, under the layout's name (as the chart's `config.map`
//! holds a config per key); a DaemonSet per layout name runs the plugin with that key on the nodes
//! labelled `nvidia.com/device-plugin.config=<name>`, and a second one runs the plugin's MPS
//! control daemon when MPS is used. Several node classes' manifests compose: under `--out DIR`
//! each run adds its key to the ConfigMap already there (see [`super::compose`]).
//! `--helm-values` writes the same config as values of the Helm chart.
//! Layouts the plugin refuses (MPS with the mixed strategy, MPS on MIG, different sharing per
//! GPU) are refused here with the plugin's reason.

use super::node_offer::{GpuOffer, MpsShare, NodeOffer, Sharing};
use super::objects::{
    config_map_volume, env, env_field, host_path, labels, meta, mount, namespace, pod_meta,
    selector, toleration, unless_paused,
};
use super::{Bundle, DocKind, Document, Request};
use crate::support::error::{Error, Result};
use k8s_openapi::api::apps::v1::{DaemonSet, DaemonSetSpec, DaemonSetUpdateStrategy};
use k8s_openapi::api::core::v1::{
    Capabilities, ConfigMap, Container, PodSpec, PodTemplateSpec, SecurityContext,
};
use serde::Serialize;
use std::collections::BTreeMap;

pub(crate) const CONFIG_LABEL: &str = "nvidia.com/device-plugin.config";
/// The fleet's ConfigMap: a key per layout name.
const CONFIGS: &str = "nvidia-device-plugin-configs";
pub(crate) const MPS_ROOT: &str = "/run/nvidia/mps";
const DEFAULT_NAMESPACE: &str = "kube-system";

/// How the plugin names MIG devices (`flags.migStrategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum MigStrategy {
    /// No MIG: every GPU is `nvidia.com/gpu`.
    None,
    /// Every GPU has MIG with one identical profile: each MIG device is `nvidia.com/gpu`.
    Single,
    /// Whole GPUs are `nvidia.com/gpu`, MIG devices `nvidia.com/mig-<profile>`.
    Mixed,
}

impl MigStrategy {
    pub(crate) fn of(layout: &NodeOffer) -> MigStrategy {
        if !layout.any_mig() {
            return MigStrategy::None;
        }
        let all_mig = layout.gpus.iter().all(|g| g.mig.is_some());
        let profiles = layout.mig_profiles();
        let every_gpu_has_devices = layout
            .gpus
            .iter()
            .all(|g| g.mig.as_ref().is_some_and(|m| !m.is_empty()));
        if all_mig && every_gpu_has_devices && profiles.len() == 1 && !layout.mixed {
            MigStrategy::Single
        } else {
            MigStrategy::Mixed
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            MigStrategy::None => "none",
            MigStrategy::Single => "single",
            MigStrategy::Mixed => "mixed",
        }
    }
}

/// The extended resource a MIG profile is advertised as with the mixed strategy
/// (`+` becomes `.`: `1g.10gb+me` → `nvidia.com/mig-1g.10gb.me`).
pub(crate) fn mig_resource(profile: &str) -> String {
    format!("nvidia.com/mig-{}", mig_resource_suffix(profile))
}

/// What follows `nvidia.com/mig-` in a profile's resource: the profile with `+` as `.`
/// (`1g.10gb+me` → `1g.10gb.me`), as NVIDIA's device plugin names it.
pub(crate) fn mig_resource_suffix(profile: &str) -> String {
    profile.replace('+', ".")
}

/// What the plugin advertises on this node: resource name → devices (before replicas).
pub(crate) fn resources(layout: &NodeOffer) -> BTreeMap<String, u32> {
    let strategy = MigStrategy::of(layout);
    let mut out = BTreeMap::new();
    for gpu in &layout.gpus {
        match (&gpu.mig, strategy) {
            (Some(_), MigStrategy::None) | (None, _) => {
                *out.entry("nvidia.com/gpu".into()).or_default() += 1;
            }
            (Some(slices), MigStrategy::Single) => {
                *out.entry("nvidia.com/gpu".into()).or_default() += slices.len() as u32;
            }
            (Some(slices), MigStrategy::Mixed) => {
                for s in slices {
                    *out.entry(mig_resource(&s.profile)).or_default() += 1;
                }
            }
        }
    }
    out
}

// The plugin's config file, version v1 (api/config/v1 of k8s-device-plugin).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PluginConfig {
    pub version: &'static str,
    pub flags: Flags,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sharing: Option<SharingConfig>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Flags {
    pub mig_strategy: MigStrategy,
    pub fail_on_init_error: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mps_root: Option<String>,
    pub plugin: PluginFlags,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PluginFlags {
    pub pass_device_specs: bool,
    pub device_list_strategy: &'static str,
    #[serde(rename = "deviceIDStrategy")]
    pub device_id_strategy: &'static str,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct SharingConfig {
    #[serde(rename = "timeSlicing", skip_serializing_if = "Option::is_none")]
    pub time_slicing: Option<ReplicatedResources>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mps: Option<ReplicatedResources>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ReplicatedResources {
    pub resources: Vec<ReplicatedResource>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ReplicatedResource {
    pub name: String,
    pub replicas: u32,
}

/// The sharing of the devices the plugin advertises under one resource name, which the plugin
/// applies to all of them alike.
#[derive(Debug, Clone, Copy, PartialEq)]
enum ResourceSharing {
    Exclusive,
    TimeSlicing(u32),
    Mps(MpsShare),
}

impl ResourceSharing {
    fn of(sharing: Sharing) -> ResourceSharing {
        match sharing {
            Sharing::TimeSlicing { replicas } => ResourceSharing::TimeSlicing(replicas),
            Sharing::Mps(share) => ResourceSharing::Mps(share),
            Sharing::Exclusive | Sharing::Vgpu | Sharing::Claims => ResourceSharing::Exclusive,
        }
    }

    fn describe(self) -> String {
        match self {
            ResourceSharing::Exclusive => "no sharing".to_string(),
            ResourceSharing::TimeSlicing(r) => format!("time-slicing with {r} replicas"),
            ResourceSharing::Mps(m) => format!("MPS with {} clients", m.replicas),
        }
    }
}

fn describe_gpus(gpus: &[&GpuOffer]) -> String {
    let idx: Vec<String> = gpus.iter().map(|g| g.index.to_string()).collect();
    let origin = gpus.first().map(|g| g.origin.as_str()).unwrap_or("");
    format!("GPU {} ({origin})", idx.join(","))
}

/// Each resource the plugin advertises, with the GPUs whose devices it names and how they are
/// shared: whole GPUs as `nvidia.com/gpu`, MIG devices by profile (mixed) or as
/// `nvidia.com/gpu` (single), each with its GPU's `mig_sharing`.
fn resource_sharing(
    layout: &NodeOffer,
    strategy: MigStrategy,
) -> BTreeMap<String, Vec<(ResourceSharing, Vec<&GpuOffer>)>> {
    let mut out: BTreeMap<String, Vec<(ResourceSharing, Vec<&GpuOffer>)>> = BTreeMap::new();
    for g in &layout.gpus {
        let names: Vec<(String, Sharing)> = match (&g.mig, strategy) {
            (None, _) | (Some(_), MigStrategy::None) => vec![("nvidia.com/gpu".into(), g.sharing)],
            (Some(_), MigStrategy::Single) => vec![("nvidia.com/gpu".into(), g.mig_sharing)],
            (Some(slices), MigStrategy::Mixed) => {
                let mut profiles: Vec<String> =
                    slices.iter().map(|s| mig_resource(&s.profile)).collect();
                profiles.dedup();
                profiles
                    .into_iter()
                    .map(|name| (name, g.mig_sharing))
                    .collect()
            }
        };
        for (name, sharing) in names {
            let s = ResourceSharing::of(sharing);
            let groups = out.entry(name).or_default();
            match groups.iter_mut().find(|(k, _)| *k == s) {
                Some((_, v)) => {
                    if !v.iter().any(|x| x.index == g.index) {
                        v.push(g)
                    }
                }
                None => groups.push((s, vec![g])),
            }
        }
    }
    out
}

/// The plugin config for a layout, or why the plugin cannot do it.
pub(crate) fn plugin_config(layout: &NodeOffer) -> Result<(PluginConfig, Vec<String>)> {
    let strategy = MigStrategy::of(layout);
    let mut warnings = Vec::new();
    if let Some(g) = layout.gpus.iter().find(|g| g.sharing == Sharing::Vgpu) {
        return Err(Error::usage(format!(
            "GPU {} ({}) is set up for vGPU: its devices go to virtual machines, not to the device plugin",
            g.index, g.origin
        ))
        .with_hint("run the device plugin on nodes without vGPU, or use KubeVirt's device plugin for vGPU nodes"));
    }
    if let Some(g) = layout
        .gpus
        .iter()
        .find(|g| g.sharing == Sharing::Claims || g.mig_sharing == Sharing::Claims)
    {
        return Err(Error::usage(format!(
            "GPU {} ({}) is shared by claims (shares): gpushare's DRA driver serves it, not the device plugin",
            g.index, g.origin
        ))
        .with_hint("generate --target dra-plugin for it, or give the device plugin's GPUs mps.clients instead of mps.shares"));
    }
    if let Some(g) = layout
        .gpus
        .iter()
        .find(|g| matches!(g.mig_sharing, Sharing::Mps(_)))
    {
        return Err(Error::usage(format!(
            "GPU {} ({}) runs MPS inside its MIG devices: k8s-device-plugin does not support MPS on MIG devices",
            g.index, g.origin
        ))
        .with_hint("drop mig.mps for the device plugin (mig.time_slicing shares MIG devices through it), or use --target dra (MPS per claim)"));
    }
    let mut time_slicing = Vec::new();
    let mut mps = None;
    for (name, groups) in resource_sharing(layout, strategy) {
        if groups.len() > 1 {
            let parts: Vec<String> = groups
                .iter()
                .map(|(s, gpus)| format!("{} has {}", describe_gpus(gpus), s.describe()))
                .collect();
            let hint = if name == "nvidia.com/gpu" {
                "give these GPUs the same mode in gpushare.toml (per-GPU replicas are NVIDIA/k8s-device-plugin#1786), or use --target dra"
            } else {
                "give every GPU with this MIG profile the same mig.time_slicing, or use --target dra"
            };
            return Err(Error::usage(format!(
                "k8s-device-plugin applies one sharing setting to every {name} device of a node, but {}",
                parts.join("; ")
            ))
            .with_hint(hint));
        }
        let Some((sharing, gpus)) = groups.into_iter().next() else {
            continue;
        };
        match sharing {
            ResourceSharing::Exclusive => {}
            ResourceSharing::TimeSlicing(replicas) => {
                time_slicing.push(ReplicatedResource { name, replicas })
            }
            ResourceSharing::Mps(share) => {
                if strategy != MigStrategy::None {
                    return Err(Error::usage(
                        "this node has MIG devices and MPS GPUs: k8s-device-plugin refuses MPS with the mixed MIG strategy (\"using --mig-strategy=mixed is not supported with MPS\")",
                    )
                    .with_hint("use MPS on nodes without MIG, or --target dra"));
                }
                if share.replicas < 2 {
                    return Err(Error::usage(format!(
                        "{}: MPS with {} client(s); k8s-device-plugin shares a GPU only with 2 or more replicas",
                        describe_gpus(&gpus),
                        share.replicas
                    ))
                    .with_hint("set mps.clients = 2 or more"));
                }
                for g in &gpus {
                    if !share.is_equal_share(g.memory_mib) {
                        warnings.push(format!(
                            "GPU {}: gpushare.toml asks {}% of the threads and {} MiB per MPS client; the device plugin's MPS daemon gives each of its {} replicas {}% and {} MiB",
                            g.index,
                            share.thread_percentage,
                            share.memory_limit_mib,
                            share.replicas,
                            100 / share.replicas,
                            g.memory_mib / u64::from(share.replicas)
                        ));
                    }
                }
                mps = Some(ReplicatedResources {
                    resources: vec![ReplicatedResource {
                        name,
                        replicas: share.replicas,
                    }],
                });
            }
        }
    }
    let mps_root = mps.is_some().then(|| MPS_ROOT.to_string());
    let sharing_config = match (time_slicing.is_empty(), mps) {
        (true, None) => None,
        (_, mps) => Some(SharingConfig {
            time_slicing: (!time_slicing.is_empty()).then_some(ReplicatedResources {
                resources: time_slicing,
            }),
            mps,
        }),
    };
    for g in &layout.gpus {
        for s in g.mig.iter().flatten().filter(|s| !s.is_full_instance()) {
            warnings.push(format!(
                "GPU {}: MIG device {} is a compute instance smaller than its GPU instance; k8s-device-plugin advertises only full-size compute instances",
                g.index, s.profile
            ));
        }
    }
    warnings.dedup();
    Ok((
        PluginConfig {
            version: "v1",
            flags: Flags {
                mig_strategy: strategy,
                fail_on_init_error: true,
                mps_root,
                plugin: PluginFlags {
                    pass_device_specs: false,
                    device_list_strategy: "envvar",
                    device_id_strategy: "uuid",
                },
            },
            sharing: sharing_config,
        },
        warnings,
    ))
}

pub(crate) fn generate(req: &Request) -> Result<Bundle> {
    let (config, warnings) = plugin_config(&req.layout)?;
    let config_yaml = crate::support::output::to_safe_yaml(&config)
        .map_err(|e| e.context("the device-plugin config"))?;
    let mut bundle = Bundle::default();
    for w in warnings {
        bundle.warn(w);
    }
    let uses_mps = config.sharing.as_ref().is_some_and(|s| s.mps.is_some());
    let resources: Vec<String> = resources(&req.layout)
        .iter()
        .map(|(name, count)| {
            let replicas = config
                .sharing
                .iter()
                .flat_map(|s| s.time_slicing.iter().chain(&s.mps))
                .flat_map(|r| &r.resources)
                .find(|r| &r.name == name)
                .map_or(1, |r| r.replicas);
            format!("{name}: {}", count * replicas)
        })
        .collect();
    bundle.note(format!(
        "nvidia-device-plugin for layout `{}`: migStrategy {}, advertises {}.",
        req.name,
        config.flags.mig_strategy.as_str(),
        resources.join(", ")
    ));
    if req.helm_values {
        helm_values(req, &config_yaml, uses_mps, &mut bundle)?;
        return Ok(bundle);
    }
    let ns = req.namespace_or(DEFAULT_NAMESPACE);
    if !super::objects::is_builtin_namespace(&ns) {
        bundle.push(Document::object(&namespace(&ns))?);
    }
    bundle.push(Document::object(&ConfigMap {
        metadata: meta(CONFIGS, Some(&ns)),
        data: Some(BTreeMap::from([(req.name.clone(), config_yaml)])),
        ..Default::default()
    })?);
    bundle.push(Document::object(&plugin_daemonset(
        req,
        &ns,
        config.flags.mig_strategy,
        uses_mps,
    ))?);
    if uses_mps {
        bundle.push(Document::object(&mps_daemonset(req, &ns))?);
        bundle.note(
            "MPS: the plugin's mps-control-daemon runs nvidia-cuda-mps-control itself (pipes under /run/nvidia/mps); stop gpushare's own MPS daemons on these nodes first.",
        );
    }
    bundle.note(format!(
        "Run the plugin on this node:\n  {}\nOther node classes keep their keys of {ns}/{CONFIGS}: generate each into the same --out DIR and apply the DIR, or apply each class's manifests as a field manager of its own:\n  kubectl apply --server-side --field-manager=nvidia-device-plugin-{} -f -",
        req.label_command(CONFIG_LABEL, &req.name),
        req.name
    ));
    Ok(bundle)
}

fn node_selector(req: &Request) -> BTreeMap<String, String> {
    labels(&[(CONFIG_LABEL, &req.name)])
}

/// The static DaemonSet of v0.20.0 (`deployments/static/nvidia-device-plugin.yml`) with the
/// config mounted, the node selector of this layout, and what MIG and MPS need.
fn plugin_daemonset(req: &Request, ns: &str, strategy: MigStrategy, uses_mps: bool) -> DaemonSet {
    let name = format!("nvidia-device-plugin-{}", req.name);
    let mut env_vars = vec![
        env("CONFIG_FILE", "/config/config.yaml"),
        env("NVIDIA_VISIBLE_DEVICES", "all"),
        env("NVIDIA_DRIVER_CAPABILITIES", "compute,utility"),
    ];
    // Watching MIG devices for health events needs the MIG monitor caps and SYS_ADMIN (as the
    // chart does when the strategy is not none).
    let security = if strategy == MigStrategy::None {
        SecurityContext {
            allow_privilege_escalation: Some(false),
            capabilities: Some(Capabilities {
                drop: Some(vec!["ALL".into()]),
                ..Default::default()
            }),
            ..Default::default()
        }
    } else {
        env_vars.push(env("NVIDIA_MIG_MONITOR_DEVICES", "all"));
        SecurityContext {
            capabilities: Some(Capabilities {
                add: Some(vec!["SYS_ADMIN".into()]),
                ..Default::default()
            }),
            ..Default::default()
        }
    };
    let mut mounts = vec![
        mount(
            "kubelet-device-plugins-dir",
            "/var/lib/kubelet/device-plugins",
        ),
        super::objects::read_only_mount("config", "/config"),
    ];
    let mut volumes = vec![
        host_path(
            "kubelet-device-plugins-dir",
            "/var/lib/kubelet/device-plugins",
            Some("Directory"),
        ),
        config_map_volume("config", CONFIGS, Some((&req.name, "config.yaml"))),
    ];
    if uses_mps {
        // The plugin checks the MPS daemon's health through its pipe and shm.
        mounts.push(mount("mps-root", "/mps"));
        mounts.push(mount("mps-shm", "/dev/shm"));
        volumes.push(host_path("mps-root", MPS_ROOT, Some("DirectoryOrCreate")));
        volumes.push(host_path("mps-shm", &format!("{MPS_ROOT}/shm"), None));
    }
    DaemonSet {
        metadata: meta(&name, Some(ns)),
        spec: Some(DaemonSetSpec {
            selector: selector(&name),
            update_strategy: Some(DaemonSetUpdateStrategy {
                type_: Some("RollingUpdate".into()),
                ..Default::default()
            }),
            template: PodTemplateSpec {
                metadata: Some(pod_meta(&name)),
                spec: Some(PodSpec {
                    node_selector: Some(node_selector(req)),
                    // Leaves the node while MIG changes (see `gpushare agent`).
                    affinity: Some(unless_paused("device-plugin")),
                    tolerations: Some(vec![toleration("nvidia.com/gpu", "NoSchedule")]),
                    priority_class_name: Some("system-node-critical".into()),
                    containers: vec![Container {
                        name: "nvidia-device-plugin-ctr".into(),
                        image: Some(req.images.get("device-plugin")),
                        command: Some(vec!["nvidia-device-plugin".into()]),
                        env: Some(env_vars),
                        security_context: Some(security),
                        volume_mounts: Some(mounts),
                        ..Default::default()
                    }],
                    volumes: Some(volumes),
                    ..Default::default()
                }),
            },
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// The plugin's MPS control daemon (chart template `daemonset-mps-control-daemon.yml` without
/// the config-manager): mounts a tmpfs for MPS shm, then runs one MPS daemon per resource.
fn mps_daemonset(req: &Request, ns: &str) -> DaemonSet {
    let name = format!("nvidia-mps-control-{}", req.name);
    let privileged = || {
        Some(SecurityContext {
            privileged: Some(true),
            ..Default::default()
        })
    };
    let image = req.images.get("device-plugin");
    DaemonSet {
        metadata: meta(&name, Some(ns)),
        spec: Some(DaemonSetSpec {
            selector: selector(&name),
            template: PodTemplateSpec {
                metadata: Some(pod_meta(&name)),
                spec: Some(PodSpec {
                    node_selector: Some(node_selector(req)),
                    // Leaves the node while MIG changes (see `gpushare agent`).
                    affinity: Some(unless_paused("device-plugin")),
                    tolerations: Some(vec![toleration("nvidia.com/gpu", "NoSchedule")]),
                    priority_class_name: Some("system-node-critical".into()),
                    // The MPS server needs its own host PID (it reads /proc/self).
                    host_pid: Some(true),
                    init_containers: Some(vec![Container {
                        name: "mps-control-daemon-mounts".into(),
                        image: Some(image.clone()),
                        command: Some(vec!["mps-control-daemon".into(), "mount-shm".into()]),
                        security_context: privileged(),
                        volume_mounts: Some(vec![k8s_openapi::api::core::v1::VolumeMount {
                            mount_propagation: Some("Bidirectional".into()),
                            ..mount("mps-root", "/mps")
                        }]),
                        ..Default::default()
                    }]),
                    containers: vec![Container {
                        name: "mps-control-daemon-ctr".into(),
                        image: Some(image),
                        command: Some(vec!["mps-control-daemon".into()]),
                        env: Some(vec![
                            env_field("NODE_NAME", "spec.nodeName"),
                            env("CONFIG_FILE", "/config/config.yaml"),
                            env("NVIDIA_VISIBLE_DEVICES", "all"),
                            env("NVIDIA_DRIVER_CAPABILITIES", "compute,utility"),
                        ]),
                        security_context: privileged(),
                        volume_mounts: Some(vec![
                            mount("mps-shm", "/dev/shm"),
                            mount("mps-root", "/mps"),
                            super::objects::read_only_mount("config", "/config"),
                        ]),
                        ..Default::default()
                    }],
                    volumes: Some(vec![
                        host_path("mps-root", MPS_ROOT, Some("DirectoryOrCreate")),
                        host_path("mps-shm", &format!("{MPS_ROOT}/shm"), None),
                        config_map_volume("config", CONFIGS, Some((&req.name, "config.yaml"))),
                    ]),
                    ..Default::default()
                }),
            },
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Values for the chart (`nvdp/nvidia-device-plugin` 0.20.0): the config under `config.map`,
/// selected per node by the config-manager sidecar through the node label.
#[derive(Serialize)]
struct HelmValues {
    config: HelmConfig,
    #[serde(skip_serializing_if = "Option::is_none")]
    mps: Option<HelmMps>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gfd: Option<HelmGfd>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct HelmConfig {
    map: BTreeMap<String, String>,
    default: String,
    fallback_strategies: Vec<&'static str>,
}

#[derive(Serialize)]
struct HelmMps {
    root: &'static str,
}

#[derive(Serialize)]
struct HelmGfd {
    enabled: bool,
}

fn helm_values(
    req: &Request,
    config_yaml: &str,
    uses_mps: bool,
    bundle: &mut Bundle,
) -> Result<()> {
    let values = HelmValues {
        config: HelmConfig {
            map: BTreeMap::from([(req.name.clone(), config_yaml.to_string())]),
            default: req.name.clone(),
            fallback_strategies: vec!["named", "single"],
        },
        mps: uses_mps.then_some(HelmMps { root: MPS_ROOT }),
        // The chart starts the MPS daemon on nodes GFD labels nvidia.com/mps.capable=true.
        gfd: uses_mps.then_some(HelmGfd { enabled: true }),
    };
    bundle.push(Document::new(
        "nvidia-device-plugin-values.yaml",
        DocKind::HelmValues,
        &values,
    )?);
    let ns = req.namespace_or("nvidia-device-plugin");
    bundle.note(format!(
        "Install with Helm, then select this config on the node:\n  helm repo add nvdp https://nvidia.github.io/k8s-device-plugin\n  helm upgrade -i nvdp nvdp/nvidia-device-plugin --version 0.20.0 --namespace {ns} --create-namespace -f nvidia-device-plugin-values.yaml\n  {}",
        req.label_command(CONFIG_LABEL, &req.name)
    ));
    Ok(())
}

#[cfg(test)]
mod tests;
