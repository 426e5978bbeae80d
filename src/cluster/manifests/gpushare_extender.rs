//! `--target gpushare-extender`: Aliyun's gpushare scheduler extender and device plugin (GPU
//! memory as `aliyun.com/gpu-mem`, in GiB), made to work on current Kubernetes: the extender
//! runs on control-plane nodes (`node-role.kubernetes.io/control-plane`, not the removed
//! `master` role), and a second scheduler `gpushare-scheduler` calls it through a
//! `KubeSchedulerConfiguration` of `kubescheduler.config.k8s.io/v1` (the Policy file and
//! v1beta2/v1beta3 are gone), so no static pod has to be edited.

use super::node_offer::Sharing;
use super::objects::{
    env, env_field, host_path, is_builtin_namespace, labels, meta, mount, namespace, pod_meta,
    selector, toleration, unless_paused,
};
use super::rbac::{RBAC_GROUP, cluster_binding, cluster_identity, rule, service_account, subject};
use super::{Bundle, Document, Request};
use crate::support::error::{Error, Result};
use k8s_openapi::api::apps::v1::{
    DaemonSet, DaemonSetSpec, Deployment, DeploymentSpec, DeploymentStrategy,
};
use k8s_openapi::api::core::v1::{
    Capabilities, ConfigMap, Container, ContainerPort, HTTPGetAction, PodSpec, PodTemplateSpec,
    Probe, ResourceRequirements, SecurityContext, Service, ServicePort, ServiceSpec, Toleration,
};
use k8s_openapi::api::rbac::v1::{RoleBinding, RoleRef};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde::Serialize;
use std::collections::BTreeMap;

pub(crate) const RESOURCE: &str = "aliyun.com/gpu-mem";
pub(crate) const SCHEDULER_NAME: &str = "gpushare-scheduler";
const EXTENDER: &str = "gpushare-schd-extender";
const PLUGIN: &str = "gpushare-device-plugin";
const PORT: i32 = 12345;
const NODE_PORT: i32 = 32766;

/// The extender block of the scheduler configuration (`kubescheduler.config.k8s.io/v1` `Extender`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Extender {
    url_prefix: String,
    filter_verb: &'static str,
    bind_verb: &'static str,
    #[serde(rename = "enableHTTPS")]
    enable_https: bool,
    node_cache_capable: bool,
    managed_resources: Vec<ManagedResource>,
    ignorable: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ManagedResource {
    name: &'static str,
    ignored_by_scheduler: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SchedulerConfiguration {
    api_version: &'static str,
    kind: &'static str,
    leader_election: LeaderElection,
    profiles: Vec<Profile>,
    extenders: Vec<Extender>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LeaderElection {
    leader_elect: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Profile {
    scheduler_name: &'static str,
}

fn scheduler_configuration(url_prefix: String) -> SchedulerConfiguration {
    SchedulerConfiguration {
        api_version: "kubescheduler.config.k8s.io/v1",
        kind: "KubeSchedulerConfiguration",
        // One replica: no lease to take (the kube-scheduler role only grants its own lease).
        leader_election: LeaderElection {
            leader_elect: false,
        },
        profiles: vec![Profile {
            scheduler_name: SCHEDULER_NAME,
        }],
        extenders: vec![Extender {
            url_prefix,
            filter_verb: "filter",
            bind_verb: "bind",
            enable_https: false,
            node_cache_capable: true,
            managed_resources: vec![ManagedResource {
                name: RESOURCE,
                ignored_by_scheduler: false,
            }],
            ignorable: false,
        }],
    }
}

/// GiB each GPU advertises, or why the plugin cannot describe the node.
pub(crate) fn gib_per_gpu(req: &Request) -> Result<u64> {
    if let Some(g) = req.layout.gpus.iter().find(|g| g.mig.is_some()) {
        return Err(Error::usage(format!(
            "GPU {} has MIG ({}): the gpushare device plugin only shares whole GPUs by memory",
            g.index, g.origin
        ))
        .with_hint("use --target nvidia-device-plugin or dra for MIG devices"));
    }
    let sizes: std::collections::BTreeSet<u64> = req
        .layout
        .gpus
        .iter()
        .map(|g| g.memory_mib / 1024)
        .collect();
    if sizes.len() > 1 {
        return Err(Error::usage(format!(
            "the GPUs of this node have different memory sizes ({} GiB): the gpushare extender assumes every GPU of a node has the same memory",
            sizes.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
        ))
        .with_hint("run the extender's device plugin on nodes with one GPU model"));
    }
    if req.layout.gpus.iter().any(|g| g.sharing == Sharing::Vgpu) {
        return Err(Error::usage(
            "this node has vGPU GPUs: the gpushare device plugin would hand them to pods too",
        ));
    }
    if let Some(g) = req
        .layout
        .gpus
        .iter()
        .find(|g| g.sharing == Sharing::Claims)
    {
        return Err(Error::usage(format!(
            "GPU {} ({}) is shared by claims (shares): gpushare's DRA driver serves it, and the gpushare device plugin would hand it to pods too",
            g.index, g.origin
        ))
        .with_hint("generate --target dra-plugin for it"));
    }
    Ok(sizes.into_iter().next().unwrap_or(0))
}

pub(crate) fn generate(req: &Request) -> Result<Bundle> {
    let gib = gib_per_gpu(req)?;
    let ns = req.namespace_or("kube-system");
    let mut b = Bundle::default();
    if !is_builtin_namespace(&ns) {
        b.push(Document::object(&namespace(&ns))?);
    }
    extender_objects(req, &ns, &mut b)?;
    plugin_objects(req, &ns, &mut b)?;
    scheduler_objects(req, &ns, &mut b)?;
    let gpus = req.layout.gpus.len() as u64;
    b.note(format!(
        "gpushare extender: this node advertises {RESOURCE}: {} ({} GPU(s) × {gib} GiB); a pod gets GPU memory on one GPU, without isolation (the application must keep to ALIYUN_COM_GPU_MEM_CONTAINER GiB).",
        gpus * gib,
        gpus
    ));
    b.note(format!(
        "Wiring:\n  1. {}\n  2. the NVIDIA runtime must be the default container runtime on the node (the plugin sets NVIDIA_VISIBLE_DEVICES)\n  3. pods set schedulerName: {SCHEDULER_NAME} and resources.limits {RESOURCE}: <GiB>\n  To use the default scheduler instead, add the `extenders` block of ConfigMap {SCHEDULER_NAME}-config to its KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1, passed with --config) with urlPrefix http://127.0.0.1:{NODE_PORT}/gpushare-scheduler, and remove `profiles`.",
        req.label_command("gpushare", "true")
    ));
    Ok(b)
}

fn control_plane_tolerations() -> Vec<Toleration> {
    vec![
        toleration("node-role.kubernetes.io/control-plane", "NoSchedule"),
        Toleration {
            key: Some("node.cloudprovider.kubernetes.io/uninitialized".into()),
            value: Some("true".into()),
            effect: Some("NoSchedule".into()),
            ..Default::default()
        },
    ]
}

fn extender_objects(req: &Request, ns: &str, b: &mut Bundle) -> Result<()> {
    cluster_identity(
        b,
        EXTENDER,
        ns,
        vec![
            rule(&[""], &["nodes"], &["get", "list", "watch"]),
            rule(&[""], &["events"], &["create", "patch"]),
            rule(
                &[""],
                &["pods"],
                &["update", "patch", "get", "list", "watch"],
            ),
            rule(&[""], &["bindings", "pods/binding"], &["create"]),
            rule(&[""], &["configmaps"], &["get", "list", "watch"]),
        ],
    )?;
    b.push(Document::object(&Deployment {
        metadata: meta(EXTENDER, Some(ns)),
        spec: Some(DeploymentSpec {
            replicas: Some(1),
            strategy: Some(DeploymentStrategy {
                type_: Some("Recreate".into()),
                ..Default::default()
            }),
            selector: selector(EXTENDER),
            template: PodTemplateSpec {
                metadata: Some(pod_meta(EXTENDER)),
                spec: Some(PodSpec {
                    service_account_name: Some(EXTENDER.into()),
                    node_selector: Some(labels(&[("node-role.kubernetes.io/control-plane", "")])),
                    tolerations: Some(control_plane_tolerations()),
                    priority_class_name: Some("system-cluster-critical".into()),
                    containers: vec![Container {
                        name: EXTENDER.into(),
                        image: Some(req.images.get("gpushare-extender")),
                        env: Some(vec![
                            env("LOG_LEVEL", "info"),
                            env("PORT", &PORT.to_string()),
                        ]),
                        ports: Some(vec![ContainerPort {
                            container_port: PORT,
                            name: Some("http".into()),
                            ..Default::default()
                        }]),
                        security_context: Some(restricted()),
                        ..Default::default()
                    }],
                    ..Default::default()
                }),
            },
            ..Default::default()
        }),
        ..Default::default()
    })?);
    b.push(Document::object(&Service {
        metadata: meta(EXTENDER, Some(ns)),
        spec: Some(ServiceSpec {
            type_: Some("NodePort".into()),
            selector: Some(labels(&[("app.kubernetes.io/name", EXTENDER)])),
            ports: Some(vec![ServicePort {
                name: Some("http".into()),
                port: PORT,
                target_port: Some(IntOrString::Int(PORT)),
                node_port: Some(NODE_PORT),
                ..Default::default()
            }]),
            ..Default::default()
        }),
        ..Default::default()
    })?);
    Ok(())
}

fn restricted() -> SecurityContext {
    SecurityContext {
        allow_privilege_escalation: Some(false),
        capabilities: Some(Capabilities {
            drop: Some(vec!["ALL".into()]),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn plugin_objects(req: &Request, ns: &str, b: &mut Bundle) -> Result<()> {
    cluster_identity(
        b,
        PLUGIN,
        ns,
        vec![
            rule(&[""], &["nodes", "nodes/proxy"], &["get", "list", "watch"]),
            rule(&[""], &["events"], &["create", "patch"]),
            rule(
                &[""],
                &["pods"],
                &["update", "patch", "get", "list", "watch"],
            ),
            rule(&[""], &["nodes/status"], &["patch", "update"]),
        ],
    )?;
    let quantity = |cpu: &str, mem: &str| {
        BTreeMap::from([
            ("cpu".to_string(), Quantity(cpu.into())),
            ("memory".to_string(), Quantity(mem.into())),
        ])
    };
    b.push(Document::object(&DaemonSet {
        metadata: meta(PLUGIN, Some(ns)),
        spec: Some(DaemonSetSpec {
            selector: selector(PLUGIN),
            template: PodTemplateSpec {
                metadata: Some(pod_meta(PLUGIN)),
                spec: Some(PodSpec {
                    service_account_name: Some(PLUGIN.into()),
                    node_selector: Some(labels(&[("gpushare", "true")])),
                    // Leaves the node while MIG changes (see `gpushare agent`).
                    affinity: Some(unless_paused("device-plugin")),
                    tolerations: Some(vec![toleration("nvidia.com/gpu", "NoSchedule")]),
                    priority_class_name: Some("system-node-critical".into()),
                    containers: vec![Container {
                        name: PLUGIN.into(),
                        image: Some(req.images.get("gpushare-device-plugin")),
                        // GiB, never MiB: one fake device per MiB overflows kubelet's 4 MiB
                        // gRPC limit on large GPUs.
                        command: Some(
                            [
                                "gpushare-device-plugin-v2",
                                "-logtostderr",
                                "--v=5",
                                "--memory-unit=GiB",
                            ]
                            .iter()
                            .map(|s| s.to_string())
                            .collect(),
                        ),
                        env: Some(vec![env_field("NODE_NAME", "spec.nodeName")]),
                        resources: Some(ResourceRequirements {
                            limits: Some(quantity("1", "300Mi")),
                            requests: Some(quantity("1", "300Mi")),
                            ..Default::default()
                        }),
                        security_context: Some(restricted()),
                        volume_mounts: Some(vec![mount(
                            "device-plugin",
                            "/var/lib/kubelet/device-plugins",
                        )]),
                        ..Default::default()
                    }],
                    volumes: Some(vec![host_path(
                        "device-plugin",
                        "/var/lib/kubelet/device-plugins",
                        Some("Directory"),
                    )]),
                    ..Default::default()
                }),
            },
            ..Default::default()
        }),
        ..Default::default()
    })?);
    Ok(())
}

/// A second kube-scheduler (the cluster's release) that calls the extender.
fn scheduler_objects(req: &Request, ns: &str, b: &mut Bundle) -> Result<()> {
    b.push(Document::object(&service_account(SCHEDULER_NAME, ns))?);
    for role in ["system:kube-scheduler", "system:volume-scheduler"] {
        let name = format!("{SCHEDULER_NAME}-{}", role.trim_start_matches("system:"));
        b.push(Document::object(&cluster_binding(
            &name,
            role,
            SCHEDULER_NAME,
            ns,
        ))?);
    }
    b.push(Document::object(&RoleBinding {
        metadata: meta(
            &format!("{SCHEDULER_NAME}-auth-reader"),
            Some("kube-system"),
        ),
        role_ref: RoleRef {
            api_group: RBAC_GROUP.into(),
            kind: "Role".into(),
            name: "extension-apiserver-authentication-reader".into(),
        },
        subjects: Some(vec![subject(SCHEDULER_NAME, ns)]),
    })?);
    let config = scheduler_configuration(format!(
        "http://{EXTENDER}.{ns}.svc:{PORT}/gpushare-scheduler"
    ));
    let config_yaml = crate::support::output::to_safe_yaml(&config)
        .map_err(|e| e.context("the scheduler configuration"))?;
    let cm = format!("{SCHEDULER_NAME}-config");
    b.push(Document::object(&ConfigMap {
        metadata: meta(&cm, Some(ns)),
        data: Some(BTreeMap::from([("config.yaml".to_string(), config_yaml)])),
        ..Default::default()
    })?);
    let probe = || Probe {
        http_get: Some(HTTPGetAction {
            path: Some("/healthz".into()),
            port: IntOrString::Int(10259),
            scheme: Some("HTTPS".into()),
            ..Default::default()
        }),
        initial_delay_seconds: Some(15),
        ..Default::default()
    };
    b.push(Document::object(&Deployment {
        metadata: meta(SCHEDULER_NAME, Some(ns)),
        spec: Some(DeploymentSpec {
            replicas: Some(1),
            selector: selector(SCHEDULER_NAME),
            template: PodTemplateSpec {
                metadata: Some(pod_meta(SCHEDULER_NAME)),
                spec: Some(PodSpec {
                    service_account_name: Some(SCHEDULER_NAME.into()),
                    priority_class_name: Some("system-cluster-critical".into()),
                    containers: vec![Container {
                        name: "kube-scheduler".into(),
                        image: Some(req.images.kube_scheduler(req.version.minor)),
                        command: Some(vec![
                            "kube-scheduler".into(),
                            "--config=/etc/kubernetes/gpushare-scheduler/config.yaml".into(),
                        ]),
                        liveness_probe: Some(probe()),
                        readiness_probe: Some(probe()),
                        security_context: Some(restricted()),
                        volume_mounts: Some(vec![super::objects::read_only_mount(
                            "config",
                            "/etc/kubernetes/gpushare-scheduler",
                        )]),
                        ..Default::default()
                    }],
                    volumes: Some(vec![super::objects::config_map_volume("config", &cm, None)]),
                    ..Default::default()
                }),
            },
            ..Default::default()
        }),
        ..Default::default()
    })?);
    Ok(())
}
