//! gpushare's calls to the Kubernetes API, shared by the node agent and the controller: the
//! client (a kubeconfig or the pod's service account), one call with a deadline on a runtime
//! that the callers' synchronous loops block on, errors in the API's own words, core/v1 events
//! and merge patches of an object's metadata; the watched caches they read the cluster from
//! ([`cache`]) and whether the API server answers ([`link`]).

pub(crate) mod cache;
mod event;
pub(crate) mod link;

pub(crate) use event::{EVENTS_NAMESPACE, EventType, clip, event_about};

use crate::support::error::{Error, Result};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::future::Future;
use std::path::Path;
use std::time::Duration;

/// How long one call may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);

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
                crate::support::fsutil::read_host(&path)
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

/// A JSON merge patch of an object's labels (`None` removes one) and annotations.
pub(crate) fn merge_patch(
    labels: &BTreeMap<String, Option<String>>,
    annotations: &BTreeMap<String, Option<String>>,
) -> Value {
    let as_map = |m: &BTreeMap<String, Option<String>>| -> Map<String, Value> {
        m.iter()
            .map(|(k, v)| (k.clone(), v.clone().map_or(Value::Null, Value::String)))
            .collect()
    };
    let mut metadata = Map::new();
    if !labels.is_empty() {
        metadata.insert("labels".into(), Value::Object(as_map(labels)));
    }
    if !annotations.is_empty() {
        metadata.insert("annotations".into(), Value::Object(as_map(annotations)));
    }
    json!({ "metadata": metadata })
}

/// 16 hex digits of FNV-1a over `text` (a node's name): short, stable, a label value and a
/// part of an object's name where the whole would be too long.
pub(crate) fn short_hash(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_merge_patch_sets_and_removes() {
        let patch = merge_patch(
            &BTreeMap::from([
                ("a".to_string(), Some("1".to_string())),
                ("b".to_string(), None),
            ]),
            &BTreeMap::new(),
        );
        assert_eq!(
            patch,
            json!({"metadata": {"labels": {"a": "1", "b": null}}})
        );
    }
}
