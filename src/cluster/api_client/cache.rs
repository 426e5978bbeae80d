//! Watched caches of API objects: kube's reflector over its watcher, with its backoff. The agent
//! and the controller read the cluster from memory, so in steady state the API server sees
//! nothing from them but their watches. Each change wakes the caller; an object this process
//! has just written is read as written until the cache has caught up with it.

use super::link::Link;
use crate::support::error::{Error, Result};
use futures::StreamExt;
use kube::runtime::WatchStreamExt;
use kube::runtime::reflector::{self, Store};
use kube::runtime::watcher::{self, Event};
use kube::{Api, Resource, ResourceExt};
use serde::de::DeserializeOwned;
use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long a read waits for the first list.
const FIRST_LIST_TIMEOUT: Duration = Duration::from_secs(30);

/// One watched set of objects of kind `K`.
pub(crate) struct Cache<K: Resource<DynamicType = ()> + 'static> {
    store: Store<K>,
    /// What this process wrote, by `namespace/name`, until the watch brings it.
    written: Mutex<BTreeMap<String, K>>,
    /// Counts the changes the cache took in.
    changes: tokio::sync::watch::Receiver<u64>,
    handle: tokio::runtime::Handle,
    /// `node gpu-1`, `pods on node gpu-1`, for messages.
    what: String,
}

impl<K> Cache<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
{
    /// Watch what `api` and `config` select on `handle`'s runtime; `changed` is called after
    /// each change the cache took in (and after each full list).
    pub(crate) fn start(
        handle: &tokio::runtime::Handle,
        api: Api<K>,
        config: watcher::Config,
        what: impl Into<String>,
        link: Arc<Link>,
        changed: impl Fn() + Send + 'static,
    ) -> Self {
        let what = what.into();
        let (store, writer) = reflector::store();
        let stream = watcher::watcher(api, config)
            .default_backoff()
            // Nobody here reads who wrote which field; a pod's history is most of its bytes.
            .modify(|o| o.managed_fields_mut().clear())
            .reflect(writer);
        let watched = what.clone();
        let (count, changes) = tokio::sync::watch::channel(0u64);
        handle.spawn(async move {
            let mut stream = std::pin::pin!(stream);
            while let Some(item) = stream.next().await {
                match item {
                    Ok(Event::Init | Event::InitApply(_)) => {}
                    Ok(Event::InitDone | Event::Apply(_) | Event::Delete(_)) => {
                        link.answered();
                        count.send_modify(|n| *n += 1);
                        changed();
                    }
                    Err(e) => link.failed(&format!("watch {watched}"), &e.to_string()),
                }
            }
        });
        Cache {
            store,
            written: Mutex::new(BTreeMap::new()),
            changes,
            handle: handle.clone(),
            what,
        }
    }

    /// Wait for the first list: a cache never read before it is complete.
    fn ready(&self) -> Result<()> {
        let waited = self.handle.block_on(async {
            tokio::time::timeout(FIRST_LIST_TIMEOUT, self.store.wait_until_ready()).await
        });
        match waited {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(Error::failed(format!(
                "Kubernetes API: watch {}: {e}",
                self.what
            ))),
            Err(_) => Err(Error::failed(format!(
                "Kubernetes API: watch {}: not listed within {} s",
                self.what,
                FIRST_LIST_TIMEOUT.as_secs()
            ))),
        }
    }

    /// Every object, as cached or as this process last wrote it, whichever is newer, in the
    /// order of their names as a list answers (the store's own order is a hash map's, and
    /// decisions that break ties by order must not change from one read to the next).
    pub(crate) fn objects(&self) -> Result<Vec<K>> {
        self.ready()?;
        let mut written = self.written.lock().unwrap_or_else(|p| p.into_inner());
        Ok(in_name_order(self.store.state())
            .into_iter()
            .map(|cached| {
                let key = key_of(cached.as_ref());
                match written.get(&key) {
                    Some(w)
                        if !caught_up(
                            cached.resource_version().as_deref(),
                            w.resource_version().as_deref(),
                        ) =>
                    {
                        w.clone()
                    }
                    Some(_) => {
                        written.remove(&key);
                        K::clone(&cached)
                    }
                    None => K::clone(&cached),
                }
            })
            .collect())
    }

    /// The object named `name` (in the cache's namespace), if there is one.
    pub(crate) fn get(&self, name: &str) -> Result<Option<K>> {
        Ok(self
            .objects()?
            .into_iter()
            .find(|o| o.meta().name.as_deref() == Some(name)))
    }

    /// From now on: taken before a read, [`Changes::wait`] then returns as soon as the cache
    /// has changed since.
    pub(crate) fn changes(&self) -> Changes {
        let mut changes = self.changes.clone();
        changes.mark_unchanged();
        Changes {
            changes,
            handle: self.handle.clone(),
        }
    }

    /// This process wrote `object` (the API server's answer): read it so until the watch has it.
    pub(crate) fn wrote(&self, object: K) {
        let mut written = self.written.lock().unwrap_or_else(|p| p.into_inner());
        written.insert(key_of(&object), object);
    }
}

/// The changes of one cache since [`Cache::changes`].
pub(crate) struct Changes {
    changes: tokio::sync::watch::Receiver<u64>,
    handle: tokio::runtime::Handle,
}

impl Changes {
    /// Wait for the next change, at most `timeout`.
    pub(crate) fn wait(&mut self, timeout: Duration) {
        let changes = &mut self.changes;
        let changed = self
            .handle
            .block_on(async { tokio::time::timeout(timeout, changes.changed()).await });
        if let Ok(Err(_)) = changed {
            // The watch has ended (the runtime is shutting down): no change will come.
            std::thread::sleep(timeout);
        }
    }
}

fn in_name_order<K: Resource>(mut objects: Vec<Arc<K>>) -> Vec<Arc<K>> {
    objects.sort_by_cached_key(|o| key_of(o.as_ref()));
    objects
}

fn key_of<K: Resource>(o: &K) -> String {
    format!(
        "{}/{}",
        o.meta().namespace.as_deref().unwrap_or(""),
        o.meta().name.as_deref().unwrap_or("")
    )
}

/// Whether the cached version is at least the written one. Resource versions are etcd
/// revisions on the API servers in use and compare as numbers; one that is not a number is
/// caught up only when it is the same.
fn caught_up(cached: Option<&str>, written: Option<&str>) -> bool {
    let number = |v: Option<&str>| v.and_then(|v| v.parse::<u64>().ok());
    match (number(cached), number(written)) {
        (Some(c), Some(w)) => c >= w,
        _ => cached == written,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_come_in_the_order_of_their_names() {
        let node = |name: &str| {
            let mut n = k8s_openapi::api::core::v1::Node::default();
            n.metadata.name = Some(name.into());
            Arc::new(n)
        };
        let sorted = in_name_order(vec![node("gpu-3"), node("gpu-1"), node("gpu-2")]);
        let names: Vec<_> = sorted.iter().map(|n| n.name_any()).collect();
        assert_eq!(names, ["gpu-1", "gpu-2", "gpu-3"]);
    }

    #[test]
    fn a_write_is_read_until_the_cache_has_it() {
        assert!(!caught_up(Some("41"), Some("42")));
        assert!(caught_up(Some("42"), Some("42")));
        assert!(caught_up(Some("100"), Some("42")));
        // Not numbers: only the same version is the write.
        assert!(!caught_up(Some("b"), Some("a")));
        assert!(caught_up(Some("a"), Some("a")));
        assert!(!caught_up(None, Some("42")));
    }
}
