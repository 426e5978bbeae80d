//! What a worker measures on its device, in order: context, memory, the memory limit, H2D, D2D
//! and D2H bandwidth (with a data check), launch latency, and the SMs its kernels really reach.
//!
//! Bandwidth follows nvbandwidth (see [`super::timing`]). D2D bandwidth is an SM copy kernel and
//! counts the bytes read plus the bytes written, comparable with the memory's peak figure (about
//! twice nvbandwidth's copy-engine `device_local_copy`, which counts each byte once).

use super::cuda::{
    self, Context, Device, DeviceBuffer, Event, HostFlag, Module, PinnedBuffer, Stream,
};
use super::cuda_error::{CudaError, OUT_OF_MEMORY};
use super::protocol::{
    BufferSizes, DeviceChoice, Failure, LimitTest, Measurement, Plan, Request, Step, Windows,
};
use super::timing::{Barrier, Timer, arg, at};
use super::{affinity, ptx, sm_count};

const MIB: usize = 1024 * 1024;

/// What the worker tells the parent while it measures.
pub(crate) trait Events {
    fn step(&mut self, step: Step);
    /// Setup (or a step's warm-up) is done: say so and wait for the parent's `go`.
    fn ready_and_wait(&mut self) -> Result<(), String>;
}

/// The group's barrier, through the parent: only for clients that run at once.
struct GroupBarrier<'e> {
    events: &'e mut dyn Events,
    enabled: bool,
}

impl Barrier for GroupBarrier<'_> {
    fn wait(&mut self, step: Step) -> Result<(), Failure> {
        if self.enabled {
            self.events
                .ready_and_wait()
                .map_err(|e| Failure::other(step, e))?;
        }
        Ok(())
    }
}

pub(crate) fn run(request: &Request, events: &mut dyn Events) -> Result<Measurement, Failure> {
    events.step(Step::Context);
    // Before the driver starts its threads and before any host memory is pinned. A binding the
    // kernel refuses (the cpuset changed since the parent looked) costs locality, not the target:
    // `host_cpus` stays null.
    let host_cpus = request
        .cpus
        .as_deref()
        .filter(|cpus| affinity::bind(cpus).is_ok())
        .map(affinity::format_cpulist);
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
    let noop = module.function(ptx::NOOP).map_err(&ctx_err)?;
    let copy16 = module.function(ptx::COPY16).map_err(&ctx_err)?;
    let smid = module.function(ptx::SMID).map_err(&ctx_err)?;
    let wait = module.function(ptx::WAIT).map_err(&ctx_err)?;

    events.step(Step::Memory);
    let (free, total) = cuda::memory_info().map_err(at(Step::Memory))?;

    events.step(Step::Limit);
    let limit = match request.limit_mib {
        Some(limit_mib) => Some(limit_test(limit_mib)?),
        None => None,
    };

    let mut buffers = Buffers::new(&request.plan, request.memory_mib, limit.as_ref())?;
    let timer = Timer {
        stream: &stream,
        start: Event::new().map_err(&ctx_err)?,
        end: Event::new().map_err(&ctx_err)?,
        plan: request.plan,
        flag: HostFlag::new().map_err(&ctx_err)?,
        wait: &wait,
    };
    let mut barrier = GroupBarrier {
        events,
        enabled: request.wait_for_go,
    };
    // Setup is done: the first meeting of the group.
    barrier.wait(Step::H2d)?;

    barrier.events.step(Step::H2d);
    let b = &mut buffers;
    let (h2d_gbps, h2d_window) =
        timer.bandwidth(Step::H2d, b.copy as u64, &mut barrier, &mut || {
            stream.copy_htod(&b.a, &b.host, b.copy)
        })?;

    barrier.events.step(Step::D2d);
    let n16 = (b.d2d / 16) as u64;
    let grid = multiprocessors
        .max(1)
        .saturating_mul(ptx::COPY_BLOCKS_PER_SM);
    let (d2d_gbps, d2d_window) =
        timer.bandwidth(Step::D2d, 2 * n16 * 16, &mut barrier, &mut || {
            let (mut dst, mut src, mut n) = (b.b.ptr(), b.a.ptr(), n16);
            let mut args = [arg(&mut dst), arg(&mut src), arg(&mut n)];
            stream.launch(&copy16, grid, ptx::COPY_BLOCK, &mut args)
        })?;

    barrier.events.step(Step::D2h);
    let (d2h_gbps, d2h_window) =
        timer.bandwidth(Step::D2h, b.copy as u64, &mut barrier, &mut || {
            stream.copy_dtoh(&mut b.host_back, &b.b, b.copy)
        })?;
    // The bytes went host → A → (copy kernel) → B → host: they must come back unchanged.
    if b.host.as_slice()[..b.copy] != b.host_back.as_slice()[..b.copy] {
        return Err(Failure::other(
            Step::D2h,
            "data check failed: the bytes copied through the device came back changed",
        ));
    }

    barrier.events.step(Step::Latency);
    let (launch_us, roundtrip_us) = timer.latency(&noop, &mut barrier)?;

    barrier.events.step(Step::Sms);
    barrier.wait(Step::Sms)?;
    let sms = sm_count::count(
        &stream,
        &smid,
        &buffers.a,
        &mut buffers.host,
        &mut buffers.host_back,
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
        windows: Windows {
            h2d: h2d_window,
            d2d: d2d_window,
            d2h: d2h_window,
        },
        buffers: BufferSizes {
            copy_mib: (buffers.copy / MIB) as u64,
            d2d_mib: (buffers.d2d / MIB) as u64,
        },
        host_cpus,
        launch_us,
        roundtrip_us,
        multiprocessors,
        sms_observed: sms.at_once,
        sms_distinct: sms.distinct,
    })
}

/// `GPU-1d3e…` or `MIG-1d3e…` → `1d3e…`; `None` for names that are not a plain UUID (the old
/// `MIG-GPU-…/1/0` form), which cannot be compared with what the driver reports.
pub(crate) fn uuid_body(uuid: &str) -> Option<String> {
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

/// Host and device buffers of the copies.
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
    /// Two device buffers of at most a quarter each of what this client can use: what is free,
    /// within the memory promised (an MPS client's limit need not show in `cuMemGetInfo`), and
    /// within what the limit test could allocate. The other half is the margin for the driver's
    /// own allocations. Should the driver still refuse, the buffers halve until it does not.
    fn new(plan: &Plan, memory_mib: u64, limit: Option<&LimitTest>) -> Result<Buffers, Failure> {
        let fail = at(Step::Memory);
        let (free, _) = cuda::memory_info().map_err(&fail)?;
        let mut usable = free.min((memory_mib as usize).saturating_mul(MIB));
        if let Some(t) = limit.filter(|t| !t.exceeded) {
            usable = usable.min((t.allocated_mib as usize).saturating_mul(MIB));
        }
        let mut d2d = (plan.d2d_mib as usize).saturating_mul(MIB).min(usable / 4) / MIB * MIB;
        let (a, b) = loop {
            if d2d < MIB {
                return Err(Failure::other(
                    Step::Memory,
                    format!(
                        "only {} MiB of device memory can be used (free {} MiB, promised {memory_mib} MiB): too little for the copy buffers",
                        usable / MIB,
                        free / MIB
                    ),
                ));
            }
            match (DeviceBuffer::alloc(d2d), DeviceBuffer::alloc(d2d)) {
                (Ok(a), Ok(b)) => break (a, b),
                (Err(e), _) | (_, Err(e)) if e.code == OUT_OF_MEMORY => d2d = d2d / 2 / MIB * MIB,
                (Err(e), _) | (_, Err(e)) => return Err(fail(e)),
            }
        };
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
            a,
            b,
        })
    }
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
