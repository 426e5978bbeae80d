//! What the tests do on the API server, as an administrator (and as the kubelet and the
//! DaemonSet controller, which this API server does not have): apply the generated manifests,
//! label the node, run and delete pods, read events.

use k8s_openapi::api::authentication::v1::{BoundObjectReference, TokenRequest, TokenRequestSpec};
use k8s_openapi::api::core::v1::{ConfigMap, Event, Namespace, Node, Pod, ServiceAccount};
use kube::api::{
    Api, ApiResource, DeleteParams, DynamicObject, GroupVersionKind, ListParams, Patch,
    PatchParams, PostParams,
};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::{Duration, Instant};

pub struct Cluster {
    rt: tokio::runtime::Runtime,
    client: Client,
    kubeconfig: Kubeconfig,
}

impl Cluster {
    pub fn connect(kubeconfig: &Path) -> Cluster {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let file = Kubeconfig::read_from(kubeconfig).expect("the kubeconfig of start.sh");
        let client = rt.block_on(async {
            let config =
                Config::from_custom_kubeconfig(file.clone(), &KubeConfigOptions::default())
                    .await
                    .expect("a client config");
            Client::try_from(config).expect("a client")
        });
        Cluster {
            rt,
            client,
            kubeconfig: file,
        }
    }

    fn run<T>(&self, f: impl Future<Output = T>) -> T {
        self.rt.block_on(f)
    }

    /// Whether the API server answers.
    pub fn answers(&self) -> bool {
        let api: Api<Namespace> = Api::all(self.client.clone());
        self.run(async {
            tokio::time::timeout(Duration::from_secs(3), api.get("default"))
                .await
                .is_ok_and(|r| r.is_ok())
        })
    }

    /// Server-side apply of every document of `gpushare manifests --format json`, validated
    /// strictly by the API server (an unknown or misplaced field is an error).
    pub fn apply_documents(&self, docs: &[Value]) {
        self.apply_documents_as(docs, "gpushare-e2e");
    }

    /// Server-side apply of `docs` as the field manager `manager`.
    pub fn apply_documents_as(&self, docs: &[Value], manager: &str) {
        for doc in docs {
            let api_version = doc["apiVersion"].as_str().expect("apiVersion");
            let kind = doc["kind"].as_str().expect("kind");
            let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
            let resource = ApiResource::from_gvk(&GroupVersionKind::gvk(group, version, kind));
            let name = doc["metadata"]["name"].as_str().expect("a name");
            let api: Api<DynamicObject> = match doc["metadata"]["namespace"].as_str() {
                Some(ns) => Api::namespaced_with(self.client.clone(), ns, &resource),
                None => Api::all_with(self.client.clone(), &resource),
            };
            let params = PatchParams::apply(manager).validation_strict();
            self.run(api.patch(name, &params, &Patch::Apply(doc)))
                .unwrap_or_else(|e| panic!("the API server refused {kind} {name}: {e}\n{doc:#}"));
        }
    }

    /// The objects of `kind` in namespace `ns` (every one of a cluster-scoped kind when `ns` is
    /// empty), as JSON.
    pub fn list_json(&self, api_version: &str, kind: &str, ns: &str) -> Vec<Value> {
        let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
        let resource = ApiResource::from_gvk(&GroupVersionKind::gvk(group, version, kind));
        let api: Api<DynamicObject> = if ns.is_empty() {
            Api::all_with(self.client.clone(), &resource)
        } else {
            Api::namespaced_with(self.client.clone(), ns, &resource)
        };
        self.run(api.list(&ListParams::default()))
            .unwrap_or_else(|e| panic!("cannot list {kind} in {ns}: {e}"))
            .items
            .iter()
            .map(|o| serde_json::to_value(o).unwrap())
            .collect()
    }

    /// A token of the service account, and a kubeconfig file that uses it.
    pub fn service_account_kubeconfig(&self, ns: &str, sa: &str, file: &Path) {
        self.token_kubeconfig(ns, sa, None, file);
    }

    /// What a DaemonSet pod of the service account on `node` mounts: a token bound to a pod
    /// bound to the node (the pod `<sa>-<node>`, made here; this API server has no kubelet
    /// to run it), so the API server knows the node it runs on (its node claim), and a
    /// kubeconfig file that uses it.
    pub fn pod_token_kubeconfig(&self, ns: &str, sa: &str, node: &str, file: &Path) {
        let api: Api<Pod> = Api::namespaced(self.client.clone(), ns);
        let name = format!("{sa}-{node}");
        let pod: Pod = serde_json::from_value(json!({
            "metadata": { "name": name, "namespace": ns },
            "spec": {
                "nodeName": node,
                "serviceAccountName": sa,
                "automountServiceAccountToken": false,
                "terminationGracePeriodSeconds": 0,
                "containers": [{
                    "name": "gpushare", "image": super::real_node::BUSYBOX,
                    "imagePullPolicy": "Never", "command": ["sleep", "1000000"],
                }],
            },
        }))
        .unwrap();
        let made = match self.run(api.get_opt(&name)).expect("the pod looked up") {
            Some(p) => p,
            None => self
                .run(api.create(&PostParams::default(), &pod))
                .expect("the service account's pod on the node"),
        };
        let bound = BoundObjectReference {
            api_version: Some("v1".into()),
            kind: Some("Pod".into()),
            name: Some(name),
            uid: made.metadata.uid,
        };
        self.token_kubeconfig(ns, sa, Some(bound), file);
    }

    fn token_kubeconfig(
        &self,
        ns: &str,
        sa: &str,
        bound: Option<BoundObjectReference>,
        file: &Path,
    ) {
        let api: Api<ServiceAccount> = Api::namespaced(self.client.clone(), ns);
        let request = TokenRequest {
            spec: TokenRequestSpec {
                audiences: vec![],
                expiration_seconds: Some(3600),
                bound_object_ref: bound,
            },
            ..Default::default()
        };
        let answer: TokenRequest = self
            .run(api.create_subresource("token", sa, &PostParams::default(), &request))
            .expect("a token for the service account");
        let token = answer.status.expect("a token").token;
        let cluster = &self.kubeconfig.clusters[0];
        let c = cluster.cluster.as_ref().expect("a cluster");
        let text = format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: e2e\n  cluster:\n    server: {}\n    certificate-authority-data: {}\nusers:\n- name: {sa}\n  user:\n    token: {token}\ncontexts:\n- name: e2e\n  context: {{cluster: e2e, user: {sa}}}\ncurrent-context: e2e\n",
            c.server.as_deref().expect("a server"),
            c.certificate_authority_data.as_deref().expect("a CA"),
        );
        std::fs::write(file, text).unwrap();
    }

    /// Every Node.
    pub fn nodes(&self) -> Vec<Node> {
        let api: Api<Node> = Api::all(self.client.clone());
        self.run(api.list(&Default::default()))
            .expect("the nodes")
            .items
    }

    pub fn create_node(&self, name: &str, labels: &[(&str, &str)]) {
        let api: Api<Node> = Api::all(self.client.clone());
        let node: Node = serde_json::from_value(json!({
            "apiVersion": "v1", "kind": "Node",
            "metadata": { "name": name, "labels": to_map(labels) },
        }))
        .unwrap();
        self.run(api.create(&PostParams::default(), &node))
            .expect("the node");
    }

    /// What a kubelet does for a node whose device plugin the test plays: the admission's
    /// taint removed, and `resources` (besides CPU, memory and pods) in its capacity and
    /// allocatable.
    pub fn make_ready(&self, name: &str, resources: &[(&str, &str)]) {
        let api: Api<Node> = Api::all(self.client.clone());
        self.run(api.patch(
            name,
            &PatchParams::default(),
            &Patch::Merge(json!({ "spec": { "taints": null } })),
        ))
        .expect("the node untainted");
        let mut have = to_map(&[("cpu", "64"), ("memory", "512Gi"), ("pods", "110")]);
        have.extend(to_map(resources));
        self.run(api.patch_status(
            name,
            &PatchParams::default(),
            &Patch::Merge(json!({ "status": { "capacity": have, "allocatable": have } })),
        ))
        .expect("the node's status");
    }

    /// Set (Some) or remove (None) node labels.
    pub fn label(&self, node: &str, labels: &[(&str, Option<&str>)]) {
        let map: serde_json::Map<String, Value> = labels
            .iter()
            .map(|(k, v)| (k.to_string(), v.map_or(Value::Null, |v| json!(v))))
            .collect();
        let api: Api<Node> = Api::all(self.client.clone());
        self.run(api.patch(
            node,
            &PatchParams::default(),
            &Patch::Merge(json!({ "metadata": { "labels": map } })),
        ))
        .expect("labels patched");
    }

    /// A merge patch of a node, as whoever this client is; the API server's refusal in its
    /// own words.
    /// Lift the `not-ready` taint a node got at registration (no node lifecycle controller runs
    /// to lift it once the kubelet says Ready).
    pub fn untaint(&self, name: &str) {
        self.try_patch_node(name, json!({ "spec": { "taints": null } }))
            .expect("the node untainted");
    }

    pub fn try_patch_node(&self, name: &str, patch: Value) -> Result<(), String> {
        let api: Api<Node> = Api::all(self.client.clone());
        self.run(api.patch(name, &PatchParams::default(), &Patch::Merge(patch)))
            .map(|_| ())
            .map_err(|e| match e {
                kube::Error::Api(s) => format!("{} ({})", s.message, s.code),
                other => other.to_string(),
            })
    }

    /// Set (Some) or remove (None) annotations of a node, as an administrator.
    pub fn annotate(&self, node: &str, annotations: &[(&str, Option<&str>)]) {
        let map: serde_json::Map<String, Value> = annotations
            .iter()
            .map(|(k, v)| {
                (
                    k.to_string(),
                    v.map_or(Value::Null, |v| Value::String(v.into())),
                )
            })
            .collect();
        self.try_patch_node(node, json!({ "metadata": { "annotations": map } }))
            .expect("the node annotated");
    }

    pub fn node(&self, name: &str) -> Node {
        let api: Api<Node> = Api::all(self.client.clone());
        self.run(api.get(name)).expect("the node")
    }

    pub fn labels(&self, node: &str) -> BTreeMap<String, String> {
        self.node(node).metadata.labels.unwrap_or_default()
    }

    /// Add or replace keys of a ConfigMap's data.
    pub fn put_layouts(&self, ns: &str, name: &str, data: &[(&str, &str)]) {
        let api: Api<ConfigMap> = Api::namespaced(self.client.clone(), ns);
        self.run(api.patch(
            name,
            &PatchParams::default(),
            &Patch::Merge(json!({ "data": to_map(data) })),
        ))
        .expect("the ConfigMap patched");
    }

    pub fn create_pod(&self, pod: Value) {
        let ns = pod["metadata"]["namespace"]
            .as_str()
            .unwrap_or("default")
            .to_string();
        let api: Api<Pod> = Api::namespaced(self.client.clone(), &ns);
        let pod: Pod = serde_json::from_value(pod).unwrap();
        self.run(api.create(&PostParams::default(), &pod))
            .expect("the pod");
    }

    /// The pods of a namespace.
    /// A container's log through the API server (and the kubelet); None when it has none yet.
    pub fn logs(&self, ns: &str, pod: &str) -> Option<String> {
        let api: Api<Pod> = Api::namespaced(self.client.clone(), ns);
        self.run(api.logs(pod, &kube::api::LogParams::default()))
            .ok()
    }

    /// The names of the pods of `ns` in phase `phase`.
    pub fn pods_in_phase(&self, ns: &str, phase: &str) -> Vec<String> {
        self.pods(ns)
            .into_iter()
            .filter(|p| p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some(phase))
            .filter_map(|p| p.metadata.name)
            .collect()
    }

    /// The container ID (`containerd://…`) of the first container of pod `ns/name`.
    pub fn container_id(&self, ns: &str, name: &str) -> String {
        self.pods(ns)
            .into_iter()
            .find(|p| p.metadata.name.as_deref() == Some(name))
            .and_then(|p| p.status?.container_statuses?.first()?.container_id.clone())
            .unwrap_or_else(|| panic!("pod {ns}/{name} has no container yet"))
    }

    pub fn pods(&self, ns: &str) -> Vec<Pod> {
        let api: Api<Pod> = Api::namespaced(self.client.clone(), ns);
        self.run(api.list(&ListParams::default()))
            .expect("pods")
            .items
    }

    /// What the kubelet does once a pod's containers are gone: remove it at once.
    pub fn remove_pod(&self, ns: &str, name: &str) {
        let api: Api<Pod> = Api::namespaced(self.client.clone(), ns);
        self.run(api.delete(name, &DeleteParams::default().grace_period(0)))
            .expect("the pod deleted");
    }

    /// `(reason, message)` of the events about a node, oldest first.
    pub fn events(&self, node: &str) -> Vec<(String, String)> {
        self.events_of("default", "Node", node)
    }

    /// The events about a node so far, to tell the later ones by name: counting them does not
    /// do, as an older event that repeats (the kubelet's) moves to the end of the list.
    pub fn event_mark(&self, node: &str) -> EventMark {
        EventMark(
            self.node_events(node)
                .into_iter()
                .filter_map(|e| e.metadata.name)
                .collect(),
        )
    }

    /// `(reason, message)` of the events gpushare made about a node after `mark`, oldest first
    /// (the kubelet's own, which it may repeat at any time, left out).
    pub fn events_since(&self, node: &str, mark: &EventMark) -> Vec<(String, String)> {
        self.node_events(node)
            .into_iter()
            .filter(|e| e.metadata.name.as_ref().is_none_or(|n| !mark.0.contains(n)))
            .filter(|e| {
                e.reporting_component
                    .as_deref()
                    .is_some_and(|c| c.starts_with("gpushare.io/"))
            })
            .map(|e| (e.reason.unwrap_or_default(), e.message.unwrap_or_default()))
            .collect()
    }

    fn node_events(&self, node: &str) -> Vec<Event> {
        self.event_objects("default", "Node", node)
    }

    /// `(reason, message)` of the events about an object, oldest first.
    pub fn events_of(&self, ns: &str, kind: &str, name: &str) -> Vec<(String, String)> {
        self.event_objects(ns, kind, name)
            .into_iter()
            .map(|e| (e.reason.unwrap_or_default(), e.message.unwrap_or_default()))
            .collect()
    }

    /// The events about an object, oldest first.
    fn event_objects(&self, ns: &str, kind: &str, name: &str) -> Vec<Event> {
        let api: Api<Event> = Api::namespaced(self.client.clone(), ns);
        let params = ListParams::default().fields(&format!(
            "involvedObject.kind={kind},involvedObject.name={name}"
        ));
        let mut items = self.run(api.list(&params)).expect("events").items;
        items.sort_by_key(|e| {
            (
                e.last_timestamp.as_ref().map(|t| t.0),
                e.metadata
                    .resource_version
                    .as_deref()
                    .and_then(|v| v.parse::<u64>().ok()),
            )
        });
        items
    }

    /// The rules of a ClusterRole and of a Role, as the API server holds them.
    pub fn rules(&self, kind: &str, ns: Option<&str>, name: &str) -> Vec<Value> {
        let resource = ApiResource::from_gvk(&GroupVersionKind::gvk(
            "rbac.authorization.k8s.io",
            "v1",
            kind,
        ));
        let api: Api<DynamicObject> = match ns {
            Some(ns) => Api::namespaced_with(self.client.clone(), ns, &resource),
            None => Api::all_with(self.client.clone(), &resource),
        };
        let obj = self.run(api.get(name)).expect("the role");
        obj.data["rules"].as_array().cloned().unwrap_or_default()
    }
}

fn to_map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The names of the events about a node at one moment.
#[derive(Default)]
pub struct EventMark(BTreeSet<String>);

/// Poll `f` until it gives a value, or fail after `timeout` with `what` and the last `context`.
pub fn wait_for<T>(what: &str, timeout: Duration, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(
            Instant::now() < deadline,
            "timed out after {} s waiting for {what}",
            timeout.as_secs()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}
