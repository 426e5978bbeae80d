//! Timed measurements on one stream: bandwidth as nvbandwidth times it (warm-ups, then the median
//! of event-timed samples, each held behind a stream blocker until the host has queued it), and
//! launch latency. Each step waits at the group's barrier after its warm-ups, so clients that run
//! at once time the same moment.

use super::cuda::{CudaResult, Event, Function, HostFlag, Stream};
use super::cuda_error::CudaError;
use super::protocol::{Failure, Plan, Step, Window};
use super::{ptx, stats};
use std::ffi::c_void;
use std::time::Instant;

pub(crate) fn at(step: Step) -> impl Fn(CudaError) -> Failure {
    move |e| Failure::cuda(step, e)
}

/// A kernel argument: a pointer to its value, as cuLaunchKernel takes them.
pub(crate) fn arg<T>(value: &mut T) -> *mut c_void {
    (value as *mut T).cast()
}

/// `CLOCK_MONOTONIC` in nanoseconds: one clock for every process of the machine, so the windows
/// of concurrent workers compare.
pub(crate) fn host_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: writes one timespec; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    (t.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(t.tv_nsec as u64)
}

/// Where the clients of a group meet before each timed part (a no-op for a client alone).
pub(crate) trait Barrier {
    fn wait(&mut self, step: Step) -> Result<(), Failure>;
}

pub(crate) struct Timer<'s> {
    pub stream: &'s Stream,
    pub start: Event,
    pub end: Event,
    pub plan: Plan,
    /// The stream blocker: its flag and kernel.
    pub flag: HostFlag,
    pub wait: &'s Function,
}

impl Timer<'_> {
    /// Median GB/s of `plan.samples` event-timed batches of `op` after warm-ups, and the window
    /// of the timed batches.
    pub(crate) fn bandwidth(
        &self,
        step: Step,
        bytes_per_op: u64,
        barrier: &mut dyn Barrier,
        op: &mut dyn FnMut() -> CudaResult<()>,
    ) -> Result<(f64, Window), Failure> {
        let fail = at(step);
        for _ in 0..self.plan.warmups {
            op().map_err(&fail)?;
        }
        self.stream.synchronize().map_err(&fail)?;
        barrier.wait(step)?;
        let copies = self.plan.copies_per_sample.max(1);
        let bytes_per_sample = bytes_per_op.saturating_mul(u64::from(copies));
        let mut samples = Vec::new();
        let start_ns = host_ns();
        for _ in 0..self.plan.samples.max(1) {
            self.block().map_err(&fail)?;
            let queued = (|| {
                self.start.record(self.stream)?;
                for _ in 0..copies {
                    op()?;
                }
                self.end.record(self.stream)
            })();
            // Release the stream whatever happened, or the blocker holds it until its timeout.
            self.flag.set(1);
            queued.map_err(&fail)?;
            self.end.synchronize().map_err(&fail)?;
            let ms = self.start.elapsed_ms(&self.end).map_err(&fail)?;
            samples.extend(stats::gbps(bytes_per_sample, ms));
        }
        let window = Window {
            bytes: bytes_per_sample.saturating_mul(u64::from(self.plan.samples.max(1))),
            start_ns,
            end_ns: host_ns(),
        };
        let median = stats::median(&samples).ok_or_else(|| {
            Failure::other(step, "the CUDA event timer measured no time for the copies")
        })?;
        Ok((median, window))
    }

    /// Queue the blocker: the stream stops until the host raises the flag.
    fn block(&self) -> CudaResult<()> {
        self.flag.set(0);
        let (mut flag, mut timeout) = (self.flag.device_ptr(), ptx::WAIT_TIMEOUT_NS);
        let mut args = [arg(&mut flag), arg(&mut timeout)];
        self.stream.launch(self.wait, 1, 1, &mut args)
    }

    /// Empty-kernel launches: event-timed on the device, and host-timed launch + synchronize
    /// round trips (which also show waiting for a time slice).
    pub(crate) fn latency(
        &self,
        noop: &Function,
        barrier: &mut dyn Barrier,
    ) -> Result<(Vec<f64>, Vec<f64>), Failure> {
        let fail = at(Step::Latency);
        let launch = || self.stream.launch(noop, 1, 1, &mut []);
        for _ in 0..self.plan.latency_warmups {
            launch().map_err(&fail)?;
        }
        self.stream.synchronize().map_err(&fail)?;
        barrier.wait(Step::Latency)?;
        let n = self.plan.launches.max(1) as usize;
        let mut on_device = Vec::with_capacity(n);
        for _ in 0..n {
            self.start.record(self.stream).map_err(&fail)?;
            launch().map_err(&fail)?;
            self.end.record(self.stream).map_err(&fail)?;
            self.end.synchronize().map_err(&fail)?;
            on_device.push(self.start.elapsed_ms(&self.end).map_err(&fail)? * 1000.0);
        }
        let mut round_trips = Vec::with_capacity(n);
        for _ in 0..n {
            let t = Instant::now();
            launch().map_err(&fail)?;
            self.stream.synchronize().map_err(&fail)?;
            round_trips.push(t.elapsed().as_secs_f64() * 1e6);
        }
        Ok((on_device, round_trips))
    }
}
