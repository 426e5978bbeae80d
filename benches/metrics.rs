//! `cargo bench --bench metrics`: one scrape of an 8-GPU node (the simulated driver's snapshot,
//! the series, the encoding) with 56 MIG devices, and with 500 processes of 500 pods, each
//! attributed to its pod and container from its cgroup file. Goal: under 50 ms each.

// A benchmark prints its figures.
#![allow(clippy::print_stdout)]

use gpushare::observe::metrics::bench::{Figures, scrapes, scrapes_with_pods};
use std::path::Path;

/// `run` in a directory of its own, removed after; its figures printed as `what`.
fn bench(what: &str, run: impl FnOnce(&Path) -> std::io::Result<Figures>) -> std::io::Result<()> {
    let dir = std::env::temp_dir().join(format!("gpushare-bench-metrics-{}", std::process::id()));
    std::fs::create_dir(&dir)?;
    let figures = run(&dir);
    std::fs::remove_dir_all(&dir)?;
    let f = figures?;
    println!(
        "metrics scrape, {what}, 50 scrapes: best {:.2} ms, mean {:.2} ms ({} series, {} of them a pod's, {} KiB)",
        f.best.as_secs_f64() * 1000.0,
        f.mean.as_secs_f64() * 1000.0,
        f.series,
        f.attributed,
        f.bytes / 1024
    );
    Ok(())
}

fn main() -> std::io::Result<()> {
    bench("8 GPUs × 7 MIG devices", |dir| scrapes(dir, 50))?;
    bench("8 GPUs × 500 processes of 500 pods", |dir| {
        scrapes_with_pods(dir, 500, 50)
    })
}
