//! `gpushare controller` as a process, as its Deployment runs it: its log and its health
//! endpoint.

use super::NS;
use super::agent_process::healthz_at;
use crate::common::cluster::wait_for;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(180);

pub struct ControllerProcess {
    child: Child,
    log: PathBuf,
}

impl ControllerProcess {
    pub fn start(kubeconfig: &Path, dir: &Path, id: &str, stop_after_writes: Option<u32>) -> Self {
        let log = dir.join(format!("controller-{id}.log"));
        let file = std::fs::File::create(&log).unwrap();
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin!("gpushare"));
        cmd.env("NO_COLOR", "1")
            .env_remove("KUBECONFIG")
            .args(["controller", "--kubeconfig"])
            .arg(kubeconfig)
            .args(["--namespace", NS, "--id", id, "--interval", "500"])
            .args(["--cooldown", "2", "--give-back-after", "8"])
            .args(["--max-reshaping", "4", "--lease-seconds", "3"])
            .args(["--health-addr", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(file.try_clone().unwrap())
            .stderr(file);
        if let Some(n) = stop_after_writes {
            cmd.env("GPUSHARE_CONTROLLER_STOP_AFTER_WRITES", n.to_string());
        }
        let child = cmd.spawn().expect("gpushare controller starts");
        ControllerProcess { child, log }
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    pub fn wait_leading(&self) {
        wait_for("the controller to lead", WAIT, || {
            self.log()
                .contains("leading: this replica decides")
                .then_some(())
        });
    }

    /// How the process ended, if it has.
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().unwrap()
    }

    /// Where its health endpoint listens (it says so when it starts).
    pub fn healthz_addr(&self) -> SocketAddr {
        self.log()
            .split("health at http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .and_then(|a| a.parse().ok())
            .expect("the controller says where its health endpoint is")
    }

    /// `GET /healthz`: status code and body.
    pub fn healthz(&self) -> (u16, String) {
        healthz_at(self.healthz_addr())
    }
}

impl Drop for ControllerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            eprintln!("--- {}:\n{}", self.log.display(), self.log());
        }
    }
}
