//! The agent's view of the cluster and its calls to the API. It reads its Node, the layouts
//! ConfigMap and the pods on its node from watched caches ([`crate::cluster::api_client::cache`]), so in
//! steady state it sends the API server nothing but those three watches; each change wakes the
//! loop ([`Wake`]). The loop is synchronous (the node is changed through the same code as
//! `gpushare apply`); each write runs on the runtime that also runs the watches, and has a
//! deadline, so an API server that does not answer never hangs the agent.
//!
//! Each watch selects its objects by field (`metadata.name`, `spec.nodeName`), so the agent
//! reads no other node's pods; RBAC cannot narrow `list` on nodes to one, so it may list nodes.

use super::layouts::ConfigMapRef;
use crate::cluster::api_client::cache::{Cache, Changes};
use crate::cluster::api_client::link::Link;
use crate::cluster::api_client::{EVENTS_NAMESPACE, EventType, call, event_about};
use crate::support::error::{Error, Result};
use k8s_openapi::api::core::v1::{ConfigMap, Event, Node, ObjectReference, Pod};
use kube::api::{
    ApiResource, DeleteParams, DynamicObject, GroupVersionKind, ListParams, Patch, PatchParams,
    PostParams,
};
use kube::runtime::watcher;
use kube::{Api, Client};
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;
use std::sync::mpsc::Sender;

/// Who writes the events and labels.
pub(crate) const COMPONENT: &str = "gpushare-agent";

/// What changed in the cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wake {
    /// The node or the layouts: a pass reads both afresh.
    Layout,
    /// A pod on the node: what held devices may have let go of them.
    Pods,
    /// The GPU health watch heard an event.
    Health,
}

pub(crate) struct Cluster {
    handle: tokio::runtime::Handle,
    client: Client,
    pub node: String,
    pub layouts: ConfigMapRef,
    node_cache: Cache<Node>,
    layouts_cache: Cache<ConfigMap>,
    pods_cache: Cache<Pod>,
}

impl Cluster {
    /// Start the watches; each change sends on `wake`.
    pub(crate) fn new(
        handle: tokio::runtime::Handle,
        client: Client,
        node: String,
        layouts: ConfigMapRef,
        link: Arc<Link>,
        wake: Sender<Wake>,
    ) -> Self {
        let on = |kind: Wake| {
            let wake = wake.clone();
            move || {
                let _ = wake.send(kind);
            }
        };
        let named =
            |name: &str| watcher::Config::default().fields(&format!("metadata.name={name}"));
        let node_cache = Cache::start(
            &handle,
            Api::all(client.clone()),
            named(&node),
            format!("node {node}"),
            link.clone(),
            on(Wake::Layout),
        );
        let layouts_cache = Cache::start(
            &handle,
            Api::namespaced(client.clone(), &layouts.namespace),
            named(&layouts.name),
            format!("configmap {layouts}"),
            link.clone(),
            on(Wake::Layout),
        );
        let pods_cache = Cache::start(
            &handle,
            Api::all(client.clone()),
            watcher::Config::default().fields(&format!("spec.nodeName={node}")),
            format!("pods on node {node}"),
            link,
            on(Wake::Pods),
        );
        Cluster {
            handle,
            client,
            node,
            layouts,
            node_cache,
            layouts_cache,
            pods_cache,
        }
    }

    fn call<T>(&self, what: &str, f: impl Future<Output = kube::Result<T>>) -> Result<T> {
        call(&self.handle, what, f)
    }

    /// The agent's Node.
    pub(crate) fn get_node(&self) -> Result<Node> {
        self.node_cache.get(&self.node)?.ok_or_else(|| {
            Error::failed(format!("node {} is not in the cluster", self.node))
                .with_hint("the DaemonSet sets --node from spec.nodeName")
        })
    }

    /// The ConfigMap's data; `None` when it does not exist.
    pub(crate) fn layouts_data(&self) -> Result<Option<BTreeMap<String, String>>> {
        Ok(self
            .layouts_cache
            .get(&self.layouts.name)?
            .map(|c| c.data.unwrap_or_default()))
    }

    /// A JSON merge patch of the node's metadata.
    pub(crate) fn patch_node(&self, patch: &serde_json::Value) -> Result<Node> {
        let api: Api<Node> = Api::all(self.client.clone());
        let params = PatchParams {
            field_manager: Some(COMPONENT.into()),
            ..Default::default()
        };
        let node = self.call(
            &format!("patch node {}", self.node),
            api.patch(&self.node, &params, &Patch::Merge(patch)),
        )?;
        self.node_cache.wrote(node.clone());
        Ok(node)
    }

    /// A strategic merge patch of the node's status (conditions merge by type).
    pub(crate) fn patch_node_status(&self, patch: &serde_json::Value) -> Result<()> {
        let api: Api<Node> = Api::all(self.client.clone());
        let params = PatchParams {
            field_manager: Some(COMPONENT.into()),
            ..Default::default()
        };
        self.call(
            &format!("patch the status of node {}", self.node),
            api.patch_status(&self.node, &params, &Patch::Strategic(patch)),
        )
        .map(drop)
    }

    /// The `apiVersion` of DeviceTaintRules where the cluster serves them (v1beta2 from 1.36
    /// with the `DRADeviceTaints` gate, v1alpha3 before); None where it does not.
    pub(crate) fn device_taint_api(&self) -> Result<Option<&'static str>> {
        for version in ["resource.k8s.io/v1beta2", "resource.k8s.io/v1alpha3"] {
            let served = self.call(&format!("discover {version}"), async {
                match self.client.list_api_group_resources(version).await {
                    Ok(list) => Ok(list.resources.iter().any(|r| r.name == "devicetaintrules")),
                    Err(kube::Error::Api(s)) if s.code == 404 => Ok(false),
                    Err(e) => Err(e),
                }
            })?;
            if served {
                return Ok(Some(version));
            }
        }
        Ok(None)
    }

    fn taint_rules(&self, api_version: &str) -> Api<DynamicObject> {
        let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
        let gvk = GroupVersionKind::gvk(group, version, "DeviceTaintRule");
        Api::all_with(self.client.clone(), &ApiResource::from_gvk(&gvk))
    }

    /// The DeviceTaintRules with `label`, as JSON (the agent judges which are its own).
    pub(crate) fn device_taint_rules(
        &self,
        api_version: &str,
        label: &str,
    ) -> Result<Vec<serde_json::Value>> {
        let list = self.call(
            "list devicetaintrules",
            self.taint_rules(api_version)
                .list(&ListParams::default().labels(label)),
        )?;
        list.items
            .iter()
            .map(|o| {
                serde_json::to_value(o)
                    .map_err(|e| Error::failed(format!("a DeviceTaintRule: {e}")))
            })
            .collect()
    }

    /// The DeviceTaintRule `name`, as JSON; None when there is none.
    pub(crate) fn device_taint_rule(
        &self,
        api_version: &str,
        name: &str,
    ) -> Result<Option<serde_json::Value>> {
        let rule = self.call(
            &format!("get devicetaintrule {name}"),
            self.taint_rules(api_version).get_opt(name),
        )?;
        rule.map(|o| {
            serde_json::to_value(o).map_err(|e| Error::failed(format!("a DeviceTaintRule: {e}")))
        })
        .transpose()
    }

    /// Create a DeviceTaintRule; false when one of its name exists already (whose, the caller
    /// finds out).
    pub(crate) fn create_device_taint_rule(
        &self,
        api_version: &str,
        rule: &serde_json::Value,
    ) -> Result<bool> {
        let object: DynamicObject = serde_json::from_value(rule.clone())
            .map_err(|e| Error::failed(format!("a DeviceTaintRule: {e}")))?;
        let params = PostParams {
            field_manager: Some(COMPONENT.into()),
            ..Default::default()
        };
        let api = self.taint_rules(api_version);
        self.call("create devicetaintrule", async {
            match api.create(&params, &object).await {
                Err(kube::Error::Api(s)) if s.code == 409 => Ok(false),
                other => other.map(|_| true),
            }
        })
    }

    pub(crate) fn delete_device_taint_rule(&self, api_version: &str, name: &str) -> Result<()> {
        let api = self.taint_rules(api_version);
        // One already gone is as good.
        self.call(&format!("delete devicetaintrule {name}"), async {
            match api.delete(name, &DeleteParams::default()).await {
                Err(kube::Error::Api(s)) if s.code == 404 => Ok(()),
                other => other.map(drop),
            }
        })
    }

    /// Every pod bound to this node, in every namespace, as the watch last saw them.
    pub(crate) fn pods_on_node(&self) -> Result<Vec<Pod>> {
        self.pods_cache.objects()
    }

    /// Every pod bound to this node, read from the API server now (a consistent read): what
    /// decides whether a change may take devices away, so a pod bound just before the change
    /// is never missed because the watch has not delivered it yet.
    pub(crate) fn pods_on_node_now(&self) -> Result<Vec<Pod>> {
        let api: Api<Pod> = Api::all(self.client.clone());
        let params = ListParams::default().fields(&format!("spec.nodeName={}", self.node));
        Ok(self
            .call(
                &format!("list pods on node {}", self.node),
                api.list(&params),
            )?
            .items)
    }

    /// Taken before reading the pods: [`Changes::wait`] returns when they have changed since.
    pub(crate) fn pod_changes(&self) -> Changes {
        self.pods_cache.changes()
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
