//! A stand-in `nvidia-smi` for the stand-in NVML: `nvidia-smi -r -i <ids>` (a GPU reset), which
//! gpushare runs to apply a pending MIG mode, as mig-parted does, and `nvidia-smi -i <ids> -c
//! <mode>` (a compute mode), which NVIDIA's MPS control daemon runs before it starts a daemon,
//! and `nvidia-smi compute-policy -i <ids> --set-timeslice <0-3>` (the time-slice of a GPU's
//! contexts), which NVIDIA's DRA driver runs for a claim with a time-slicing config; the
//! interval is recorded in the log, which is what a test reads (NVML has no query for it).
//!
//! The reset follows the simulator's rules (no reset while processes or services hold the GPU;
//! none where resets are not possible), and also what the driver does with NVML clients: it is
//! refused while any other live process holds the stand-in NVML initialised. Every run is
//! logged to `NVML_STANDIN_LOG` like an NVML call (`"fn": "nvidia-smi"`).

use gpushare::node::backend::sim::state::SimState;
use gpushare::node::backend::{DeviceRef, DriverErrorKind};
use gpushare::node::model::ComputeMode;
use nvml_standin::{LOG_ENV, STATE_ENV, holders, log, node};
use std::process::ExitCode;

/// nvidia-smi's exit codes.
const INVALID_ARGUMENT: u8 = 2;
const NOT_SUPPORTED: u8 = 3;
const NOT_FOUND: u8 = 6;
const DRIVER_NOT_LOADED: u8 = 9;
const OTHER: u8 = 255;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (code, text) = run(&args);
    if let Some(path) = std::env::var_os(LOG_ENV).filter(|p| !p.is_empty()) {
        let ret = if code == 0 { "SUCCESS" } else { "FAILED" };
        log::append(
            &path,
            &log::program_entry("nvidia-smi", &args, ret, Some(&text)),
        );
    }
    if code == 0 {
        println!("{text}");
    } else {
        eprintln!("{text}");
    }
    ExitCode::from(code)
}

/// What a run asks for.
enum Verb {
    Reset,
    ComputeMode(ComputeMode),
    /// 0 (default), 1 (short), 2 (medium) or 3 (long).
    TimeSlice(u8),
}

/// The verb and the GPUs `-i` names (bus ids, indexes or UUIDs, comma-separated).
fn parse(args: &[String]) -> Result<(Verb, String), (u8, String)> {
    let usage = || {
        (
            INVALID_ARGUMENT,
            "this stand-in nvidia-smi knows only `nvidia-smi -r -i <ids>`, \
             `nvidia-smi -i <ids> -c <mode>` and \
             `nvidia-smi compute-policy -i <ids> --set-timeslice <0-3>`"
                .to_string(),
        )
    };
    let mut verb = None;
    let mut ids = None;
    let compute_policy = args.first().map(String::as_str) == Some("compute-policy");
    let mut it = args.iter().skip(usize::from(compute_policy));
    while let Some(a) = it.next() {
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let mut value = || inline.clone().or_else(|| it.next().cloned());
        match flag {
            "-r" | "--gpu-reset" => verb = Some(Verb::Reset),
            "-i" | "--id" => ids = value(),
            "-c" | "--compute-mode" => {
                let mode = match value().as_deref() {
                    Some("0" | "DEFAULT") => ComputeMode::Default,
                    Some("2" | "PROHIBITED") => ComputeMode::Prohibited,
                    Some("3" | "EXCLUSIVE_PROCESS") => ComputeMode::ExclusiveProcess,
                    _ => return Err(usage()),
                };
                verb = Some(Verb::ComputeMode(mode));
            }
            "--set-timeslice" if compute_policy => {
                let Some(n) = value()
                    .and_then(|v| v.parse::<u8>().ok())
                    .filter(|n| *n <= 3)
                else {
                    return Err((
                        INVALID_ARGUMENT,
                        "Invalid timeslice value: it is 0 (default), 1 (short), 2 (medium) or 3 (long)"
                            .into(),
                    ));
                };
                verb = Some(Verb::TimeSlice(n));
            }
            _ => return Err(usage()),
        }
    }
    match (verb, ids) {
        (Some(verb), Some(ids)) if !ids.is_empty() => Ok((verb, ids)),
        _ => Err(usage()),
    }
}

fn run(args: &[String]) -> (u8, String) {
    let (verb, ids) = match parse(args) {
        Ok(parsed) => parsed,
        Err(e) => return e,
    };
    let Ok(path) = node::path() else {
        return (
            DRIVER_NOT_LOADED,
            format!(
                "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver ({STATE_ENV} is not set)"
            ),
        );
    };
    let mut state = match node::load(&path) {
        Ok(s) => s,
        Err(e) => return (OTHER, e.detail.unwrap_or_default()),
    };
    let mut indexes = Vec::new();
    for id in ids.split(',').map(str::trim) {
        let index = match id.parse::<usize>() {
            Ok(i) => (i < state.gpus.len()).then_some(i),
            Err(_) => state
                .gpus
                .iter()
                .position(|g| g.pci_bus_id.eq_ignore_ascii_case(id) || g.uuid == id),
        };
        match index {
            Some(i) => indexes.push(i as u32),
            None => return (NOT_FOUND, format!("No devices were found matching `{id}`")),
        }
    }
    match verb {
        Verb::ComputeMode(mode) => return compute_mode(&path, &mut state, &indexes, mode),
        Verb::TimeSlice(n) => return time_slice(&state, &indexes, n),
        Verb::Reset => {}
    }
    let buses: Vec<String> = state.gpus.iter().map(|g| g.pci_bus_id.clone()).collect();
    let bus = |i: u32| buses[i as usize].clone();
    let others = holders::others(&path);
    if !others.is_empty() {
        let pids: Vec<String> = others.iter().map(u32::to_string).collect();
        let lines: Vec<String> = indexes
            .iter()
            .map(|&i| format!("Unable to reset GPU {}: In use by another client", bus(i)))
            .collect();
        return (
            OTHER,
            format!(
                "{}\n{} device(s) are currently being used by one or more other processes (NVML clients: pid {}). Please first kill all processes using the device(s) and retry.",
                lines.join("\n"),
                indexes.len(),
                pids.join(", ")
            ),
        );
    }
    if let Err(e) = state.reset_gpus(&indexes) {
        let code = match e.kind {
            DriverErrorKind::NotSupported => NOT_SUPPORTED,
            _ => OTHER,
        };
        let why = match e.kind {
            DriverErrorKind::InUse => format!("In use by another client: {}", e.detail),
            DriverErrorKind::NotSupported => format!("Not Supported: {}", e.detail),
            _ => e.detail,
        };
        return (code, format!("GPU reset failed: {why}"));
    }
    if let Err(e) = node::save(&path, &mut state) {
        return (OTHER, e.detail.unwrap_or_default());
    }
    let done: Vec<String> = indexes
        .iter()
        .map(|&i| format!("GPU {} was successfully reset.", bus(i)))
        .collect();
    (0, format!("{}\nAll done.", done.join("\n")))
}

/// `compute-policy --set-timeslice`: as root only; what was set is the log's record.
fn time_slice(state: &SimState, indexes: &[u32], n: u8) -> (u8, String) {
    if nvml_standin::switches::non_root() {
        return (4, "Insufficient Permissions".into());
    }
    let done: Vec<String> = indexes
        .iter()
        .map(|&i| {
            format!(
                "Set timeslice to {n} for GPU {}.",
                state.gpus[i as usize].pci_bus_id
            )
        })
        .collect();
    (0, format!("{}\nAll done.", done.join("\n")))
}

/// `-c`: set the GPUs' compute mode, as root only (nvidia-smi's rule).
fn compute_mode(
    path: &std::path::Path,
    state: &mut SimState,
    indexes: &[u32],
    mode: ComputeMode,
) -> (u8, String) {
    if nvml_standin::switches::non_root() {
        return (4, "Insufficient Permissions".into());
    }
    let mut done = Vec::new();
    for &i in indexes {
        if let Err(e) = state.set_compute_mode(DeviceRef::Gpu(i), mode) {
            let code = match e.kind {
                DriverErrorKind::NotSupported => NOT_SUPPORTED,
                _ => OTHER,
            };
            return (
                code,
                format!("Unable to set the compute mode of GPU {i}: {}", e.detail),
            );
        }
        let bus = &state.gpus[i as usize].pci_bus_id;
        done.push(format!(
            "Set compute mode to {} for GPU {bus}.",
            mode.as_str().to_ascii_uppercase()
        ));
    }
    if let Err(e) = node::save(path, state) {
        return (OTHER, e.detail.unwrap_or_default());
    }
    (0, format!("{}\nAll done.", done.join("\n")))
}
