//! The health endpoint of the liveness probe of the agent's DaemonSet and the controller's
//! Deployment: `GET /healthz` answers 200 while the loop goes round (or is busy with a run), 503
//! when it has stopped turning, with what it is doing as JSON. One small server thread; requests are read with a size cap and a
//! deadline, so a client that sends nothing or too much cannot hold it.

use crate::error::{Error, Result};
use serde::Serialize;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A loop that has not gone round for this long, while not busy, is stuck.
const STUCK_AFTER: Duration = Duration::from_secs(60);
const MAX_REQUEST: usize = 4096;
const IO_TIMEOUT: Duration = Duration::from_secs(2);

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
}

pub(crate) struct Health {
    status: Mutex<Status>,
    last_turn: Mutex<Instant>,
}

impl Health {
    pub(crate) fn new(node: &str) -> Self {
        Health::with(Some(node), None)
    }

    /// The controller replica `id`'s.
    pub(crate) fn replica(id: &str) -> Self {
        Health::with(None, Some(id))
    }

    fn with(node: Option<&str>, replica: Option<&str>) -> Self {
        Health {
            status: Mutex::new(Status {
                node: node.map(str::to_string),
                replica: replica.map(str::to_string),
                state: "starting".into(),
                layout: None,
                api_reachable: false,
                busy: false,
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
        let status = self
            .status
            .lock()
            .map(|s| s.clone())
            .unwrap_or_else(|p| p.into_inner().clone());
        let idle_for = self
            .last_turn
            .lock()
            .map(|t| t.elapsed())
            .unwrap_or_default();
        let alive = status.busy || idle_for < STUCK_AFTER;
        (status, alive)
    }
}

/// Listen on `addr` and answer in a thread of its own; the address bound (port 0 picks one).
pub(crate) fn serve(addr: SocketAddr, health: Arc<Health>) -> Result<SocketAddr> {
    let listener = TcpListener::bind(addr).map_err(|e| {
        Error::failed(format!(
            "cannot listen on {addr} for the health endpoint: {e}"
        ))
        .with_hint("choose another --health-addr")
    })?;
    let bound = listener
        .local_addr()
        .map_err(|e| Error::failed(format!("the health endpoint has no address: {e}")))?;
    std::thread::Builder::new()
        .name("health".into())
        .spawn(move || {
            for stream in listener.incoming().flatten() {
                answer(stream, &health);
            }
        })
        .map_err(|e| Error::failed(format!("cannot start the health endpoint: {e}")))?;
    Ok(bound)
}

fn answer(mut stream: TcpStream, health: &Health) {
    let _ = stream.set_read_timeout(Some(IO_TIMEOUT));
    let _ = stream.set_write_timeout(Some(IO_TIMEOUT));
    let request = read_head(&mut stream);
    let (code, body) = respond(request.as_deref(), health);
    let reason = match code {
        200 => "OK",
        404 => "Not Found",
        405 => "Method Not Allowed",
        400 => "Bad Request",
        _ => "Service Unavailable",
    };
    let head = format!(
        "HTTP/1.1 {code} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream
        .write_all(head.as_bytes())
        .and_then(|_| stream.write_all(body.as_bytes()));
}

/// The request line and headers, up to the blank line; None when it does not come in time or
/// is too long.
fn read_head(stream: &mut TcpStream) -> Option<String> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 512];
    while buf.len() < MAX_REQUEST {
        let n = stream.read(&mut chunk).ok()?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
        if buf.windows(4).any(|w| w == b"\r\n\r\n") {
            return String::from_utf8(buf).ok();
        }
    }
    // The peer stopped early (HTTP/0.9-like probes) or sent too much.
    (buf.len() < MAX_REQUEST)
        .then(|| String::from_utf8(buf).ok())
        .flatten()
}

/// Status code and body for a request head.
fn respond(head: Option<&str>, health: &Health) -> (u16, String) {
    let Some(line) = head.and_then(|h| h.lines().next()) else {
        return (400, "{\"error\":\"bad request\"}".into());
    };
    let mut parts = line.split(' ');
    let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    if method != "GET" && method != "HEAD" {
        return (405, "{\"error\":\"only GET\"}".into());
    }
    if path.split('?').next() != Some("/healthz") {
        return (404, "{\"error\":\"try /healthz\"}".into());
    }
    let (status, alive) = health.snapshot();
    let body = serde_json::to_string(&status).unwrap_or_else(|_| "{}".into());
    (if alive { 200 } else { 503 }, body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(addr: SocketAddr, request: &str) -> String {
        let mut s = TcpStream::connect(addr).unwrap();
        s.write_all(request.as_bytes()).unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    }

    #[test]
    fn answers_healthz_and_refuses_the_rest() {
        let health = Arc::new(Health::new("gpu-1"));
        health.update(|s| s.state = "success".into());
        let addr = serve("127.0.0.1:0".parse().unwrap(), health.clone()).unwrap();
        let ok = get(addr, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(ok.starts_with("HTTP/1.1 200 OK\r\n"), "{ok}");
        assert!(ok.contains("\"state\":\"success\""), "{ok}");
        assert!(
            ok.contains("\"node\":\"gpu-1\"") && !ok.contains("replica"),
            "{ok}"
        );
        assert!(get(addr, "GET / HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 404"));
        assert!(get(addr, "POST /healthz HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 405"));
        // Too much, or not text: refused, and the server goes on answering.
        let junk = "A".repeat(MAX_REQUEST);
        assert!(get(addr, &junk).starts_with("HTTP/1.1 400"));
        assert!(get(addr, "GET /healthz HTTP/1.0\r\n\r\n").starts_with("HTTP/1.1 200"));
    }

    #[test]
    fn a_loop_that_stopped_turning_is_unhealthy_unless_busy() {
        let health = Health::new("gpu-1");
        assert!(health.snapshot().1);
        *health.last_turn.lock().unwrap() = Instant::now() - STUCK_AFTER * 2;
        assert!(!health.snapshot().1);
        health.update(|s| s.busy = true);
        assert!(health.snapshot().1);
    }
}
