//! A real Prometheus (Debian's `prometheus` package, which `.ci/run` installs) on loopback,
//! scraping gpushare, and queried through its HTTP API; and `promtool`, its checker.

use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `program` on PATH; None with a loud SKIPPED, or a panic under GPUSHARE_REQUIRE_PROMETHEUS=1.
pub fn tool(test: &str, program: &str) -> Option<PathBuf> {
    if let Ok(path) = which::which(program) {
        return Some(path);
    }
    let why = format!("{program} is not on PATH (Debian's prometheus package has it)");
    if std::env::var_os("GPUSHARE_REQUIRE_PROMETHEUS").is_some_and(|v| v == "1") {
        panic!("{test}: GPUSHARE_REQUIRE_PROMETHEUS=1 but {why}");
    }
    let _ = writeln!(std::io::stderr(), "SKIPPED: {test}: {why}");
    None
}

/// `promtool ARGS` with `input` on stdin: its exit status and output.
pub fn promtool(program: &Path, args: &[&str], input: &str) -> (bool, String) {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("promtool starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

pub struct Prometheus {
    child: Child,
    pub addr: SocketAddr,
    _dir: tempfile::TempDir,
}

/// One sample of a query's answer.
#[derive(Debug, Clone)]
pub struct Sample {
    pub labels: BTreeMap<String, String>,
    pub value: f64,
}

impl Prometheus {
    /// Scrape each `(job, address)` every second at `/metrics`, with `rules` as its rule file.
    pub fn start(program: &Path, jobs: &[(&str, SocketAddr)], rules: &str) -> Prometheus {
        let dir = tempfile::tempdir().unwrap();
        let mut config = String::from(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n\
             rule_files: [rules.yaml]\nscrape_configs:\n",
        );
        for (job, addr) in jobs {
            config.push_str(&format!(
                "- job_name: {job}\n  metrics_path: /metrics\n  static_configs:\n  - targets: ['{addr}']\n"
            ));
        }
        std::fs::write(dir.path().join("prometheus.yml"), config).unwrap();
        std::fs::write(dir.path().join("rules.yaml"), rules).unwrap();
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
        let log = std::fs::File::create(dir.path().join("prometheus.log")).unwrap();
        let child = Command::new(program)
            .arg(format!(
                "--config.file={}",
                dir.path().join("prometheus.yml").display()
            ))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.path().join("data").display()
            ))
            .arg(format!("--web.listen-address={addr}"))
            .arg("--log.level=warn")
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("prometheus starts");
        let p = Prometheus {
            child,
            addr,
            _dir: dir,
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while get(addr, "/-/ready").is_none_or(|(code, _)| code != 200) {
            assert!(
                Instant::now() < deadline,
                "prometheus did not get ready:\n{}",
                p.log()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        p
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self._dir.path().join("prometheus.log")).unwrap_or_default()
    }

    /// `GET path` on the HTTP API, as JSON.
    pub fn api(&self, path: &str) -> Value {
        let (code, body) = get(self.addr, path).expect("prometheus answers");
        assert_eq!(code, 200, "{path}: {body}");
        serde_json::from_str(&body).unwrap()
    }

    /// An instant query's samples.
    pub fn query(&self, expr: &str) -> Vec<Sample> {
        let v = self.api(&format!("/api/v1/query?query={}", encode(expr)));
        assert_eq!(v["status"], "success", "{expr}: {v}");
        v["data"]["result"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| Sample {
                labels: serde_json::from_value(r["metric"].clone()).unwrap(),
                value: r["value"][1].as_str().unwrap().parse().unwrap(),
            })
            .collect()
    }

    /// Wait until `expr` has samples that `ok` accepts; the samples.
    pub fn wait_for(&self, expr: &str, ok: impl Fn(&[Sample]) -> bool) -> Vec<Sample> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let samples = self.query(expr);
            if ok(&samples) {
                return samples;
            }
            assert!(
                Instant::now() < deadline,
                "{expr}: still {samples:?}\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Percent-encode a query parameter.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A plain HTTP/1.0 GET: status code and body; None when nothing listens.
pub fn get(addr: SocketAddr, path: &str) -> Option<(u16, String)> {
    get_with(addr, path, "")
}

/// The same with extra header lines (each ending in `\r\n`).
pub fn get_with(addr: SocketAddr, path: &str, headers: &str) -> Option<(u16, String)> {
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    s.write_all(format!("GET {path} HTTP/1.0\r\nHost: test\r\n{headers}\r\n").as_bytes())
        .ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).ok()?;
    let (head, body) = out.split_once("\r\n\r\n")?;
    let code = head.split(' ').nth(1)?.parse().ok()?;
    Some((code, body.to_string()))
}
