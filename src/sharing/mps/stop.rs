//! Stopping daemons: refuse while clients are connected (unless forced), `quit`, wait for the
//! daemon to go, put the compute mode back to DEFAULT, remove the directories gpushare made.

use super::DaemonHost;
use super::MpsOptions;
use super::control::{MpsControl, SendError, daemon_pid, seconds};
use super::process;
use super::query::{self, Client, DaemonState, PING};
use super::settings::DaemonSpec;
use crate::node::backend::DriverErrorKind;
use crate::node::model::ComputeMode;
use crate::support::error::{Error, Result};
use std::time::{Duration, Instant};

/// The command name the control daemon runs under (`/proc/<pid>/comm` keeps 15 characters).
/// gpushare signals a pid from a pid file only when it carries this name: pids are reused.
const DAEMON_COMM: &str = "nvidia-cuda-mps";

/// What stopping a daemon did.
#[derive(Debug, Clone)]
pub(crate) struct Stopped {
    /// Clients ended with `terminate_client` (`--force`).
    pub terminated_clients: Vec<Client>,
}

/// Stop the daemon of `record`. Nothing changes while a client is connected to it, unless
/// `opts.force`.
pub(crate) fn stop_daemon(
    host: &DaemonHost,
    control: &MpsControl,
    record: &DaemonSpec,
    opts: MpsOptions,
) -> Result<Stopped> {
    let state = query::query(control, record);
    if !opts.force && state.clients().next().is_some() {
        let clients: Vec<String> = state.clients().map(Client::describe).collect();
        return Err(Error::failed(format!(
            "MPS clients are connected to `{}`: {}",
            record.name,
            clients.join(", ")
        ))
        .with_hint(
            "stop them first, or pass --force to end them (terminate_client) and stop anyway",
        ));
    }
    host.events.before_step("stop_mps_daemon")?;
    stop_one(host, control, record, &state, opts)
}

fn stop_one(
    host: &DaemonHost,
    control: &MpsControl,
    record: &DaemonSpec,
    state: &DaemonState,
    opts: MpsOptions,
) -> Result<Stopped> {
    let mut terminated = Vec::new();
    if state.running {
        if opts.force {
            terminated = end_clients(host, control, record, state);
        }
        quit_and_wait(control, record, state.pid, opts, opts.force)?;
        // A crash from here leaves the record of a daemon that is gone.
        host.events.after_step("stop_mps_daemon");
    }
    for device in &record.devices {
        let target = device.device_ref();
        match host.backend.set_compute_mode(target, ComputeMode::Default) {
            Ok(()) => {}
            Err(e) if e.kind == DriverErrorKind::NotFound => host.out.warn(format!(
                "{target} ({}) no longer exists: no compute mode to restore",
                device.uuid
            )),
            Err(e) => {
                return Err(Error::from(e)
                    .context(format!("cannot put {target} back to default compute mode"))
                    .with_hint("fix the cause and run `gpushare mps stop` again"));
            }
        }
    }
    for problem in record.remove_dirs(host.paths) {
        host.out.warn(problem);
    }
    Ok(Stopped {
        terminated_clients: terminated,
    })
}

/// `terminate_client` every client, then `shutdown_server -f` every server (the supported way to
/// end MPS work: a killed client leaves the server in an undefined state).
fn end_clients(
    host: &DaemonHost,
    control: &MpsControl,
    record: &DaemonSpec,
    state: &DaemonState,
) -> Vec<Client> {
    let mut ended = Vec::new();
    for server in &state.servers {
        for client in &server.clients {
            let command = format!("terminate_client {} {}", server.pid, client.pid);
            match control.send(&record.pipe_dir, &command) {
                Ok(_) => ended.push(client.clone()),
                Err(e) => host.out.warn(format!("`{command}`: {e}")),
            }
        }
        let command = format!("shutdown_server {} -f", server.pid);
        if let Err(e) = control.send(&record.pipe_dir, &command) {
            host.out.warn(format!("`{command}`: {e}"));
        }
    }
    ended
}

/// Send `quit` and wait for the daemon to go. With `kill_if_stuck`, a daemon still there after
/// the timeout gets SIGTERM, then SIGKILL.
pub(crate) fn quit_and_wait(
    control: &MpsControl,
    spec: &DaemonSpec,
    pid: Option<u32>,
    opts: MpsOptions,
    kill_if_stuck: bool,
) -> Result<()> {
    let pid = pid
        .or_else(|| daemon_pid(&spec.pipe_dir))
        .filter(|p| process::name(*p).is_some_and(|n| n.starts_with(DAEMON_COMM)));
    match control.send(&spec.pipe_dir, "quit") {
        Ok(_) | Err(SendError::Timeout(_)) => {}
        // Nobody listens: it is gone already.
        Err(SendError::NoDaemon(_)) => return Ok(()),
        Err(e @ SendError::Spawn(_)) => return Err(Error::failed(e.to_string())),
    }
    let gone = || match pid {
        Some(p) => !process::alive(p),
        None => control.send(&spec.pipe_dir, PING).is_err(),
    };
    if wait_until(opts.timeout, gone) {
        return Ok(());
    }
    if kill_if_stuck && let Some(p) = pid {
        process::signal(p, false);
        if wait_until(Duration::from_secs(2), || !process::alive(p)) {
            return Ok(());
        }
        process::signal(p, true);
        if wait_until(Duration::from_secs(2), || !process::alive(p)) {
            return Ok(());
        }
    }
    let which = pid.map_or(String::new(), |p| format!(" (pid {p})"));
    Err(Error::failed(format!(
        "the MPS daemon `{}`{which} did not exit within {} after `quit`",
        spec.name,
        seconds(opts.timeout)
    ))
    .with_hint(if kill_if_stuck {
        "it ignores signals: check `dmesg` and the daemon's control.log; a GPU reset may be needed"
    } else {
        "its servers may be waiting for clients; `gpushare mps stop --force` ends them"
    }))
}

fn wait_until(timeout: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        if done() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
}
