//! Fault injection for the simulator, so tests can prove that a re-run converges:
//!
//! - `GPUSHARE_SIM_FAIL=<op>:<n>[,<op>:<n>…]` makes the n-th call of that operation in this
//!   process fail;
//! - `GPUSHARE_SIM_CRASH=<op>:<n>[:abort|kill|term|int]`: once the n-th call of that operation is
//!   made and saved, the process gets SIGABRT (a crash, the default), SIGKILL (`kill -9`),
//!   SIGTERM (`kill`) or SIGINT (Ctrl-C);
//! - `GPUSHARE_SIM_DELAY_MS=<ms>`: every changing operation takes that long (a slow driver, for
//!   tests of commands that run at the same time).

use crate::node::backend::{DriverError, DriverErrorKind};
use crate::support::error::{Error, Result};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

pub(crate) const ENV: &str = "GPUSHARE_SIM_FAIL";
pub(crate) const CRASH_ENV: &str = "GPUSHARE_SIM_CRASH";
pub(crate) const DELAY_ENV: &str = "GPUSHARE_SIM_DELAY_MS";

/// The operations that can be made to fail: the driver's, and the steps gpushare takes outside
/// it ([`HostEvents::before_step`](crate::node::backend::host_events::HostEvents::before_step)). `start_mps_daemon` is
/// the daemon's launch (a crash after it leaves a daemon without its record), `stop_mps_daemon`
/// its `quit` (a crash after it leaves a record of a daemon that is gone). The GPU clients'
/// steps (`stop_service`…) fail before their program runs and crash once it ran.
pub(crate) const OPERATIONS: [&str; 16] = [
    "set_mig_mode",
    "reset",
    "create_gpu_instance",
    "create_compute_instance",
    "destroy_compute_instance",
    "destroy_gpu_instance",
    "set_compute_mode",
    "start_mps_daemon",
    "stop_mps_daemon",
    "enable_sriov",
    "create_vgpu",
    "remove_vgpu",
    "stop_service",
    "start_service",
    "unload_module",
    "load_module",
];

#[derive(Debug, Default)]
pub(super) struct Faults {
    /// op -> the call numbers (1-based) that fail.
    planned: BTreeMap<&'static str, Vec<u32>>,
    /// Calls made in this process, on every thread.
    calls: Mutex<BTreeMap<&'static str, u32>>,
    crash: Option<Crash>,
    delay: Option<std::time::Duration>,
}

/// The signal to raise after a call: `GPUSHARE_SIM_CRASH`.
#[derive(Debug)]
struct Crash {
    op: &'static str,
    call: u32,
    signal: libc::c_int,
    made: AtomicU32,
}

fn operation(name: &str) -> Option<&'static str> {
    OPERATIONS.iter().find(|o| **o == name.trim()).copied()
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

impl Faults {
    pub(super) fn from_env() -> Result<Self> {
        let mut faults = match env(ENV) {
            Some(spec) => Self::parse(&spec)?,
            None => Faults::default(),
        };
        if let Some(spec) = env(CRASH_ENV) {
            faults.crash = Some(parse_crash(&spec)?);
        }
        if let Some(ms) = env(DELAY_ENV) {
            let ms: u64 = ms.trim().parse().map_err(|_| {
                Error::usage(format!(
                    "{DELAY_ENV}: `{ms}` is not a number of milliseconds"
                ))
            })?;
            faults.delay = Some(std::time::Duration::from_millis(ms));
        }
        Ok(faults)
    }

    /// Before a changing operation runs: the simulated driver's slowness.
    pub(super) fn wait(&self) {
        if let Some(d) = self.delay {
            std::thread::sleep(d);
        }
    }

    /// After `op` was made and recorded: raise the planned signal at the planned call (in the
    /// calling thread; the signal trap sees it like any other).
    pub(super) fn after(&self, op: &'static str) {
        let Some(crash) = &self.crash else { return };
        if crash.op != op {
            return;
        }
        if crash.made.fetch_add(1, Ordering::SeqCst) + 1 == crash.call {
            // SAFETY: raise(3) only sends a signal to this process; with a handler installed it
            // runs the handler and returns, otherwise the default action ends the process.
            unsafe {
                libc::raise(crash.signal);
            }
        }
    }

    pub(super) fn parse(spec: &str) -> Result<Self> {
        let mut faults = Faults::default();
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let bad = || {
                Error::usage(format!("{ENV}: `{item}` is not <operation>:<n>")).with_hint(format!(
                    "operations: {}; n counts calls from 1",
                    OPERATIONS.join(", ")
                ))
            };
            let (op, n) = item.split_once(':').ok_or_else(bad)?;
            let op = OPERATIONS
                .iter()
                .find(|o| **o == op.trim())
                .ok_or_else(bad)?;
            let n: u32 = n.trim().parse().map_err(|_| bad())?;
            if n == 0 {
                return Err(bad());
            }
            faults.planned.entry(op).or_default().push(n);
        }
        Ok(faults)
    }

    /// Count a call of `op`; fail it if it is one of the planned ones.
    pub(super) fn check(&self, op: &'static str) -> Result<(), DriverError> {
        let mut calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        let n = calls.entry(op).or_insert(0);
        *n += 1;
        if self.planned.get(op).is_some_and(|list| list.contains(n)) {
            return Err(DriverError::new(
                DriverErrorKind::Unknown,
                format!("injected failure of {op} call {n} ({ENV})"),
            ));
        }
        Ok(())
    }
}

/// `<op>:<n>[:abort|term|int]`.
fn parse_crash(spec: &str) -> Result<Crash> {
    let bad = || {
        Error::usage(format!(
            "{CRASH_ENV}: `{spec}` is not <operation>:<n>[:abort|kill|term|int]"
        ))
        .with_hint(format!(
            "operations: {}; n counts calls from 1",
            OPERATIONS.join(", ")
        ))
    };
    let mut parts = spec.trim().split(':');
    let op = parts.next().and_then(operation).ok_or_else(bad)?;
    let call: u32 = parts
        .next()
        .and_then(|n| n.trim().parse().ok())
        .filter(|n| *n > 0)
        .ok_or_else(bad)?;
    let signal = match parts.next().map(str::trim) {
        None | Some("abort") => libc::SIGABRT,
        Some("kill") => libc::SIGKILL,
        Some("term") => libc::SIGTERM,
        Some("int") => libc::SIGINT,
        Some(_) => return Err(bad()),
    };
    if parts.next().is_some() {
        return Err(bad());
    }
    Ok(Crash {
        op,
        call,
        signal,
        made: AtomicU32::new(0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fails_exactly_the_planned_call() {
        let f = Faults::parse("reset:2, create_gpu_instance:1").unwrap();
        assert!(f.check("reset").is_ok());
        assert!(f.check("reset").is_err());
        assert!(f.check("reset").is_ok());
        assert!(f.check("create_gpu_instance").is_err());
        assert!(f.check("set_mig_mode").is_ok());
    }

    #[test]
    fn crash_specs_name_an_operation_a_call_and_a_signal() {
        let c = parse_crash("create_gpu_instance:3").unwrap();
        assert_eq!(
            (c.op, c.call, c.signal),
            ("create_gpu_instance", 3, libc::SIGABRT)
        );
        assert_eq!(parse_crash("reset:1:term").unwrap().signal, libc::SIGTERM);
        assert_eq!(parse_crash("reset:1:int").unwrap().signal, libc::SIGINT);
        assert_eq!(
            parse_crash("start_mps_daemon:2:kill").unwrap().signal,
            libc::SIGKILL
        );
        for bad in [
            "reset",
            "reset:0",
            "explode:1",
            "reset:1:hup",
            "reset:1:term:x",
        ] {
            assert!(parse_crash(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn rejects_unknown_operations_and_counts() {
        assert!(Faults::parse("explode:1").is_err());
        assert!(Faults::parse("reset").is_err());
        assert!(Faults::parse("reset:0").is_err());
        assert!(Faults::parse("reset:x").is_err());
    }
}
