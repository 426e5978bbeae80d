//! The agent's calls to the Kubernetes API. The agent's loop is synchronous (the node is changed
//! through the same code as `gpushare apply`); each call here runs on the runtime that also runs
//! the watches, and has a deadline, so an API server that does not answer never hangs the agent.

use super::layouts::ConfigMapRef;
use crate::error::{Error, Result};
use k8s_openapi::api::core::v1::{ConfigMap, Event, EventSource, Node, ObjectReference, Pod};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use kube::api::{ListParams, Patch, PatchParams, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Api, Client, Config};
use std::collections::BTreeMap;
use std::future::Future;
use std::path::Path;
use std::time::Duration;

/// How long one call may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// Who writes the events and labels.
pub(crate) const COMPONENT: &str = "gpushare-agent";
/// Events about a cluster-scoped object (a Node) live in `default`, as the kubelet's do; the API
/// server refuses them elsewhere.
pub(crate) const EVENTS_NAMESPACE: &str = "default";

/// Normal or Warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EventType {
    Normal,
    Warning,
}

pub(crate) struct Cluster {
    handle: tokio::runtime::Handle,
    client: Client,
    pub node: String,
    pub layouts: ConfigMapRef,
}

/// The client: from the kubeconfig files given (`a:b` as KUBECONFIG lists them), or the pod's
/// service account.
pub(crate) async fn client(kubeconfig: Option<&Path>) -> Result<Client> {
    let config = match kubeconfig {
        Some(paths) => {
            let mut merged: Option<Kubeconfig> = None;
            for path in std::env::split_paths(paths).filter(|p| !p.as_os_str().is_empty()) {
                let cannot = |e: &dyn std::fmt::Display| {
                    Error::usage(format!(
                        "cannot read the kubeconfig {}: {e}",
                        path.display()
                    ))
                    .with_hint("pass --kubeconfig FILE, or run in a pod with a service account")
                };
                // The bounded reader first: a FIFO or /dev/zero there is refused at once. kube
                // reads it again, to make the paths in it absolute.
                crate::fsutil::read_host(&path)
                    .map_err(|e| cannot(&e))?
                    .ok_or_else(|| cannot(&"it does not exist"))?;
                let next = Kubeconfig::read_from(&path).map_err(|e| cannot(&e))?;
                merged = Some(match merged {
                    Some(m) => m.merge(next).map_err(|e| {
                        Error::usage(format!(
                            "cannot merge the kubeconfig {}: {e}",
                            path.display()
                        ))
                    })?,
                    None => next,
                });
            }
            let merged = merged.ok_or_else(|| Error::usage("--kubeconfig names no file"))?;
            Config::from_custom_kubeconfig(merged, &KubeConfigOptions::default())
                .await
                .map_err(|e| Error::usage(format!("the kubeconfig is not usable: {e}")))?
        }
        None => Config::incluster().map_err(|e| {
            Error::usage(format!(
                "no kubeconfig and not in a pod with a service account: {e}"
            ))
            .with_hint("pass --kubeconfig FILE (or set KUBECONFIG)")
        })?,
    };
    Client::try_from(config)
        .map_err(|e| Error::failed(format!("cannot make a Kubernetes client: {e}")))
}

impl Cluster {
    pub(crate) fn new(
        handle: tokio::runtime::Handle,
        client: Client,
        node: String,
        layouts: ConfigMapRef,
    ) -> Self {
        Cluster {
            handle,
            client,
            node,
            layouts,
        }
    }

    fn call<T>(&self, what: &str, f: impl Future<Output = kube::Result<T>>) -> Result<T> {
        call(&self.handle, what, f)
    }

    pub(crate) fn get_node(&self) -> Result<Node> {
        let api: Api<Node> = Api::all(self.client.clone());
        self.call(&format!("get node {}", self.node), api.get(&self.node))
    }

    /// The ConfigMap's data; `None` when it does not exist.
    pub(crate) fn layouts_data(&self) -> Result<Option<BTreeMap<String, String>>> {
        let api: Api<ConfigMap> = Api::namespaced(self.client.clone(), &self.layouts.namespace);
        let cm = self.call(
            &format!("get configmap {}", self.layouts),
            api.get_opt(&self.layouts.name),
        )?;
        Ok(cm.map(|c| c.data.unwrap_or_default()))
    }

    /// A JSON merge patch of the node's metadata.
    pub(crate) fn patch_node(&self, patch: &serde_json::Value) -> Result<Node> {
        let api: Api<Node> = Api::all(self.client.clone());
        let params = PatchParams {
            field_manager: Some(COMPONENT.into()),
            ..Default::default()
        };
        self.call(
            &format!("patch node {}", self.node),
            api.patch(&self.node, &params, &Patch::Merge(patch)),
        )
    }

    /// Every pod bound to this node, in every namespace.
    pub(crate) fn pods_on_node(&self) -> Result<Vec<Pod>> {
        let api: Api<Pod> = Api::all(self.client.clone());
        let params = ListParams::default().fields(&format!("spec.nodeName={}", self.node));
        Ok(self
            .call(
                &format!("list pods on node {}", self.node),
                api.list(&params),
            )?
            .items)
    }

    /// Record an event about the node (`kubectl describe node` shows it).
    pub(crate) fn record(
        &self,
        node: &Node,
        kind: EventType,
        reason: &str,
        message: &str,
    ) -> Result<()> {
        let api: Api<Event> = Api::namespaced(self.client.clone(), EVENTS_NAMESPACE);
        let event = event(node, &self.node, kind, reason, message);
        self.call(
            &format!("create event {reason}"),
            api.create(&PostParams::default(), &event),
        )
        .map(|_| ())
    }
}

/// Run one call on the runtime, within the deadline.
pub(crate) fn call<T>(
    handle: &tokio::runtime::Handle,
    what: &str,
    f: impl Future<Output = kube::Result<T>>,
) -> Result<T> {
    // The timer is made inside the runtime (it needs its clock).
    match handle.block_on(async { tokio::time::timeout(CALL_TIMEOUT, f).await }) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(api_error(what, e)),
        Err(_) => Err(Error::failed(format!(
            "Kubernetes API: {what}: no answer within {} s",
            CALL_TIMEOUT.as_secs()
        ))),
    }
}

/// A core/v1 Event about `node` (the kind `kubectl describe node` lists).
pub(crate) fn event(
    node: &Node,
    node_name: &str,
    kind: EventType,
    reason: &str,
    message: &str,
) -> Event {
    let about = ObjectReference {
        api_version: Some("v1".into()),
        kind: Some("Node".into()),
        name: Some(node_name.into()),
        uid: node.metadata.uid.clone(),
        ..Default::default()
    };
    event_about(about, COMPONENT, node_name, kind, reason, message)
}

/// A core/v1 Event about any object, from `component` on `host`.
pub(crate) fn event_about(
    about: ObjectReference,
    component: &str,
    host: &str,
    kind: EventType,
    reason: &str,
    message: &str,
) -> Event {
    let now = k8s_openapi::jiff::Timestamp::now();
    let name = about.name.clone().unwrap_or_default();
    Event {
        metadata: ObjectMeta {
            generate_name: Some(format!("{name}.gpushare.")),
            namespace: about.namespace.clone(),
            ..Default::default()
        },
        involved_object: about,
        reason: Some(reason.into()),
        message: Some(clip(message, 1024)),
        type_: Some(
            match kind {
                EventType::Normal => "Normal",
                EventType::Warning => "Warning",
            }
            .into(),
        ),
        source: Some(EventSource {
            component: Some(component.into()),
            host: Some(host.into()),
        }),
        first_timestamp: Some(Time(now)),
        last_timestamp: Some(Time(now)),
        action: Some(reason.into()),
        reporting_component: Some(format!("gpushare.io/{component}")),
        reporting_instance: Some(clip(&format!("{component}-{host}"), 128)),
        count: Some(1),
        ..Default::default()
    }
}

/// At most `max` bytes, cut at a character boundary, with `…` when cut.
fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max - '…'.len_utf8();
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

fn api_error(what: &str, e: kube::Error) -> Error {
    let err = Error::failed(format!("Kubernetes API: {what}: {}", describe(&e)));
    match &e {
        kube::Error::Api(s) if s.code == 403 => err.with_hint(
            "the service account lacks a permission: apply the RBAC objects of \
             `gpushare manifests --target agent` (or `--target controller`)",
        ),
        kube::Error::Api(s) if s.code == 401 => {
            err.with_hint("the credentials were refused: check the kubeconfig or the token")
        }
        _ => err,
    }
}

/// The API's own message when it gave one.
pub(crate) fn describe(e: &kube::Error) -> String {
    match e {
        kube::Error::Api(s) if !s.message.is_empty() => format!("{} ({})", s.message, s.code),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_about_the_node_and_short_enough() {
        let node = Node {
            metadata: ObjectMeta {
                name: Some("gpu-1".into()),
                uid: Some("u-1".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        let long = "é".repeat(2000);
        let e = event(&node, "gpu-1", EventType::Warning, "LayoutFailed", &long);
        assert_eq!(e.involved_object.kind.as_deref(), Some("Node"));
        assert_eq!(e.involved_object.uid.as_deref(), Some("u-1"));
        assert_eq!(e.type_.as_deref(), Some("Warning"));
        let m = e.message.unwrap();
        assert!(m.len() <= 1024 && m.ends_with('…'), "{}", m.len());
        assert_eq!(clip("short", 10), "short");
    }
}
