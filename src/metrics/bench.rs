//! For `benches/metrics.rs`: one scrape of a simulated 8-GPU node with 56 MIG devices (every
//! A100 as seven 1g.5gb), from the driver's snapshot to the encoded text.

use super::{Collector, Format, Sources};
use crate::backend::BackendOptions;
use crate::paths::Paths;
use std::time::{Duration, Instant};

/// What one run measured.
pub struct Figures {
    /// The fastest scrape.
    pub best: Duration,
    /// The mean of the scrapes.
    pub mean: Duration,
    pub series: usize,
    pub bytes: usize,
}

/// `runs` scrapes of the node; the node file lives in a private directory under `dir`.
pub fn scrapes(dir: &std::path::Path, runs: u32) -> std::io::Result<Figures> {
    let node = dir.join("node.toml");
    let gpu = "[[gpus]]\nmodel = \"NVIDIA A100-SXM4-40GB\"\nmig = \"enabled\"\ninstances = [\n"
        .to_string()
        + &(0..7)
            .map(|s| format!("  {{ profile = \"1g.5gb\", start = {s} }},\n"))
            .collect::<String>()
        + "]\n";
    std::fs::write(&node, gpu.repeat(8))?;
    let collector = Collector::new(Sources {
        backend: BackendOptions {
            sim: Some(node.to_string_lossy().into_owned()),
            ..BackendOptions::default()
        },
        paths: Paths::new(Some(dir.join("root"))),
        pod_resources_root: None,
        config: None,
        agent: None,
    });
    let mut best = Duration::MAX;
    let mut total = Duration::ZERO;
    let mut text = String::new();
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        text = collector.scrape(Format::Prometheus);
        let took = start.elapsed();
        best = best.min(took);
        total += took;
    }
    Ok(Figures {
        best,
        mean: total / runs.max(1),
        series: text.lines().filter(|l| !l.starts_with('#')).count(),
        bytes: text.len(),
    })
}
