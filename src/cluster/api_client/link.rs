//! Whether the API server answers, as the watches find it: a failed watch says no, a list or a
//! change says yes. While it does not answer it is asked every 2 s (`GET /version`, which every
//! authenticated user may read) until it does, so that a health report says what is true now
//! even when nothing changes; while it answers, nothing is asked.

use crate::support::output::Output;
use kube::Client;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How often an unanswering API server is asked, and how long an answer may take.
const ASK_EVERY: Duration = Duration::from_secs(2);
const ASK_TIMEOUT: Duration = Duration::from_secs(2);

pub(crate) struct Link {
    client: Client,
    handle: tokio::runtime::Handle,
    out: Output,
    state: Mutex<State>,
    told: Box<dyn Fn(bool) + Send + Sync>,
}

#[derive(Default)]
struct State {
    /// None before the first answer or failure.
    up: Option<bool>,
    asking: bool,
}

impl Link {
    /// `told` hears each change (the health report's `api_reachable`).
    pub(crate) fn new(
        handle: &tokio::runtime::Handle,
        client: Client,
        out: Output,
        told: impl Fn(bool) + Send + Sync + 'static,
    ) -> Arc<Link> {
        Arc::new(Link {
            client,
            handle: handle.clone(),
            out,
            state: Mutex::new(State::default()),
            told: Box::new(told),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The API server answered.
    pub(crate) fn answered(&self) {
        let was = self.state().up.replace(true);
        if was == Some(false) {
            self.out
                .note("Kubernetes API: the API server answers again");
        }
        if was != Some(true) {
            (self.told)(true);
        }
    }

    /// `what` failed with `error`: said once per outage; the server is asked until it answers.
    pub(crate) fn failed(self: &Arc<Self>, what: &str, error: &str) {
        let (was, ask) = {
            let mut s = self.state();
            let ask = !s.asking;
            s.asking = true;
            (s.up.replace(false), ask)
        };
        if was != Some(false) {
            self.out
                .warn(format!("Kubernetes API: {what}: {error}; trying again"));
            (self.told)(false);
        }
        if ask {
            self.handle.spawn(self.clone().ask_until_answered());
        }
    }

    async fn ask_until_answered(self: Arc<Self>) {
        loop {
            tokio::time::sleep(ASK_EVERY).await;
            if self.state().up != Some(true) {
                let asked =
                    tokio::time::timeout(ASK_TIMEOUT, self.client.apiserver_version()).await;
                if matches!(asked, Ok(Ok(_))) {
                    self.answered();
                }
            }
            // Under the lock: a failure said after this sees `asking` false and asks anew.
            let mut s = self.state();
            if s.up == Some(true) {
                s.asking = false;
                return;
            }
        }
    }
}
