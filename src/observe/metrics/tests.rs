use super::sheet::Sheet;
use super::*;
use crate::sharing::mps::settings::{DaemonDevice, DaemonSpec};

/// A simulated node: GPU 0 with MIG on (a 3g.20gb holding a 1 GiB process, a 1g.5gb), GPU 1
/// with MIG off, busy 35 %.
const NODE: &str = r#"
[[gpus]]
model = "NVIDIA A100-SXM4-40GB"
mig = "enabled"
utilization_percent = 80
instances = [{ profile = "3g.20gb", start = 4 }, { profile = "1g.5gb", start = 0 }]
processes = [{ pid = 4242, name = "python", used_memory_mib = 1024, gpu_instance = 0 }]
[[gpus]]
model = "NVIDIA A100-SXM4-40GB"
utilization_percent = 35
processes = [{ pid = 7, name = "train", used_memory_mib = 2048 }]
"#;

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    collector: Collector,
}

fn fixture(agent: Option<Arc<Liveness>>) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let node = dir.path().join("node.toml");
    std::fs::write(&node, NODE).unwrap();
    let root = dir.path().join("root");
    let collector = Collector::new(Sources {
        backend: BackendOptions {
            sim: Some(node.to_string_lossy().into_owned()),
            ..BackendOptions::default()
        },
        paths: Paths::new(Some(root.clone())),
        pod_resources_root: None,
        config: None,
        agent,
        pod_names: None,
        own_container: None,
        pod_cgroups: Default::default(),
    });
    Fixture {
        _dir: dir,
        root,
        collector,
    }
}

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

fn mig_uuids(sheet: &Sheet) -> Vec<(String, String)> {
    sheet
        .series(&devices::MIG_MEMORY_TOTAL)
        .iter()
        .map(|(l, _)| (label(l, "profile"), label(l, "mig_uuid")))
        .collect()
}

fn label(labels: &sheet::Labels, key: &str) -> String {
    labels
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v.clone())
        .unwrap_or_default()
}

#[test]
fn every_device_of_a_simulated_node_from_one_snapshot_and_unknown_is_absent() {
    let f = fixture(None);
    let sheet = f.collector.collect();
    let gpu = |i: &str| {
        let l = sheet.series(&devices::GPU_MEMORY_TOTAL);
        l.iter()
            .find(|(l, _)| label(l, "gpu") == i)
            .unwrap()
            .0
            .clone()
    };
    let (g0, g1) = (gpu("0"), gpu("1"));
    assert_eq!(label(&g0, "model"), "NVIDIA A100-SXM4-40GB");
    assert!(label(&g0, "uuid").starts_with("GPU-"));
    assert_eq!(
        sheet.value(&devices::GPU_MEMORY_TOTAL, &g0),
        Some(40.0 * GIB)
    );
    assert_eq!(sheet.value(&devices::GPU_MEMORY_USED, &g1), Some(2.0 * GIB));
    assert_eq!(sheet.value(&devices::GPU_PROCESSES, &g1), Some(1.0));
    // The driver has no utilisation for a GPU with MIG on: absent, not 0.
    assert_eq!(sheet.value(&devices::GPU_UTILIZATION, &g1), Some(0.35));
    assert_eq!(sheet.value(&devices::GPU_UTILIZATION, &g0), None);
    let with = |l: &sheet::Labels, k: &'static str, v: &str| {
        let mut l = l.clone();
        l.push((k, v.to_string()));
        l
    };
    assert_eq!(
        sheet.value(&devices::GPU_MIG_ENABLED, &with(&g0, "mode", "current")),
        Some(1.0)
    );
    assert_eq!(
        sheet.value(&devices::GPU_MIG_ENABLED, &with(&g1, "mode", "pending")),
        Some(0.0)
    );
    assert_eq!(
        sheet.value(
            &devices::GPU_MIG_INSTANCES,
            &with(&g0, "profile", "3g.20gb")
        ),
        Some(1.0)
    );
    assert_eq!(
        sheet.value(&devices::GPU_MIG_INSTANCES, &with(&g0, "profile", "1g.5gb")),
        Some(1.0)
    );
    assert_eq!(
        sheet.value(&devices::REBOOT_REQUIRED, &Vec::new()),
        Some(0.0)
    );

    let migs = mig_uuids(&sheet);
    assert_eq!(migs.len(), 2, "{migs:?}");
    let big = sheet
        .series(&devices::MIG_MEMORY_TOTAL)
        .into_iter()
        .find(|(l, _)| label(l, "profile") == "3g.20gb")
        .unwrap();
    assert!(label(&big.0, "mig_uuid").starts_with("MIG-"));
    assert_eq!(big.1, 19968.0 * 1024.0 * 1024.0);
    assert_eq!(sheet.value(&devices::MIG_PROCESSES, &big.0), Some(1.0));
    assert_eq!(
        sheet.value(&devices::MIG_MEMORY_USED, &big.0),
        Some(1.0 * GIB)
    );
    // The driver answers for an idle MIG device too: none in use.
    let small = sheet
        .series(&devices::MIG_MEMORY_TOTAL)
        .into_iter()
        .find(|(l, _)| label(l, "profile") == "1g.5gb")
        .unwrap();
    assert_eq!(sheet.value(&devices::MIG_PROCESSES, &small.0), Some(0.0));
    assert_eq!(sheet.value(&devices::MIG_MEMORY_USED, &small.0), Some(0.0));
    // Pod-resources was not asked: who holds a device is unknown, so there is no series.
    assert_eq!(sheet.count(&devices::MIG_HELD), 0);
    assert_eq!(sheet.count(&devices::GPU_HELD), 0);
    assert_eq!(
        sheet.value(&SOURCE_UP, &vec![("source", "driver".into())]),
        Some(1.0)
    );
    // No probe report, no journal, no agent: none of their series.
    assert_eq!(sheet.count(&probe::PASSED), 0);
    assert_eq!(sheet.count(&changes::APPLIED), 0);
    assert_eq!(sheet.count(&changes::AGENT_STATE), 0);
}

#[test]
fn a_device_a_pod_holds_carries_the_pod_and_a_free_one_is_zero() {
    let f = fixture(None);
    let node = f.collector.snapshot().unwrap();
    let migs = mig_uuids(&f.collector.collect());
    let (profile, held_uuid) = migs[0].clone();
    let pod = |name: &str, mig: Option<&str>, gpu| crate::observe::pod_resources::PodDevice {
        namespace: "ml".into(),
        pod: name.into(),
        container: Some("main".into()),
        resource: "nvidia.com/gpu".into(),
        device_id: "x".into(),
        gpu: Some(gpu),
        mig_device: mig.map(str::to_string),
        claim: None,
    };
    let holders = vec![
        pod("a", Some(&held_uuid), 0),
        pod("b", None, 1),
        pod("b", None, 1),
    ];
    let mut sheet = Sheet::default();
    devices::add(&mut sheet, &node, Some(&holders));
    let held = sheet.series(&devices::MIG_HELD);
    assert_eq!(held.len(), 2, "{held:?}");
    let (l, v) = held
        .iter()
        .find(|(l, _)| label(l, "mig_uuid") == held_uuid)
        .unwrap();
    assert_eq!(
        (*v, label(l, "pod"), label(l, "profile")),
        (1.0, "a".into(), profile)
    );
    let (free, v) = held
        .iter()
        .find(|(l, _)| label(l, "mig_uuid") != held_uuid)
        .unwrap();
    assert_eq!((*v, label(free, "pod")), (0.0, String::new()));
    // GPU 1, whole, one container given two replicas of it: one holder.
    let gpu_held = sheet.series(&devices::GPU_HELD);
    assert_eq!(gpu_held.len(), 1, "{gpu_held:?}");
    assert_eq!(
        (label(&gpu_held[0].0, "pod"), gpu_held[0].1),
        ("b".into(), 1.0)
    );
}

#[test]
fn the_probe_report_the_journal_and_the_agent_state_are_series() {
    let liveness = Arc::new(Liveness::new("gpu-1"));
    liveness.update(|s| {
        s.state = "failed".into();
        s.matched_at = Some(crate::support::clock::unix_now() - 100.0);
    });
    let f = fixture(Some(liveness.clone()));
    let lib = f.root.join("var/lib/gpushare");
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::write(
        lib.join("probe.json"),
        r#"{"time": 1700000000.5, "source": "sim:x", "verdict": "fail",
            "targets": [
              {"kind": "mig", "gpu": 0, "uuid": "MIG-a", "label": "GPU 0 MIG 1g.5gb",
               "memory": {"limit_mib": 4864, "limit_enforced": true, "allocated_mib": 4800},
               "bandwidth_gbps": {"h2d": 12.5, "d2h": null, "d2d": 100.0}, "error": null},
              {"kind": "gpu", "gpu": 1, "uuid": "GPU-b", "label": "GPU 1",
               "memory": {}, "bandwidth_gbps": {}, "error": null}],
            "failures": [{"target": "GPU 1", "uuid": "GPU-b", "check": "memory_limit", "message": "m"}]}"#,
    )
    .unwrap();
    let mut journal =
        crate::change::journal::Journal::start(&lib.join("journal.jsonl"), "agent").unwrap();
    journal
        .step_done("GPU 0: create", "create_gpu_instance", "done")
        .unwrap();
    journal
        .record(crate::change::journal::Event::Done, None)
        .unwrap();

    let sheet = f.collector.collect();
    let target = |name: &str, kind: &str, gpu: &str, uuid: &str| -> sheet::Labels {
        vec![
            ("target", name.into()),
            ("kind", kind.into()),
            ("gpu", gpu.into()),
            ("uuid", uuid.into()),
        ]
    };
    let mig = target("GPU 0 MIG 1g.5gb", "mig", "0", "MIG-a");
    let whole = target("GPU 1", "gpu", "1", "GPU-b");
    assert_eq!(
        sheet.value(&probe::REPORT_TIME, &Vec::new()),
        Some(1700000000.5)
    );
    assert_eq!(sheet.value(&probe::PASSED, &Vec::new()), Some(0.0));
    assert_eq!(sheet.value(&probe::TARGET_PASSED, &mig), Some(1.0));
    assert_eq!(sheet.value(&probe::TARGET_PASSED, &whole), Some(0.0));
    assert_eq!(
        sheet.value(&probe::MEMORY_LIMIT, &mig),
        Some(4864.0 * 1024.0 * 1024.0)
    );
    assert_eq!(sheet.value(&probe::LIMIT_ENFORCED, &mig), Some(1.0));
    assert_eq!(sheet.value(&probe::MEMORY_LIMIT, &whole), None);
    let mut h2d = mig.clone();
    h2d.push(("direction", "h2d".into()));
    assert_eq!(sheet.value(&probe::BANDWIDTH, &h2d), Some(12.5e9));
    assert_eq!(sheet.count(&probe::BANDWIDTH), 2, "d2h unknown: absent");

    let op = vec![("operation", "create_gpu_instance".to_string())];
    assert_eq!(sheet.value(&changes::APPLIED, &op), Some(1.0));
    assert_eq!(sheet.value(&changes::FAILED, &op), Some(0.0));
    let agent = vec![("command", "agent".to_string())];
    assert_eq!(sheet.value(&changes::LAST_RUN_OK, &agent), Some(1.0));

    let state = |s: &str| sheet.value(&changes::AGENT_STATE, &vec![("state", s.to_string())]);
    assert_eq!((state("failed"), state("success")), (Some(1.0), Some(0.0)));
    let since = sheet.value(&changes::SINCE_MATCHED, &Vec::new()).unwrap();
    assert!((100.0..200.0).contains(&since), "{since}");
    liveness.update(|s| s.state = "success".into());
    assert_eq!(
        f.collector
            .collect()
            .value(&changes::SINCE_MATCHED, &Vec::new()),
        Some(0.0)
    );

    // A report that is not one, or holds figures no probe measures: its series are absent,
    // and the scrape says why.
    let good = std::fs::read_to_string(lib.join("probe.json")).unwrap();
    for bad in [
        "{".to_string(),
        good.replace("\"h2d\": 12.5", "\"h2d\": 1e308"),
        good.replace("\"h2d\": 12.5", "\"h2d\": -1e308"),
        good.replace("\"h2d\": 12.5", "\"h2d\": -0.5"),
        good.replace("1700000000.5", "-1e308"),
        good.replace("4864", "18446744073709551615"),
    ] {
        std::fs::write(lib.join("probe.json"), &bad).unwrap();
        let sheet = f.collector.collect();
        assert_eq!(sheet.count(&probe::PASSED), 0, "{bad}");
        assert_eq!(sheet.count(&probe::BANDWIDTH), 0, "{bad}");
        assert_eq!(
            sheet.value(&SOURCE_UP, &vec![("source", "probe".into())]),
            Some(0.0)
        );
    }
}

#[test]
fn an_mps_daemon_is_up_while_its_pid_file_names_a_live_process() {
    let dir = tempfile::tempdir().unwrap();
    let spec = |name: &str, pid: Option<u32>| {
        let pipe = dir.path().join(name);
        std::fs::create_dir_all(&pipe).unwrap();
        if let Some(pid) = pid {
            std::fs::write(
                pipe.join(crate::sharing::mps::control::PID_FILE),
                pid.to_string(),
            )
            .unwrap();
        }
        DaemonSpec {
            version: 1,
            name: name.into(),
            pipe_dir: pipe,
            log_dir: dir.path().join("log"),
            multiuser: false,
            clients: Some(4),
            thread_percentage: Some(25),
            devices: vec![DaemonDevice {
                ordinal: 0,
                gpu: 1,
                uuid: "GPU-b".into(),
                name: "A100".into(),
                mig: None,
                memory_mib: 40960,
                memory_limit_mib: Some(10240),
                client_cap: 48,
                previous_compute_mode: None,
            }],
            created_dirs: Vec::new(),
        }
    };
    let mut sheet = Sheet::default();
    sharing::add_mps(
        &mut sheet,
        &[spec("up", Some(std::process::id())), spec("gone", None)],
    );
    let d = |n: &str| vec![("daemon", n.to_string())];
    assert_eq!(sheet.value(&sharing::MPS_UP, &d("up")), Some(1.0));
    assert_eq!(sheet.value(&sharing::MPS_UP, &d("gone")), Some(0.0));
    assert_eq!(sheet.value(&sharing::MPS_THREADS, &d("up")), Some(25.0));
    let mut l = d("up");
    l.extend([("gpu", "1".to_string()), ("uuid", "GPU-b".to_string())]);
    assert_eq!(sheet.value(&sharing::MPS_MEMORY, &l), Some(10.0 * GIB));
}

#[test]
fn both_formats_encode_and_openmetrics_is_chosen_by_accept() {
    let f = fixture(None);
    let text = f.collector.scrape(Format::Prometheus);
    assert!(
        text.contains("# TYPE gpushare_gpu_memory_total_bytes gauge\n"),
        "{text}"
    );
    assert!(!text.contains("# EOF"));
    let open = f.collector.scrape(Format::OpenMetrics);
    assert!(open.contains("# UNIT gpushare_gpu_memory_total_bytes bytes\n"));
    assert!(open.ends_with("# EOF\n"));
    assert_eq!(Format::from_accept(None), Format::Prometheus);
    assert_eq!(
        Format::from_accept(Some(
            "application/openmetrics-text;version=1.0.0,text/plain;q=0.5"
        )),
        Format::OpenMetrics
    );
    for (accept, format) in [
        // What Prometheus 3 sends.
        (
            "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,application/openmetrics-text;version=0.0.1;q=0.5,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2",
            Format::OpenMetrics,
        ),
        ("application/openmetrics-text;q=0", Format::Prometheus),
        (
            "application/openmetrics-text; q=0.0, */*",
            Format::Prometheus,
        ),
        (
            "text/plain;q=0.9, application/openmetrics-text;q=0.5",
            Format::Prometheus,
        ),
        (
            "application/openmetrics-text;q=nonsense",
            Format::Prometheus,
        ),
        ("APPLICATION/OPENMETRICS-TEXT", Format::OpenMetrics),
        ("*/*", Format::Prometheus),
    ] {
        assert_eq!(Format::from_accept(Some(accept)), format, "{accept}");
    }
}

#[test]
fn label_values_carry_no_escape_sequence() {
    let mut sheet = Sheet::default();
    sheet.set(&SOURCE_UP, vec![("source", "a\u{1b}[2Jb".into())], 1.0);
    assert_eq!(
        sheet.value(&SOURCE_UP, &vec![("source", "a\\x1b[2Jb".into())]),
        Some(1.0)
    );
}

/// The agent's endpoint (its liveness and its metrics) under 50 clients that drip their request a
/// byte a second and 100 concurrent scrapes: every liveness probe is answered 200 within half
/// the kubelet's probe timeout (5 s in the manifests). A probe held by the slow clients would
/// wait for their head deadline (5 s); 1 s was missed by 18 ms once on a loaded 2-core machine.
#[test]
fn the_liveness_probe_is_answered_under_slow_clients_and_a_scrape_storm() {
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::time::{Duration, Instant};
    let liveness = Arc::new(Liveness::new("gpu-1"));
    let f = fixture(Some(liveness.clone()));
    let collector = Arc::new(f.collector);
    let addr = crate::support::http_endpoint::serve(
        "127.0.0.1:0".parse().unwrap(),
        "test",
        "--x",
        vec![crate::observe::liveness::route(liveness), collector.route()],
    )
    .unwrap();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut threads = Vec::new();
    for _ in 0..50 {
        let stop = stop.clone();
        threads.push(std::thread::spawn(move || {
            let Ok(mut s) = TcpStream::connect(addr) else {
                return;
            };
            for b in b"GET /metrics HTTP/1.1\r\nHost: x\r\n".iter().cycle() {
                if stop.load(std::sync::atomic::Ordering::SeqCst) || s.write_all(&[*b]).is_err() {
                    // Closed by the server's deadline: come back, as an attacker would.
                    match TcpStream::connect(addr) {
                        Ok(again) if !stop.load(std::sync::atomic::Ordering::SeqCst) => s = again,
                        _ => return,
                    }
                }
                std::thread::sleep(Duration::from_secs(1));
            }
        }));
    }
    let scrapes: Vec<_> = (0..100)
        .map(|_| {
            std::thread::spawn(move || {
                crate::support::http_endpoint::tests::get(
                    addr,
                    "GET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n",
                )
            })
        })
        .collect();
    let mut slowest = Duration::ZERO;
    for _ in 0..20 {
        let started = Instant::now();
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        s.write_all(b"GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n")
            .unwrap();
        let mut answer = String::new();
        let _ = s.read_to_string(&mut answer);
        let took = started.elapsed();
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        slowest = slowest.max(took);
        std::thread::sleep(Duration::from_millis(250));
    }
    assert!(
        slowest < Duration::from_millis(2500),
        "a probe took {slowest:?}"
    );
    let answered: Vec<String> = scrapes.into_iter().map(|t| t.join().unwrap()).collect();
    let ok = answered
        .iter()
        .filter(|a| a.starts_with("HTTP/1.1 200"))
        .count();
    let busy = answered
        .iter()
        .filter(|a| a.starts_with("HTTP/1.1 503"))
        .count();
    assert_eq!(ok + busy, 100, "every scrape gets an answer, none a reset");
    assert!(ok > 0);
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    for t in threads {
        let _ = t.join();
    }
}

#[test]
fn each_process_is_counted_for_its_pods_container_or_the_host() {
    let mut f = fixture(None);
    let host = f.root.join("host");
    let uid = "0b9f1c6e-3d4a-4f5b-8c7d-123456789abc";
    let id = "5f2c9a1e7b3d4c6f8a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f";
    for (pid, cgroup) in [
        (4242, format!("0::/kubepods/besteffort/pod{uid}/{id}\n")),
        (7, "0::/system.slice/train.service\n".to_string()),
    ] {
        std::fs::create_dir_all(host.join(format!("proc/{pid}"))).unwrap();
        std::fs::write(host.join(format!("proc/{pid}/cgroup")), cgroup).unwrap();
    }
    std::fs::create_dir_all(host.join(format!("var/log/pods/ml_trainer_{uid}"))).unwrap();
    std::fs::create_dir_all(host.join("var/log/containers")).unwrap();
    std::fs::write(
        host.join(format!("var/log/containers/trainer_ml_cuda-{id}.log")),
        "",
    )
    .unwrap();
    f.collector.sources.pod_resources_root = Some(host.clone());
    let sheet = f.collector.collect();
    let of = |owner: &str| {
        sheet
            .series(&owners::OWNER_MEMORY_USED)
            .into_iter()
            .find(|(l, _)| label(l, "owner") == owner)
            .unwrap()
    };
    let (pod, mem) = of("pod");
    assert_eq!(
        (
            label(&pod, "namespace"),
            label(&pod, "pod"),
            label(&pod, "container"),
            label(&pod, "gpu")
        ),
        ("ml".into(), "trainer".into(), "cuda".into(), "0".into())
    );
    assert!(label(&pod, "mig_uuid").starts_with("MIG-"));
    assert_eq!(mem, GIB);
    let (host_labels, mem) = of("host");
    assert_eq!((label(&host_labels, "gpu"), mem), ("1".into(), 2.0 * GIB));
    assert_eq!(
        sheet.value(&SOURCE_UP, &vec![("source", "owners".into())]),
        Some(1.0)
    );
    // A process whose cgroup is gone is unknown, and the source says so.
    std::fs::remove_dir_all(host.join("proc/7")).unwrap();
    let sheet = f.collector.collect();
    assert!(
        sheet
            .series(&owners::OWNER_PROCESSES)
            .iter()
            .any(|(l, _)| label(l, "owner") == "unknown")
    );
    assert_eq!(
        sheet.value(&SOURCE_UP, &vec![("source", "owners".into())]),
        Some(0.0)
    );
}
