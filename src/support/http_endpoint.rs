//! The small HTTP endpoint the agent, the controller and `gpushare metrics` serve (`/healthz`,
//! `/metrics`): GET and HEAD, on hyper's HTTP/1.1 server in a runtime of its own.
//!
//! Any client on the network may connect, so nothing one does may hold another: the request
//! head has a deadline and a size limit (answered 408-by-close and 431), a connection lives at
//! most [`CONNECTION_LIFETIME`], and at most [`MAX_CONNECTIONS`] are open. Quick routes
//! (`/healthz`) are answered on the runtime at once; slow ones (`/metrics`, which reads the
//! driver) run on the blocking pool one at a time, waiting their turn up to [`SLOW_WAIT`], so
//! the liveness probe never queues behind scrapes or slow clients.

use crate::support::error::{Error, Result};
use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{ALLOW, CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// A request head must arrive within this.
const HEAD_TIMEOUT: Duration = Duration::from_secs(5);
/// The most a request head may hold (hyper's smallest buffer); more is 431.
const MAX_HEAD: usize = 8192;
/// A connection, kept alive or not, is closed after this.
pub(crate) const CONNECTION_LIFETIME: Duration = Duration::from_secs(30);
/// Connections open at once; one more is closed at once.
pub(crate) const MAX_CONNECTIONS: usize = 512;
/// How long a slow request waits for its turn before it is told the endpoint is busy.
pub(crate) const SLOW_WAIT: Duration = Duration::from_secs(10);

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

type Handler = Arc<dyn Fn(&Request) -> Response + Send + Sync>;

/// A path and what answers it.
pub(crate) struct Route {
    path: &'static str,
    handler: Handler,
    /// It does real work: run on the blocking pool, one at a time.
    slow: bool,
}

impl Route {
    /// A route answered at once (it only reads memory).
    pub(crate) fn quick(
        path: &'static str,
        handler: impl Fn(&Request) -> Response + Send + Sync + 'static,
    ) -> Route {
        Route {
            path,
            handler: Arc::new(handler),
            slow: false,
        }
    }

    /// A route that reads the node: one request at a time, off the runtime.
    pub(crate) fn slow(
        path: &'static str,
        handler: impl Fn(&Request) -> Response + Send + Sync + 'static,
    ) -> Route {
        Route {
            slow: true,
            ..Route::quick(path, handler)
        }
    }
}

struct Routes {
    routes: Vec<Route>,
    /// One slow request at a time.
    slow_turn: Arc<Semaphore>,
}

/// Listen on `addr` (`what` names the endpoint in errors, `flag` the option that sets it) and
/// answer `routes` from a thread of its own; the address bound (port 0 picks one).
pub(crate) fn serve(
    addr: SocketAddr,
    what: &str,
    flag: &str,
    routes: Vec<Route>,
) -> Result<SocketAddr> {
    let listener = std::net::TcpListener::bind(addr).map_err(|e| {
        Error::failed(format!("cannot listen on {addr} for the {what}: {e}"))
            .with_hint(format!("choose another {flag}"))
    })?;
    let bound = listener
        .local_addr()
        .map_err(|e| Error::failed(format!("the {what} has no address: {e}")))?;
    let cannot = |e: std::io::Error| Error::failed(format!("cannot start the {what}: {e}"));
    listener.set_nonblocking(true).map_err(cannot)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(4)
        .thread_name("endpoint")
        .enable_all()
        .build()
        .map_err(cannot)?;
    let routes = Arc::new(Routes {
        routes,
        slow_turn: Arc::new(Semaphore::new(1)),
    });
    std::thread::Builder::new()
        .name("endpoint".into())
        .spawn(move || runtime.block_on(accept(listener, routes)))
        .map_err(cannot)?;
    Ok(bound)
}

async fn accept(listener: std::net::TcpListener, routes: Arc<Routes>) {
    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
        return;
    };
    let open = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            // Out of descriptors, a connection reset before it was taken: try again shortly.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let Ok(permit) = open.clone().try_acquire_owned() else {
            continue;
        };
        let routes = routes.clone();
        tokio::spawn(async move {
            let service = service_fn(move |request| answer(request, routes.clone()));
            let connection = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEAD_TIMEOUT)
                .max_buf_size(MAX_HEAD)
                .serve_connection(TokioIo::new(stream), service);
            let _ = tokio::time::timeout(CONNECTION_LIFETIME, connection).await;
            drop(permit);
        });
    }
}

type Answer = hyper::Response<Full<Bytes>>;

async fn answer<B>(
    request: hyper::Request<B>,
    routes: Arc<Routes>,
) -> std::result::Result<Answer, Infallible> {
    if request.method() != Method::GET && request.method() != Method::HEAD {
        let mut refused = reply(Response::json(405, r#"{"error":"only GET"}"#.into()));
        refused
            .headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
        return Ok(refused);
    }
    let asked = Request {
        path: request.uri().path().to_string(),
        accept: request
            .headers()
            .get(hyper::header::ACCEPT)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string),
    };
    let Some(route) = routes.routes.iter().find(|r| r.path == asked.path) else {
        let paths: Vec<&str> = routes.routes.iter().map(|r| r.path).collect();
        let body = serde_json::json!({ "error": format!("try {}", paths.join(" or ")) });
        return Ok(reply(Response::json(404, body.to_string())));
    };
    if !route.slow {
        return Ok(reply((route.handler)(&asked)));
    }
    let turn = tokio::time::timeout(SLOW_WAIT, routes.slow_turn.clone().acquire_owned()).await;
    let Ok(Ok(turn)) = turn else {
        let mut busy = reply(Response::json(
            503,
            r#"{"error":"busy: another request is being answered"}"#.into(),
        ));
        busy.headers_mut()
            .insert(RETRY_AFTER, HeaderValue::from_static("1"));
        return Ok(busy);
    };
    let handler = route.handler.clone();
    let answered = tokio::task::spawn_blocking(move || {
        let response = handler(&asked);
        drop(turn);
        response
    })
    .await;
    Ok(reply(answered.unwrap_or_else(|_| {
        Response::json(500, r#"{"error":"the handler failed"}"#.into())
    })))
}

/// The HTTP response (hyper leaves the body out of an answer to HEAD).
fn reply(response: Response) -> Answer {
    let mut answer = hyper::Response::new(Full::new(Bytes::from(response.body)));
    *answer.status_mut() =
        StatusCode::from_u16(response.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    answer.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static(response.content_type),
    );
    answer
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpStream;

    /// The raw response to `request` (the connection closed after it).
    pub(crate) fn get(addr: SocketAddr, request: &str) -> String {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        s.write_all(request.as_bytes()).unwrap();
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    fn echo() -> Route {
        Route::quick("/echo", |r: &Request| Response {
            code: 200,
            content_type: "text/plain",
            body: format!("accept={:?}", r.accept),
        })
    }

    #[test]
    fn routes_by_path_refuses_the_rest_and_survives_junk() {
        let addr = serve("127.0.0.1:0".parse().unwrap(), "test", "--x", vec![echo()]).unwrap();
        let close = "Connection: close\r\n";
        let ok = get(
            addr,
            &format!("GET /echo?x=1 HTTP/1.1\r\nHost: x\r\nACCEPT: text/a\r\n{close}\r\n"),
        );
        assert!(ok.starts_with("HTTP/1.1 200 OK\r\n"), "{ok}");
        assert!(ok.ends_with("accept=Some(\"text/a\")"), "{ok}");
        let head = get(addr, &format!("HEAD /echo HTTP/1.1\r\n{close}\r\n"));
        assert!(
            head.starts_with("HTTP/1.1 200") && head.ends_with("\r\n\r\n"),
            "HEAD has no body: {head}"
        );
        let missing = get(addr, &format!("GET / HTTP/1.1\r\n{close}\r\n"));
        assert!(missing.starts_with("HTTP/1.1 404") && missing.contains("try /echo"));
        let post = get(
            addr,
            &format!("POST /echo HTTP/1.1\r\ncontent-length: 0\r\n{close}\r\n"),
        );
        assert!(
            post.starts_with("HTTP/1.1 405") && post.to_lowercase().contains("allow: get, head"),
            "{post}"
        );
        // Too much is 431, not a reset; junk is 400; the server goes on answering.
        let big = format!(
            "GET /echo HTTP/1.1\r\nX: {}\r\n\r\n",
            "A".repeat(MAX_HEAD * 2)
        );
        let too_big = get(addr, &big);
        assert!(too_big.starts_with("HTTP/1.1 431"), "{too_big}");
        assert!(get(addr, "NOT HTTP AT ALL\r\n\r\n").starts_with("HTTP/1.1 400"));
        assert!(get(addr, "GET /echo HTTP/1.0\r\n\r\n").starts_with("HTTP/1.0 200"));
        // Two requests in one write (pipelined): two answers, in order.
        let two = get(
            addr,
            &format!("GET /echo HTTP/1.1\r\n\r\nGET /nope HTTP/1.1\r\n{close}\r\n"),
        );
        let first = two.find("HTTP/1.1 200").unwrap();
        let second = two.find("HTTP/1.1 404").unwrap();
        assert!(first < second, "{two}");
    }

    #[test]
    fn a_busy_slow_route_says_so_with_a_body_and_quick_routes_do_not_wait() {
        let (release, held) = std::sync::mpsc::channel::<()>();
        let held = std::sync::Mutex::new(held);
        let slow = Route::slow("/slow", move |_: &Request| {
            let _ = held.lock().unwrap().recv_timeout(SLOW_WAIT * 2);
            Response::json(200, "{}".into())
        });
        let addr = serve(
            "127.0.0.1:0".parse().unwrap(),
            "test",
            "--x",
            vec![echo(), slow],
        )
        .unwrap();
        let first = std::thread::spawn(move || {
            get(addr, "GET /slow HTTP/1.1\r\nConnection: close\r\n\r\n")
        });
        std::thread::sleep(Duration::from_millis(200));
        let started = std::time::Instant::now();
        let quick = get(addr, "GET /echo HTTP/1.1\r\nConnection: close\r\n\r\n");
        assert!(quick.starts_with("HTTP/1.1 200") && started.elapsed() < Duration::from_secs(2));
        let busy = get(addr, "GET /slow HTTP/1.1\r\nConnection: close\r\n\r\n");
        assert!(busy.starts_with("HTTP/1.1 503"), "{busy}");
        assert!(busy.to_lowercase().contains("retry-after: 1"), "{busy}");
        assert!(
            busy.ends_with(r#"{"error":"busy: another request is being answered"}"#),
            "{busy}"
        );
        release.send(()).unwrap();
        assert!(first.join().unwrap().starts_with("HTTP/1.1 200"));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

        /// Any bytes a client sends: an HTTP answer or a closed connection, never a hang, and
        /// the next client is answered.
        #[test]
        fn any_request_is_answered_or_closed(
            head in "(GET|HEAD|POST|get|BREW|) ?(/echo|/|\\*|/[a-z%?=&.]{0,12}|http://x/echo)? ?(HTTP/1\\.[01]|HTTP/2|HTTP/9\\.9|)\r?\n",
            headers in proptest::collection::vec("[A-Za-z-]{0,12}:? ?[ -~]{0,40}", 0..6),
            tail in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64),
        ) {
            static ADDR: std::sync::OnceLock<SocketAddr> = std::sync::OnceLock::new();
            let addr = *ADDR.get_or_init(|| {
                serve("127.0.0.1:0".parse().unwrap(), "test", "--x", vec![echo()]).unwrap()
            });
            let mut request = head.into_bytes();
            for h in headers {
                request.extend_from_slice(h.as_bytes());
                request.extend_from_slice(b"\r\n");
            }
            request.extend_from_slice(b"\r\n");
            request.extend_from_slice(&tail);
            let mut s = TcpStream::connect(addr).unwrap();
            s.set_read_timeout(Some(HEAD_TIMEOUT + Duration::from_secs(5))).unwrap();
            let _ = s.write_all(&request);
            let _ = s.shutdown(std::net::Shutdown::Write);
            let mut out = Vec::new();
            let read = s.read_to_end(&mut out);
            proptest::prop_assert!(read.is_ok(), "no answer and no close: {:?}", read);
            proptest::prop_assert!(out.is_empty() || out.starts_with(b"HTTP/1."), "{:?}", String::from_utf8_lossy(&out));
            let ok = get(addr, "GET /echo HTTP/1.1\r\nConnection: close\r\n\r\n");
            proptest::prop_assert!(ok.starts_with("HTTP/1.1 200"), "{}", ok);
        }
    }
}
