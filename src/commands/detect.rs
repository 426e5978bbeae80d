//! `gpushare detect`: the node as the driver (or simulator) sees it.

use crate::commands::cli::DetectArgs;
use crate::node::Context;
use crate::node::gpu_health::NodeHealth;
use crate::node::gpu_health::verdict::GpuHealth;
use crate::node::model::{ComputeMode, Gpu, MigState, Node, Owner, ProcessKind, VgpuHostMode};
use crate::observe::owners::OwnerReader;
use crate::observe::pod_resources::{self, Holders, PodDevice};
use crate::support::clock::unix_now;
use crate::support::error::{Exit, Result};
use crate::support::output::{Output, Style, table};
use serde::Serialize;

/// What `detect` prints: the node, and the MPS daemons gpushare started on it.
#[derive(Serialize)]
struct Detected {
    #[serde(flatten)]
    node: Node,
    /// From the daemons' records (`mps status` asks the daemons themselves).
    mps: Vec<MpsDaemon>,
    /// The devices pods hold, as the kubelet's pod-resources API says; null when it was not
    /// asked or did not answer.
    pods: Option<Vec<PodDevice>>,
    /// Each GPU's health from the Xid and ECC events a watch heard (see `gpushare agent`,
    /// `gpushare metrics --listen`).
    health: Vec<HealthOut>,
    /// The shares claims hold of devices gpushare's DRA driver shares (`mps.shares`).
    shares: Vec<ShareOut>,
}

#[derive(Serialize)]
struct ShareOut {
    /// `namespace/name`, and the pods it is reserved for.
    claim: String,
    pods: Vec<String>,
    /// The driver's device name and the device's UUID.
    device: String,
    uuid: String,
    daemon: String,
    memory_mib: u64,
    thread_percentage: u32,
    /// What its pods' processes use on the device; null when unknown (whose the processes are
    /// is read with --host-root).
    used_memory_mib: Option<u64>,
    /// Its pods use more memory than the share gives (a client that lifted its own limit).
    over: Option<bool>,
}

#[derive(Serialize)]
struct HealthOut {
    gpu: u32,
    /// `healthy`, `unhealthy` (the whole GPU), `mig-devices-unhealthy`; null when unknown.
    state: Option<&'static str>,
    /// Why it is unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    unknown: Option<String>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    verdict: Option<GpuHealth>,
}

fn health_out(gpu: u32, health: std::result::Result<GpuHealth, String>) -> HealthOut {
    match health {
        Ok(h) => HealthOut {
            gpu,
            state: Some(if !h.healthy {
                "unhealthy"
            } else if !h.unhealthy_mig_devices.is_empty() {
                "mig-devices-unhealthy"
            } else {
                "healthy"
            }),
            unknown: None,
            verdict: Some(h),
        },
        Err(why) => HealthOut {
            gpu,
            state: None,
            unknown: Some(why),
            verdict: None,
        },
    }
}

#[derive(Serialize)]
struct MpsDaemon {
    name: String,
    pipe_dir: String,
    /// UUIDs of the GPUs or MIG devices the daemon serves.
    devices: Vec<String>,
    clients: Option<u32>,
    thread_percentage: Option<u32>,
}

pub(super) fn run(ctx: &mut Context, args: &DetectArgs) -> Result<Exit> {
    let mut node = ctx.snapshot_quiet()?;
    let selected = args.gpu.resolve(&node)?;
    node.gpus.retain(|g| selected.contains(&g.index));
    let mps = crate::sharing::mps::settings::load_all(&ctx.paths)?
        .into_iter()
        .filter(|d| d.devices.iter().any(|dev| selected.contains(&dev.gpu)))
        .map(|d| MpsDaemon {
            name: d.name,
            pipe_dir: d.pipe_dir.display().to_string(),
            devices: d.devices.into_iter().map(|dev| dev.uuid).collect(),
            clients: d.clients,
            thread_percentage: d.thread_percentage,
        })
        .collect();
    let root = pod_resources::host_root(args.holders.host_root.as_deref(), ctx.simulated());
    attribute(
        ctx,
        &mut node,
        root.as_deref(),
        &args.holders.kubelet_cgroup_root,
    );
    let pods = match root.map(|r| pod_resources::read(&node, &r)) {
        None => None,
        Some(Holders::Known(held)) => Some(
            held.into_iter()
                .filter(|d| d.gpu.is_none_or(|g| selected.contains(&g)))
                .collect(),
        ),
        Some(Holders::NoSocket(socket)) => {
            ctx.out.note(format!(
                "no kubelet socket at {}: which pods hold the devices is unknown",
                socket.display()
            ));
            None
        }
        Some(Holders::Refused(socket, why)) => {
            ctx.out.warn(format!(
                "the kubelet at {} did not say which pods hold the devices: {why}",
                socket.display()
            ));
            None
        }
    };
    let (policy, policy_note) = crate::node::gpu_health::node_policy(&ctx.paths);
    if let Some(note) = policy_note {
        ctx.out.warn(note);
    }
    let health = NodeHealth::read(&ctx.paths, &node, &policy, unix_now())?
        .gpus
        .into_iter()
        .map(|(gpu, h)| health_out(gpu, h))
        .collect();
    let shares = crate::sharing::mps::shared::all(&ctx.paths)?
        .into_iter()
        .map(|(_, s)| {
            let used = s.used_mib(&node);
            ShareOut {
                over: used.map(|u| u > s.memory_mib),
                used_memory_mib: used,
                claim: s.claim,
                pods: s.pods,
                device: s.device,
                uuid: s.uuid,
                daemon: s.daemon,
                memory_mib: s.memory_mib,
                thread_percentage: s.thread_percentage,
            }
        })
        .collect();
    let detected = Detected {
        node,
        mps,
        pods,
        health,
        shares,
    };
    ctx.out.data(&detected, |out| render(out, &detected))?;
    for line in detected.node.note_lines(|_| true) {
        ctx.out.warn(line);
    }
    // Everything that could be read is printed. A MIG layout the driver refuses to list is still
    // an error (it is unknown, not empty) — unless the refusal is only that this user is not
    // root: a non-root `detect` shows what it can, says what needs root, and succeeds.
    if let Some(gpu) = detected.node.gpus.iter().find(|g| {
        g.mig.instances.is_none() && !g.note("mig.instances").is_some_and(|n| n.needs_root)
    }) {
        return Err(gpu.unknown_error("mig.instances", "its MIG layout is unknown"));
    }
    let mut needs_root: Vec<&str> = Vec::new();
    for note in detected.node.gpus.iter().flat_map(|g| &g.notes) {
        if note.needs_root && !needs_root.contains(&note.field.as_str()) {
            needs_root.push(&note.field);
        }
    }
    if !needs_root.is_empty() {
        ctx.out.note(format!(
            "hint: the driver shows {} only to root; run gpushare as root to see them",
            needs_root.join(", ")
        ));
    }
    Ok(Exit::Ok)
}

/// Each process's pod and container, or `host`, from the host under `root`; on a simulated node
/// without `--host-root` the PIDs are not this host's, and their owners stay unknown.
pub(super) fn attribute(
    ctx: &Context,
    node: &mut Node,
    root: Option<&std::path::Path>,
    pods: &crate::observe::owners::cgroup::PodCgroups,
) {
    let any = node
        .gpus
        .iter()
        .any(|g| g.processes.as_ref().is_some_and(|p| !p.is_empty()));
    if !any {
        return;
    }
    let Some(root) = root else {
        ctx.out.note(
            "whose the processes are is unknown: a simulated node's PIDs are read on a host only with --host-root",
        );
        return;
    };
    let reader = OwnerReader::with_kubelet_logs(root).with_pod_cgroups(pods.clone());
    reader.attribute(node);
    let unnamed = node
        .gpus
        .iter()
        .flat_map(|g| g.processes.iter().flatten())
        .any(|p| matches!(&p.owner, Some(Owner::Pod(p)) if p.pod.is_none()));
    if let Some(why) = reader.names_unknown.filter(|_| unnamed) {
        ctx.out.note(why);
    }
}

/// A value, or `?` when the driver did not say.
fn known<T: ToString>(value: Option<T>) -> String {
    value.map_or_else(|| "?".to_string(), |v| v.to_string())
}

fn mig_column(mig: &MigState) -> String {
    if !mig.capable {
        return "n/a".into();
    }
    if mig.instances.is_none() {
        return format!("{} (layout unknown)", mig.current.as_str());
    }
    if mig.current == mig.pending {
        mig.current.as_str().into()
    } else {
        format!(
            "{} (pending {} after reset)",
            mig.current.as_str(),
            mig.pending.as_str()
        )
    }
}

fn gpu_rows(out: &Output, gpu: &Gpu) -> Vec<Vec<String>> {
    let mut rows = vec![vec![
        gpu.index.to_string(),
        out.paint(Style::Bold, &gpu.name),
        gpu.pci_bus_id.clone(),
        format!("{} / {} MiB", gpu.memory_used_mib, gpu.memory_total_mib),
        gpu.compute_capability.clone(),
        known(gpu.multiprocessors),
        known(gpu.compute_mode.map(ComputeMode::as_str)),
        mig_column(&gpu.mig),
    ]];
    for gi in gpu.mig.instances.iter().flatten() {
        let cis = if gi.compute_instances.is_empty() {
            out.paint(Style::Warn, "no compute instance")
        } else {
            gi.compute_instances
                .iter()
                .map(|ci| {
                    let uuid = ci.uuid.as_deref().unwrap_or("?");
                    format!("CI {} {} {uuid}", ci.compute_instance_id, ci.profile)
                })
                .collect::<Vec<_>>()
                .join("; ")
        };
        rows.push(vec![
            String::new(),
            format!(
                "  GI {} {} @{}",
                gi.gpu_instance_id, gi.profile, gi.placement
            ),
            String::new(),
            format!(
                "{} / {} MiB",
                gi.memory_used_mib
                    .map_or_else(|| "?".to_string(), |m| m.to_string()),
                gi.memory_mib
            ),
            String::new(),
            gi.multiprocessors.to_string(),
            String::new(),
            cis,
        ]);
    }
    rows
}

fn render(out: &Output, detected: &Detected) -> String {
    let node = &detected.node;
    let mut s = format!(
        "{}  driver {}  CUDA {}  {} GPU(s)\n\n",
        out.paint(Style::Bold, &node.source),
        node.driver_version,
        node.cuda_driver_version,
        node.gpus.len()
    );
    let rows = node.gpus.iter().flat_map(|g| gpu_rows(out, g)).collect();
    s.push_str(&table(
        &[
            "GPU",
            "NAME",
            "BUS ID",
            "MEMORY",
            "CC",
            "SMS",
            "COMPUTE MODE",
            "MIG",
        ],
        rows,
    ));
    let processes: Vec<Vec<String>> = node
        .gpus
        .iter()
        .flat_map(|g| {
            g.processes.iter().flatten().map(move |p| {
                let place = match (p.gpu_instance_id, p.compute_instance_id) {
                    (Some(gi), Some(ci)) => format!("GI {gi} CI {ci}"),
                    (Some(gi), None) => format!("GI {gi}"),
                    // With MIG on every process runs in a MIG device: the driver did not say which.
                    _ if g.mig.current.is_enabled() => "?".into(),
                    _ => "whole GPU".into(),
                };
                vec![
                    g.index.to_string(),
                    p.pid.to_string(),
                    p.name.clone(),
                    match p.kind {
                        ProcessKind::Compute => "C".into(),
                        ProcessKind::MpsClient => "M+C".into(),
                    },
                    p.used_memory_mib
                        .map_or_else(|| "?".to_string(), |m| format!("{m} MiB")),
                    place,
                    p.owner
                        .as_ref()
                        .map_or_else(|| "?".to_string(), Owner::describe),
                ]
            })
        })
        .collect();
    if !processes.is_empty() {
        s.push('\n');
        s.push_str(&table(
            &["GPU", "PID", "PROCESS", "TYPE", "MEMORY", "ON", "OWNER"],
            processes,
        ));
    }
    let vgpu_hosts: Vec<String> = node
        .gpus
        .iter()
        .filter_map(|g| {
            g.vgpu_host_mode.map(|m| match m {
                VgpuHostMode::Sriov => format!("{} (SR-IOV)", g.index),
                VgpuHostMode::NonSriov => format!("{} (non-SR-IOV)", g.index),
            })
        })
        .collect();
    if !vgpu_hosts.is_empty() {
        s.push_str(&format!(
            "\nvGPU host mode (see `gpushare vgpu status`): GPU {}\n",
            vgpu_hosts.join(", ")
        ));
    }
    if !node.holders.is_empty() {
        let names: Vec<String> = node.holders.iter().map(|h| h.describe()).collect();
        s.push_str(&format!("\nHolding the GPUs open: {}\n", names.join(", ")));
    }
    if let Some(pods) = detected.pods.as_ref().filter(|p| !p.is_empty()) {
        let rows = pods
            .iter()
            .map(|d| {
                vec![
                    known(d.gpu),
                    d.device_id.clone(),
                    d.resource.clone(),
                    format!("{}/{}", d.namespace, d.pod),
                    d.container.clone().unwrap_or_else(|| "(prepared)".into()),
                ]
            })
            .collect();
        s.push('\n');
        s.push_str(&table(
            &["GPU", "DEVICE", "RESOURCE", "POD", "CONTAINER"],
            rows,
        ));
    }
    if !detected.shares.is_empty() {
        let rows = detected
            .shares
            .iter()
            .map(|sh| {
                vec![
                    sh.device.clone(),
                    sh.claim.clone(),
                    sh.pods.join(","),
                    format!("{} MiB", sh.memory_mib),
                    format!("{}%", sh.thread_percentage),
                    match (sh.used_memory_mib, sh.over) {
                        (Some(u), Some(true)) => format!("{u} MiB OVER"),
                        (Some(u), _) => format!("{u} MiB"),
                        (None, _) => "?".into(),
                    },
                ]
            })
            .collect();
        s.push('\n');
        s.push_str(&table(
            &[
                "SHARED DEVICE",
                "CLAIM",
                "PODS",
                "MEMORY",
                "COMPUTE",
                "USED",
            ],
            rows,
        ));
    }
    s.push_str(&health_lines(&detected.health));
    for d in &detected.mps {
        s.push_str(&format!(
            "\nMPS daemon {}: {} device(s), pipe dir {} (see `gpushare mps status`)\n",
            d.name,
            d.devices.len(),
            d.pipe_dir
        ));
    }
    s
}

/// The health section: one line when it is unknown everywhere for one reason, a table otherwise.
fn health_lines(health: &[HealthOut]) -> String {
    let mut whys: Vec<&str> = health.iter().filter_map(|h| h.unknown.as_deref()).collect();
    whys.dedup();
    if health.iter().all(|h| h.state.is_none()) && whys.len() == 1 {
        return format!("\nGPU health: unknown: {}\n", whys[0]);
    }
    let now = unix_now();
    let rows = health
        .iter()
        .map(|h| {
            let why = match (&h.verdict, &h.unknown) {
                (Some(v), _) if !v.reasons.is_empty() => v
                    .reasons
                    .iter()
                    .map(|r| format!("{}, {:.0} s ago", r.describe(), (now - r.last_at).max(0.0)))
                    .collect::<Vec<_>>()
                    .join("; "),
                (Some(v), _) => v
                    .recent
                    .first()
                    .map(|r| format!("last: {}", r.describe()))
                    .unwrap_or_default(),
                (None, Some(why)) => why.clone(),
                (None, None) => String::new(),
            };
            vec![h.gpu.to_string(), known(h.state), why]
        })
        .collect();
    format!("\n{}", table(&["GPU", "HEALTH", "WHY"], rows))
}
