//! `gpushare status`: one screen of what the node shares now. Per GPU: how it is shared and by
//! which entry of the layout in force; its MIG instances drawn over its memory slices, each with
//! its placement and holders; the MPS daemon serving it and the claims' shares of it;
//! time-slicing replicas; health. Then the layout in force and what `apply` would still change.

use crate::commands::cli::StatusArgs;
use crate::node::Context;
use crate::node::config::{AssignedConfig, Config, Mode};
use crate::node::gpu_health::NodeHealth;
use crate::node::model::Gpu;
use crate::observe::pod_resources::{self, Holders, PodDevice};
use crate::support::error::{Exit, Result};
use crate::support::output::{Output, Style};
use serde::Serialize;

#[derive(Serialize)]
struct Status {
    source: String,
    gpus: Vec<GpuStatus>,
    /// The layout in force and how the node differs from it.
    layout: Layout,
}

#[derive(Serialize)]
struct GpuStatus {
    index: u32,
    name: String,
    uuid: String,
    /// `mig`, `mps`, `time-slicing`, `vgpu`, `none` (the layout's), or what the node shows
    /// without one: `mig` or `whole`.
    mode: String,
    /// The entry of the layout that covers it, `gpushare.toml:LINE`; null without one.
    entry: Option<String>,
    /// `healthy`, `unhealthy`, `mig-devices-unhealthy`; null when unknown.
    health: Option<&'static str>,
    /// Its MIG instances over its memory slices; null with MIG off.
    mig: Option<MigStatus>,
    /// The MPS daemons gpushare runs for it (or its MIG devices).
    mps: Vec<DaemonStatus>,
    /// The DRA claims' shares of it (or of its MIG devices).
    shares: Vec<ShareStatus>,
    /// Time-slicing replicas the layout gives it (or each of its MIG devices).
    time_slicing_replicas: Option<u32>,
    /// Pods holding it whole.
    holders: Vec<String>,
}

#[derive(Serialize)]
struct MigStatus {
    memory_slices: u32,
    /// One character per memory slice: the letter of the instance on it, `.` when free.
    map: String,
    instances: Vec<InstanceStatus>,
}

#[derive(Serialize)]
struct InstanceStatus {
    letter: char,
    profile: String,
    start: u32,
    size: u32,
    gpu_instance_id: u32,
    /// The MIG devices' UUIDs (one per compute instance).
    uuids: Vec<String>,
    /// `namespace/pod` of the pods holding it, as the kubelet says.
    holders: Vec<String>,
    processes: usize,
}

#[derive(Serialize)]
struct DaemonStatus {
    name: String,
    running: bool,
    thread_percentage: Option<u32>,
    memory_limit_mib: Option<u64>,
}

#[derive(Serialize)]
struct ShareStatus {
    claim: String,
    device: String,
    memory_mib: u64,
    thread_percentage: u32,
}

#[derive(Serialize)]
struct Layout {
    /// The gpushare.toml in force; null when there is none.
    path: Option<String>,
    /// The node is as it says; null without a layout.
    matches: Option<bool>,
    /// What `gpushare apply` would still change.
    changes: Vec<String>,
}

pub(super) fn run(ctx: &mut Context, args: &StatusArgs) -> Result<Exit> {
    let mut node = ctx.snapshot_quiet()?;
    let root = pod_resources::host_root(args.holders.host_root.as_deref(), ctx.simulated());
    super::detect::attribute(
        ctx,
        &mut node,
        root.as_deref(),
        &args.holders.kubelet_cgroup_root,
    );
    let held: Vec<PodDevice> = match root.map(|r| pod_resources::read(&node, &r)) {
        Some(Holders::Known(held)) => held,
        _ => Vec::new(),
    };
    let explicit = args.config.is_some();
    let path = args
        .config
        .clone()
        .unwrap_or_else(|| ctx.paths.system(crate::node::config::DEFAULT_PATH));
    let config = if explicit || path.exists() {
        Some(Config::load(&path)?)
    } else {
        None
    };
    let assigned = config
        .clone()
        .map(|c| AssignedConfig::new(c, &node))
        .transpose()?;
    let daemons = crate::sharing::mps::settings::load_all(&ctx.paths)?;
    let shares = crate::sharing::mps::shared::all(&ctx.paths)?;
    let (policy, _) = crate::node::gpu_health::node_policy(&ctx.paths);
    let health = NodeHealth::read(
        &ctx.paths,
        &node,
        &policy,
        crate::support::clock::unix_now(),
    )?;
    let gpus = node
        .gpus
        .iter()
        .map(|gpu| {
            let entry = assigned.as_ref().and_then(|a| {
                let assignments = a.assignments();
                let e = assignments.iter().find(|x| x.gpu == gpu.index)?.entry;
                let (line, _) = crate::support::error::line_col(&a.source.text, e.span().start);
                Some((e.clone(), format!("{}:{line}", a.source.path.display())))
            });
            let mode = match &entry {
                Some((e, _)) => e.get_ref().mode.get_ref().as_str().to_string(),
                None if gpu.mig.current.is_enabled() => "mig".into(),
                None => "whole".into(),
            };
            let replicas = entry.as_ref().and_then(|(e, _)| {
                let e = e.get_ref();
                match *e.mode.get_ref() {
                    Mode::TimeSlicing => e
                        .time_slicing
                        .as_ref()
                        .map(|t| *t.get_ref().replicas.get_ref()),
                    Mode::Mig => e
                        .mig
                        .as_ref()
                        .and_then(|m| m.get_ref().time_slicing.as_ref())
                        .map(|t| *t.get_ref().replicas.get_ref()),
                    _ => None,
                }
            });
            let state = health.gpus.get(&gpu.index).and_then(|h| h.as_ref().ok());
            GpuStatus {
                index: gpu.index,
                name: gpu.name.clone(),
                uuid: gpu.uuid.clone(),
                mode,
                entry: entry.map(|(_, at)| at),
                health: state.map(|h| {
                    if !h.healthy {
                        "unhealthy"
                    } else if !h.unhealthy_mig_devices.is_empty() {
                        "mig-devices-unhealthy"
                    } else {
                        "healthy"
                    }
                }),
                mig: mig_status(gpu, &held),
                mps: daemons
                    .iter()
                    .filter(|d| d.devices.iter().any(|x| x.gpu == gpu.index))
                    .map(|d| DaemonStatus {
                        name: d.name.clone(),
                        running: crate::sharing::mps::control::daemon_pid(&d.pipe_dir)
                            .is_some_and(crate::sharing::mps::process::alive),
                        thread_percentage: d.thread_percentage,
                        memory_limit_mib: d.devices.iter().find_map(|x| x.memory_limit_mib),
                    })
                    .collect(),
                shares: shares
                    .iter()
                    .filter(|(_, s)| on_gpu(gpu, &s.uuid))
                    .map(|(_, s)| ShareStatus {
                        claim: s.claim.clone(),
                        device: s.device.clone(),
                        memory_mib: s.memory_mib,
                        thread_percentage: s.thread_percentage,
                    })
                    .collect(),
                time_slicing_replicas: replicas,
                holders: held
                    .iter()
                    .filter(|h| h.gpu == Some(gpu.index) && h.mig_device.is_none())
                    .map(|h| format!("{}/{}", h.namespace, h.pod))
                    .collect(),
            }
        })
        .collect();
    let layout = match config {
        None => Layout {
            path: None,
            matches: None,
            changes: Vec::new(),
        },
        Some(config) => {
            let (_, plan) = crate::change::pipeline::converge::plan_only(
                ctx,
                crate::change::pipeline::desired::DesiredSource::Gpushare(config),
                std::path::Path::new("/"),
                crate::change::plan::PlanOptions::default(),
            )?;
            let mut changes: Vec<String> = plan
                .changes
                .iter()
                .map(crate::change::pipeline::runner::describe)
                .collect();
            changes.extend(
                plan.blockers
                    .iter()
                    .map(|b| format!("blocked: {}", b.message)),
            );
            Layout {
                path: Some(path.display().to_string()),
                matches: Some(changes.is_empty()),
                changes,
            }
        }
    };
    let status = Status {
        source: node.source.clone(),
        gpus,
        layout,
    };
    ctx.out.data(&status, |out| render(out, &status))?;
    Ok(Exit::Ok)
}

/// Whether the device `uuid` is `gpu` or one of its MIG devices.
fn on_gpu(gpu: &Gpu, uuid: &str) -> bool {
    gpu.uuid == uuid
        || gpu.mig.instances.iter().flatten().any(|gi| {
            gi.compute_instances
                .iter()
                .any(|ci| ci.uuid.as_deref() == Some(uuid))
        })
}

fn mig_status(gpu: &Gpu, held: &[PodDevice]) -> Option<MigStatus> {
    if !gpu.mig.current.is_enabled() {
        return None;
    }
    let catalog = crate::node::model::catalog::catalog();
    let mut instances: Vec<_> = gpu.mig.instances.iter().flatten().collect();
    instances.sort_by_key(|gi| gi.placement.start);
    let reach = instances
        .iter()
        .map(|gi| gi.placement.start + gi.placement.size)
        .max()
        .unwrap_or(0);
    let memory_slices = catalog
        .model_of(gpu)
        .and_then(|m| catalog.mig_table(m))
        .map_or(reach.max(8), |t| t.memory_slices.max(reach));
    let mut map: Vec<char> = vec!['.'; memory_slices as usize];
    let mut out = Vec::new();
    for (i, gi) in instances.iter().enumerate() {
        let letter = char::from(b'a' + (i % 26) as u8);
        for slice in gi.placement.start..gi.placement.start + gi.placement.size {
            if let Some(c) = map.get_mut(slice as usize) {
                *c = letter;
            }
        }
        let uuids: Vec<String> = gi
            .compute_instances
            .iter()
            .filter_map(|ci| ci.uuid.clone())
            .collect();
        let holders = held
            .iter()
            .filter(|h| h.mig_device.as_ref().is_some_and(|u| uuids.contains(u)))
            .map(|h| format!("{}/{}", h.namespace, h.pod))
            .collect();
        let processes = gpu
            .processes
            .iter()
            .flatten()
            .filter(|p| p.gpu_instance_id == Some(gi.gpu_instance_id))
            .count();
        out.push(InstanceStatus {
            letter,
            profile: gi.profile.clone(),
            start: gi.placement.start,
            size: gi.placement.size,
            gpu_instance_id: gi.gpu_instance_id,
            uuids,
            holders,
            processes,
        });
    }
    Some(MigStatus {
        memory_slices,
        map: map.into_iter().collect(),
        instances: out,
    })
}

fn render(out: &Output, status: &Status) -> String {
    let mut s = String::new();
    for g in &status.gpus {
        let entry = g
            .entry
            .as_deref()
            .map_or(String::new(), |e| format!(" ({e})"));
        s.push_str(&format!(
            "{} {}  {}{}  health: {}\n",
            out.paint(Style::Bold, &format!("GPU {}", g.index)),
            g.name,
            g.mode,
            entry,
            g.health.unwrap_or("?")
        ));
        if let Some(mig) = &g.mig {
            s.push_str(&format!("  memory slices [{}]\n", mig.map));
            for i in &mig.instances {
                let held = if i.holders.is_empty() {
                    if i.processes > 0 {
                        format!("{} process(es)", i.processes)
                    } else {
                        "idle".to_string()
                    }
                } else {
                    i.holders.join(", ")
                };
                s.push_str(&format!(
                    "  {} {:<10} at {}:{}  {}  {}\n",
                    i.letter,
                    i.profile,
                    i.start,
                    i.size,
                    i.uuids.first().map_or("?", String::as_str),
                    held
                ));
            }
        }
        for d in &g.mps {
            s.push_str(&format!(
                "  MPS daemon {} ({}): threads {}%{}\n",
                d.name,
                if d.running { "running" } else { "NOT RUNNING" },
                d.thread_percentage.unwrap_or(100),
                d.memory_limit_mib
                    .map_or(String::new(), |m| format!(", {m} MiB per client"))
            ));
        }
        for sh in &g.shares {
            s.push_str(&format!(
                "  share of {}: {} ({} MiB, {}%)\n",
                sh.device, sh.claim, sh.memory_mib, sh.thread_percentage
            ));
        }
        if let Some(r) = g.time_slicing_replicas {
            s.push_str(&format!("  time-slicing: {r} replicas\n"));
        }
        if !g.holders.is_empty() {
            s.push_str(&format!("  held by {}\n", g.holders.join(", ")));
        }
    }
    s.push('\n');
    match (&status.layout.path, status.layout.matches) {
        (None, _) => s.push_str("layout in force: none (gpushare init or apply -c writes one)\n"),
        (Some(p), Some(true)) => {
            s.push_str(&format!("layout in force: {p}: the node matches it\n"))
        }
        (Some(p), _) => {
            s.push_str(&format!(
                "layout in force: {p}: DRIFT, `gpushare apply` would make {} change(s):\n",
                status.layout.changes.len()
            ));
            for c in &status.layout.changes {
                s.push_str(&format!("  {c}\n"));
            }
        }
    }
    s
}
