//! A stand-in `nvidia-smi` for the stand-in NVML: only `nvidia-smi -r -i <ids>` (a GPU reset),
//! which gpushare runs to apply a pending MIG mode, as mig-parted does.
//!
//! The reset follows the simulator's rules (no reset while processes or services hold the GPU;
//! none where resets are not possible), and also what the driver does with NVML clients: it is
//! refused while any other live process holds the stand-in NVML initialised. Every run is
//! logged to `NVML_STANDIN_LOG` like an NVML call (`"fn": "nvidia-smi"`).

use gpushare::backend::DriverErrorKind;
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

/// The GPUs `-i` names (bus ids or indexes, comma-separated).
fn targets(args: &[String]) -> Result<String, (u8, String)> {
    let usage = || {
        (
            INVALID_ARGUMENT,
            "this stand-in nvidia-smi knows only `nvidia-smi -r -i <bus ids or indexes>`"
                .to_string(),
        )
    };
    let reset = args.iter().any(|a| a == "-r" || a == "--gpu-reset");
    let mut ids = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "-i" || a == "--id" {
            ids = it.next().cloned();
        } else if let Some(v) = a.strip_prefix("--id=") {
            ids = Some(v.to_string());
        }
    }
    match (reset, ids) {
        (true, Some(ids)) if !ids.is_empty() => Ok(ids),
        _ => Err(usage()),
    }
}

fn run(args: &[String]) -> (u8, String) {
    let ids = match targets(args) {
        Ok(ids) => ids,
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
                .position(|g| g.pci_bus_id.eq_ignore_ascii_case(id)),
        };
        match index {
            Some(i) => indexes.push(i as u32),
            None => return (NOT_FOUND, format!("No devices were found matching `{id}`")),
        }
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
