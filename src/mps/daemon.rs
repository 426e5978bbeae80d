//! Starting daemons, all or nothing.
//!
//! For each daemon: make its directories, set its devices to EXCLUSIVE_PROCESS, start
//! `nvidia-cuda-mps-control -d`, wait for it to answer, send the limits before any client can
//! connect, read them back, and write `settings.json`. When any step of any daemon fails, every
//! daemon this call started is stopped again, compute modes go back to what they were, and the
//! directories it made are removed: the node is left as it was found.

use super::control::{DaemonEnv, MpsControl, SendError, daemon_pid, seconds};
use super::dirs;
use super::query::{self, PING};
use super::settings::{self, DaemonSpec, compute_mode_of, daemon_dir};
use super::{MpsOptions, stop};
use crate::Context;
use crate::backend::DeviceRef;
use crate::error::{Error, Result};
use crate::node::{ComputeMode, Node};
use std::path::Path;
use std::time::{Duration, Instant};

/// What `start_daemons` did for one daemon.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StartStatus {
    Started,
    /// It was running with the same settings: nothing to do.
    AlreadyRunning,
}

#[derive(Debug, Clone)]
pub struct Started {
    /// As recorded in `settings.json`.
    pub spec: DaemonSpec,
    pub status: StartStatus,
}

/// Start `specs` (see the module doc). Daemons already running with the same settings are left
/// alone; one running with other settings, or serving the same devices, is an error.
pub fn start_daemons(
    ctx: &mut Context,
    control: &MpsControl,
    specs: Vec<DaemonSpec>,
    opts: MpsOptions,
) -> Result<Vec<Started>> {
    let records = settings::load_all(&ctx.paths)?;
    let mut done = Vec::new();
    let mut todo = Vec::new();
    let mut stale: Vec<DaemonSpec> = Vec::new();
    // Look before changing anything.
    for spec in specs {
        let mut running_same = None;
        for record in &records {
            let same_name = record.name == spec.name;
            let overlap = spec.overlap(record);
            if !same_name && overlap.is_empty() {
                continue;
            }
            if control.send(&record.pipe_dir, PING).is_err() {
                if !same_name {
                    // Its devices were left in EXCLUSIVE_PROCESS: `stop` is what cleans up.
                    return Err(Error::failed(format!(
                        "{} {} recorded for the MPS daemon `{}`, which does not answer",
                        overlap.join(", "),
                        if overlap.len() == 1 { "is" } else { "are" },
                        record.name
                    ))
                    .with_hint(format!(
                        "`gpushare mps stop --gpu {}` clears its record and restores the compute mode",
                        gpu_list(record)
                    )));
                }
                if !stale.iter().any(|s| s.name == record.name) {
                    stale.push(record.clone());
                }
                continue;
            }
            if same_name && record.same_settings(&spec) {
                running_same = Some(record.clone());
            } else if same_name {
                return Err(Error::failed(format!(
                    "the MPS daemon `{}` already runs with other settings ({})",
                    record.name,
                    settings_summary(record)
                ))
                .with_hint(format!(
                    "stop it first with `gpushare mps stop --gpu {}`, then start it again",
                    gpu_list(record)
                )));
            } else {
                return Err(Error::failed(format!(
                    "{} {} already served by the MPS daemon `{}` (pipe dir {})",
                    overlap.join(", "),
                    if overlap.len() == 1 { "is" } else { "are" },
                    record.name,
                    record.pipe_dir.display()
                ))
                .with_hint(format!(
                    "stop it with `gpushare mps stop --gpu {}`, or select other GPUs",
                    gpu_list(record)
                )));
            }
        }
        if let Some(record) = running_same {
            done.push(Started {
                spec: record,
                status: StartStatus::AlreadyRunning,
            });
            continue;
        }
        let recorded_pipe = stale.iter().any(|s| s.pipe_dir == spec.pipe_dir);
        if !recorded_pipe && control.send(&spec.pipe_dir, PING).is_ok() {
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
        todo.push(spec);
    }
    if todo.is_empty() {
        return Ok(done);
    }
    let node = ctx.snapshot()?;
    warn_about_processes(ctx, &node, &todo);
    for record in &stale {
        ctx.out.warn(format!(
            "the MPS daemon `{}` is recorded but does not answer: clearing its record",
            record.name
        ));
        for problem in remove_dirs(&ctx.paths, record) {
            ctx.out.warn(problem);
        }
    }
    let mut started: Vec<DaemonSpec> = Vec::new();
    for mut spec in todo {
        inherit_previous_modes(&mut spec, &stale);
        let mut undo = Undo::default();
        match try_start(ctx, control, &mut spec, &node, &mut undo) {
            Ok(()) => started.push(spec),
            Err(e) => {
                undo.run(ctx, control, &spec, opts);
                for other in started.iter().rev() {
                    stop::take_down(ctx, control, other, opts);
                }
                return Err(e);
            }
        }
    }
    done.extend(started.into_iter().map(|spec| Started {
        spec,
        status: StartStatus::Started,
    }));
    done.sort_by(|a, b| a.spec.name.cmp(&b.spec.name));
    Ok(done)
}

/// `threads 25%, GPU 0 3840 MiB, …`: what a record holds, for messages.
pub fn settings_summary(spec: &DaemonSpec) -> String {
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
pub fn gpu_list(spec: &DaemonSpec) -> String {
    let mut gpus: Vec<u32> = spec.devices.iter().map(|d| d.gpu).collect();
    gpus.dedup();
    gpus.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// A stale record's devices were left in EXCLUSIVE_PROCESS by its daemon: the mode to go back
/// to is the one that record saved.
fn inherit_previous_modes(spec: &mut DaemonSpec, stale: &[DaemonSpec]) {
    for device in &mut spec.devices {
        let saved = stale
            .iter()
            .flat_map(|s| s.devices.iter())
            .find(|d| d.uuid == device.uuid)
            .and_then(|d| d.previous_compute_mode);
        if saved.is_some() {
            device.previous_compute_mode = saved;
        }
    }
}

fn warn_about_processes(ctx: &Context, node: &Node, specs: &[DaemonSpec]) {
    for device in specs.iter().flat_map(|s| s.devices.iter()) {
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
            ctx.out.warn(format!(
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
    fn run(self, ctx: &mut Context, control: &MpsControl, spec: &DaemonSpec, opts: MpsOptions) {
        if self.daemon_started {
            let pid = self.daemon_pid.or_else(|| daemon_pid(&spec.pipe_dir));
            if let Err(e) = stop::quit_and_wait(control, spec, pid, opts, true) {
                ctx.out.warn(e.message);
            }
        }
        for (device, mode) in self.modes.into_iter().rev() {
            if let Err(e) = ctx
                .backend()
                .and_then(|b| b.set_compute_mode(device, mode).map_err(Error::from))
            {
                ctx.out.warn(format!(
                    "cannot put {device} back to {} compute mode: {}",
                    mode.as_str(),
                    e.message
                ));
            }
        }
        let mut spec = spec.clone();
        spec.created_dirs = self.created_dirs;
        for problem in remove_dirs(&ctx.paths, &spec) {
            ctx.out.warn(problem);
        }
    }
}

/// Remove what gpushare made for a daemon (its own directory, and the given pipe and log
/// directories when it made them); returns what could not be removed.
pub fn remove_dirs(paths: &crate::paths::Paths, spec: &DaemonSpec) -> Vec<String> {
    dirs::remove(
        &daemon_dir(paths, &spec.name),
        &[spec.pipe_dir.as_path(), spec.log_dir.as_path()],
        &spec.created_dirs,
    )
}

fn try_start(
    ctx: &mut Context,
    control: &MpsControl,
    spec: &mut DaemonSpec,
    node: &Node,
    undo: &mut Undo,
) -> Result<()> {
    let home = daemon_dir(&ctx.paths, &spec.name);
    crate::fsutil::own_dir(&ctx.paths.run_dir(), crate::lock::RUN_DIR_MODE)?;
    crate::fsutil::own_dir(&super::settings::mps_dir(&ctx.paths), dirs::MPS_DIR_MODE)?;
    let modes = dirs::Modes::of(spec.multiuser);
    for (dir, mode) in [
        (home.clone(), modes.home),
        (spec.pipe_dir.clone(), modes.pipe),
        (spec.log_dir.clone(), modes.log),
    ] {
        let created = dirs::make_dirs(&dir, mode).map_err(|e| unusable_dir(&dir, &e))?;
        undo.created_dirs.extend(created);
        // The root daemon makes its sockets and logs there: no one else may plant anything.
        crate::fsutil::check_own_dir(&dir)?;
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
        let previous = *device.previous_compute_mode.get_or_insert(current);
        ctx.backend()?
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
    undo.daemon_pid = daemon_pid(&spec.pipe_dir);
    send_limits(control, spec).map_err(|e| e.with_hint(log_hint.clone()))?;
    spec.created_dirs = undo.created_dirs.clone();
    spec.write(&ctx.paths)
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
