//! The small HTTP endpoint the agent, the controller and `gpushare metrics` serve (`/healthz`,
//! `/metrics`): GET and HEAD only, one thread per connection up to a few at once, each request
//! read with a size cap and a deadline, so a client that sends nothing or too much cannot hold
//! it, and a slow scrape does not hold the liveness probe.

use crate::error::{Error, Result};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

const MAX_REQUEST: usize = 4096;
const IO_TIMEOUT: Duration = Duration::from_secs(2);
/// Connections answered at once; more are refused with 503.
const MAX_AT_ONCE: usize = 8;

/// What a handler is asked.
#[derive(Debug)]
pub(crate) struct Request {
    /// The path, without the query.
    pub path: String,
    /// The `Accept` header, when there is one.
    pub accept: Option<String>,
}

pub(crate) struct Response {
    pub code: u16,
    pub content_type: &'static str,
    pub body: String,
}

impl Response {
    pub(crate) fn json(code: u16, body: String) -> Self {
        Response {
            code,
            content_type: "application/json",
            body,
        }
    }
}

/// A path and what answers it.
pub(crate) type Route = (
    &'static str,
    Box<dyn Fn(&Request) -> Response + Send + Sync>,
);

/// Listen on `addr` (`what` names the endpoint in errors, `flag` the option that sets it) and
/// answer `routes` in threads of their own; the address bound (port 0 picks one).
pub(crate) fn serve(
    addr: SocketAddr,
    what: &str,
    flag: &str,
    routes: Vec<Route>,
) -> Result<SocketAddr> {
    let listener = TcpListener::bind(addr).map_err(|e| {
        Error::failed(format!("cannot listen on {addr} for the {what}: {e}"))
            .with_hint(format!("choose another {flag}"))
    })?;
    let bound = listener
        .local_addr()
        .map_err(|e| Error::failed(format!("the {what} has no address: {e}")))?;
    let routes = Arc::new(routes);
    let busy = Arc::new(AtomicUsize::new(0));
    std::thread::Builder::new()
        .name("endpoint".into())
        .spawn(move || {
            for stream in listener.incoming().flatten() {
                if busy.fetch_add(1, Ordering::SeqCst) >= MAX_AT_ONCE {
                    busy.fetch_sub(1, Ordering::SeqCst);
                    let mut stream = stream;
                    let _ = stream.set_write_timeout(Some(IO_TIMEOUT));
                    let busy_now = Response::json(503, "{\"error\":\"busy\"}".into());
                    write(&mut stream, &busy_now, false);
                    continue;
                }
                let (routes, done) = (routes.clone(), busy.clone());
                let spawned = std::thread::Builder::new()
                    .name("endpoint-request".into())
                    .spawn(move || {
                        answer(stream, &routes);
                        done.fetch_sub(1, Ordering::SeqCst);
                    });
                if spawned.is_err() {
                    busy.fetch_sub(1, Ordering::SeqCst);
                }
            }
        })
        .map_err(|e| Error::failed(format!("cannot start the {what}: {e}")))?;
    Ok(bound)
}

fn answer(mut stream: TcpStream, routes: &[Route]) {
    let _ = stream.set_read_timeout(Some(IO_TIMEOUT));
    let _ = stream.set_write_timeout(Some(IO_TIMEOUT));
    let head = read_head(&mut stream);
    let (response, with_body) = respond(head.as_deref(), routes);
    write(&mut stream, &response, with_body);
}

fn write(stream: &mut TcpStream, response: &Response, with_body: bool) {
    let reason = match response.code {
        200 => "OK",
        404 => "Not Found",
        405 => "Method Not Allowed",
        400 => "Bad Request",
        500 => "Internal Server Error",
        _ => "Service Unavailable",
    };
    let head = format!(
        "HTTP/1.1 {} {reason}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        response.code,
        response.content_type,
        response.body.len()
    );
    let _ = stream.write_all(head.as_bytes()).and_then(|_| {
        if with_body {
            stream.write_all(response.body.as_bytes())
        } else {
            Ok(())
        }
    });
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

/// The response to a request head, and whether it carries its body (not for HEAD).
fn respond(head: Option<&str>, routes: &[Route]) -> (Response, bool) {
    let Some(line) = head.and_then(|h| h.lines().next()) else {
        return (
            Response::json(400, "{\"error\":\"bad request\"}".into()),
            true,
        );
    };
    let mut parts = line.split(' ');
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    if method != "GET" && method != "HEAD" {
        return (Response::json(405, "{\"error\":\"only GET\"}".into()), true);
    }
    let request = Request {
        path: target.split('?').next().unwrap_or("").to_string(),
        accept: head.and_then(header("accept")),
    };
    let with_body = method == "GET";
    match routes.iter().find(|(path, _)| *path == request.path) {
        Some((_, handler)) => (handler(&request), with_body),
        None => {
            let paths: Vec<&str> = routes.iter().map(|(p, _)| *p).collect();
            let body = serde_json::json!({ "error": format!("try {}", paths.join(" or ")) });
            (Response::json(404, body.to_string()), with_body)
        }
    }
}

/// The value of header `name` (lowercase) in a request head.
fn header(name: &'static str) -> impl Fn(&str) -> Option<String> {
    move |head: &str| {
        head.lines().skip(1).find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim()
                .eq_ignore_ascii_case(name)
                .then(|| value.trim().to_string())
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The raw response to `request`.
    pub(crate) fn get(addr: SocketAddr, request: &str) -> String {
        let mut s = TcpStream::connect(addr).unwrap();
        s.write_all(request.as_bytes()).unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    }

    #[test]
    fn routes_by_path_refuses_the_rest_and_survives_junk() {
        let echo: Route = (
            "/echo",
            Box::new(|r: &Request| Response {
                code: 200,
                content_type: "text/plain",
                body: format!("accept={:?}", r.accept),
            }),
        );
        let addr = serve("127.0.0.1:0".parse().unwrap(), "test", "--x", vec![echo]).unwrap();
        let ok = get(
            addr,
            "GET /echo?x=1 HTTP/1.1\r\nHost: x\r\nACCEPT: text/a\r\n\r\n",
        );
        assert!(ok.starts_with("HTTP/1.1 200 OK\r\n"), "{ok}");
        assert!(ok.ends_with("accept=Some(\"text/a\")"), "{ok}");
        let head = get(addr, "HEAD /echo HTTP/1.1\r\n\r\n");
        assert!(head.ends_with("\r\n\r\n"), "HEAD has no body: {head}");
        let missing = get(addr, "GET / HTTP/1.1\r\n\r\n");
        assert!(missing.starts_with("HTTP/1.1 404") && missing.contains("try /echo"));
        assert!(get(addr, "POST /echo HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 405"));
        // Too much, or not text: refused, and the server goes on answering.
        let junk = "A".repeat(MAX_REQUEST);
        assert!(get(addr, &junk).starts_with("HTTP/1.1 400"));
        assert!(get(addr, "GET /echo HTTP/1.0\r\n\r\n").starts_with("HTTP/1.1 200"));
    }
}
