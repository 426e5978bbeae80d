//! The agent's calls to the Kubernetes API. The agent's loop is synchronous (the node is changed
//! through the same code as `gpushare apply`); each call here runs on the runtime that also runs
//! the watches, and has a deadline, so an API server that does not answer never hangs the agent.

use super::layouts::ConfigMapRef;
use crate::error::Result;
use crate::kube_api::{EVENTS_NAMESPACE, EventType, call, event_about};
use k8s_openapi::api::core::v1::{ConfigMap, Event, Node, ObjectReference, Pod};
use kube::api::{ListParams, Patch, PatchParams, PostParams};
use kube::{Api, Client};
use std::collections::BTreeMap;
use std::future::Future;

/// Who writes the events and labels.
pub(crate) const COMPONENT: &str = "gpushare-agent";

pub(crate) struct Cluster {
    handle: tokio::runtime::Handle,
    client: Client,
    pub node: String,
    pub layouts: ConfigMapRef,
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

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

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
    }
}
