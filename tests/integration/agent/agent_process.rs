//! `gpushare agent` as a process on a simulated node (a DGX A100 whose state is kept in a file),
//! its log, its health endpoint, and the node as `detect` sees it.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

pub struct AgentProcess {
    child: Option<Child>,
    log: PathBuf,
    pub health: SocketAddr,
    dir: PathBuf,
}

/// `GET /healthz` of the endpoint at `addr`: status code and body.
pub fn healthz_at(addr: SocketAddr) -> (u16, String) {
    let mut s = TcpStream::connect(addr).expect("the health endpoint listens");
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(b"GET /healthz HTTP/1.1\r\nHost: agent\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let code = out
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = out.split("\r\n\r\n").nth(1).unwrap_or("").to_string();
    (code, body)
}

/// The gpushare binary with no GPUSHARE_* from the caller's environment.
fn gpushare() -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin!("gpushare"));
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("GPUSHARE_") {
            cmd.env_remove(key);
        }
    }
    cmd.env("NO_COLOR", "1").env_remove("KUBECONFIG");
    cmd
}

/// The simulated node kept under `dir`: a DGX A100 unless a node is there already.
fn sim_args(dir: &Path) -> Vec<String> {
    let preset: &[&str] = if dir.join("node.json").exists() {
        &[]
    } else {
        &["--sim", "dgx-a100"]
    };
    let mut args: Vec<String> = preset.iter().map(|a| a.to_string()).collect();
    args.extend([
        "--sim-state".into(),
        dir.join("node.json").display().to_string(),
        "--state-root".into(),
        dir.join("root").display().to_string(),
    ]);
    args
}

impl AgentProcess {
    /// Start the agent for `node` with the layouts of `configmap`, as the service account of
    /// `kubeconfig`; wait until it says where its health endpoint is.
    pub fn start(dir: &Path, kubeconfig: &Path, node: &str, configmap: &str) -> AgentProcess {
        AgentProcess::start_with(dir, kubeconfig, node, configmap, &[])
    }

    /// The same with more arguments for `gpushare agent`.
    pub fn start_with(
        dir: &Path,
        kubeconfig: &Path,
        node: &str,
        configmap: &str,
        extra: &[&std::ffi::OsStr],
    ) -> AgentProcess {
        let log = dir.join("agent.log");
        let file = std::fs::File::create(&log).unwrap();
        let child = gpushare()
            .args(sim_args(dir))
            .args(["agent", "--node", node, "--configmap", configmap])
            .arg("--kubeconfig")
            .arg(kubeconfig)
            .args(["--health-addr", "127.0.0.1:0", "--pause-timeout", "60"])
            .args(if extra.iter().any(|a| *a == "--retry") {
                &[][..]
            } else {
                &["--retry", "2"][..]
            })
            .args(extra)
            .stdin(Stdio::null())
            .stdout(file.try_clone().unwrap())
            .stderr(file)
            .spawn()
            .expect("gpushare agent starts");
        let mut agent = AgentProcess {
            child: Some(child),
            log,
            health: "127.0.0.1:1".parse().unwrap(),
            dir: dir.to_path_buf(),
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let text = agent.log();
            if let Some(addr) = text
                .split("health at http://")
                .nth(1)
                .and_then(|rest| rest.split('/').next())
            {
                agent.health = addr.parse().expect("a socket address");
                return agent;
            }
            assert!(
                Instant::now() < deadline,
                "the agent did not start:\n{text}"
            );
            if let Some(status) = agent.child.as_mut().and_then(|c| c.try_wait().unwrap()) {
                panic!("the agent exited ({status}):\n{text}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// `GET /healthz`: status code and body.
    pub fn healthz(&self) -> (u16, String) {
        healthz_at(self.health)
    }

    /// The simulated node as `gpushare detect --format json` reads it.
    pub fn node(&self) -> serde_json::Value {
        let out = gpushare()
            .args(sim_args(&self.dir))
            .args(["detect", "--format", "json"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// SIGTERM, and how it exited.
    pub fn stop(&mut self) -> ExitStatus {
        let mut child = self.child.take().expect("running");
        // SAFETY: kill(2) on the agent this test started.
        unsafe {
            libc::kill(child.id() as i32, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                return status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("the agent did not stop on SIGTERM:\n{}", self.log());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for AgentProcess {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        if std::thread::panicking() {
            eprintln!("--- the agent's log:\n{}", self.log());
        }
    }
}

/// The MIG profiles of each GPU, sorted, e.g. `["1g.5gb", "1g.5gb", "2g.10gb", "3g.20gb"]`.
pub fn profiles(node: &serde_json::Value) -> Vec<Vec<String>> {
    node["gpus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let mut p: Vec<String> = g["mig"]["instances"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|i| i["profile"].as_str().unwrap().to_string())
                .collect();
            p.sort();
            p
        })
        .collect()
}

/// The UUID of the MIG device of a profile at a placement on a GPU.
pub fn device_at(
    node: &serde_json::Value,
    gpu: usize,
    profile: &str,
    start: u64,
) -> Option<String> {
    node["gpus"][gpu]["mig"]["instances"]
        .as_array()?
        .iter()
        .find(|i| i["profile"] == profile && i["placement"]["start"] == start)
        .and_then(|i| i["compute_instances"][0]["uuid"].as_str())
        .map(str::to_string)
}
