//! The health endpoint of the liveness probe of the agent's DaemonSet, the controller's
//! Deployment and `metrics --listen`: `GET /healthz` answers 200 while the loop goes round (or is
//! busy with a run), 503 when it has stopped turning, with what it is doing as JSON.

use crate::support::error::Result;
use crate::support::http_endpoint::{self, Request, Response, Route};
use serde::Serialize;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A loop that has not gone round for this long, while not busy, is stuck.
const STUCK_AFTER: Duration = Duration::from_secs(60);

/// What the agent (or the controller) reports.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Status {
    /// The agent's node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// The controller replica's identity in its Lease.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replica: Option<String>,
    /// The agent: `idle` (no layout label), `watching`, or the state of the current or last
    /// run; the controller: `leading` or `standby`.
    pub state: String,
    /// The label that chose the layout, `gpushare.io/config=balanced`.
    pub layout: Option<String>,
    /// The last watch reached the API server.
    pub api_reachable: bool,
    /// A run is in progress (the loop does not go round meanwhile).
    pub busy: bool,
    /// When a pass last found the node as its layout says (seconds since the Unix epoch).
    #[serde(skip)]
    pub matched_at: Option<f64>,
    /// That layout, when it is a gpushare.toml (the metrics' time-slicing replicas).
    #[serde(skip)]
    pub config: Option<Arc<crate::node::config::Config>>,
    /// The controller leads until then: `leading` is said only before it.
    #[serde(skip)]
    pub leads_until: Option<Instant>,
}

pub(crate) struct Liveness {
    status: Mutex<Status>,
    last_turn: Mutex<Instant>,
}

impl Liveness {
    pub(crate) fn new(node: &str) -> Self {
        Liveness::with(Some(node), None)
    }

    /// `metrics --listen`'s: it serves while its loop goes round.
    pub(crate) fn serving() -> Self {
        let liveness = Liveness::with(None, None);
        liveness.update(|s| {
            s.state = "serving".into();
            s.api_reachable = false;
        });
        liveness
    }

    /// The controller replica `id`'s.
    pub(crate) fn replica(id: &str) -> Self {
        Liveness::with(None, Some(id))
    }

    fn with(node: Option<&str>, replica: Option<&str>) -> Self {
        Liveness {
            status: Mutex::new(Status {
                node: node.map(str::to_string),
                replica: replica.map(str::to_string),
                state: "starting".into(),
                layout: None,
                api_reachable: false,
                busy: false,
                matched_at: None,
                config: None,
                leads_until: None,
            }),
            last_turn: Mutex::new(Instant::now()),
        }
    }

    /// The loop went round.
    pub(crate) fn turn(&self) {
        if let Ok(mut t) = self.last_turn.lock() {
            *t = Instant::now();
        }
    }

    pub(crate) fn update(&self, f: impl FnOnce(&mut Status)) {
        if let Ok(mut s) = self.status.lock() {
            f(&mut s);
        }
    }

    pub(crate) fn snapshot(&self) -> (Status, bool) {
        let mut status = self
            .status
            .lock()
            .map(|s| s.clone())
            .unwrap_or_else(|p| p.into_inner().clone());
        // A lease not renewed in time is not held, whatever the last turn said.
        if status.state == "leading" && status.leads_until.is_none_or(|t| Instant::now() >= t) {
            status.state = "standby".into();
        }
        let idle_for = self
            .last_turn
            .lock()
            .map(|t| t.elapsed())
            .unwrap_or_default();
        let alive = status.busy || idle_for < STUCK_AFTER;
        (status, alive)
    }
}

/// The `/healthz` route of an endpoint (see [`crate::support::http_endpoint`]).
pub(crate) fn route(liveness: Arc<Liveness>) -> Route {
    Route::quick("/healthz", move |_: &Request| {
        let (status, alive) = liveness.snapshot();
        let body = serde_json::to_string(&status).unwrap_or_else(|_| "{}".into());
        Response::json(if alive { 200 } else { 503 }, body)
    })
}

/// Serve `/healthz` alone on `addr` (the controller's endpoint); the address bound.
pub(crate) fn serve(addr: SocketAddr, liveness: Arc<Liveness>) -> Result<SocketAddr> {
    http_endpoint::serve(
        addr,
        "health endpoint",
        "--health-addr",
        vec![route(liveness)],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::http_endpoint::tests::get;

    #[test]
    fn answers_healthz_with_the_status() {
        let liveness = Arc::new(Liveness::new("gpu-1"));
        liveness.update(|s| s.state = "success".into());
        let addr = serve("127.0.0.1:0".parse().unwrap(), liveness.clone()).unwrap();
        let ok = get(
            addr,
            "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        );
        assert!(ok.starts_with("HTTP/1.1 200 OK\r\n"), "{ok}");
        assert!(ok.contains("\"state\":\"success\""), "{ok}");
        assert!(
            ok.contains("\"node\":\"gpu-1\"") && !ok.contains("replica"),
            "{ok}"
        );
        assert!(
            get(addr, "GET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n")
                .starts_with("HTTP/1.1 404")
        );
    }

    #[test]
    fn a_loop_that_stopped_turning_is_unhealthy_unless_busy() {
        let liveness = Liveness::new("gpu-1");
        assert!(liveness.snapshot().1);
        *liveness.last_turn.lock().unwrap() = Instant::now() - STUCK_AFTER * 2;
        assert!(!liveness.snapshot().1);
        liveness.update(|s| s.busy = true);
        assert!(liveness.snapshot().1);
    }

    #[test]
    fn leading_is_said_only_until_the_lease_deadline() {
        let liveness = Liveness::replica("c-1");
        liveness.update(|s| {
            s.state = "leading".into();
            s.leads_until = Some(Instant::now() + Duration::from_secs(10));
        });
        assert_eq!(liveness.snapshot().0.state, "leading");
        liveness.update(|s| s.leads_until = Some(Instant::now() - Duration::from_millis(1)));
        assert_eq!(liveness.snapshot().0.state, "standby");
        liveness.update(|s| s.leads_until = None);
        assert_eq!(liveness.snapshot().0.state, "standby");
    }
}
