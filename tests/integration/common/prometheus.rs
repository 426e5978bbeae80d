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
    /// The file of discovered targets, when they are.
    _targets: Option<tempfile::TempDir>,
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
        let mut scrape = String::new();
        for (job, addr) in jobs {
            scrape.push_str(&format!(
                "- job_name: {job}\n  metrics_path: /metrics\n  static_configs:\n  - targets: ['{addr}']\n"
            ));
        }
        Prometheus::with_scrape_configs(program, &scrape, rules)
    }

    /// Scrape `pods` as their `prometheus.io/scrape`, `port` and `path` annotations say, every
    /// second; each series has the pod's name as `pod`. Debian's Prometheus is built without
    /// Kubernetes discovery, so this reads the annotations as its `kubernetes-pods` job's
    /// relabelling does (keep `scrape: "true"`, the pod's IP and the annotated port, the
    /// annotated path) and hands the targets over by file.
    pub fn scraping_pods(program: &Path, pods: &[k8s_openapi::api::core::v1::Pod]) -> Prometheus {
        let mut groups = Vec::new();
        for pod in pods {
            let annotations = pod.metadata.annotations.clone().unwrap_or_default();
            let ip = pod.status.as_ref().and_then(|s| s.pod_ip.clone());
            let (Some("true"), Some(port), Some(ip)) = (
                annotations.get("prometheus.io/scrape").map(String::as_str),
                annotations.get("prometheus.io/port"),
                ip,
            ) else {
                continue;
            };
            let path = annotations
                .get("prometheus.io/path")
                .cloned()
                .unwrap_or_else(|| "/metrics".into());
            groups.push(serde_json::json!({
                "targets": [format!("{ip}:{port}")],
                "labels": { "__metrics_path__": path, "pod": pod.metadata.name },
            }));
        }
        let dir = tempfile::tempdir().unwrap();
        let targets = dir.path().join("pods.json");
        std::fs::write(&targets, serde_json::to_string(&groups).unwrap()).unwrap();
        let scrape = format!(
            "- job_name: kubernetes-pods\n  file_sd_configs:\n  - files: ['{}']\n",
            targets.display()
        );
        let mut prom = Prometheus::with_scrape_configs(program, &scrape, "groups: []\n");
        prom._targets = Some(dir);
        prom
    }

    /// Prometheus with `scrape` as its `scrape_configs` and `rules` as its rule file.
    fn with_scrape_configs(program: &Path, scrape: &str, rules: &str) -> Prometheus {
        let dir = tempfile::tempdir().unwrap();
        let config = format!(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n\
             rule_files: [rules.yaml]\nscrape_configs:\n{scrape}"
        );
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
            _targets: None,
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
