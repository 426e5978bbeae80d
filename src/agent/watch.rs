//! Watches on the node and on the layouts ConfigMap. Each change, and each time a watch is made
//! again, wakes the agent's loop, which reads both afresh: the watches only say *when* to look.
//!
//! An API server that goes away (a restart, a network cut) is retried with backoff, 1 s doubling
//! up to 30 s; once it answers, the object is read again, so a change made meanwhile is seen.
//! Each watch names its object (`metadata.name=…`), so the agent needs `get` and `watch` on it,
//! and no `list`.

use crate::kube_api::describe;
use crate::output::Output;
use futures::StreamExt;
use kube::api::{Api, WatchEvent, WatchParams};
use kube::{Resource, ResourceExt};
use serde::de::DeserializeOwned;
use std::fmt::Debug;
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

/// The server ends a watch after this long; it is then made again.
const WATCH_SECS: u32 = 290;
const FIRST_BACKOFF: Duration = Duration::from_secs(1);
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// One watched object.
pub(crate) struct Watched<K> {
    pub api: Api<K>,
    pub name: String,
    /// `node gpu-1`, `configmap kube-system/gpushare-layouts`, for messages.
    pub what: String,
}

/// Start watching on the runtime; every change sends on `wake`. The task ends when the loop
/// that receives is gone.
pub(crate) fn spawn<K>(
    handle: &tokio::runtime::Handle,
    watched: Watched<K>,
    wake: Sender<()>,
    out: Output,
) where
    K: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
{
    handle.spawn(watch(watched, wake, out));
}

/// Whether the API server answers, and how long to wait before the next try.
struct Outage<'a> {
    what: &'a str,
    out: &'a Output,
    down: bool,
    backoff: Duration,
}

impl Outage<'_> {
    /// A call failed: say so once per outage; how long to wait.
    fn failed(&mut self, e: String) -> Duration {
        if !self.down {
            self.out.warn(format!(
                "watch {}: {e}; trying again (every {} s at most)",
                self.what,
                MAX_BACKOFF.as_secs()
            ));
        }
        self.down = true;
        let wait = self.backoff;
        self.backoff = (self.backoff * 2).min(MAX_BACKOFF);
        wait
    }

    fn answered(&mut self) {
        if self.down {
            self.out
                .note(format!("watch {}: the API server answers again", self.what));
        }
        self.down = false;
        self.backoff = FIRST_BACKOFF;
    }
}

async fn watch<K>(w: Watched<K>, wake: Sender<()>, out: Output)
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
{
    let mut outage = Outage {
        what: &w.what,
        out: &out,
        down: false,
        backoff: FIRST_BACKOFF,
    };
    loop {
        let version = match w.api.get_opt(&w.name).await {
            Ok(obj) => {
                outage.answered();
                if wake.send(()).is_err() {
                    return;
                }
                // A missing object: watch from any version for its creation.
                obj.and_then(|o| o.resource_version())
                    .unwrap_or_else(|| "0".into())
            }
            Err(e) => {
                let wait = outage.failed(describe(&e));
                tokio::time::sleep(wait).await;
                continue;
            }
        };
        let params = WatchParams::default()
            .fields(&format!("metadata.name={}", w.name))
            .timeout(WATCH_SECS);
        let started = Instant::now();
        let stream = match w.api.watch(&params, &version).await {
            Ok(s) => s,
            Err(e) => {
                let wait = outage.failed(describe(&e));
                tokio::time::sleep(wait).await;
                continue;
            }
        };
        let mut stream = std::pin::pin!(stream);
        while let Some(event) = stream.next().await {
            match event {
                Ok(WatchEvent::Added(_) | WatchEvent::Modified(_) | WatchEvent::Deleted(_)) => {
                    if wake.send(()).is_err() {
                        return;
                    }
                }
                Ok(WatchEvent::Bookmark(_)) => {}
                // 410 Gone (the version is too old) and the like: read the object again.
                Ok(WatchEvent::Error(_)) => break,
                Err(e) => {
                    let wait = outage.failed(describe(&e));
                    tokio::time::sleep(wait).await;
                    break;
                }
            }
        }
        // A watch the server ends at once would turn this into a busy loop.
        if started.elapsed() < FIRST_BACKOFF {
            tokio::time::sleep(outage.backoff).await;
        }
    }
}
