//! `--target dra-plugin`: gpushare's own DRA driver (`gpushare dra-plugin`, driver
//! `gpu.gpushare.io`) on every node: its DaemonSet, a service account that may read claims and
//! publish slices, an admission policy that keeps each plugin to its own node's slices, and
//! the DeviceClasses and claim templates of `--target dra` on this driver instead of NVIDIA's.

use super::objects::{env, env_field, host_path, is_builtin_namespace, meta, mount, namespace};
use super::objects::{pod_meta, read_only_mount, selector, toleration};
use super::own_node_policy;
use super::rbac::{cluster_identity, rule};
use super::{Bundle, Document, Request};
use crate::support::error::Result;
use k8s_openapi::api::apps::v1::{DaemonSet, DaemonSetSpec};
use k8s_openapi::api::core::v1::{Container, PodSpec, PodTemplateSpec, SecurityContext};

pub(crate) const NAME: &str = "gpushare-dra-plugin";
const OWN_SLICES_POLICY: &str = "gpushare-dra-plugin-own-slices";
const PLUGIN_DIR: &str = "/var/lib/kubelet/plugins/gpu.gpushare.io";

/// Why the container is privileged, on the pod for whoever reviews it.
const PRIVILEGED_WHY: &str = "The plugin reads every /dev/nvidia* device node (the MIG \
capability nodes too) under the host's root to write each claim's CDI spec, serves the \
kubelet on its plugin sockets, and sees the host's processes (an MPS claim's daemon).";

pub(crate) fn generate(req: &Request) -> Result<Bundle> {
    let image = req.images.gpushare("dra-plugin")?;
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
            // Its node's slice: read at start, written when the node changes.
            rule(
                &["resource.k8s.io"],
                &["resourceslices"],
                &["get", "list", "watch", "create", "update", "delete"],
            ),
            // Which of its devices a claim was allocated, at prepare; the claims that wait for
            // a GPU's MIG to be turned on.
            rule(&["resource.k8s.io"], &["resourceclaims"], &["get", "list"]),
            // Their device conditions (binding conditions: MIG is on, or why not).
            rule(
                &["resource.k8s.io"],
                &["resourceclaims/status"],
                &["patch", "update"],
            ),
            // 1.36 asks a driver that changes status.devices for this too, for claims on its
            // own node (its service account token is bound to the node).
            rule(
                &["resource.k8s.io"],
                &["resourceclaims/driver"],
                &["associated-node:patch", "associated-node:update"],
            ),
        ],
    )?;
    if req.version.minor >= 30 {
        let (policy, binding) = own_node_policy::slice_objects(OWN_SLICES_POLICY, NAME, &ns);
        b.push(Document::object(&policy)?);
        b.push(Document::object(&binding)?);
    }
    b.push(Document::object(&daemonset(&ns, image))?);
    b.extend(super::dra::generate_for(
        req,
        crate::cluster::dra_plugin::DRIVER,
    )?);
    b.note(format!(
        "gpushare's DRA driver gpu.gpushare.io: the DaemonSet {ns}/{NAME} publishes each node's GPUs and MIG devices (a ResourceSlice per node) and prepares the claims of the classes above. One DRA driver per node: stop NVIDIA's DRA kubelet plugin there (label nvidia.com/gpu.deploy.dra-kubelet-plugin=false) and its device plugin for the same devices (nvidia.com/gpu.deploy.device-plugin=false). The GPU health watch runs in gpushare agent; without the agent, add --watch-health to the plugin."
    ));
    Ok(b)
}

fn daemonset(ns: &str, image: String) -> DaemonSet {
    let mut template_meta = pod_meta(NAME);
    template_meta.annotations = Some(super::objects::labels(&[(
        "gpushare.io/privileged",
        PRIVILEGED_WHY,
    )]));
    DaemonSet {
        metadata: meta(NAME, Some(ns)),
        spec: Some(DaemonSetSpec {
            selector: selector(NAME),
            template: PodTemplateSpec {
                metadata: Some(template_meta),
                spec: Some(PodSpec {
                    node_selector: Some(super::objects::labels(&[(
                        "nvidia.com/gpu.present",
                        "true",
                    )])),
                    tolerations: Some(vec![toleration("nvidia.com/gpu", "NoSchedule")]),
                    priority_class_name: Some("system-node-critical".into()),
                    // An MPS claim's daemon is a host process: its pid is seen to be alive.
                    host_pid: Some(true),
                    service_account_name: Some(NAME.into()),
                    automount_service_account_token: Some(true),
                    containers: vec![Container {
                        name: "gpushare".into(),
                        image: Some(image),
                        command: Some(vec![
                            "gpushare".into(),
                            "dra-plugin".into(),
                            // Device nodes and driver files read under /host, each claim's
                            // CDI spec naming them as the host's runtime sees them.
                            "--host-root".into(),
                            "/host".into(),
                        ]),
                        env: Some(vec![
                            env_field("NODE_NAME", "spec.nodeName"),
                            env("NVIDIA_VISIBLE_DEVICES", "all"),
                            env("NVIDIA_DRIVER_CAPABILITIES", "compute,utility"),
                        ]),
                        security_context: Some(SecurityContext {
                            privileged: Some(true),
                            read_only_root_filesystem: Some(true),
                            ..Default::default()
                        }),
                        volume_mounts: Some(vec![
                            mount("registry", "/var/lib/kubelet/plugins_registry"),
                            mount("plugin", PLUGIN_DIR),
                            mount("cdi", "/var/run/cdi"),
                            // The health record gpushare agent's watch keeps, the journal,
                            // and the record of the instances made for claims.
                            mount("state", "/var/lib/gpushare"),
                            // The MPS daemons' records (MPS claims), the node lock (MIG made
                            // for claims changes the node as `gpushare apply` does).
                            mount("run", "/run/gpushare"),
                            // gpushare.toml: the GPUs given to dynamic MIG.
                            read_only_mount("config", "/etc/gpushare"),
                            read_only_mount("host", "/host"),
                        ]),
                        ..Default::default()
                    }],
                    volumes: Some(vec![
                        host_path(
                            "registry",
                            "/var/lib/kubelet/plugins_registry",
                            Some("Directory"),
                        ),
                        host_path("plugin", PLUGIN_DIR, Some("DirectoryOrCreate")),
                        host_path("cdi", "/var/run/cdi", Some("DirectoryOrCreate")),
                        host_path("state", "/var/lib/gpushare", Some("DirectoryOrCreate")),
                        host_path("run", "/run/gpushare", Some("DirectoryOrCreate")),
                        host_path("config", "/etc/gpushare", Some("DirectoryOrCreate")),
                        host_path("host", "/", Some("Directory")),
                    ]),
                    ..Default::default()
                }),
            },
            ..Default::default()
        }),
        ..Default::default()
    }
}
