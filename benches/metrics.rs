//! `cargo bench --bench metrics`: one scrape of an 8-GPU node with 56 MIG devices (the simulated
//! driver's snapshot, the series, the encoding). Goal: under 50 ms.

// A benchmark prints its figures.
#![allow(clippy::print_stdout)]

use gpushare::metrics::bench::scrapes;

fn main() -> std::io::Result<()> {
    let dir = std::env::temp_dir().join(format!("gpushare-bench-metrics-{}", std::process::id()));
    std::fs::create_dir(&dir)?;
    let figures = scrapes(&dir, 50);
    std::fs::remove_dir_all(&dir)?;
    let f = figures?;
    println!(
        "metrics scrape, 8 GPUs × 7 MIG devices, 50 scrapes: best {:.2} ms, mean {:.2} ms ({} series, {} KiB)",
        f.best.as_secs_f64() * 1000.0,
        f.mean.as_secs_f64() * 1000.0,
        f.series,
        f.bytes / 1024
    );
    Ok(())
}
