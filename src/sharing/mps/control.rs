//! `nvidia-cuda-mps-control`: start the control daemon, and send it one command at a time.
//!
//! Each command is a fresh run of the program with the command on its stdin; it prints the
//! daemon's answer and exits 0, or exits non-zero when no daemon listens in the pipe directory.
//! The program is found on `PATH`, so tests put a stand-in first.

use crate::support::error::{Error, Result};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub(crate) const PROGRAM: &str = "nvidia-cuda-mps-control";

/// The pid file the control daemon keeps in its pipe directory.
pub(crate) const PID_FILE: &str = "nvidia-cuda-mps-control.pid";

/// Variables of the caller's environment that would change a daemon's defaults, its devices or
/// its protocol behind gpushare's back (e.g. a stray `CUDA_MPS_ACTIVE_THREAD_PERCENTAGE`).
const DROPPED_VARIABLES: [&str; 6] = [
    "CUDA_VISIBLE_DEVICES",
    "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
    "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT",
    "CUDA_MPS_CLIENT_PRIORITY",
    "CUDA_MPS_PROTOCOL_VERSION",
    "CUDA_MPS_LOG_DIRECTORY",
];

/// The control program, found on `PATH`.
#[derive(Debug, Clone)]
pub(crate) struct MpsControl {
    program: PathBuf,
    timeout: Duration,
}

/// What a daemon is started with.
#[derive(Debug, Clone)]
pub(crate) struct DaemonEnv<'a> {
    pub pipe_dir: &'a Path,
    pub log_dir: &'a Path,
    /// `CUDA_VISIBLE_DEVICES`: UUIDs, in the order that defines the daemon's ordinals.
    pub visible_devices: &'a str,
    pub multiuser: bool,
}

/// Why a command got no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SendError {
    /// The program exited non-zero: no daemon listens in the pipe directory (its output says why).
    NoDaemon(String),
    /// No answer within the timeout; the program was killed.
    Timeout(Duration),
    /// The program could not be run.
    Spawn(String),
}

impl fmt::Display for SendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SendError::NoDaemon(output) if output.is_empty() => f.write_str("no daemon answered"),
            SendError::NoDaemon(output) => write!(f, "no daemon answered ({output})"),
            SendError::Timeout(t) => write!(f, "no answer within {}", seconds(*t)),
            SendError::Spawn(e) => write!(f, "cannot run {PROGRAM}: {e}"),
        }
    }
}

/// `2.5 s`, `10 s`.
pub(crate) fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s:.1} s")
    }
}

impl MpsControl {
    /// Find the program on `PATH`.
    pub(crate) fn find(timeout: Duration) -> Result<Self> {
        let program = which::which(PROGRAM).map_err(|_| {
            Error::failed(format!("{PROGRAM} is not on PATH")).with_hint(
                "it comes with the NVIDIA driver (package nvidia-compute-utils-<branch> or \
                     nvidia-utils); install it or add its directory to PATH",
            )
        })?;
        Ok(MpsControl { program, timeout })
    }

    /// A specific program (tests).
    #[cfg(test)]
    pub(crate) fn at(program: PathBuf, timeout: Duration) -> Self {
        MpsControl { program, timeout }
    }

    pub(crate) fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The program with the caller's environment, less [`DROPPED_VARIABLES`], plus `vars`.
    fn command(&self, args: &[&str], vars: &[(&str, &std::ffi::OsStr)]) -> duct::Expression {
        let mut env: Vec<(std::ffi::OsString, std::ffi::OsString)> = std::env::vars_os()
            .filter(|(k, _)| !DROPPED_VARIABLES.iter().any(|d| k == d))
            .filter(|(k, _)| !vars.iter().any(|(v, _)| k == v))
            .collect();
        env.extend(vars.iter().map(|(k, v)| (k.into(), (*v).to_owned())));
        duct::cmd(&self.program, args).full_env(env)
    }

    /// Start the control daemon in the background (`-d`). The program forks the daemon and
    /// returns; its output goes to `output` (a file, not a pipe: the daemon could keep a pipe open
    /// and we would wait for it forever). Returns the output on failure.
    pub(crate) fn start_daemon(
        &self,
        env: &DaemonEnv,
        output: &Path,
    ) -> std::result::Result<(), String> {
        let mut args = vec!["-d"];
        if env.multiuser {
            args.push("-multiuser-server");
        }
        let vars = [
            ("CUDA_MPS_PIPE_DIRECTORY", env.pipe_dir.as_os_str()),
            ("CUDA_MPS_LOG_DIRECTORY", env.log_dir.as_os_str()),
            (
                "CUDA_VISIBLE_DEVICES",
                std::ffi::OsStr::new(env.visible_devices),
            ),
        ];
        let expr = self
            .command(&args, &vars)
            .stdin_null()
            .stderr_to_stdout()
            .stdout_path(output)
            .unchecked();
        let handle = expr
            .start()
            .map_err(|e| format!("cannot run {}: {e}", self.program.display()))?;
        // Starting is not an answer of the daemon: a short --timeout does not cut it short.
        let limit = self.timeout.max(super::DEFAULT_TIMEOUT);
        let status = match handle.wait_timeout(limit) {
            Ok(Some(out)) => out.status,
            Ok(None) => {
                let _ = handle.kill();
                return Err(format!(
                    "`{PROGRAM} -d` did not return within {}",
                    seconds(limit)
                ));
            }
            Err(e) => return Err(format!("cannot wait for {PROGRAM}: {e}")),
        };
        if status.success() {
            return Ok(());
        }
        let text = crate::support::fsutil::read_own_text(output, 64 * 1024)
            .ok()
            .flatten()
            .unwrap_or_default();
        let text = text.trim();
        Err(match status.code() {
            Some(code) if text.is_empty() => format!("`{PROGRAM} -d` exited with status {code}"),
            Some(code) => format!("`{PROGRAM} -d` exited with status {code}: {text}"),
            None => format!("`{PROGRAM} -d` was killed by a signal"),
        })
    }

    /// Send one command to the daemon of `pipe_dir` and return its answer (trimmed).
    pub(crate) fn send(
        &self,
        pipe_dir: &Path,
        command: &str,
    ) -> std::result::Result<String, SendError> {
        let expr = self
            .command(&[], &[("CUDA_MPS_PIPE_DIRECTORY", pipe_dir.as_os_str())])
            .stdin_bytes(format!("{command}\n"))
            .stdout_capture()
            .stderr_capture()
            .unchecked();
        let handle = expr.start().map_err(|e| SendError::Spawn(e.to_string()))?;
        match handle.wait_timeout(self.timeout) {
            Ok(Some(out)) => {
                let stdout = String::from_utf8_lossy(&out.stdout).trim().to_string();
                if out.status.success() {
                    Ok(stdout)
                } else {
                    let stderr = String::from_utf8_lossy(&out.stderr);
                    let text = [stdout.as_str(), stderr.trim()]
                        .iter()
                        .filter(|s| !s.is_empty())
                        .copied()
                        .collect::<Vec<_>>()
                        .join("; ");
                    Err(SendError::NoDaemon(text))
                }
            }
            Ok(None) => {
                let _ = handle.kill();
                Err(SendError::Timeout(self.timeout))
            }
            Err(e) => Err(SendError::Spawn(e.to_string())),
        }
    }
}

/// The pid in a pipe directory's pid file, when there is one.
pub(crate) fn daemon_pid(pipe_dir: &Path) -> Option<u32> {
    crate::support::fsutil::read_own_text(&pipe_dir.join(PID_FILE), 64)
        .ok()
        .flatten()
        .and_then(|s| s.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn script(dir: &Path, body: &str) -> PathBuf {
        let path = dir.join(PROGRAM);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[test]
    fn an_answer_is_trimmed_and_the_pipe_dir_is_passed() {
        let dir = tempfile::tempdir().unwrap();
        let program = script(
            dir.path(),
            "read cmd; echo \"$CUDA_MPS_PIPE_DIRECTORY:$cmd\"",
        );
        let c = MpsControl::at(program, Duration::from_secs(5));
        assert_eq!(
            c.send(Path::new("/p"), "get_server_list").unwrap(),
            "/p:get_server_list"
        );
    }

    #[test]
    fn a_non_zero_exit_means_no_daemon() {
        let dir = tempfile::tempdir().unwrap();
        let program = script(
            dir.path(),
            "echo 'Cannot find MPS control daemon process'; exit 1",
        );
        let c = MpsControl::at(program, Duration::from_secs(5));
        assert_eq!(
            c.send(Path::new("/p"), "quit").unwrap_err(),
            SendError::NoDaemon("Cannot find MPS control daemon process".into())
        );
    }

    #[test]
    fn a_silent_daemon_times_out() {
        let dir = tempfile::tempdir().unwrap();
        let program = script(dir.path(), "exec sleep 30");
        let c = MpsControl::at(program, Duration::from_millis(200));
        assert!(matches!(
            c.send(Path::new("/p"), "quit"),
            Err(SendError::Timeout(_))
        ));
    }

    #[test]
    fn start_reports_the_output_of_a_failed_start() {
        let dir = tempfile::tempdir().unwrap();
        let program = script(dir.path(), "echo \"bad $1 $2\" >&2; exit 3");
        let c = MpsControl::at(program, Duration::from_secs(5));
        let env = DaemonEnv {
            pipe_dir: dir.path(),
            log_dir: dir.path(),
            visible_devices: "GPU-1",
            multiuser: true,
        };
        let err = c.start_daemon(&env, &dir.path().join("out")).unwrap_err();
        assert!(err.contains("status 3: bad -d -multiuser-server"), "{err}");
    }
}
