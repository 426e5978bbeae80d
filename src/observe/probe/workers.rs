//! The parent's side of the worker protocol: start `gpushare __probe-worker` processes, release a
//! group of them at once (after setup, and again at each step's barrier), and turn whatever
//! happens to them (a result, a driver error, a crash, a hang) into an outcome per client.
//! Nothing a worker does can stop the probe.

use super::protocol::{Failure, GO, Measurement, Message, Request, Step};
use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub(crate) type Outcome = Result<Measurement, Failure>;

/// One client: its request and environment.
#[derive(Debug, Clone)]
pub(crate) struct WorkerSpec {
    pub request: Request,
    pub env: Vec<(String, OsString)>,
    pub env_remove: Vec<String>,
}

/// How to start workers.
#[derive(Debug, Clone)]
pub(crate) struct Launcher {
    /// This very binary.
    pub exe: PathBuf,
    /// How long a worker may take for its setup, and again for its measurements.
    pub timeout: Duration,
    /// How long an MPS daemon may take to answer whether it is there.
    pub mps_timeout: Duration,
}

enum Event {
    Message(Message),
    Garbage(String),
    Closed,
}

struct Worker {
    child: Option<Child>,
    stdin: Option<ChildStdin>,
    stderr: Option<JoinHandle<String>>,
    step: Step,
    /// It said `ready` and waits for `go` (its clock stopped) since then.
    ready_since: Option<Instant>,
    closed: bool,
    outcome: Option<Outcome>,
    deadline: Instant,
}

impl Worker {
    /// Its stdout is closed: it said all it will say (or it never started).
    fn finished(&self) -> bool {
        self.closed || self.child.is_none()
    }

    /// Ready and waiting for `go`: its clock is stopped until the group goes on.
    fn waiting(&self) -> bool {
        self.ready_since.is_some() && self.stdin.is_some() && !self.finished()
    }

    fn running(&self) -> bool {
        !self.finished() && !self.waiting()
    }
}

impl Launcher {
    /// Run a group of clients: start them one after another (each finishes its setup, memory test
    /// included, before the next starts, so they do not race for memory), then release the ready
    /// ones together with `go` when there are several, and again each time every client still
    /// running waits at a step's barrier: the clients time each step at the same moment. Collect
    /// an outcome per client. `on_step(client, step)` reports progress.
    pub(crate) fn run_group(
        &self,
        specs: &[WorkerSpec],
        on_step: &mut dyn FnMut(usize, Step),
    ) -> Vec<Outcome> {
        let (tx, rx) = channel();
        let mut workers: Vec<Worker> = Vec::with_capacity(specs.len());
        for (i, spec) in specs.iter().enumerate() {
            workers.push(self.start(i, spec, tx.clone()));
            self.pump(&rx, &mut workers, on_step, |w| {
                w[i].ready_since.is_some() || w[i].finished()
            });
        }
        drop(tx);
        let mut setup = true;
        loop {
            let now = Instant::now();
            for w in workers.iter_mut().filter(|w| w.waiting()) {
                // The measurements get their own time; a wait at a barrier does not count.
                w.deadline = match w.ready_since {
                    Some(since) if !setup => w.deadline + now.saturating_duration_since(since),
                    _ => now + self.timeout,
                };
                w.ready_since = None;
                if let Some(stdin) = w.stdin.as_mut() {
                    let _ = writeln!(stdin, "{GO}").and_then(|_| stdin.flush());
                }
            }
            setup = false;
            self.pump(&rx, &mut workers, on_step, |w| {
                w.iter().all(|w| w.finished() || w.waiting())
            });
            if workers.iter().all(Worker::finished) {
                break;
            }
        }
        workers.into_iter().map(|w| self.outcome(w)).collect()
    }

    fn start(&self, index: usize, spec: &WorkerSpec, tx: Sender<(usize, Event)>) -> Worker {
        let mut cmd = Command::new(&self.exe);
        cmd.arg(crate::observe::probe::worker::ARG)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for key in &spec.env_remove {
            cmd.env_remove(key);
        }
        for (key, value) in &spec.env {
            cmd.env(key, value);
        }
        let deadline = Instant::now() + self.timeout;
        let mut worker = Worker {
            child: None,
            stdin: None,
            stderr: None,
            step: Step::Context,
            ready_since: None,
            closed: true,
            outcome: None,
            deadline,
        };
        let mut child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => {
                worker.outcome = Some(Err(Failure::other(
                    Step::Context,
                    format!("cannot start a probe worker ({}): {e}", self.exe.display()),
                )));
                return worker;
            }
        };
        let line = serde_json::to_string(&spec.request).unwrap_or_default();
        let mut stdin = child.stdin.take();
        if let Some(s) = stdin.as_mut() {
            let _ = writeln!(s, "{line}").and_then(|_| s.flush());
        }
        if spec.request.wait_for_go {
            worker.stdin = stdin;
        }
        if let Some(out) = child.stdout.take() {
            worker.closed = false;
            std::thread::spawn(move || read_messages(index, out, tx));
        }
        worker.stderr = child
            .stderr
            .take()
            .map(|err| std::thread::spawn(move || tail(err)));
        worker.child = Some(child);
        worker
    }

    /// Handle worker events until `done` holds; kill workers past their deadline.
    fn pump(
        &self,
        rx: &Receiver<(usize, Event)>,
        workers: &mut [Worker],
        on_step: &mut dyn FnMut(usize, Step),
        done: impl Fn(&[Worker]) -> bool,
    ) {
        while !done(workers) {
            let now = Instant::now();
            for w in workers
                .iter_mut()
                .filter(|w| w.running() && w.deadline <= now)
            {
                self.kill_late(w);
            }
            if done(workers) {
                return;
            }
            let next_deadline = workers
                .iter()
                .filter(|w| w.running())
                .map(|w| w.deadline)
                .min()
                .unwrap_or(now + self.timeout);
            let wait = next_deadline
                .saturating_duration_since(now)
                .max(Duration::from_millis(1));
            match rx.recv_timeout(wait) {
                Ok((i, event)) => handle(&mut workers[i], i, event, on_step),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    // Every reader is gone: mark what is left as closed.
                    for w in workers.iter_mut() {
                        w.closed = true;
                    }
                    return;
                }
            }
        }
    }

    fn kill_late(&self, w: &mut Worker) {
        if let Some(child) = w.child.as_mut() {
            let _ = child.kill();
        }
        w.closed = true;
        w.outcome.get_or_insert_with(|| {
            Err(Failure {
                step: w.step,
                message: format!(
                    "timed out after {} s while {}",
                    self.timeout.as_secs(),
                    w.step.label()
                ),
                hint: Some(
                    "a hung driver call or a stuck GPU; check dmesg for Xid errors, or raise --timeout"
                        .into(),
                ),
                cuda: None,
            })
        });
    }

    /// Reap the process; a worker that ended without a result crashed. One that will not exit
    /// (a driver stuck in teardown) is killed after a grace period.
    fn outcome(&self, mut w: Worker) -> Outcome {
        drop(w.stdin.take());
        let grace = Instant::now() + Duration::from_secs(5);
        let status = w.child.as_mut().and_then(|c| {
            loop {
                match c.try_wait() {
                    Ok(Some(status)) => break Some(status),
                    Ok(None) if Instant::now() < grace.max(w.deadline) => {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    Ok(None) => {
                        let _ = c.kill();
                        break c.wait().ok();
                    }
                    Err(_) => break None,
                }
            }
        });
        let stderr = w
            .stderr
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        match w.outcome {
            Some(outcome) => outcome,
            None => Err(crashed(w.step, status, &stderr)),
        }
    }
}

fn handle(w: &mut Worker, index: usize, event: Event, on_step: &mut dyn FnMut(usize, Step)) {
    match event {
        Event::Message(Message::Step { step }) => {
            w.step = step;
            on_step(index, step);
        }
        Event::Message(Message::Ready) => w.ready_since = Some(Instant::now()),
        Event::Message(Message::Result { measurement }) => {
            w.outcome.get_or_insert(Ok(*measurement));
        }
        Event::Message(Message::Failed { failure }) => {
            w.outcome.get_or_insert(Err(failure));
        }
        Event::Garbage(text) => {
            w.outcome
                .get_or_insert_with(|| Err(Failure::other(w.step, text)));
        }
        Event::Closed => w.closed = true,
    }
}

fn read_messages(index: usize, out: impl Read, tx: Sender<(usize, Event)>) {
    for line in BufReader::new(out).lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let event = match Message::parse_line(&line) {
            Ok(m) => Event::Message(m),
            Err(e) => Event::Garbage(e),
        };
        if tx.send((index, event)).is_err() {
            return;
        }
    }
    let _ = tx.send((index, Event::Closed));
}

/// The last lines of a worker's stderr (what a crashing driver or a panic printed).
fn tail(err: impl Read) -> String {
    let mut lines = VecDeque::new();
    for line in BufReader::new(err).lines().map_while(|l| l.ok()) {
        if lines.len() == 5 {
            lines.pop_front();
        }
        lines.push_back(line);
    }
    Vec::from(lines).join("\n")
}

fn crashed(step: Step, status: Option<ExitStatus>, stderr: &str) -> Failure {
    let how = match status {
        Some(s) if s.signal().is_some() => {
            let sig = s.signal().unwrap_or(0);
            format!("was killed by signal {sig}{}", signal_name(sig))
        }
        Some(s) => format!("exited with status {}", s.code().unwrap_or(-1)),
        None => "vanished".to_string(),
    };
    let last = stderr.lines().rev().find(|l| !l.trim().is_empty());
    let message = match last {
        Some(l) => format!("the worker {how} while {}: {}", step.label(), l.trim()),
        None => format!("the worker {how} while {}", step.label()),
    };
    Failure {
        step,
        message,
        hint: Some("a crash in the CUDA driver; check dmesg for Xid errors".into()),
        cuda: None,
    }
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        6 => " (SIGABRT)",
        7 => " (SIGBUS)",
        9 => " (SIGKILL)",
        11 => " (SIGSEGV)",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crash_messages_name_the_signal_step_and_last_words() {
        let status = ExitStatus::from_raw(11);
        let f = crashed(
            Step::D2d,
            Some(status),
            "loading\nboom in cuLaunchKernel\n\n",
        );
        assert_eq!(
            f.message,
            "the worker was killed by signal 11 (SIGSEGV) while device-to-device copies: boom in cuLaunchKernel"
        );
        let f = crashed(Step::Context, Some(ExitStatus::from_raw(3 << 8)), "");
        assert_eq!(
            f.message,
            "the worker exited with status 3 while opening the device"
        );
    }

    #[test]
    fn stderr_keeps_the_last_lines() {
        let text = (1..=9).map(|i| format!("line {i}\n")).collect::<String>();
        assert_eq!(
            tail(text.as_bytes()),
            "line 5\nline 6\nline 7\nline 8\nline 9"
        );
    }

    #[test]
    fn events_update_the_worker() {
        let mut w = Worker {
            child: None,
            stdin: None,
            stderr: None,
            step: Step::Context,
            ready_since: None,
            closed: false,
            outcome: None,
            deadline: Instant::now(),
        };
        let mut seen = Vec::new();
        let mut on_step = |i: usize, s: Step| seen.push((i, s));
        handle(
            &mut w,
            3,
            Event::Message(Message::Step { step: Step::Limit }),
            &mut on_step,
        );
        handle(&mut w, 3, Event::Message(Message::Ready), &mut on_step);
        handle(&mut w, 3, Event::Garbage("junk".into()), &mut on_step);
        handle(
            &mut w,
            3,
            Event::Message(Message::Failed {
                failure: Failure::other(Step::H2d, "later"),
            }),
            &mut on_step,
        );
        handle(&mut w, 3, Event::Closed, &mut on_step);
        assert_eq!(seen, [(3, Step::Limit)]);
        assert!(w.ready_since.is_some() && w.closed);
        // The first word wins: garbage on stdout is what went wrong.
        assert_eq!(w.outcome.unwrap().unwrap_err().message, "junk");
    }
}
