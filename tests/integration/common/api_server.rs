//! A real kube-apiserver with etcd on loopback, from `../shared/tools/kube-apiserver` beside the
//! repository (its start.sh and stop.sh). Without the tool or etcd the tests are skipped, loudly;
//! with `GPUSHARE_REQUIRE_KUBE=1` (as `.ci/run` sets it) a missing tool fails them instead.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// start.sh unpacks the binary into a shared cache on first use: one start at a time.
static STARTING: Mutex<()> = Mutex::new(());

pub struct ApiServer {
    /// start.sh's state directory (certificates, logs, `env`, pid files).
    pub dir: PathBuf,
    pub kubeconfig: PathBuf,
    tool: PathBuf,
    /// A kube-apiserver started again by [`ApiServer::restart`].
    restarted: Option<Child>,
    /// A kube-scheduler started again by [`ApiServer::with_feature_gates`].
    scheduler: Option<Child>,
}

fn tool_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/tools/kube-apiserver")
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
        .unwrap_or(false)
}

/// Why the tests cannot run here, if they cannot.
fn missing() -> Option<String> {
    let tool = tool_dir();
    if !tool.join("start.sh").is_file() || !tool.join("kube-apiserver.xz").is_file() {
        return Some(format!("no kube-apiserver tool at {}", tool.display()));
    }
    let etcd_beside =
        std::env::var_os("KUBE_REAL_BIN").is_some_and(|d| Path::new(&d).join("etcd").is_file());
    if !etcd_beside && !on_path("etcd") {
        return Some("etcd is not installed (apt-get install etcd-server)".into());
    }
    for program in ["openssl", "xz", "curl", "python3"] {
        if !on_path(program) {
            return Some(format!("{program} is not installed (start.sh needs it)"));
        }
    }
    None
}

impl ApiServer {
    /// Start one for `test`; None (after saying so) when this machine cannot.
    pub fn start(test: &str) -> Option<ApiServer> {
        ApiServer::start_with(test, None, None)
    }

    /// The same with the API server's audit log: each request's user, verb and object, as one
    /// JSON line in `log` (`audit::requests` reads it).
    pub fn with_audit_log(test: &str, log: &Path) -> Option<ApiServer> {
        let policy = log.with_extension("policy.yaml");
        std::fs::write(
            &policy,
            "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n",
        )
        .unwrap();
        let args = format!(
            "--audit-policy-file={} --audit-log-path={}",
            policy.display(),
            log.display()
        );
        ApiServer::start_with(test, None, Some(&args))
    }

    /// The same with a real kube-scheduler beside it.
    pub fn with_scheduler(test: &str) -> Option<ApiServer> {
        ApiServer::start_with(test, Some(None), None)
    }

    /// The same with a kube-scheduler that runs the KubeSchedulerConfiguration in `config`.
    pub fn with_scheduler_config(test: &str, config: &Path) -> Option<ApiServer> {
        ApiServer::start_with(test, Some(Some(config)), None)
    }

    /// The same with feature `gates` (`DRADeviceTaints=true`) on in the API server (with the
    /// `runtime_config` it serves) and the scheduler: the scheduler start.sh started is started
    /// again, with the gates, the same binary and configuration.
    pub fn with_feature_gates(test: &str, gates: &str, runtime_config: &str) -> Option<ApiServer> {
        let extra = format!("--feature-gates={gates} --runtime-config={runtime_config}");
        let mut server = ApiServer::start_with(test, Some(None), Some(&extra))?;
        let pid: i32 = std::fs::read_to_string(server.dir.join("scheduler.pid"))
            .expect("start.sh wrote the scheduler's pid")
            .trim()
            .parse()
            .expect("a pid");
        let args = command_line(pid);
        // SAFETY: kill(2) on the pid start.sh recorded for the scheduler this test started.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
        while alive(pid) {
            std::thread::sleep(Duration::from_millis(50));
        }
        let log = std::fs::OpenOptions::new()
            .append(true)
            .open(server.dir.join("scheduler.log"))
            .expect("the scheduler log");
        let child = Command::new(&args[0])
            .args(&args[1..])
            .arg(format!("--feature-gates={gates}"))
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("a log handle"))
            .stderr(log)
            .spawn()
            .expect("the scheduler starts again");
        std::fs::write(server.dir.join("scheduler.pid"), child.id().to_string())
            .expect("the pid file");
        server.scheduler = Some(child);
        Some(server)
    }

    /// The same as [`ApiServer::with_scheduler`], with ServiceAccount admission on: pods get
    /// their service account's token, as on a cluster (start.sh leaves it off).
    pub fn for_pods(test: &str) -> Option<ApiServer> {
        ApiServer::start_env(
            test,
            Some(None),
            None,
            &[("KUBE_REAL_ADMISSION_DISABLE", "")],
        )
    }

    /// `scheduler`: None for none, Some(None) for its defaults, Some(Some(FILE)) for a config;
    /// `extra`: more kube-apiserver flags (split at spaces).
    fn start_with(
        test: &str,
        scheduler: Option<Option<&Path>>,
        extra: Option<&str>,
    ) -> Option<ApiServer> {
        ApiServer::start_env(test, scheduler, extra, &[])
    }

    /// [`ApiServer::start_with`] with more of start.sh's environment.
    fn start_env(
        test: &str,
        scheduler: Option<Option<&Path>>,
        extra: Option<&str>,
        env: &[(&str, &str)],
    ) -> Option<ApiServer> {
        if let Some(why) = missing() {
            if std::env::var_os("GPUSHARE_REQUIRE_KUBE").is_some_and(|v| v == "1") {
                panic!("{test}: GPUSHARE_REQUIRE_KUBE=1 but {why}");
            }
            // Straight to stderr, past the test harness's capture: a skip must be seen.
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED: {test}: {why}; these tests need a real API server"
            );
            return None;
        }
        let tool = tool_dir();
        let out = {
            let _one = STARTING.lock().unwrap_or_else(|p| p.into_inner());
            let mut start = Command::new("bash");
            if let Some(config) = scheduler {
                start.env("KUBE_REAL_SCHEDULER", "1");
                if let Some(config) = config {
                    start.env("KUBE_REAL_SCHEDULER_CONFIG", config);
                }
            }
            if let Some(extra) = extra {
                start.env("KUBE_REAL_EXTRA_ARGS", extra);
            }
            start
                .envs(env.iter().copied())
                .arg(tool.join("start.sh"))
                .stdin(Stdio::null())
                .output()
                .expect("start.sh runs")
        };
        assert!(
            out.status.success(),
            "start.sh failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        let kubeconfig = PathBuf::from(
            stdout
                .lines()
                .last()
                .expect("start.sh prints the kubeconfig")
                .trim(),
        );
        let dir = kubeconfig.parent().expect("a state dir").to_path_buf();
        Some(ApiServer {
            dir,
            kubeconfig,
            tool,
            restarted: None,
            scheduler: None,
        })
    }

    pub fn env_value(&self, key: &str) -> String {
        let env = std::fs::read_to_string(self.dir.join("env")).expect("start.sh writes env");
        env.lines()
            .find_map(|l| l.strip_prefix(&format!("{key}=")))
            .unwrap_or_else(|| panic!("{key} in env"))
            .to_string()
    }

    fn apiserver_pid(&self) -> i32 {
        std::fs::read_to_string(self.dir.join("apiserver.pid"))
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or_else(|| self.env_value("APISERVER_PID").parse().expect("a pid"))
    }

    /// Stop the kube-apiserver (etcd keeps running, with the cluster's data), wait, and start it
    /// again with the same arguments, port and certificates.
    pub fn restart(&mut self, down_for: Duration) {
        let pid = self.apiserver_pid();
        let args = command_line(pid);
        // SAFETY: kill(2) on the pid start.sh recorded for the kube-apiserver this test started.
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
        if let Some(mut child) = self.restarted.take() {
            let _ = child.wait();
        }
        // It drains its requests for a while; a restart need not wait for that.
        let polite = Instant::now() + Duration::from_secs(3);
        let deadline = polite + Duration::from_secs(20);
        while alive(pid) {
            if Instant::now() > polite {
                // SAFETY: as above.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
            assert!(Instant::now() < deadline, "the kube-apiserver did not stop");
            std::thread::sleep(Duration::from_millis(100));
        }
        std::thread::sleep(down_for);
        let log = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(self.dir.join("apiserver.log"))
            .expect("the apiserver log");
        let child = Command::new(&args[0])
            .args(&args[1..])
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("a log handle"))
            .stderr(log)
            .spawn()
            .expect("the kube-apiserver starts again");
        std::fs::write(self.dir.join("apiserver.pid"), child.id().to_string())
            .expect("the pid file");
        self.restarted = Some(child);
    }
}

/// Alive and not a zombie.
fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z"),
        Err(_) => false,
    }
}

impl Drop for ApiServer {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let log = std::fs::read_to_string(self.dir.join("apiserver.log")).unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(20).collect();
            eprintln!(
                "--- last lines of the apiserver log ({}):",
                self.dir.display()
            );
            for l in tail.iter().rev() {
                eprintln!("{l}");
            }
            if let Ok(log) = std::fs::read_to_string(self.dir.join("scheduler.log")) {
                eprintln!("--- last lines of the scheduler log:");
                let tail: Vec<&str> = log
                    .lines()
                    .filter(|l| !l.contains("configmap_cafile_content"))
                    .rev()
                    .take(20)
                    .collect();
                for l in tail.iter().rev() {
                    eprintln!("{l}");
                }
            }
        }
        let _ = Command::new("bash")
            .arg(self.tool.join("stop.sh"))
            .arg(&self.dir)
            .stdin(Stdio::null())
            .output();
        for mut child in self
            .restarted
            .take()
            .into_iter()
            .chain(self.scheduler.take())
        {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The arguments a running process was started with.
fn command_line(pid: i32) -> Vec<String> {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .unwrap_or_else(|e| panic!("the command line of {pid}: {e}"))
        .split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect()
}
