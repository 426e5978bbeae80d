//! `--target agent`: apply one gpushare.toml to a fleet. A ConfigMap carries the file; a
//! DaemonSet on the nodes labelled `gpushare.io/config=<name>` runs `gpushare apply` with it, and
//! again whenever the mounted file changes (the kubelet refreshes ConfigMap volumes).

use super::layout::Sharing;
use super::objects::{
    config_map_volume, env, host_path, is_builtin_namespace, labels, meta, mount, namespace,
    pod_meta, read_only_mount, selector, toleration,
};
use super::{Bundle, Document, Request};
use crate::error::{Error, Result};
use k8s_openapi::api::apps::v1::{DaemonSet, DaemonSetSpec};
use k8s_openapi::api::core::v1::{ConfigMap, Container, PodSpec, PodTemplateSpec, SecurityContext};
use std::collections::BTreeMap;

pub const CONFIG_LABEL: &str = "gpushare.io/config";
const CONFIG_DIR: &str = "/etc/gpushare";

/// The loop the agent runs: apply when the file's checksum changes; retry failures; a reboot
/// request (exit 5) waits for the next change, as the node cannot finish without one.
const LOOP: &str = r#"conf=/etc/gpushare/gpushare.toml
last=""
while true; do
  now=$(cksum < "$conf")
  if [ "$now" != "$last" ]; then
    rc=0
    gpushare apply -c "$conf" || rc=$?
    case "$rc" in
      0) last="$now" ;;
      5) echo "gpushare: the node needs a reboot to finish applying $conf"; last="$now" ;;
      *) echo "gpushare: apply failed (exit $rc); retrying in 30 s" ;;
    esac
  fi
  sleep 30
done
"#;

pub fn generate(req: &Request) -> Result<Bundle> {
    let Some(config) = req.config else {
        return Err(Error::usage(
            "the agent target ships a gpushare.toml to the nodes: pass -c FILE",
        )
        .with_hint(
            "e.g. gpushare manifests --target agent -c gpushare.toml --image gpushare=REF",
        ));
    };
    let image = req.images.gpushare()?;
    let ns = req.namespace_or("kube-system");
    let name = format!("gpushare-agent-{}", req.name);
    let mut b = Bundle::default();
    if !is_builtin_namespace(&ns) {
        b.push(Document::object(&namespace(&ns))?);
    }
    let cm = format!("gpushare-config-{}", req.name);
    b.push(Document::object(&ConfigMap {
        metadata: meta(&cm, Some(&ns)),
        data: Some(BTreeMap::from([(
            "gpushare.toml".to_string(),
            config.source.text.clone(),
        )])),
        ..Default::default()
    })?);
    let uses_mps = req
        .layout
        .gpus
        .iter()
        .any(|g| matches!(g.sharing, Sharing::Mps(_)) || g.mig_mps.is_some());
    b.push(Document::object(&DaemonSet {
        metadata: meta(&name, Some(&ns)),
        spec: Some(DaemonSetSpec {
            selector: selector(&name),
            template: PodTemplateSpec {
                metadata: Some(pod_meta(&name)),
                spec: Some(PodSpec {
                    node_selector: Some(labels(&[(CONFIG_LABEL, &req.name)])),
                    tolerations: Some(vec![toleration("nvidia.com/gpu", "NoSchedule")]),
                    priority_class_name: Some("system-node-critical".into()),
                    // MPS servers run as host processes and need their own host PID.
                    host_pid: uses_mps.then_some(true),
                    containers: vec![Container {
                        name: "gpushare".into(),
                        image: Some(image),
                        command: Some(vec!["/bin/sh".into(), "-c".into(), LOOP.into()]),
                        env: Some(vec![
                            env("NVIDIA_VISIBLE_DEVICES", "all"),
                            env("NVIDIA_DRIVER_CAPABILITIES", "compute,utility"),
                        ]),
                        // Changing MIG mode, creating instances and resetting GPUs need
                        // CAP_SYS_ADMIN and every /dev/nvidia* node: the one privileged part.
                        security_context: Some(SecurityContext {
                            privileged: Some(true),
                            ..Default::default()
                        }),
                        volume_mounts: Some(vec![
                            read_only_mount("config", CONFIG_DIR),
                            mount("run", "/run/gpushare"),
                            mount("state", "/var/lib/gpushare"),
                            mount("cdi", "/etc/cdi"),
                        ]),
                        ..Default::default()
                    }],
                    volumes: Some(vec![
                        config_map_volume("config", &cm, Some(("gpushare.toml", "gpushare.toml"))),
                        host_path("run", "/run/gpushare", Some("DirectoryOrCreate")),
                        host_path("state", "/var/lib/gpushare", Some("DirectoryOrCreate")),
                        host_path("cdi", "/etc/cdi", Some("DirectoryOrCreate")),
                    ]),
                    ..Default::default()
                }),
            },
            ..Default::default()
        }),
        ..Default::default()
    })?);
    b.note(format!(
        "gpushare agent `{}`: applies {} on every node labelled {CONFIG_LABEL}={}; edit the ConfigMap {cm} to change the fleet.\n  {}",
        req.name,
        config.source.path.display(),
        req.name,
        req.label_command(CONFIG_LABEL, &req.name)
    ));
    Ok(b)
}
