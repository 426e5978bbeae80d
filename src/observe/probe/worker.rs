//! `gpushare __probe-worker`: one probe client, started by `gpushare probe` (the argument is
//! recognised before the command line is parsed, so it is in no help text or completion). It reads a [`Request`] on stdin, measures
//! its device and reports on stdout (see [`super::protocol`]). Every CUDA call of gpushare
//! happens in this process, so a driver crash or hang costs one target, not the whole probe, and
//! each target gets its own `CUDA_VISIBLE_DEVICES` / MPS environment.

use super::cuda;
use super::measure::{self, Events};
use super::protocol::{Failure, GO, Message, Request, Step};
use crate::support::error::Exit;
use std::io::{BufRead, Write};

/// The first argument that makes the binary a probe worker.
pub(crate) const ARG: &str = "__probe-worker";

pub(crate) fn run() -> Exit {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut line = String::new();
    if input.read_line(&mut line).is_err() || line.trim().is_empty() {
        return fail(
            Failure::other(Step::Context, "no request on stdin"),
            Exit::Usage,
        );
    }
    let request: Request = match serde_json::from_str(line.trim()) {
        Ok(r) => r,
        Err(e) => {
            return fail(
                Failure::other(Step::Context, format!("bad request: {e}")),
                Exit::Usage,
            );
        }
    };
    if !cuda::library_present() {
        return fail(no_library(), Exit::NoDriver);
    }
    if let Some(old) = driver_too_old() {
        return fail(old, Exit::NoDriver);
    }
    let mut events = StdioEvents { input };
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        measure::run(&request, &mut events)
    }));
    match outcome {
        Ok(Ok(measurement)) => {
            send(&Message::Result {
                measurement: Box::new(measurement),
            });
            Exit::Ok
        }
        Ok(Err(failure)) => {
            let exit = match &failure.cuda {
                Some(e) if e.is_no_driver() => Exit::NoDriver,
                _ => Exit::Failed,
            };
            fail(failure, exit)
        }
        Err(panic) => {
            let text = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            fail(
                Failure::other(
                    Step::Context,
                    format!("internal error in the worker: {text}"),
                ),
                Exit::Failed,
            )
        }
    }
}

/// The failure the probe reports when no libcuda can be loaded.
pub(crate) fn no_library() -> Failure {
    Failure {
        step: Step::Context,
        message: "no CUDA driver: libcuda.so.1 cannot be loaded".into(),
        hint: Some(
            "install the NVIDIA driver (it ships libcuda.so.1) or add its directory to LD_LIBRARY_PATH"
                .into(),
        ),
        cuda: None,
    }
}

/// The failure the probe reports when libcuda lacks a call it makes (a driver older than CUDA
/// 11.4); `None` when every call is there. Only call when the library loads.
pub(crate) fn driver_too_old() -> Option<Failure> {
    let missing = cuda::missing_symbols();
    (!missing.is_empty()).then(|| Failure {
        step: Step::Context,
        message: format!(
            "the NVIDIA driver is too old: libcuda lacks {}",
            missing.join(", ")
        ),
        hint: Some("upgrade the NVIDIA driver (the probe needs CUDA 11.4 or later)".into()),
        cuda: None,
    })
}

fn fail(failure: Failure, exit: Exit) -> Exit {
    send(&Message::Failed { failure });
    exit
}

/// One protocol line on stdout. A parent that went away is no reason to stop measuring cleanly.
fn send(message: &Message) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", message.to_line()).and_then(|_| out.flush());
}

struct StdioEvents<R: BufRead> {
    input: R,
}

impl<R: BufRead> Events for StdioEvents<R> {
    fn step(&mut self, step: Step) {
        send(&Message::Step { step });
    }

    fn ready_and_wait(&mut self) -> Result<(), String> {
        send(&Message::Ready);
        let mut line = String::new();
        match self.input.read_line(&mut line) {
            Ok(n) if n > 0 && line.trim() == GO => Ok(()),
            Ok(0) => Err("the probe stopped before the clients started".into()),
            Ok(_) => Err(format!("expected `{GO}`, got `{}`", line.trim())),
            Err(e) => Err(format!("cannot read stdin: {e}")),
        }
    }
}
