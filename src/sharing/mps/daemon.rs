//! Starting one daemon, all or nothing: make its directories, record what the start is about
//! to do (`starting.json`), set its devices to EXCLUSIVE_PROCESS, start
//! `nvidia-cuda-mps-control -d`, wait for it to answer, send the limits before any client can
//! connect, read them back, and write `settings.json`. When any of these fails, the daemon is
//! stopped again, compute modes go back to what they were, and the directories it made are
//! removed: the node is left as it was found. Which daemons to start, stop or keep is the MPS
//! planner's to say (`crate::change::pipeline::planner::mps`).

use super::DaemonHost;
use super::control::{DaemonEnv, MpsControl, SendError, daemon_pid, seconds};
use super::dirs;
use super::query::{self, PING};
use super::settings::{DaemonSpec, compute_mode_of, daemon_dir};
use super::{MpsOptions, stop};
use crate::node::backend::DeviceRef;
use crate::node::model::{ComputeMode, Node};
use crate::support::error::{Error, Result};
use std::path::Path;
use std::time::{Duration, Instant};

/// Start the daemon of `spec`; returns it as recorded in `settings.json`. A daemon gpushare did
/// not start listening in its pipe directory is an error.
pub(crate) fn start_daemon(
    host: &DaemonHost,
    control: &MpsControl,
    mut spec: DaemonSpec,
    opts: MpsOptions,
) -> Result<DaemonSpec> {
    if control.send(&spec.pipe_dir, PING).is_ok() {
        return Err(Error::failed(format!(
            "an MPS daemon that gpushare did not start already listens in {}",
            spec.pipe_dir.display()
        ))
        .with_hint(format!(
            "stop it (`echo quit | CUDA_MPS_PIPE_DIRECTORY={} {}`) or choose another --pipe-dir",
            spec.pipe_dir.display(),
            super::control::PROGRAM
        )));
    }
    let node = host.backend.snapshot()?;
    warn_about_processes(host, &node, &spec);
    let mut undo = Undo::default();
    match try_start(host, control, &mut spec, &node, &mut undo) {
        Ok(()) => Ok(spec),
        Err(e) => {
            undo.run(host, control, &spec, opts);
            Err(e)
        }
    }
}

/// `threads 25%, GPU 0 3840 MiB, …`: what a record holds, for messages.
pub(crate) fn settings_summary(spec: &DaemonSpec) -> String {
    let threads = spec
        .thread_percentage
        .map_or("threads 100% (default)".to_string(), |p| {
            format!("threads {p}%")
        });
    let memory: Vec<String> = spec
        .devices
        .iter()
        .map(|d| match d.memory_limit_mib {
            Some(m) => format!("{} {m} MiB", d.describe()),
            None => format!("{} no memory limit", d.describe()),
        })
        .collect();
    format!("{threads}, {}", memory.join(", "))
}

/// `0,2`: the GPUs of a daemon, as `--gpu` takes them.
pub(crate) fn gpu_list(spec: &DaemonSpec) -> String {
    let mut gpus: Vec<u32> = spec.devices.iter().map(|d| d.gpu).collect();
    gpus.dedup();
    gpus.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

fn warn_about_processes(host: &DaemonHost, node: &Node, spec: &DaemonSpec) {
    for device in &spec.devices {
        let Some(gpu) = node.gpu(device.gpu) else {
            continue;
        };
        let on_device: Vec<String> = gpu
            .processes_in(None)
            .filter(|p| match device.mig {
                None => true,
                Some(m) => {
                    p.gpu_instance_id == Some(m.gpu_instance_id)
                        && p.compute_instance_id
                            .is_none_or(|c| c == m.compute_instance_id)
                }
            })
            .map(|p| format!("{} (pid {})", p.name, p.pid))
            .collect();
        if !on_device.is_empty() {
            host.out.warn(format!(
                "{} runs {}: in exclusive_process mode MPS clients cannot use it until they exit",
                device.describe(),
                on_device.join(", ")
            ));
        }
    }
}

/// What a failed start has to take back, in reverse.
#[derive(Default)]
struct Undo {
    created_dirs: Vec<std::path::PathBuf>,
    modes: Vec<(DeviceRef, ComputeMode)>,
    daemon_pid: Option<u32>,
    daemon_started: bool,
}

impl Undo {
    fn run(self, host: &DaemonHost, control: &MpsControl, spec: &DaemonSpec, opts: MpsOptions) {
        if self.daemon_started {
            let pid = self.daemon_pid.or_else(|| daemon_pid(&spec.pipe_dir));
            if let Err(e) = stop::quit_and_wait(control, spec, pid, opts, true) {
                host.out.warn(e.message);
            }
        }
        for (device, mode) in self.modes.into_iter().rev() {
            if let Err(e) = host.backend.set_compute_mode(device, mode) {
                host.out.warn(format!(
                    "cannot put {device} back to {} compute mode: {}",
                    mode.as_str(),
                    Error::from(e).message
                ));
            }
        }
        let mut spec = spec.clone();
        spec.created_dirs = self.created_dirs;
        for problem in spec.remove_dirs(host.paths) {
            host.out.warn(problem);
        }
    }
}

fn try_start(
    host: &DaemonHost,
    control: &MpsControl,
    spec: &mut DaemonSpec,
    node: &Node,
    undo: &mut Undo,
) -> Result<()> {
    let home = daemon_dir(host.paths, &spec.name);
    crate::support::fsutil::own_dir(&host.paths.run_dir(), crate::support::paths::RUN_DIR_MODE)?;
    crate::support::fsutil::own_dir(&super::settings::mps_dir(host.paths), dirs::MPS_DIR_MODE)?;
    let modes = dirs::Modes::of(spec.multiuser);
    for (dir, mode) in [
        (home.clone(), modes.home),
        (spec.pipe_dir.clone(), modes.pipe),
        (spec.log_dir.clone(), modes.log),
    ] {
        let created = dirs::make_dirs(&dir, mode).map_err(|e| unusable_dir(&dir, &e))?;
        undo.created_dirs.extend(created);
        // The root daemon makes its sockets and logs there: no one else may plant anything.
        crate::support::fsutil::check_own_dir(&dir)?;
        dirs::check_writable(&dir).map_err(|e| unusable_dir(&dir, &e))?;
    }
    for device in &mut spec.devices {
        let target = device.device_ref();
        let current = compute_mode_of(node, target).ok_or_else(|| {
            Error::failed(format!(
                "{} ({}) is no longer on this node",
                target, device.uuid
            ))
            .with_hint("run `gpushare detect` and start again")
        })?;
        device.previous_compute_mode.get_or_insert(current);
    }
    // From here on the node changes: what the start is about to do is written first, so that
    // a start that dies half-way is found and undone by the next run (`settings::orphans`).
    spec.created_dirs = undo.created_dirs.clone();
    spec.write_starting(host.paths)?;
    for device in &spec.devices {
        let target = device.device_ref();
        let previous = device.previous_compute_mode.unwrap_or(ComputeMode::Default);
        host.backend
            .set_compute_mode(target, ComputeMode::ExclusiveProcess)
            .map_err(|e| {
                Error::from(e).context(format!("cannot set {target} to exclusive_process"))
            })?;
        undo.modes.push((target, previous));
    }
    let visible = spec.visible_devices();
    let env = DaemonEnv {
        pipe_dir: &spec.pipe_dir,
        log_dir: &spec.log_dir,
        visible_devices: &visible,
        multiuser: spec.multiuser,
    };
    let log_hint = format!(
        "see {} and {}",
        spec.log_dir.join("control.log").display(),
        home.join("start.out").display()
    );
    host.events.before_step("start_mps_daemon")?;
    undo.daemon_started = true;
    control
        .start_daemon(&env, &home.join("start.out"))
        .map_err(|e| {
            Error::failed(format!(
                "cannot start the MPS daemon `{}` for {}: {e}",
                spec.name,
                spec.describe_devices()
            ))
            .with_hint(log_hint.clone())
        })?;
    wait_for_answer(control, spec).map_err(|e| e.with_hint(log_hint.clone()))?;
    // A crash from here until the record is written leaves a daemon without one: the next run
    // finds it by its `starting.json` (`settings::orphans`).
    host.events.after_step("start_mps_daemon");
    undo.daemon_pid = daemon_pid(&spec.pipe_dir);
    send_limits(control, spec).map_err(|e| e.with_hint(log_hint.clone()))?;
    spec.write(host.paths)
}

fn unusable_dir(dir: &Path, e: &std::io::Error) -> Error {
    Error::failed(format!(
        "cannot use {} for the MPS daemon: {e}",
        dir.display()
    ))
    .with_hint("choose a writable directory with --pipe-dir/--log-dir, or run as root for /run")
}

/// `-d` returns before the daemon listens: ask until it answers.
fn wait_for_answer(control: &MpsControl, spec: &DaemonSpec) -> Result<()> {
    let deadline = Instant::now() + control.timeout();
    loop {
        let last = match control.send(&spec.pipe_dir, PING) {
            Ok(_) => return Ok(()),
            Err(e) => e,
        };
        if Instant::now() >= deadline || matches!(last, SendError::Timeout(_)) {
            return Err(Error::failed(format!(
                "the MPS daemon `{}` did not answer within {}: {last}",
                spec.name,
                seconds(control.timeout())
            )));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Send the limits, then read them back: a daemon that ignores a value must not pass for one
/// that applied it.
fn send_limits(control: &MpsControl, spec: &DaemonSpec) -> Result<()> {
    if let Some(p) = spec.thread_percentage {
        let command = format!("set_default_active_thread_percentage {p}");
        set(control, spec, &command)?;
        let reply = ask(control, spec, PING)?;
        if query::parse_percentage(&reply).is_none_or(|v| (v - f64::from(p)).abs() > 0.5) {
            return Err(rejected(spec, &command, &reply));
        }
    }
    for device in &spec.devices {
        let Some(limit) = device.memory_limit_mib else {
            continue;
        };
        // By ordinal: limits keyed by UUID are known not to apply (k8s-device-plugin #572).
        let command = format!(
            "set_default_device_pinned_mem_limit {} {limit}M",
            device.ordinal
        );
        set(control, spec, &command)?;
        let reply = ask(
            control,
            spec,
            &format!("get_default_device_pinned_mem_limit {}", device.ordinal),
        )?;
        let granularity = query::reported_granularity_mib(&reply);
        let applied = query::parse_reported_mib(&reply)
            .is_some_and(|got| got.abs_diff(limit) < granularity || got == limit);
        if !applied {
            return Err(rejected(spec, &command, &reply));
        }
    }
    Ok(())
}

fn ask(control: &MpsControl, spec: &DaemonSpec, command: &str) -> Result<String> {
    control.send(&spec.pipe_dir, command).map_err(|e| {
        Error::failed(format!(
            "the MPS daemon `{}` did not answer `{command}`: {e}",
            spec.name
        ))
    })
}

/// Send a `set_…` command; an answer that reads as an error is a rejection.
fn set(control: &MpsControl, spec: &DaemonSpec, command: &str) -> Result<()> {
    let reply = ask(control, spec, command)?;
    let lower = reply.to_ascii_lowercase();
    if [
        "error",
        "invalid",
        "fail",
        "unrecognized",
        "not supported",
        "usage",
    ]
    .iter()
    .any(|w| lower.contains(w))
    {
        return Err(rejected(spec, command, &reply));
    }
    Ok(())
}

fn rejected(spec: &DaemonSpec, command: &str, reply: &str) -> Error {
    let answer = if reply.is_empty() {
        "no value".to_string()
    } else {
        format!("`{reply}`")
    };
    Error::failed(format!(
        "the MPS daemon `{}` did not apply `{command}` (it answers {answer})",
        spec.name
    ))
}
