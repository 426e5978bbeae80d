//! Small builders for the Kubernetes objects every target needs (metadata, volumes, env).

use k8s_openapi::api::core::v1::{
    Affinity, ConfigMapVolumeSource, ContainerPort, EnvVar, EnvVarSource, HTTPGetAction,
    HostPathVolumeSource, KeyToPath, Namespace, NodeAffinity, NodeSelector,
    NodeSelectorRequirement, NodeSelectorTerm, ObjectFieldSelector, Probe, Toleration, Volume,
    VolumeMount,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use std::collections::BTreeMap;

pub(crate) type Labels = BTreeMap<String, String>;

pub(crate) fn labels(pairs: &[(&str, &str)]) -> Labels {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The labels gpushare puts on every object it writes.
pub(crate) fn app_labels(name: &str) -> Labels {
    labels(&[
        ("app.kubernetes.io/name", name),
        ("app.kubernetes.io/managed-by", "gpushare"),
    ])
}

pub(crate) fn meta(name: &str, namespace: Option<&str>) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.to_string()),
        namespace: namespace.map(str::to_string),
        labels: Some(app_labels(name)),
        ..Default::default()
    }
}

pub(crate) fn selector(name: &str) -> LabelSelector {
    LabelSelector {
        match_labels: Some(labels(&[("app.kubernetes.io/name", name)])),
        ..Default::default()
    }
}

pub(crate) fn pod_meta(name: &str) -> ObjectMeta {
    ObjectMeta {
        labels: Some(app_labels(name)),
        ..Default::default()
    }
}

pub(crate) fn namespace(name: &str) -> Namespace {
    Namespace {
        metadata: meta(name, None),
        ..Default::default()
    }
}

/// Namespaces that exist in every cluster; others get a Namespace object.
pub(crate) fn is_builtin_namespace(name: &str) -> bool {
    matches!(name, "default" | "kube-system" | "kube-public")
}

pub(crate) fn env(name: &str, value: &str) -> EnvVar {
    EnvVar {
        name: name.into(),
        value: Some(value.into()),
        ..Default::default()
    }
}

pub(crate) fn env_field(name: &str, field_path: &str) -> EnvVar {
    EnvVar {
        name: name.into(),
        value_from: Some(EnvVarSource {
            field_ref: Some(ObjectFieldSelector {
                field_path: field_path.into(),
                ..Default::default()
            }),
            ..Default::default()
        }),
        ..Default::default()
    }
}

pub(crate) fn host_path(name: &str, path: &str, kind: Option<&str>) -> Volume {
    Volume {
        name: name.into(),
        host_path: Some(HostPathVolumeSource {
            path: path.into(),
            type_: kind.map(str::to_string),
        }),
        ..Default::default()
    }
}

/// A ConfigMap volume; with `key`, only that key, as `path`.
pub(crate) fn config_map_volume(name: &str, config_map: &str, key: Option<(&str, &str)>) -> Volume {
    Volume {
        name: name.into(),
        config_map: Some(ConfigMapVolumeSource {
            name: config_map.into(),
            items: key.map(|(k, p)| {
                vec![KeyToPath {
                    key: k.into(),
                    path: p.into(),
                    ..Default::default()
                }]
            }),
            ..Default::default()
        }),
        ..Default::default()
    }
}

pub(crate) fn mount(name: &str, path: &str) -> VolumeMount {
    VolumeMount {
        name: name.into(),
        mount_path: path.into(),
        ..Default::default()
    }
}

pub(crate) fn read_only_mount(name: &str, path: &str) -> VolumeMount {
    VolumeMount {
        read_only: Some(true),
        ..mount(name, path)
    }
}

pub(crate) fn toleration(key: &str, effect: &str) -> Toleration {
    Toleration {
        key: Some(key.into()),
        operator: Some("Exists".into()),
        effect: Some(effect.into()),
        ..Default::default()
    }
}

/// The value of `nvidia.com/gpu.deploy.<component>` while MIG changes on a node (set by the GPU
/// Operator's MIG manager and by `gpushare agent`).
pub(crate) const PAUSED_FOR_MIG_CHANGE: &str = "paused-for-mig-change";

/// The GPU Operator's switch for a component on a node.
pub(crate) fn deploy_label(component: &str) -> String {
    format!("nvidia.com/gpu.deploy.{component}")
}

/// Run on a node unless the component is switched off there (`false`) or paused while MIG
/// changes: the DaemonSet controller then takes the pod away, and brings it back after. A node
/// without the label runs it.
pub(crate) fn unless_paused(component: &str) -> Affinity {
    Affinity {
        node_affinity: Some(NodeAffinity {
            required_during_scheduling_ignored_during_execution: Some(NodeSelector {
                node_selector_terms: vec![NodeSelectorTerm {
                    match_expressions: Some(vec![NodeSelectorRequirement {
                        key: deploy_label(component),
                        operator: "NotIn".into(),
                        values: Some(vec!["false".into(), PAUSED_FOR_MIG_CHANGE.into()]),
                    }]),
                    ..Default::default()
                }],
            }),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// The port `http` of gpushare's endpoint (`/healthz`; the agent's `/metrics` too).
pub(crate) fn http_port(port: i32) -> ContainerPort {
    ContainerPort {
        name: Some("http".into()),
        container_port: port,
        ..Default::default()
    }
}

/// The liveness probe on gpushare's health endpoint (`GET /healthz` on the port `http`): it
/// fails only when the loop has stopped turning.
pub(crate) fn health_probe() -> Probe {
    Probe {
        http_get: Some(HTTPGetAction {
            path: Some("/healthz".into()),
            port: IntOrString::String("http".into()),
            ..Default::default()
        }),
        initial_delay_seconds: Some(10),
        period_seconds: Some(30),
        timeout_seconds: Some(5),
        failure_threshold: Some(4),
        ..Default::default()
    }
}
