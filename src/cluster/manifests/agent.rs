//! `--target agent`: `gpushare agent` on every node that has a layout label. The ConfigMap
//! `gpushare-layouts` holds the named layouts (the `-c` file under `--name`; more keys can be
//! added); a node labelled `gpushare.io/config=<name>` (or `nvidia.com/mig.config=<label>`) gets
//! that layout, and the agent reports progress in `gpushare.io/config.state` and events.
//!
//! The agent talks to the API server, so its pod mounts a service-account token, bound to the
//! least it needs: its nodes (get, watch, patch), pods (list, to see what runs on its node), the
//! layouts ConfigMap by name (get, watch) and events (create). No rule has a wildcard. RBAC
//! cannot say which node or which fields; the admission policy of [`super::own_node_policy`]
//! does: its own node, its own labels and annotations.

use super::objects::{
    env, env_field, health_probe, host_path, http_port, is_builtin_namespace, labels, meta, mount,
    namespace, pod_meta, read_only_mount, selector, toleration,
};
use super::own_node_policy;
use super::rbac::{cluster_identity, role_binding, rule, rule_on};
use super::{Bundle, Document, Request};
use crate::cluster::agent::gpu_clients::{COMPONENTS, PAUSED_ANNOTATION};
use crate::cluster::manifests::objects::deploy_label;
use crate::cluster::on_demand::STATE_ANNOTATION;
use crate::support::error::{Error, Result};
use k8s_openapi::api::apps::v1::{DaemonSet, DaemonSetSpec};
use k8s_openapi::api::core::v1::{
    Affinity, ConfigMap, Container, EmptyDirVolumeSource, NodeAffinity, NodeSelector,
    NodeSelectorRequirement, NodeSelectorTerm, PodSpec, PodTemplateSpec, ResourceRequirements,
    SecurityContext, Volume,
};
use k8s_openapi::api::rbac::v1::Role;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use std::collections::BTreeMap;

pub(crate) const CONFIG_LABEL: &str = "gpushare.io/config";
/// Where the agent says how far its node got with the layout.
pub(crate) const STATE_LABEL: &str = "gpushare.io/config.state";
/// The GPU Operator's layout label, which the agent honours, and its state label, which it
/// mirrors.
pub(crate) const MIG_CONFIG_LABEL: &str = "nvidia.com/mig.config";
pub(crate) const MIG_STATE_LABEL: &str = "nvidia.com/mig.config.state";
pub(crate) const NAME: &str = "gpushare-agent";
pub(crate) const LAYOUTS: &str = "gpushare-layouts";
/// The admission policy (and its binding) that keeps each agent to its own node.
pub(crate) const OWN_NODE_POLICY: &str = "gpushare-agent-own-node";
/// The admission policy that keeps the agent's DeviceTaintRules to its own node's devices.
pub(crate) const OWN_TAINT_RULES_POLICY: &str = "gpushare-agent-own-taint-rules";
/// Events about nodes live here (the API server refuses them elsewhere).
const EVENTS_NAMESPACE: &str = "default";
const HTTP_PORT: i32 = 8081;
/// The agent's container; its processes (the MPS daemons it starts) are this pod's.
pub(crate) const CONTAINER: &str = "gpushare";

/// Why the container is privileged, on the pod for whoever reviews it.
pub(crate) const PRIVILEGED_WHY: &str = "Changing MIG modes, creating and destroying GPU instances and \
resetting GPUs need CAP_SYS_ADMIN and every /dev/nvidia* device node (including the MIG \
capability nodes), which only a privileged container gets. hostPID lets gpushare see the host \
processes that hold a GPU before it resets one, and lets the MPS daemons it starts serve other \
pods. The root filesystem is read-only; gpushare writes only its state directories.";

pub(crate) fn generate(req: &Request) -> Result<Bundle> {
    let Some(config) = req.config else {
        return Err(Error::usage(
            "the agent target ships a gpushare.toml to the nodes: pass -c FILE",
        )
        .with_hint(
            "e.g. gpushare manifests --target agent -c gpushare.toml --image gpushare=REF",
        ));
    };
    let image = req.images.gpushare("agent")?;
    let ns = req.namespace_or("kube-system");
    let mut b = Bundle::default();
    if !is_builtin_namespace(&ns) {
        b.push(Document::object(&namespace(&ns))?);
    }
    b.push(Document::object(&ConfigMap {
        metadata: meta(LAYOUTS, Some(&ns)),
        data: Some(BTreeMap::from([(
            req.name.clone(),
            config.source.text.clone(),
        )])),
        ..Default::default()
    })?);
    cluster_identity(
        &mut b,
        NAME,
        &ns,
        vec![
            // Its own Node (a watch of one name lists it too; RBAC cannot name the node): read,
            // watch for label changes, patch its labels and annotations.
            rule(&[""], &["nodes"], &["get", "list", "watch", "patch"]),
            // Its GPUs' health as a condition of its Node (GPUUnhealthy), and its unhealthy DRA
            // devices as DeviceTaintRules (where the cluster serves them); `get` to learn whose
            // a rule under the name of one of its own is.
            rule(&[""], &["nodes/status"], &["patch"]),
            rule(
                &["resource.k8s.io"],
                &["devicetaintrules"],
                &["get", "list", "create", "delete"],
            ),
            // Which pods run on its node (GPU clients that must leave, users that block), and
            // when one lets go of its devices.
            rule(&[""], &["pods"], &["list", "watch"]),
        ],
    )?;
    // RBAC cannot say which node: the API server's admission policy does. The node claim of
    // bound tokens (authentication.kubernetes.io/node-name) is on by default from 1.30, as is
    // admissionregistration.k8s.io/v1.
    let own_node = req.version.minor >= 30;
    if own_node {
        let (policy, binding) = own_node_policy::objects(
            OWN_NODE_POLICY,
            NAME,
            &ns,
            &written_labels(),
            &written_annotations(),
        );
        b.push(Document::object(&policy)?);
        b.push(Document::object(&binding)?);
        let (policy, binding) =
            own_node_policy::taint_rule_objects(OWN_TAINT_RULES_POLICY, NAME, &ns);
        b.push(Document::object(&policy)?);
        b.push(Document::object(&binding)?);
    }
    b.push(Document::object(&Role {
        metadata: meta(NAME, Some(&ns)),
        rules: Some(vec![rule_on(
            &[""],
            &["configmaps"],
            &[LAYOUTS],
            // A watch of one name (metadata.name=…) lists and watches that name alone.
            &["get", "list", "watch"],
        )]),
    })?);
    b.push(Document::object(&role_binding(NAME, &ns, NAME, NAME, &ns))?);
    let events = format!("{NAME}-events");
    b.push(Document::object(&Role {
        metadata: meta(&events, Some(EVENTS_NAMESPACE)),
        rules: Some(vec![rule(&[""], &["events"], &["create"])]),
    })?);
    b.push(Document::object(&role_binding(
        &events,
        EVENTS_NAMESPACE,
        &events,
        NAME,
        &ns,
    ))?);
    b.push(Document::object(&daemonset(&ns, image))?);
    b.note(format!(
        "gpushare agent: on every node labelled {CONFIG_LABEL}=<name> (or nvidia.com/mig.config=<label>), it applies that layout of the ConfigMap {ns}/{LAYOUTS} and reports progress in gpushare.io/config.state and events.\n  {}\n  kubectl get nodes -L gpushare.io/config.state    # pending, applying, success, failed, reboot-required\n  Add layouts (a gpushare.toml per key; config.yaml may hold a mig-parted config):\n  kubectl -n {ns} create configmap {LAYOUTS} --from-file={}=FILE --from-file=OTHER=FILE2 --dry-run=client -o yaml | kubectl apply -f -",
        req.label_command(CONFIG_LABEL, &req.name),
        req.name,
    ));
    if !own_node {
        b.note(format!(
            "Kubernetes {}: bound tokens name no node before 1.30, so the admission policy that keeps each agent to its own node ({OWN_NODE_POLICY}) is left out; any agent's service account may label any node",
            req.version
        ));
    }
    Ok(b)
}

/// The labels the agent writes on its node: its state, the GPU Operator's, and the GPU clients'
/// pauses.
pub(crate) fn written_labels() -> Vec<String> {
    let mut keys = vec![STATE_LABEL.to_string(), MIG_STATE_LABEL.to_string()];
    keys.extend(COMPONENTS.iter().map(|c| deploy_label(c)));
    keys
}

/// The annotations the agent writes on its node: its MIG state, and the paused clients' labels.
pub(crate) fn written_annotations() -> Vec<String> {
    vec![STATE_ANNOTATION.to_string(), PAUSED_ANNOTATION.to_string()]
}

fn daemonset(ns: &str, image: String) -> DaemonSet {
    let exists = |key: &str| NodeSelectorTerm {
        match_expressions: Some(vec![NodeSelectorRequirement {
            key: key.into(),
            operator: "Exists".into(),
            values: None,
        }]),
        ..Default::default()
    };
    let quantities = |cpu: &str, memory: &str| {
        Some(BTreeMap::from([
            ("cpu".to_string(), Quantity(cpu.into())),
            ("memory".to_string(), Quantity(memory.into())),
        ]))
    };
    let mut template_meta = pod_meta(NAME);
    // Prometheus's annotation-based pod discovery scrapes the agent's /metrics.
    let port = HTTP_PORT.to_string();
    template_meta.annotations = Some(labels(&[
        ("gpushare.io/privileged", PRIVILEGED_WHY),
        ("prometheus.io/scrape", "true"),
        ("prometheus.io/port", &port),
        ("prometheus.io/path", "/metrics"),
    ]));
    DaemonSet {
        metadata: meta(NAME, Some(ns)),
        spec: Some(DaemonSetSpec {
            selector: selector(NAME),
            template: PodTemplateSpec {
                metadata: Some(template_meta),
                spec: Some(PodSpec {
                    // Nodes that name a layout, with either label.
                    affinity: Some(Affinity {
                        node_affinity: Some(NodeAffinity {
                            required_during_scheduling_ignored_during_execution: Some(
                                NodeSelector {
                                    node_selector_terms: vec![
                                        exists(CONFIG_LABEL),
                                        exists("nvidia.com/mig.config"),
                                    ],
                                },
                            ),
                            ..Default::default()
                        }),
                        ..Default::default()
                    }),
                    tolerations: Some(vec![toleration("nvidia.com/gpu", "NoSchedule")]),
                    priority_class_name: Some("system-node-critical".into()),
                    service_account_name: Some(NAME.into()),
                    // The agent reads and labels its node: it needs the API (see the RBAC).
                    automount_service_account_token: Some(true),
                    host_pid: Some(true),
                    containers: vec![Container {
                        name: CONTAINER.into(),
                        image: Some(image),
                        command: Some(vec![
                            "gpushare".into(),
                            "agent".into(),
                            "--configmap".into(),
                            format!("{ns}/{LAYOUTS}"),
                            "--health-addr".into(),
                            format!("0.0.0.0:{HTTP_PORT}"),
                        ]),
                        env: Some(vec![
                            env_field("NODE_NAME", "spec.nodeName"),
                            // Who the agent is: the owner of the processes in its container.
                            env_field("POD_NAMESPACE", "metadata.namespace"),
                            env_field("POD_NAME", "metadata.name"),
                            env_field("POD_UID", "metadata.uid"),
                            env("NVIDIA_VISIBLE_DEVICES", "all"),
                            env("NVIDIA_DRIVER_CAPABILITIES", "compute,utility"),
                        ]),
                        ports: Some(vec![http_port(HTTP_PORT)]),
                        // A run may take minutes (MIG changes, GPU clients leaving); the
                        // endpoint stays healthy meanwhile and fails only when the loop stops.
                        liveness_probe: Some(health_probe()),
                        resources: Some(ResourceRequirements {
                            requests: quantities("20m", "64Mi"),
                            limits: quantities("500m", "256Mi"),
                            ..Default::default()
                        }),
                        // See the pod's gpushare.io/privileged annotation.
                        security_context: Some(SecurityContext {
                            privileged: Some(true),
                            read_only_root_filesystem: Some(true),
                            ..Default::default()
                        }),
                        volume_mounts: Some(vec![
                            mount("run", "/run/gpushare"),
                            mount("state", "/var/lib/gpushare"),
                            mount("cdi", "/etc/cdi"),
                            mount("tmp", "/tmp"),
                            // Which pod holds which device (the kubelet's pod-resources API).
                            read_only_mount("pod-resources", "/var/lib/kubelet/pod-resources"),
                        ]),
                        ..Default::default()
                    }],
                    volumes: Some(vec![
                        host_path("run", "/run/gpushare", Some("DirectoryOrCreate")),
                        host_path("state", "/var/lib/gpushare", Some("DirectoryOrCreate")),
                        host_path("cdi", "/etc/cdi", Some("DirectoryOrCreate")),
                        host_path(
                            "pod-resources",
                            "/var/lib/kubelet/pod-resources",
                            Some("Directory"),
                        ),
                        Volume {
                            name: "tmp".into(),
                            empty_dir: Some(EmptyDirVolumeSource::default()),
                            ..Default::default()
                        },
                    ]),
                    ..Default::default()
                }),
            },
            ..Default::default()
        }),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::change::cdi;
    use crate::cluster::manifests::{Images, K8sVersion, NodeOffer};
    use crate::node::backend::Backend;
    use crate::node::backend::sim::SimBackend;
    use crate::node::config::AssignedConfig;
    use crate::node::config::Config;
    use crate::support::source_file::SourceFile;

    #[test]
    fn the_rbac_names_its_verbs_and_no_wildcard() {
        let node = SimBackend::from_preset("dgx-a100")
            .unwrap()
            .snapshot()
            .unwrap();
        let config = Config::parse(SourceFile::inline(
            "seven.toml",
            "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 7 }\n",
        ))
        .unwrap();
        let req = Request {
            node: &node,
            layout: NodeOffer::desired(&node, &AssignedConfig::new(config.clone(), &node).unwrap())
                .unwrap(),
            config: Some(&config),
            version: K8sVersion::parse("1.34").unwrap(),
            namespace: None,
            images: Images::parse(&["gpushare=example.com/gpushare:1".into()]).unwrap(),
            helm_values: false,
            examples: false,
            name: "seven".into(),
            node_name: None,
            devices: cdi::DeviceSource::default(),
            mig_profiles: Vec::new(),
        };
        let bundle = generate(&req).unwrap();
        let mut rules = 0;
        for d in &bundle.documents {
            for r in d.json["rules"].as_array().into_iter().flatten() {
                let rule: k8s_openapi::api::rbac::v1::PolicyRule =
                    serde_json::from_value(r.clone()).unwrap();
                assert!(
                    !crate::cluster::manifests::rbac::has_wildcard(&rule),
                    "{rule:?}"
                );
                rules += 1;
            }
        }
        assert_eq!(rules, 6);
        let yaml = bundle.to_yaml();
        assert!(
            yaml.contains("automountServiceAccountToken: true"),
            "{yaml}"
        );
        assert!(yaml.contains("readOnlyRootFilesystem: true"), "{yaml}");
        assert!(yaml.contains("gpushare.io/privileged:"), "{yaml}");
    }
}
