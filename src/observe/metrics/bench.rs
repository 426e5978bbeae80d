//! For `benches/metrics.rs`: one scrape of a simulated 8-GPU node, from the driver's snapshot to
//! the encoded text: with 56 MIG devices (every A100 as seven 1g.5gb), and with 500 processes
//! of 500 pods' containers on time-shared GPUs, each attributed from its cgroup file and the
//! kubelet's log directories (a host tree under the bench's directory).

use super::{Collector, Format, Sources};
use crate::node::backend::BackendOptions;
use crate::support::paths::Paths;
use std::time::{Duration, Instant};

/// What one run measured.
pub struct Figures {
    /// The fastest scrape.
    pub best: Duration,
    /// The mean of the scrapes.
    pub mean: Duration,
    pub series: usize,
    pub bytes: usize,
    /// Series of a pod's processes (the rest past the limit are summed per device).
    pub attributed: usize,
}

/// `runs` scrapes of the node with MIG devices; the node file lives in a private directory under
/// `dir`.
pub fn scrapes(dir: &std::path::Path, runs: u32) -> std::io::Result<Figures> {
    let gpu = "[[gpus]]\nmodel = \"NVIDIA A100-SXM4-40GB\"\nmig = \"enabled\"\ninstances = [\n"
        .to_string()
        + &(0..7)
            .map(|s| format!("  {{ profile = \"1g.5gb\", start = {s} }},\n"))
            .collect::<String>()
        + "]\n";
    measure(dir, &gpu.repeat(8), None, runs)
}

/// `runs` scrapes of a node whose 8 GPUs run `processes` processes of as many pods between them.
pub fn scrapes_with_pods(
    dir: &std::path::Path,
    processes: u32,
    runs: u32,
) -> std::io::Result<Figures> {
    let host = dir.join("host");
    let mut gpus = vec![String::new(); 8];
    for i in 0..processes {
        let (pid, uid, id) = (
            10_000 + i,
            format!("{i:08x}-0000-4000-8000-000000000000"),
            format!("{i:064x}"),
        );
        let cgroup = format!(
            "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod{}.slice/cri-containerd-{id}.scope\n",
            uid.replace('-', "_")
        );
        std::fs::create_dir_all(host.join(format!("proc/{pid}")))?;
        std::fs::write(host.join(format!("proc/{pid}/cgroup")), cgroup)?;
        std::fs::create_dir_all(host.join(format!("var/log/pods/team-{}_job-{i}_{uid}", i % 10)))?;
        let link = host.join(format!(
            "var/log/containers/job-{i}_team-{}_cuda-{id}.log",
            i % 10
        ));
        std::fs::create_dir_all(link.parent().unwrap_or(&host))?;
        std::fs::write(link, "")?;
        gpus[(i % 8) as usize].push_str(&format!(
            "  {{ pid = {pid}, name = \"python\", used_memory_mib = {} }},\n",
            64 + i % 64
        ));
    }
    let node: String = gpus
        .iter()
        .map(|p| format!("[[gpus]]\nmodel = \"NVIDIA A100-SXM4-40GB\"\nprocesses = [\n{p}]\n"))
        .collect();
    measure(dir, &node, Some(host), runs)
}

fn measure(
    dir: &std::path::Path,
    node_file: &str,
    host: Option<std::path::PathBuf>,
    runs: u32,
) -> std::io::Result<Figures> {
    let node = dir.join("node.toml");
    std::fs::write(&node, node_file)?;
    let collector = Collector::new(Sources {
        backend: BackendOptions {
            sim: Some(node.to_string_lossy().into_owned()),
            ..BackendOptions::default()
        },
        paths: Paths::new(Some(dir.join("root"))),
        pod_resources_root: host,
        config: None,
        agent: None,
        pod_names: None,
        own_container: None,
        pod_cgroups: Default::default(),
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
        attributed: text
            .lines()
            .filter(|l| l.starts_with("gpushare_owner_processes{") && l.contains("owner=\"pod\""))
            .count(),
    })
}
