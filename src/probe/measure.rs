//! What a worker measures on its device, in order: context, memory, the memory limit, H2D, D2D
//! and D2H bandwidth (with a data check), launch latency, and the SMs its kernels really reach.
//!
//! Bandwidth follows nvbandwidth: pinned host memory, warm-up copies, then the median of several
//! samples, each timed with CUDA events around a batch of copies. D2D bandwidth counts the bytes
//! read plus the bytes written by the copy kernel, comparable with the memory's peak figure.

use super::cuda::{
    self, Context, CudaResult, Device, DeviceBuffer, Event, Function, Module, PinnedBuffer, Stream,
};
use super::cuda_error::{CudaError, OUT_OF_MEMORY};
use super::protocol::{DeviceChoice, Failure, LimitTest, Measurement, Plan, Request, Step};
use super::{ptx, stats};
use std::collections::BTreeSet;
use std::ffi::c_void;
use std::time::Instant;

const MIB: usize = 1024 * 1024;

/// What the worker tells the parent while it measures.
pub trait Events {
    fn step(&mut self, step: Step);
    /// Setup is done: say so and wait for the parent's `go`.
    fn ready_and_wait(&mut self) -> Result<(), String>;
}

fn at(step: Step) -> impl Fn(CudaError) -> Failure {
    move |e| Failure::cuda(step, e)
}

pub fn run(request: &Request, events: &mut dyn Events) -> Result<Measurement, Failure> {
    events.step(Step::Context);
    let ctx_err = at(Step::Context);
    cuda::init().map_err(&ctx_err)?;
    let driver_cuda_version = cuda::driver_version().map_err(&ctx_err)?;
    let (device, uuid) = open_device(&request.device)?;
    let _context = Context::open(device).map_err(&ctx_err)?;
    let device_name = device.name().map_err(&ctx_err)?;
    let compute_capability = device.compute_capability().map_err(&ctx_err)?;
    let multiprocessors = device.multiprocessors().map_err(&ctx_err)?;
    let stream = Stream::new().map_err(&ctx_err)?;
    let module = Module::load_ptx(&ptx::image()).map_err(&ctx_err)?;
    let kernels = Kernels {
        noop: module.function(ptx::NOOP).map_err(&ctx_err)?,
        copy16: module.function(ptx::COPY16).map_err(&ctx_err)?,
        smid: module.function(ptx::SMID).map_err(&ctx_err)?,
    };

    events.step(Step::Memory);
    let (free, total) = cuda::memory_info().map_err(at(Step::Memory))?;

    events.step(Step::Limit);
    let limit = match request.limit_mib {
        Some(limit_mib) => Some(limit_test(limit_mib)?),
        None => None,
    };

    let mut buffers = Buffers::new(&request.plan)?;
    let timer = Timer {
        stream: &stream,
        start: Event::new().map_err(&ctx_err)?,
        end: Event::new().map_err(&ctx_err)?,
        plan: request.plan,
    };
    if request.wait_for_go {
        events
            .ready_and_wait()
            .map_err(|e| Failure::other(Step::H2d, e))?;
    }

    events.step(Step::H2d);
    let b = &mut buffers;
    let h2d_gbps = timer.bandwidth(Step::H2d, b.copy as u64, &mut || {
        stream.copy_htod(&b.a, &b.host, b.copy)
    })?;

    events.step(Step::D2d);
    let n16 = (b.d2d / 16) as u64;
    let grid = multiprocessors
        .max(1)
        .saturating_mul(ptx::COPY_BLOCKS_PER_SM);
    let d2d_gbps = timer.bandwidth(Step::D2d, 2 * n16 * 16, &mut || {
        let (mut dst, mut src, mut n) = (b.b.ptr(), b.a.ptr(), n16);
        let mut args = [arg(&mut dst), arg(&mut src), arg(&mut n)];
        stream.launch(&kernels.copy16, grid, ptx::COPY_BLOCK, &mut args)
    })?;

    events.step(Step::D2h);
    let d2h_gbps = timer.bandwidth(Step::D2h, b.copy as u64, &mut || {
        stream.copy_dtoh(&mut b.host_back, &b.b, b.copy)
    })?;
    // The bytes went host → A → (copy kernel) → B → host: they must come back unchanged.
    if b.host.as_slice()[..b.copy] != b.host_back.as_slice()[..b.copy] {
        return Err(Failure::other(
            Step::D2h,
            "data check failed: the bytes copied through the device came back changed",
        ));
    }

    events.step(Step::Latency);
    let (launch_us, roundtrip_us) = timer.latency(&kernels.noop)?;

    events.step(Step::Sms);
    let sms_observed = count_sms(
        &stream,
        &kernels.smid,
        &mut buffers,
        multiprocessors.max(request.physical_multiprocessors),
        request.plan.spin_clocks,
    )?;

    Ok(Measurement {
        device_name,
        uuid,
        compute_capability,
        driver_cuda_version,
        total_mib: (total / MIB) as u64,
        free_mib: (free / MIB) as u64,
        limit,
        h2d_gbps,
        d2h_gbps,
        d2d_gbps,
        launch_us,
        roundtrip_us,
        multiprocessors,
        sms_observed,
    })
}

struct Kernels {
    noop: Function,
    copy16: Function,
    smid: Function,
}

/// A kernel argument: a pointer to its value, as cuLaunchKernel takes them.
fn arg<T>(value: &mut T) -> *mut c_void {
    (value as *mut T).cast()
}

/// `GPU-1d3e…` or `MIG-1d3e…` → `1d3e…`; `None` for names that are not a plain UUID (the old
/// `MIG-GPU-…/1/0` form), which cannot be compared with what the driver reports.
pub fn uuid_body(uuid: &str) -> Option<String> {
    let body = uuid
        .strip_prefix("GPU-")
        .or_else(|| uuid.strip_prefix("MIG-"))
        .unwrap_or(uuid)
        .to_ascii_lowercase();
    let groups: Vec<&str> = body.split('-').collect();
    let shape = [8, 4, 4, 4, 12];
    let ok = groups.len() == 5
        && groups
            .iter()
            .zip(shape)
            .all(|(g, n)| g.len() == n && g.chars().all(|c| c.is_ascii_hexdigit()));
    ok.then_some(body)
}

/// Open the requested device; returns it with its full UUID (`GPU-…`/`MIG-…`).
fn open_device(choice: &DeviceChoice) -> Result<(Device, String), Failure> {
    let fail = at(Step::Context);
    let wanted = choice.uuid();
    let prefix = if wanted.starts_with("MIG-") {
        "MIG-"
    } else {
        "GPU-"
    };
    let count = cuda::device_count().map_err(&fail)?;
    if count < 1 {
        return Err(Failure::cuda(
            Step::Context,
            CudaError::new("cuDeviceGetCount", 100),
        ));
    }
    let expected = uuid_body(wanted);
    match choice {
        DeviceChoice::Visible { .. } => {
            let device = Device::get(0).map_err(&fail)?;
            let body = device.uuid().map_err(&fail)?;
            if let Some(expected) = expected
                && expected != body
            {
                return Err(Failure {
                    step: Step::Context,
                    message: format!(
                        "CUDA_VISIBLE_DEVICES={wanted} opened device {prefix}{body}, not that one"
                    ),
                    hint: Some("the driver's device list changed since gpushare read the node; run the probe again".into()),
                    cuda: None,
                });
            }
            Ok((device, format!("{prefix}{body}")))
        }
        DeviceChoice::ByUuid { .. } => {
            let mut seen = Vec::new();
            for ordinal in 0..count {
                let device = Device::get(ordinal).map_err(&fail)?;
                let body = device.uuid().map_err(&fail)?;
                let matches = match &expected {
                    Some(e) => *e == body,
                    // A UUID we cannot compare, and one device: it is the one.
                    None => count == 1,
                };
                if matches {
                    return Ok((device, format!("{prefix}{body}")));
                }
                seen.push(body);
            }
            Err(Failure {
                step: Step::Context,
                message: format!(
                    "no visible CUDA device has UUID {wanted} (visible: {})",
                    seen.join(", ")
                ),
                hint: Some(
                    "the MPS daemon may serve other devices: check its CUDA_VISIBLE_DEVICES".into(),
                ),
                cuda: None,
            })
        }
    }
}

/// Allocate chunks until the driver refuses or the total passes the limit, then free them.
fn limit_test(limit_mib: u64) -> Result<LimitTest, Failure> {
    let fail = at(Step::Limit);
    let chunk_mib = LimitTest::chunk_for(limit_mib);
    let mut held = Vec::new();
    let mut allocated_mib = 0;
    let exceeded = loop {
        if allocated_mib > limit_mib {
            break true;
        }
        match DeviceBuffer::alloc_mib(chunk_mib) {
            Ok(buffer) => {
                held.push(buffer);
                allocated_mib += chunk_mib;
            }
            Err(e) if e.code == OUT_OF_MEMORY => break false,
            Err(e) => return Err(fail(e)),
        }
    };
    drop(held);
    Ok(LimitTest {
        limit_mib,
        chunk_mib,
        allocated_mib,
        exceeded,
    })
}

/// Host and device buffers of the copies, sized to fit the free memory.
struct Buffers {
    /// Bytes of each host↔device copy.
    copy: usize,
    /// Bytes of each device-to-device copy.
    d2d: usize,
    host: PinnedBuffer,
    host_back: PinnedBuffer,
    a: DeviceBuffer,
    b: DeviceBuffer,
}

impl Buffers {
    fn new(plan: &Plan) -> Result<Buffers, Failure> {
        let fail = at(Step::Memory);
        let (free, _) = cuda::memory_info().map_err(&fail)?;
        // Two device buffers, together at most half of what is free, in whole MiB.
        let d2d = (plan.d2d_mib as usize).saturating_mul(MIB).min(free / 4) / MIB * MIB;
        if d2d < MIB {
            return Err(Failure::other(
                Step::Memory,
                format!(
                    "only {} MiB of device memory is free: too little for the copy buffers",
                    free / MIB
                ),
            ));
        }
        let copy = (plan.copy_mib as usize).saturating_mul(MIB).clamp(MIB, d2d);
        let mut host = PinnedBuffer::alloc(copy).map_err(&fail)?;
        // A pattern that a lost or shifted block would change (and that touches every page).
        for (i, byte) in host.as_mut_slice().iter_mut().enumerate() {
            *byte = (i as u32).wrapping_mul(2_654_435_761).rotate_right(13) as u8;
        }
        Ok(Buffers {
            copy,
            d2d,
            host,
            host_back: PinnedBuffer::alloc(copy).map_err(&fail)?,
            a: DeviceBuffer::alloc(d2d).map_err(&fail)?,
            b: DeviceBuffer::alloc(d2d).map_err(&fail)?,
        })
    }
}

struct Timer<'s> {
    stream: &'s Stream,
    start: Event,
    end: Event,
    plan: Plan,
}

impl Timer<'_> {
    /// Median GB/s of `plan.samples` event-timed batches of `op`, after warm-ups.
    fn bandwidth(
        &self,
        step: Step,
        bytes_per_op: u64,
        op: &mut dyn FnMut() -> CudaResult<()>,
    ) -> Result<f64, Failure> {
        let fail = at(step);
        for _ in 0..self.plan.warmups {
            op().map_err(&fail)?;
        }
        self.stream.synchronize().map_err(&fail)?;
        let copies = self.plan.copies_per_sample.max(1);
        let mut samples = Vec::new();
        for _ in 0..self.plan.samples.max(1) {
            self.start.record(self.stream).map_err(&fail)?;
            for _ in 0..copies {
                op().map_err(&fail)?;
            }
            self.end.record(self.stream).map_err(&fail)?;
            self.end.synchronize().map_err(&fail)?;
            let ms = self.start.elapsed_ms(&self.end).map_err(&fail)?;
            samples.extend(stats::gbps(
                bytes_per_op.saturating_mul(u64::from(copies)),
                ms,
            ));
        }
        stats::median(&samples).ok_or_else(|| {
            Failure::other(step, "the CUDA event timer measured no time for the copies")
        })
    }

    /// Empty-kernel launches: event-timed on the device, and host-timed launch + synchronize
    /// round trips (which also show waiting for a time slice).
    fn latency(&self, noop: &Function) -> Result<(Vec<f64>, Vec<f64>), Failure> {
        let fail = at(Step::Latency);
        let launch = || self.stream.launch(noop, 1, 1, &mut []);
        for _ in 0..self.plan.latency_warmups {
            launch().map_err(&fail)?;
        }
        self.stream.synchronize().map_err(&fail)?;
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

/// Launch the SM-id kernel with a few blocks per SM of the whole device and count the distinct
/// SM ids they ran on.
fn count_sms(
    stream: &Stream,
    smid: &Function,
    b: &mut Buffers,
    sms: u32,
    spin_clocks: u64,
) -> Result<u32, Failure> {
    let fail = at(Step::Sms);
    let grid = (sms.max(1).saturating_mul(ptx::SMID_BLOCKS_PER_SM)).min((b.copy / 4) as u32);
    let bytes = grid as usize * 4;
    b.host.as_mut_slice()[..bytes].fill(0xff);
    stream.copy_htod(&b.a, &b.host, bytes).map_err(&fail)?;
    let (mut out, mut spin) = (b.a.ptr(), spin_clocks);
    let mut args = [arg(&mut out), arg(&mut spin)];
    stream
        .launch(smid, grid, ptx::SMID_BLOCK, &mut args)
        .map_err(&fail)?;
    stream
        .copy_dtoh(&mut b.host_back, &b.a, bytes)
        .map_err(&fail)?;
    stream.synchronize().map_err(&fail)?;
    let ids: Vec<u32> = b.host_back.as_slice()[..bytes]
        .chunks_exact(4)
        .map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if ids.contains(&u32::MAX) {
        return Err(Failure::other(
            Step::Sms,
            "the SM-id kernel did not run every block",
        ));
    }
    Ok(ids.into_iter().collect::<BTreeSet<u32>>().len() as u32)
}

#[cfg(test)]
mod tests {
    use super::uuid_body;

    #[test]
    fn uuid_bodies() {
        assert_eq!(
            uuid_body("GPU-1D3E5A0C-4a5b-5c6d-8e9f-0a1b2c3d4e5f").as_deref(),
            Some("1d3e5a0c-4a5b-5c6d-8e9f-0a1b2c3d4e5f")
        );
        assert_eq!(
            uuid_body("MIG-1d3e5a0c-4a5b-5c6d-8e9f-0a1b2c3d4e5f").as_deref(),
            Some("1d3e5a0c-4a5b-5c6d-8e9f-0a1b2c3d4e5f")
        );
        assert_eq!(
            uuid_body("MIG-GPU-1d3e5a0c-4a5b-5c6d-8e9f-0a1b2c3d4e5f/1/0"),
            None
        );
        assert_eq!(uuid_body("GPU-1234"), None);
    }
}
