//! How `gpushare probe` talks to its workers (`gpushare __probe-worker`, one process per client).
//!
//! The parent writes one JSON [`Request`] line on the worker's stdin. The worker writes one JSON
//! [`Message`] per line on stdout: a `step` as each measurement starts, then `result` or
//! `failed`. When the request asks for it (clients that run at once), the worker also says
//! `ready` after setup and again after each step's warm-ups, and waits for a `go` line: the parent
//! sends it once every client still running is ready, so the clients time each step together. A
//! worker that ends without a result crashed; one that stops writing hangs, and the parent kills
//! it at the timeout. Either way only that target is lost.

use super::cuda_error::CudaError;
use serde::{Deserialize, Serialize};

/// The line that releases the clients of a group at the same moment.
pub(crate) const GO: &str = "go";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Request {
    pub device: DeviceChoice,
    /// Allocate up to this much, and one chunk beyond it, to see the limit hold. `None`: skip.
    pub limit_mib: Option<u64>,
    /// The memory the target promises a client: the copy buffers stay well inside it even when
    /// `cuMemGetInfo` shows more (an MPS client's limit need not show there).
    pub memory_mib: u64,
    /// Host CPUs to run on (the GPU's local CPUs), set before any host memory is allocated.
    /// `None`: leave the affinity as inherited.
    pub cpus: Option<Vec<u32>>,
    /// SMs of the whole device: the SM-id kernel launches enough blocks to reach all of them even
    /// when MPS reports fewer, so an unenforced share shows.
    pub physical_multiprocessors: u32,
    pub plan: Plan,
    /// Stop after setup, and again before the timed part of each measurement, say `ready` and
    /// wait for `go` on stdin: the clients of a group measure each step at the same time.
    pub wait_for_go: bool,
}

/// Which device the worker opens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub(crate) enum DeviceChoice {
    /// The only device `CUDA_VISIBLE_DEVICES` leaves (ordinal 0); its UUID must be `uuid`.
    Visible { uuid: String },
    /// The device whose UUID is `uuid` among all visible ones (MPS clients see what the daemon
    /// exposes).
    ByUuid { uuid: String },
}

impl DeviceChoice {
    pub(crate) fn uuid(&self) -> &str {
        match self {
            DeviceChoice::Visible { uuid } | DeviceChoice::ByUuid { uuid } => uuid,
        }
    }
}

/// Sizes and repeat counts of the measurements (the method of nvbandwidth: large buffers,
/// warm-up copies, the median of several timed samples).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Plan {
    /// Host↔device copy size.
    pub copy_mib: u64,
    /// Size of each of the two device buffers of the device-to-device copy.
    pub d2d_mib: u64,
    pub warmups: u32,
    pub samples: u32,
    pub copies_per_sample: u32,
    pub latency_warmups: u32,
    pub launches: u32,
    /// How long each block of the SM-id kernel spins, so blocks spread over every SM.
    pub spin_clocks: u64,
}

impl Plan {
    /// The default run: 256 MiB copies, 4 warm-ups, 3 samples of 16 copies, 1000 launches.
    pub(crate) fn full(copy_mib: Option<u64>) -> Plan {
        let copy_mib = copy_mib.unwrap_or(256);
        Plan {
            copy_mib,
            d2d_mib: copy_mib * 4,
            warmups: 4,
            samples: 3,
            copies_per_sample: 16,
            latency_warmups: 100,
            launches: 1000,
            spin_clocks: 1_000_000,
        }
    }

    /// `--quick`: a few seconds per target.
    pub(crate) fn quick(copy_mib: Option<u64>) -> Plan {
        let copy_mib = copy_mib.unwrap_or(32);
        Plan {
            copy_mib,
            d2d_mib: copy_mib * 4,
            warmups: 2,
            samples: 3,
            copies_per_sample: 4,
            latency_warmups: 20,
            launches: 200,
            spin_clocks: 200_000,
        }
    }
}

/// The measurements of a worker, in the order it makes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Step {
    Context,
    Memory,
    Limit,
    H2d,
    D2d,
    D2h,
    Latency,
    Sms,
}

impl Step {
    pub(crate) const ALL: [Step; 8] = [
        Step::Context,
        Step::Memory,
        Step::Limit,
        Step::H2d,
        Step::D2d,
        Step::D2h,
        Step::Latency,
        Step::Sms,
    ];

    pub(crate) fn label(self) -> &'static str {
        match self {
            Step::Context => "opening the device",
            Step::Memory => "reading memory",
            Step::Limit => "testing the memory limit",
            Step::H2d => "host-to-device copies",
            Step::D2d => "device-to-device copies",
            Step::D2h => "device-to-host copies",
            Step::Latency => "launch latency",
            Step::Sms => "counting SMs",
        }
    }

    /// Position in [`Step::ALL`], for progress.
    pub(crate) fn position(self) -> usize {
        Step::ALL.iter().position(|s| *s == self).unwrap_or(0)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case", deny_unknown_fields)]
pub(crate) enum Message {
    Step { step: Step },
    Ready,
    Result { measurement: Box<Measurement> },
    Failed { failure: Failure },
}

impl Message {
    pub(crate) fn to_line(&self) -> String {
        // Serialising these plain structs cannot fail; keep the protocol alive regardless.
        serde_json::to_string(self).unwrap_or_else(|e| {
            format!(
                r#"{{"event":"failed","failure":{{"step":"context","message":"cannot encode a worker message: {}","hint":null,"cuda":null}}}}"#,
                e.to_string().replace('"', "'")
            )
        })
    }

    pub(crate) fn parse_line(line: &str) -> Result<Message, String> {
        serde_json::from_str(line.trim()).map_err(|e| {
            let shown: String = line.chars().take(120).collect();
            format!("unexpected worker output `{shown}`: {e}")
        })
    }
}

/// Why a worker could not finish.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Failure {
    pub step: Step,
    pub message: String,
    pub hint: Option<String>,
    /// The driver call and code, when the driver said no.
    pub cuda: Option<CudaError>,
}

impl Failure {
    pub(crate) fn cuda(step: Step, e: CudaError) -> Failure {
        Failure {
            step,
            message: e.to_string(),
            hint: e.hint().map(str::to_string),
            cuda: Some(e),
        }
    }

    pub(crate) fn other(step: Step, message: impl Into<String>) -> Failure {
        Failure {
            step,
            message: message.into(),
            hint: None,
            cuda: None,
        }
    }
}

/// What one worker measured on its device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Measurement {
    /// As the driver names it (`cuDeviceGetName`).
    pub device_name: String,
    /// As the driver reports it (`cuDeviceGetUuid_v2`, the MIG UUID on a MIG device).
    pub uuid: String,
    pub compute_capability: String,
    /// CUDA version of the driver (`cuDriverGetVersion`), e.g. `12.4`.
    pub driver_cuda_version: String,
    pub total_mib: u64,
    pub free_mib: u64,
    pub limit: Option<LimitTest>,
    pub h2d_gbps: f64,
    pub d2h_gbps: f64,
    pub d2d_gbps: f64,
    /// When each bandwidth step's timed samples ran and what they moved: with several clients,
    /// their bytes over the union of their windows is what the device gave them together.
    pub windows: Windows,
    /// The copy sizes used (smaller than asked when the memory promised is small).
    pub buffers: BufferSizes,
    /// The host CPUs the worker was bound to (`0-15,32-47`); `None` when not bound.
    pub host_cpus: Option<String>,
    /// Event-timed empty-kernel launches, one sample per launch.
    pub launch_us: Vec<f64>,
    /// Host-timed launch + stream synchronize round trips.
    pub roundtrip_us: Vec<f64>,
    /// `CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT`: what the context is given.
    pub multiprocessors: u32,
    /// The most SMs running the SM-id kernel's blocks at the same moment (`%smid` with
    /// `%globaltimer`): what the context really gets at once.
    pub sms_observed: u32,
    /// Distinct `%smid` values over the whole kernel (later waves may run on other SMs).
    pub sms_distinct: u32,
}

/// The timed samples of one bandwidth step: bytes moved between two host clock readings
/// (`CLOCK_MONOTONIC` nanoseconds, the same clock in every process of the machine).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Window {
    pub bytes: u64,
    pub start_ns: u64,
    pub end_ns: u64,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Windows {
    pub h2d: Window,
    pub d2d: Window,
    pub d2h: Window,
}

/// Sizes of the copies a worker made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BufferSizes {
    /// Each host↔device copy.
    pub copy_mib: u64,
    /// Each of the two device buffers of the device-to-device copy.
    pub d2d_mib: u64,
}

/// The memory-limit test: allocate chunks until the driver refuses or the total passes the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LimitTest {
    pub limit_mib: u64,
    pub chunk_mib: u64,
    /// What the driver handed out before it refused (or before the test stopped).
    pub allocated_mib: u64,
    /// The driver handed out more than the limit.
    pub exceeded: bool,
}

impl LimitTest {
    /// Chunks of 1/32 of the limit (2 MiB to 1 GiB): fine enough to land near it, few enough to
    /// be quick on an 80 GiB GPU.
    pub(crate) fn chunk_for(limit_mib: u64) -> u64 {
        (limit_mib / 32).clamp(2, 1024)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measurement() -> Measurement {
        Measurement {
            device_name: "NVIDIA A100-SXM4-40GB MIG 1g.5gb".into(),
            uuid: "MIG-1d3e5a0c-4a5b-5c6d-8e9f-0a1b2c3d4e5f".into(),
            compute_capability: "8.0".into(),
            driver_cuda_version: "12.4".into(),
            total_mib: 4864,
            free_mib: 4600,
            limit: Some(LimitTest {
                limit_mib: 4864,
                chunk_mib: 152,
                allocated_mib: 4560,
                exceeded: false,
            }),
            h2d_gbps: 24.5,
            d2h_gbps: 25.1,
            d2d_gbps: 180.0,
            windows: Windows::default(),
            buffers: BufferSizes {
                copy_mib: 32,
                d2d_mib: 128,
            },
            host_cpus: Some("0-7".into()),
            launch_us: vec![2.5, 2.7],
            roundtrip_us: vec![8.0, 9.5],
            multiprocessors: 14,
            sms_observed: 14,
            sms_distinct: 28,
        }
    }

    #[test]
    fn every_message_survives_a_line() {
        let messages = [
            Message::Step { step: Step::H2d },
            Message::Ready,
            Message::Result {
                measurement: Box::new(measurement()),
            },
            Message::Failed {
                failure: Failure::cuda(Step::Limit, CudaError::new("cuMemAlloc_v2", 999)),
            },
        ];
        for m in messages {
            let line = m.to_line();
            assert!(!line.contains('\n'), "{line}");
            assert_eq!(Message::parse_line(&line).unwrap(), m);
        }
        assert_eq!(
            Message::Step { step: Step::D2d }.to_line(),
            r#"{"event":"step","step":"d2d"}"#
        );
    }

    #[test]
    fn garbage_and_unknown_events_are_errors_not_panics() {
        for line in [
            "",
            "hello",
            r#"{"event":"explode"}"#,
            r#"{"event":"step","step":"warp"}"#,
            r#"{"event":"result","measurement":{}}"#,
        ] {
            let e = Message::parse_line(line).unwrap_err();
            assert!(e.contains("unexpected worker output"), "{e}");
        }
    }

    #[test]
    fn requests_round_trip() {
        let r = Request {
            device: DeviceChoice::ByUuid {
                uuid: "GPU-abc".into(),
            },
            limit_mib: Some(10240),
            memory_mib: 10240,
            cpus: Some(vec![0, 1, 2]),
            physical_multiprocessors: 108,
            plan: Plan::quick(Some(8)),
            wait_for_go: true,
        };
        let line = serde_json::to_string(&r).unwrap();
        assert_eq!(serde_json::from_str::<Request>(&line).unwrap(), r);
        assert_eq!(r.device.uuid(), "GPU-abc");
        assert_eq!(r.plan.d2d_mib, 32);
    }

    #[test]
    fn plans_and_chunks() {
        let full = Plan::full(None);
        assert_eq!(
            (full.copy_mib, full.d2d_mib, full.launches),
            (256, 1024, 1000)
        );
        assert_eq!(Plan::quick(None).copy_mib, 32);
        assert_eq!(LimitTest::chunk_for(4864), 152);
        assert_eq!(LimitTest::chunk_for(81920), 1024);
        assert_eq!(LimitTest::chunk_for(16), 2);
        assert_eq!(Step::Sms.position(), 7);
    }
}
