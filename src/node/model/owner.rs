//! Whose a GPU process is: a container of a pod, or the host. gpushare learns it from the
//! process's cgroup (see `crate::observe::owners`), never from what the process or a pod claims.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Owner {
    /// In a pod's cgroup.
    Pod(PodContainer),
    /// Outside every pod: a process of the host (or of a container no kubelet runs).
    Host,
}

/// The pod (and container) a process runs in. The UID and container ID come from the cgroup
/// path; the names from the kubelet's records or the API, `None` where they do not say.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PodContainer {
    pub namespace: Option<String>,
    pub pod: Option<String>,
    pub pod_uid: String,
    pub container: Option<String>,
    /// `None` when the process is in the pod's cgroup but in no container's.
    pub container_id: Option<String>,
}

impl Owner {
    /// `namespace/pod/container` for tables and reports, `?` for what is not known; `host`.
    pub fn describe(&self) -> String {
        match self {
            Owner::Host => "host".into(),
            Owner::Pod(p) => {
                let or = |v: &Option<String>| v.as_deref().unwrap_or("?").to_string();
                match (&p.namespace, &p.pod) {
                    (Some(ns), Some(pod)) => format!("{ns}/{pod}/{}", or(&p.container)),
                    _ => format!("pod {}/{}", p.pod_uid, or(&p.container)),
                }
            }
        }
    }
}
