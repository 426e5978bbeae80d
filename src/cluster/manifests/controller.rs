//! `--target controller`: `gpushare controller`, MIG on demand for the cluster. A Deployment of
//! two replicas (one leads, through the Lease `gpushare-controller`), unprivileged and with a
//! read-only root: it only reads nodes, pods and claims and writes node annotations and events.
//!
//! RBAC, least privilege and no wildcard: nodes (list, patch: its layout annotations), pods
//! and resource claims (list: the demand), events (create, in the pods' namespaces and `default` for nodes), and
//! in its own namespace the Lease by name (get, update) plus create for the first one.

use super::objects::{
    env_field, health_probe, http_port, is_builtin_namespace, meta, namespace, pod_meta, selector,
};
use super::rbac::{cluster_identity, role_binding, rule, rule_on};
use super::{Bundle, Document, Request};
use crate::support::error::Result;
use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
use k8s_openapi::api::core::v1::{
    Capabilities, Container, PodSecurityContext, PodSpec, PodTemplateSpec, ResourceRequirements,
    SeccompProfile, SecurityContext,
};
use k8s_openapi::api::rbac::v1::Role;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use std::collections::BTreeMap;

pub(crate) const NAME: &str = "gpushare-controller";
const HEALTH_PORT: i32 = 8082;

pub(crate) fn generate(req: &Request) -> Result<Bundle> {
    let image = req.images.gpushare("controller")?;
    let ns = req.namespace_or("kube-system");
    let mut b = Bundle::default();
    if !is_builtin_namespace(&ns) {
        b.push(Document::object(&namespace(&ns))?);
    }
    cluster_identity(
        &mut b,
        NAME,
        &ns,
        vec![
            // The nodes that opt in: their published MIG state, and the layouts it writes.
            rule(&[""], &["nodes"], &["list", "watch", "patch"]),
            // The pods that wait for MIG devices, and those bound to the nodes.
            rule(&[""], &["pods"], &["list", "watch"]),
            // Their claims for gpushare's MIG DeviceClasses (DRA).
            rule(
                &["resource.k8s.io"],
                &["resourceclaims"],
                &["list", "watch"],
            ),
            // Why each pod waits, on the pod; what changes, on the node.
            rule(&[""], &["events"], &["create"]),
        ],
    )?;
    b.push(Document::object(&Role {
        metadata: meta(NAME, Some(&ns)),
        rules: Some(vec![
            rule_on(
                &["coordination.k8s.io"],
                &["leases"],
                &[NAME],
                &["get", "update"],
            ),
            // `create` cannot be limited to a name: the first replica makes the Lease.
            rule(&["coordination.k8s.io"], &["leases"], &["create"]),
        ]),
    })?);
    b.push(Document::object(&role_binding(NAME, &ns, NAME, NAME, &ns))?);
    b.push(Document::object(&deployment(&ns, image))?);
    b.note(format!(
        "gpushare controller: reshapes idle MIG capacity for pods that wait for nvidia.com/mig-<profile>, on nodes that opt in; the agent (--target agent) applies each layout.\n  kubectl label node <node> gpushare.io/mig.on-demand=true    # the node's own layout stays its baseline\n  kubectl get events -A --field-selector reason=MigReshaping   # which node is reshaped for which pod\n  kubectl -n {ns} logs deployment/{NAME}"
    ));
    Ok(b)
}

fn deployment(ns: &str, image: String) -> Deployment {
    let quantities = |cpu: &str, memory: &str| {
        Some(BTreeMap::from([
            ("cpu".to_string(), Quantity(cpu.into())),
            ("memory".to_string(), Quantity(memory.into())),
        ]))
    };
    Deployment {
        metadata: meta(NAME, Some(ns)),
        spec: Some(DeploymentSpec {
            replicas: Some(2),
            selector: selector(NAME),
            template: PodTemplateSpec {
                metadata: Some(pod_meta(NAME)),
                spec: Some(PodSpec {
                    service_account_name: Some(NAME.into()),
                    automount_service_account_token: Some(true),
                    priority_class_name: Some("system-cluster-critical".into()),
                    security_context: Some(PodSecurityContext {
                        run_as_non_root: Some(true),
                        run_as_user: Some(65532),
                        seccomp_profile: Some(SeccompProfile {
                            type_: "RuntimeDefault".into(),
                            ..Default::default()
                        }),
                        ..Default::default()
                    }),
                    containers: vec![Container {
                        name: "gpushare".into(),
                        image: Some(image),
                        command: Some(vec![
                            "gpushare".into(),
                            "controller".into(),
                            "--health-addr".into(),
                            format!("0.0.0.0:{HEALTH_PORT}"),
                        ]),
                        ports: Some(vec![http_port(HEALTH_PORT)]),
                        // Healthy while its loop turns, leading or standing by.
                        liveness_probe: Some(health_probe()),
                        env: Some(vec![
                            env_field("POD_NAME", "metadata.name"),
                            env_field("POD_NAMESPACE", "metadata.namespace"),
                        ]),
                        resources: Some(ResourceRequirements {
                            requests: quantities("20m", "64Mi"),
                            limits: quantities("500m", "256Mi"),
                            ..Default::default()
                        }),
                        security_context: Some(SecurityContext {
                            allow_privilege_escalation: Some(false),
                            read_only_root_filesystem: Some(true),
                            capabilities: Some(Capabilities {
                                drop: Some(vec!["ALL".into()]),
                                ..Default::default()
                            }),
                            ..Default::default()
                        }),
                        ..Default::default()
                    }],
                    ..Default::default()
                }),
            },
            ..Default::default()
        }),
        ..Default::default()
    }
}
