//! From what the workers measured to a target's line of the report: what concurrent clients got
//! together (their bytes over the union of their timed windows), latency percentiles over all
//! their launches, the memory-limit results, the slowdown against the target alone.

use super::protocol::{Failure, Measurement, Window};
use super::report::{
    Bandwidth, ClientReport, Figures, Latency, MemoryReport, Slowdown, TargetReport,
};
use super::stats::{percentile, round2};
use super::targets::Target;
use super::workers::Outcome;

/// `main`: the run whose figures the target reports (one client, or N at once). `solo`: the run
/// alone before it, with `--compare`.
pub(crate) fn target_report(
    target: &Target,
    main: &[Outcome],
    solo: Option<&Outcome>,
) -> TargetReport {
    let ok: Vec<&Measurement> = main.iter().filter_map(|o| o.as_ref().ok()).collect();
    let failures: Vec<&Failure> = main.iter().filter_map(|o| o.as_ref().err()).collect();
    let all: Vec<&Measurement> = ok
        .iter()
        .copied()
        .chain(solo.and_then(|s| s.as_ref().ok()))
        .collect();
    let mut figures = figures_of(&ok);
    if ok.len() > 1 {
        figures.bandwidth_gbps = together(&ok);
    }
    let per_client = if main.len() > 1 {
        main.iter()
            .enumerate()
            .map(|(i, o)| client_report(i as u32, o))
            .collect()
    } else {
        Vec::new()
    };
    let solo_figures = solo.and_then(|s| s.as_ref().ok()).map(|m| figures_of(&[m]));
    let slowdown = solo_figures.map(|s| slowdown(&s, &figures, ok.len()));
    let (error, hint, no_driver) = if ok.is_empty() {
        let first = failures.first();
        (
            Some(first.map_or_else(|| "no client ran".to_string(), |f| f.message.clone())),
            first.and_then(|f| f.hint.clone()),
            !failures.is_empty()
                && failures
                    .iter()
                    .all(|f| f.cuda.as_ref().is_some_and(|c| c.is_no_driver())),
        )
    } else {
        (None, None, false)
    };
    TargetReport {
        kind: target.kind,
        gpu: target.gpu,
        uuid: target.uuid.clone(),
        name: target.name.clone(),
        label: target.label(),
        memory: memory(&all),
        bandwidth_gbps: figures.bandwidth_gbps,
        launch_latency_us: figures.launch_latency_us,
        roundtrip_us: figures.roundtrip_us,
        multiprocessors: ok.first().map(|m| m.multiprocessors),
        sms_observed: ok.iter().map(|m| m.sms_observed).max(),
        sms_distinct: ok.iter().map(|m| m.sms_distinct).max(),
        host_cpus: ok.first().and_then(|m| m.host_cpus.clone()),
        buffers_mib: ok.first().map(|m| m.buffers),
        clients: main.len() as u32,
        per_client,
        solo: solo_figures,
        slowdown,
        promised: target.promise.clone(),
        shared_with: Vec::new(),
        error,
        hint,
        error_check: "probe",
        no_driver,
    }
}

/// Memory figures of the first client; limit results over every client that tested the limit
/// (held only if it held for all; the most any of them could allocate).
fn memory(measured: &[&Measurement]) -> MemoryReport {
    let first = measured.first();
    let tests: Vec<_> = measured.iter().filter_map(|m| m.limit).collect();
    MemoryReport {
        total_mib: first.map(|m| m.total_mib),
        free_mib: first.map(|m| m.free_mib),
        limit_mib: tests.first().map(|t| t.limit_mib),
        limit_enforced: (!tests.is_empty()).then(|| tests.iter().all(|t| !t.exceeded)),
        allocated_mib: tests.iter().map(|t| t.allocated_mib).max(),
    }
}

/// What clients that ran at once got together: for each step, all their timed bytes over the
/// span from the first start to the last end. Summing each client's own median would count the
/// device twice over whenever the clients' steps did not overlap.
fn together(measured: &[&Measurement]) -> Bandwidth {
    let step = |w: fn(&Measurement) -> Window| {
        let windows: Vec<Window> = measured.iter().map(|m| w(m)).collect();
        let start = windows.iter().map(|w| w.start_ns).min()?;
        let end = windows.iter().map(|w| w.end_ns).max()?;
        let bytes: u64 = windows.iter().map(|w| w.bytes).sum();
        // bytes per nanosecond is GB/s.
        (end > start && bytes > 0).then(|| round2(bytes as f64 / (end - start) as f64))
    };
    Bandwidth {
        h2d: step(|m| m.windows.h2d),
        d2h: step(|m| m.windows.d2h),
        d2d: step(|m| m.windows.d2d),
    }
}

/// Figures of each client alone, or summed over clients; latency percentiles over all launches.
fn figures_of(measured: &[&Measurement]) -> Figures {
    let sum = |f: fn(&Measurement) -> f64| {
        (!measured.is_empty()).then(|| round2(measured.iter().map(|m| f(m)).sum()))
    };
    let pooled = |f: fn(&Measurement) -> &Vec<f64>| {
        let all: Vec<f64> = measured.iter().flat_map(|m| f(m).iter().copied()).collect();
        Latency {
            p50: percentile(&all, 50.0).map(round2),
            p99: percentile(&all, 99.0).map(round2),
        }
    };
    Figures {
        bandwidth_gbps: Bandwidth {
            h2d: sum(|m| m.h2d_gbps),
            d2h: sum(|m| m.d2h_gbps),
            d2d: sum(|m| m.d2d_gbps),
        },
        launch_latency_us: pooled(|m| &m.launch_us),
        roundtrip_us: pooled(|m| &m.roundtrip_us),
    }
}

fn client_report(client: u32, outcome: &Outcome) -> ClientReport {
    match outcome {
        Ok(m) => {
            let f = figures_of(&[m]);
            ClientReport {
                client,
                bandwidth_gbps: f.bandwidth_gbps,
                launch_latency_us: f.launch_latency_us,
                roundtrip_us: f.roundtrip_us,
                multiprocessors: Some(m.multiprocessors),
                sms_observed: Some(m.sms_observed),
                error: None,
            }
        }
        Err(f) => ClientReport {
            client,
            bandwidth_gbps: Bandwidth::default(),
            launch_latency_us: Latency::default(),
            roundtrip_us: Latency::default(),
            multiprocessors: None,
            sms_observed: None,
            error: Some(f.message.clone()),
        },
    }
}

/// How many times slower each of `clients` clients is than the target alone: alone ÷ per-client
/// bandwidth, and together ÷ alone median latency.
fn slowdown(solo: &Figures, together: &Figures, clients: usize) -> Slowdown {
    let n = clients.max(1) as f64;
    let bw = |alone: Option<f64>, sum: Option<f64>| match (alone, sum) {
        (Some(a), Some(s)) if s > 0.0 => Some(round2(a / (s / n))),
        _ => None,
    };
    let lat = |alone: Option<f64>, now: Option<f64>| match (alone, now) {
        (Some(a), Some(t)) if a > 0.0 => Some(round2(t / a)),
        _ => None,
    };
    Slowdown {
        h2d: bw(solo.bandwidth_gbps.h2d, together.bandwidth_gbps.h2d),
        d2h: bw(solo.bandwidth_gbps.d2h, together.bandwidth_gbps.d2h),
        d2d: bw(solo.bandwidth_gbps.d2d, together.bandwidth_gbps.d2d),
        launch_p50: lat(solo.launch_latency_us.p50, together.launch_latency_us.p50),
        roundtrip_p50: lat(solo.roundtrip_us.p50, together.roundtrip_us.p50),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::probe::cuda_error::CudaError;
    use crate::observe::probe::protocol::{BufferSizes, LimitTest, Step, Windows};
    use crate::observe::probe::targets::{Promise, TargetKind};

    fn target() -> Target {
        Target {
            kind: TargetKind::Mps,
            gpu: 0,
            gpu_uuid: "GPU-a".into(),
            pci_bus_id: "00000000:07:00.0".into(),
            uuid: "GPU-a".into(),
            name: "Tesla T4".into(),
            device_memory_mib: 15360,
            device_multiprocessors: 40,
            mps_pipe_dir: Some("/run/mps".into()),
            local_cpus: None,
            promise: Promise {
                memory_mib: 3840,
                memory_from: "MPS".into(),
                multiprocessors: None,
                max_multiprocessors: Some(10),
                thread_percentage: Some(25),
                clients: Some(4),
                mps_missing: false,
            },
        }
    }

    fn m(h2d: f64, launch: &[f64], allocated: u64, exceeded: bool) -> Measurement {
        Measurement {
            device_name: "Tesla T4".into(),
            uuid: "GPU-a".into(),
            compute_capability: "7.5".into(),
            driver_cuda_version: "12.4".into(),
            total_mib: 15360,
            free_mib: 3800,
            limit: Some(LimitTest {
                limit_mib: 3840,
                chunk_mib: 120,
                allocated_mib: allocated,
                exceeded,
            }),
            h2d_gbps: h2d,
            d2h_gbps: h2d,
            d2d_gbps: 100.0,
            // One second each, all at the same time.
            windows: Windows {
                h2d: window(h2d, 0),
                d2h: window(h2d, 0),
                d2d: window(100.0, 0),
            },
            buffers: BufferSizes {
                copy_mib: 32,
                d2d_mib: 128,
            },
            host_cpus: None,
            launch_us: launch.to_vec(),
            roundtrip_us: launch.iter().map(|x| x * 3.0).collect(),
            multiprocessors: 10,
            sms_observed: 10,
            sms_distinct: 10,
        }
    }

    /// A one-second window starting at `start_s` seconds in which `gbps` GB moved.
    fn window(gbps: f64, start_s: u64) -> Window {
        Window {
            bytes: (gbps * 1e9) as u64,
            start_ns: start_s * 1_000_000_000,
            end_ns: (start_s + 1) * 1_000_000_000,
        }
    }

    #[test]
    fn clients_one_after_another_do_not_add_up() {
        // Each client got 10 GB/s, but the second ran after the first: together they got 10 GB/s
        // over two seconds, not 20.
        let first = m(10.0, &[2.0], 3600, false);
        let mut second = m(10.0, &[2.0], 3600, false);
        second.windows.h2d = window(10.0, 1);
        let r = target_report(&target(), &[Ok(first), Ok(second)], None);
        assert_eq!(r.bandwidth_gbps.h2d, Some(10.0));
        // D2D ran at the same time in both: 200 GB/s together.
        assert_eq!(r.bandwidth_gbps.d2d, Some(200.0));
        assert_eq!(r.per_client[1].bandwidth_gbps.h2d, Some(10.0));
    }

    #[test]
    fn one_client_is_reported_as_measured() {
        let r = target_report(
            &target(),
            &[Ok(m(12.0, &[2.0, 3.0, 4.0], 3600, false))],
            None,
        );
        assert_eq!(r.clients, 1);
        assert!(r.per_client.is_empty());
        assert_eq!(r.bandwidth_gbps.h2d, Some(12.0));
        assert_eq!(
            r.launch_latency_us,
            Latency {
                p50: Some(3.0),
                p99: Some(4.0)
            }
        );
        assert_eq!(r.memory.limit_enforced, Some(true));
        assert_eq!(r.memory.allocated_mib, Some(3600));
        assert_eq!((r.error, r.no_driver), (None, false));
    }

    #[test]
    fn clients_add_up_and_one_unenforced_limit_counts() {
        let main = [
            Ok(m(6.0, &[2.0, 2.0], 3600, false)),
            Ok(m(6.5, &[9.0, 10.0], 3960, true)),
            Err(Failure::cuda(
                Step::Context,
                CudaError::new("cuDevicePrimaryCtxRetain", 808),
            )),
        ];
        let solo = Ok(m(24.0, &[2.0, 2.0], 3600, false));
        let r = target_report(&target(), &main, Some(&solo));
        assert_eq!(r.clients, 3);
        assert_eq!(r.bandwidth_gbps.h2d, Some(12.5));
        // Pooled launches 2, 2, 2, 2 (solo), then 9 and 10 from the second client: only the
        // clients of the main run count.
        assert_eq!(
            r.launch_latency_us,
            Latency {
                p50: Some(2.0),
                p99: Some(10.0)
            }
        );
        assert_eq!(r.memory.limit_enforced, Some(false));
        assert_eq!(r.memory.allocated_mib, Some(3960));
        assert_eq!(r.per_client.len(), 3);
        assert!(
            r.per_client[2]
                .error
                .as_ref()
                .unwrap()
                .contains("MAX_CLIENTS")
        );
        assert_eq!(r.solo.unwrap().bandwidth_gbps.h2d, Some(24.0));
        // Two clients finished with 12.5 GB/s together: 6.25 each, 3.84× slower than alone.
        assert_eq!(r.slowdown.unwrap().h2d, Some(3.84));
        assert_eq!(r.slowdown.unwrap().launch_p50, Some(1.0));
        assert!(r.error.is_none());
    }

    #[test]
    fn no_client_finishing_is_an_error_and_driver_errors_say_so() {
        let main = [Err(Failure::cuda(
            Step::Context,
            CudaError::new("cuInit", 100),
        ))];
        let r = target_report(&target(), &main, None);
        assert!(r.error.as_ref().unwrap().contains("CUDA_ERROR_NO_DEVICE"));
        assert!(r.hint.as_ref().unwrap().contains("/dev/nvidia-caps"));
        assert!(
            !r.no_driver,
            "a driver that shows no device is still a driver"
        );
        assert_eq!(r.bandwidth_gbps, Bandwidth::default());
        assert_eq!(r.memory, MemoryReport::default());
        let main = [Err(Failure::cuda(
            Step::Context,
            CudaError::new("cuInit", 803),
        ))];
        assert!(target_report(&target(), &main, None).no_driver);
        let r = target_report(
            &target(),
            &[Err(Failure::other(Step::D2h, "data check failed"))],
            None,
        );
        assert!(!r.no_driver);
    }
}
