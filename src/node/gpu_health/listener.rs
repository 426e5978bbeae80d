//! The health watch of a long-running gpushare (`agent`, `metrics --listen`): a thread that
//! waits on the driver's events, adds each to the record and says so, and marks the record
//! while it listens. A watch that fails is opened again; one paused (around a reset, which the
//! driver refuses while any NVML client is open) closes its driver session until resumed.

use super::record::{HealthRecord, WatchMark};
use crate::node::backend::BackendOptions;
use crate::node::backend::events::EventWatch;
use crate::support::clock::unix_now;
use crate::support::output::Output;
use crate::support::paths::Paths;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// How often a listening watch marks the record.
pub(crate) const MARK_EVERY: Duration = Duration::from_secs(30);
/// How long one wait on the driver lasts (stop and pause are seen between waits).
const WAIT: Duration = Duration::from_millis(500);
/// How long a failed watch waits before it opens again.
const REOPEN_AFTER: Duration = Duration::from_secs(5);

pub(crate) struct Listener {
    shared: Arc<Shared>,
    thread: Option<std::thread::JoinHandle<()>>,
}

struct Shared {
    stop: AtomicBool,
    /// How many want the watch closed; the thread says it is closed in `closed`.
    pauses: Mutex<(u32, bool)>,
    changed: Condvar,
}

/// The watch stays closed while this lives.
pub(crate) struct Paused<'l>(&'l Listener);

impl Listener {
    /// Start the watch; `heard` runs (on the watch's thread) after each event is recorded, and
    /// when the watch starts to listen.
    pub(crate) fn start(
        options: BackendOptions,
        paths: Paths,
        out: Output,
        heard: impl Fn() + Send + 'static,
    ) -> Listener {
        let shared = Arc::new(Shared {
            stop: AtomicBool::new(false),
            pauses: Mutex::new((0, true)),
            changed: Condvar::new(),
        });
        let inner = shared.clone();
        let thread = std::thread::Builder::new()
            .name("gpushare-health".into())
            .spawn(move || run(&inner, &options, &paths, &out, &heard))
            .ok();
        Listener { shared, thread }
    }

    /// Close the watch's driver session until the guard is dropped (waits up to 2 s for it).
    pub(crate) fn pause(&self) -> Paused<'_> {
        let mut p = self.shared.pauses.lock().unwrap_or_else(|e| e.into_inner());
        p.0 += 1;
        let deadline = Instant::now() + Duration::from_secs(2);
        while !p.1 && self.thread.is_some() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            p = self
                .shared
                .changed
                .wait_timeout(p, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        Paused(self)
    }
}

impl Drop for Paused<'_> {
    fn drop(&mut self) {
        let mut p = self
            .0
            .shared
            .pauses
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        p.0 = p.0.saturating_sub(1);
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn set_closed(shared: &Shared, closed: bool) {
    let mut p = shared.pauses.lock().unwrap_or_else(|e| e.into_inner());
    p.1 = closed;
    shared.changed.notify_all();
}

fn paused(shared: &Shared) -> bool {
    shared.pauses.lock().unwrap_or_else(|e| e.into_inner()).0 > 0
}

fn run(shared: &Shared, options: &BackendOptions, paths: &Paths, out: &Output, heard: &dyn Fn()) {
    let since = unix_now();
    let mut watch: Option<Box<dyn EventWatch>> = None;
    let mut failing = false;
    let mut marked: Option<Instant> = None;
    let mut next_open = Instant::now();
    while !shared.stop.load(Ordering::Relaxed) {
        if paused(shared) {
            if watch.take().is_some() {
                marked = None;
            }
            set_closed(shared, true);
            std::thread::sleep(Duration::from_millis(50));
            continue;
        }
        let Some(open) = watch.as_mut() else {
            if Instant::now() < next_open {
                std::thread::sleep(Duration::from_millis(100));
                continue;
            }
            match crate::node::backend::watch(options) {
                Ok(w) => {
                    if failing {
                        out.note("gpushare health watch: listening again");
                    }
                    failing = false;
                    watch = Some(w);
                    set_closed(shared, false);
                }
                Err(e) => {
                    if !failing {
                        out.warn(format!(
                            "gpushare health watch: cannot listen: {}",
                            e.message
                        ));
                    }
                    failing = true;
                    next_open = Instant::now() + REOPEN_AFTER;
                }
            }
            continue;
        };
        if marked.is_none_or(|m| m.elapsed() >= MARK_EVERY) {
            let unwatched = open.unwatched();
            let mark = WatchMark {
                pid: std::process::id(),
                since,
                alive_at: unix_now(),
                unwatched,
            };
            let first = marked.is_none();
            match HealthRecord::update(paths, |r| r.watch = Some(mark)) {
                Ok(()) => {
                    marked = Some(Instant::now());
                    // The health is known from now on: readers may look.
                    if first {
                        heard();
                    }
                }
                Err(e) => {
                    out.warn(format!("gpushare health watch: {}", e.message));
                    marked = Some(Instant::now());
                }
            }
        }
        match open.next(WAIT) {
            Ok(None) => {}
            Ok(Some(event)) => {
                let at = unix_now();
                let on = event
                    .mig_device
                    .map(|(gi, ci)| format!(" MIG device {gi}:{ci}"))
                    .unwrap_or_default();
                out.warn(format!(
                    "gpushare health watch: {} on GPU {} ({}){on}",
                    event.cause, event.gpu, event.uuid
                ));
                match HealthRecord::update(paths, |r| r.add(&[event], at)) {
                    Ok(()) => heard(),
                    Err(e) => out.warn(format!("gpushare health watch: {}", e.message)),
                }
            }
            Err(e) => {
                out.warn(format!(
                    "gpushare health watch: the driver's wait failed: {e}"
                ));
                watch = None;
                failing = true;
                next_open = Instant::now() + REOPEN_AFTER;
            }
        }
    }
}
