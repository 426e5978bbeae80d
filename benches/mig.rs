//! `cargo bench --bench mig`: how fast MIG layouts are solved, planned and applied.
//!
//! 1. the placement solver on every profile multiset of every catalog model (the same multisets
//!    the brute-force test checks);
//! 2. the planner on an 8-GPU node (per GPU);
//! 3. `gpushare --sim dgx-h100 --sim-state S mig apply` for an 8-GPU layout change, next to the
//!    start-up of the same binary (`--version`) and a no-op apply.
//!
//! Targets: solving and planning take microseconds; the apply process is dominated by start-up.

// A benchmark prints its figures.
#![allow(clippy::print_stdout)]

use gpushare::change::pipeline::planner::mig::plan;
use gpushare::change::plan::PlanOptions;
use gpushare::node::backend::Backend;
use gpushare::node::backend::sim::SimBackend;
use gpushare::node::model::catalog::catalog;
use gpushare::sharing::mig::{MigConfigFile, ProfileBook, Request, solve};
use gpushare::support::output::Output;
use gpushare::support::source_file::SourceFile;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

fn main() {
    solver();
    planner();
    process();
}

fn solver() {
    println!("solver: every profile multiset of every catalog MIG table");
    let mut tables = BTreeMap::new();
    for m in &catalog().models {
        if let Some(key) = &m.mig {
            tables
                .entry(key.clone())
                .or_insert((m.name.clone(), &catalog().mig[key]));
        }
    }
    let (mut all, mut all_time) = (0u64, Duration::ZERO);
    for (model, t) in tables.values() {
        let mut counts = vec![0u32; t.profiles.len()];
        let (mut n, mut feasible, mut worst) = (0u64, 0u64, Duration::ZERO);
        let start = Instant::now();
        loop {
            let requests: Vec<Request> = counts
                .iter()
                .enumerate()
                .flat_map(|(p, &c)| {
                    (0..c).map(move |_| Request {
                        profile: p,
                        start: None,
                        compute_profile: 0,
                    })
                })
                .collect();
            // The fastest of three runs, so that a preemption on a busy machine is not "worst".
            let mut fastest = Duration::MAX;
            let mut ok = false;
            for _ in 0..3 {
                let one = Instant::now();
                ok = solve(&t.profiles, &requests, &[]).is_ok();
                fastest = fastest.min(one.elapsed());
            }
            feasible += u64::from(ok);
            worst = worst.max(fastest);
            n += 1;
            let mut i = 0;
            while i < counts.len() {
                if counts[i] < t.profiles[i].max_instances {
                    counts[i] += 1;
                    break;
                }
                counts[i] = 0;
                i += 1;
            }
            if i == counts.len() {
                break;
            }
        }
        let took = start.elapsed() / 3;
        println!(
            "  {model:46} {n:7} multisets ({feasible:5} feasible) in {:8.2} ms: mean {:6.2} µs, slowest {:7.2} µs",
            ms(took),
            us(took) / n as f64,
            us(worst)
        );
        all += n;
        all_time += took;
    }
    println!(
        "  all models: {all} multisets in {:.1} ms ({:.2} µs each)\n",
        ms(all_time),
        us(all_time) / all as f64
    );
}

fn planner() {
    let config = std::fs::read_to_string(fixture()).expect("fixture");
    let file = MigConfigFile::parse(SourceFile::inline("config-default.yaml", &config)).unwrap();
    let quiet = Output::new(Default::default(), true, Default::default());
    for (from, to) in [
        ("all-balanced", "all-1g.10gb"),
        ("all-balanced", "all-balanced"),
    ] {
        let sim = std::sync::Arc::new(SimBackend::from_preset("dgx-h100").unwrap());
        let node = sim.snapshot().unwrap();
        let book = ProfileBook::load(&*sim, &node);
        let first = file.desires(Some(from), &node, &book, &quiet).unwrap();
        let mut p = plan(&node, &first, PlanOptions::default());
        gpushare::change::pipeline::execute(&mut p, sim.clone(), &quiet).unwrap();
        let node = sim.snapshot().unwrap();
        let desires = file.desires(Some(to), &node, &book, &quiet).unwrap();
        let runs = 2000;
        let start = Instant::now();
        let mut changes = 0;
        for _ in 0..runs {
            changes = plan(&node, &desires, PlanOptions::default()).changes.len();
        }
        let each = start.elapsed() / runs;
        println!(
            "planner: dgx-h100 {from} -> {to}: {changes} changes, {:.1} µs per plan, {:.1} µs per GPU",
            us(each),
            us(each) / node.gpus.len() as f64
        );
    }
    println!();
}

fn process() {
    let dir = tempfile::tempdir().unwrap();
    println!("process (release binary, median of 40 runs):");
    process_with_state(&dir.path().join("node.json"), "state file on disk");
    // The simulator saves its state after every operation with an atomic rename, which ext4
    // flushes: on tmpfs the same runs show what the process itself costs.
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        let dir = tempfile::tempdir_in(shm).unwrap();
        process_with_state(&dir.path().join("node.json"), "state file on tmpfs");
    }
}

fn process_with_state(state: &Path, where_: &str) {
    let bin = env!("CARGO_BIN_EXE_gpushare");
    let config = fixture();
    let apply = |label: &str| {
        let mut c = Command::new(bin);
        c.args(["--sim", "dgx-h100", "--sim-state"])
            .arg(state)
            .args(["-q", "mig", "apply", "-f"])
            .arg(&config)
            .args(["-c", label]);
        c
    };
    let version = || {
        let mut c = Command::new(bin);
        c.arg("--version");
        c
    };
    let detect = || {
        let mut c = Command::new(bin);
        c.args(["--sim", "dgx-h100", "--sim-state"])
            .arg(state)
            .arg("detect");
        c
    };
    run(&mut apply("all-balanced"));
    let runs = 40;
    let mut change = Vec::new();
    let mut noop = Vec::new();
    let mut start_up = Vec::new();
    let mut sim_start_up = Vec::new();
    for i in 0..runs {
        // Alternate between two layouts: every run changes all 8 GPUs (~100 operations).
        let label = if i % 2 == 0 {
            "all-1g.10gb"
        } else {
            "all-balanced"
        };
        change.push(run(&mut apply(label)));
        noop.push(run(&mut apply(label)));
        start_up.push(run(&mut version()));
        sim_start_up.push(run(&mut detect()));
    }
    println!("  {where_}:");
    report("gpushare --version", &mut start_up);
    report("detect (loads the simulated node)", &mut sim_start_up);
    report("mig apply, no change (8 GPUs)", &mut noop);
    report("mig apply, layout change on 8 GPUs", &mut change);
}

fn run(cmd: &mut Command) -> Duration {
    let start = Instant::now();
    let status = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("run gpushare");
    assert!(status.success(), "{cmd:?} failed");
    start.elapsed()
}

fn report(what: &str, times: &mut [Duration]) {
    times.sort();
    let median = times[times.len() / 2];
    let p95 = times[(times.len() * 95 / 100).min(times.len() - 1)];
    println!(
        "    {what:38} median {:7.2} ms  p95 {:7.2} ms",
        ms(median),
        ms(p95)
    );
}

fn fixture() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mig-parted/config-default.yaml")
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}
