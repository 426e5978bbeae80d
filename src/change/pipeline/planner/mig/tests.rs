//! The planner and the executor together on simulated nodes: minimal changes, kept instances,
//! blockers, reboots, and convergence after a failure at every operation.

use super::*;

use crate::change::pipeline::execute as executor;
use crate::node::backend::Backend;
use crate::node::backend::sim::{FAULT_OPERATIONS, SimBackend, node_file};
use crate::node::config::AssignedConfig;
use crate::node::config::Config;
use crate::sharing::mig::from_config;
use crate::sharing::mig::layout::ProfileBook;
use crate::support::error::Exit;
use crate::support::output::Output;
use crate::support::source_file::SourceFile;
use std::collections::BTreeMap;

fn quiet() -> Output {
    Output::new(Default::default(), true, Default::default())
}

fn sim(node_toml: &str) -> SimBackend {
    SimBackend::from_state(
        node_file::from_file(&SourceFile::inline("node.toml", node_toml)).unwrap(),
    )
}

fn preset(name: &str) -> SimBackend {
    SimBackend::from_preset(name).unwrap()
}

fn desires(sim: &SimBackend, config: &str) -> Vec<GpuDesire> {
    let node = sim.snapshot().unwrap();
    let book = ProfileBook::load(sim, &node);
    let config = Config::parse(SourceFile::inline("gpushare.toml", config)).unwrap();
    from_config::desires(&AssignedConfig::new(config, &node).unwrap(), &node, &book).unwrap()
}

fn plan_for(sim: &SimBackend, desires: &[GpuDesire], force: bool) -> Plan {
    plan(
        &sim.snapshot().unwrap(),
        desires,
        PlanOptions {
            force,
            ..PlanOptions::default()
        },
    )
}

/// Plan and run; the plan (with statuses) and the outcome.
fn apply(
    sim: &mut SimBackend,
    desires: &[GpuDesire],
    force: bool,
) -> (Plan, crate::support::error::Result<Exit>) {
    let mut p = plan_for(sim, desires, force);
    // The executor shares its backend with its workers: lend it the simulator, then take it back.
    let placeholder = SimBackend::from_state(sim.state());
    let shared = std::sync::Arc::new(std::mem::replace(sim, placeholder));
    let r = executor::execute(&mut p, shared.clone(), &quiet());
    *sim = std::sync::Arc::try_unwrap(shared)
        .ok()
        .expect("the executor keeps no backend");
    (p, r)
}

fn actions(p: &Plan) -> Vec<(u32, &str)> {
    p.changes.iter().map(|c| (c.gpu, c.action)).collect()
}

/// (profile, placement, compute profiles, MIG UUIDs) of one GPU instance.
type Seen = (String, String, Vec<String>, Vec<String>);

/// GPU → its GPU instances, sorted.
fn layout_of(sim: &SimBackend) -> BTreeMap<u32, Vec<Seen>> {
    sim.snapshot()
        .unwrap()
        .gpus
        .iter()
        .map(|g| {
            let mut l: Vec<_> = g
                .mig
                .instances
                .iter()
                .flatten()
                .map(|gi| {
                    (
                        gi.profile.clone(),
                        gi.placement.to_string(),
                        gi.compute_instances
                            .iter()
                            .map(|c| c.profile.clone())
                            .collect(),
                        gi.compute_instances
                            .iter()
                            .map(|c| c.uuid.clone().expect("the simulator knows every UUID"))
                            .collect(),
                    )
                })
                .collect();
            l.sort();
            (g.index, l)
        })
        .collect()
}

const BALANCED: &str = "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 2, \"2g.10gb\" = 1, \"3g.20gb\" = 1 }\n";

#[test]
fn applying_twice_changes_nothing_the_second_time() {
    let mut s = preset("dgx-a100");
    let d = desires(&s, BALANCED);
    let (p, r) = apply(&mut s, &d, false);
    assert_eq!(r.unwrap(), Exit::Ok);
    assert!(p.changes.iter().all(|c| matches!(
        c.status,
        Some(crate::change::plan::Status::Done | crate::change::plan::Status::NotNeeded)
    )));
    let again = plan_for(&s, &d, false);
    assert!(again.is_converged(), "{:?}", actions(&again));
    for (_, l) in layout_of(&s) {
        let names: Vec<&str> = l.iter().map(|x| x.0.as_str()).collect();
        assert_eq!(names, ["1g.5gb", "1g.5gb", "2g.10gb", "3g.20gb"]);
    }
}

#[test]
fn changing_one_gpu_leaves_the_others_and_kept_instances_alone() {
    let mut s = preset("dgx-a100");
    let d = desires(&s, BALANCED);
    apply(&mut s, &d, false).1.unwrap();
    let before = layout_of(&s);
    let changed = "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 1, \"2g.10gb\" = 1, \"3g.20gb\" = 1 }\n\
         [[gpus]]\nselect = [1, 2, 3, 4, 5, 6, 7]\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 2, \"2g.10gb\" = 1, \"3g.20gb\" = 1 }\n";
    let d = desires(&s, changed);
    let (p, r) = apply(&mut s, &d, false);
    r.unwrap();
    assert_eq!(
        actions(&p),
        [(0, "destroy_compute_instance"), (0, "destroy_gpu_instance")]
    );
    let after = layout_of(&s);
    for g in 1..8 {
        assert_eq!(before[&g], after[&g], "GPU {g} untouched");
    }
    // GPU 0 lost one 1g.5gb; the three others kept their MIG UUIDs.
    assert_eq!(after[&0].len(), 3);
    for kept in &after[&0] {
        assert!(before[&0].contains(kept), "{kept:?} kept as it was");
    }
}

#[test]
fn a_layout_that_only_fits_in_another_order_is_applied() {
    let mut s = preset("dgx-a100");
    let d = desires(
        &s,
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 1, \"4g.20gb\" = 1, \"2g.10gb\" = 1 }\n",
    );
    apply(&mut s, &d, false).1.unwrap();
    let l = &layout_of(&s)[&0];
    let got: Vec<(&str, &str)> = l.iter().map(|x| (x.0.as_str(), x.1.as_str())).collect();
    assert_eq!(
        got,
        [("1g.5gb", "6:1"), ("2g.10gb", "4:2"), ("4g.20gb", "0:4")]
    );
}

#[test]
fn a_new_compute_instance_in_a_kept_gpu_instance() {
    let mut s = sim(
        "[[gpus]]\nmodel = \"NVIDIA A100-SXM4-40GB\"\ninstances = [{ profile = \"3g.20gb\", start = 4 }]\n",
    );
    let gi_before = s.snapshot().unwrap().gpus[0]
        .mig
        .instances
        .as_ref()
        .unwrap()[0]
        .gpu_instance_id;
    let d = desires(
        &s,
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"2c.3g.20gb\" = 1 }\n",
    );
    let (p, r) = apply(&mut s, &d, false);
    r.unwrap();
    assert_eq!(
        actions(&p),
        [
            (0, "destroy_compute_instance"),
            (0, "create_compute_instance")
        ]
    );
    let node = s.snapshot().unwrap();
    let gi = &node.gpus[0].mig_instances().unwrap()[0];
    assert_eq!(gi.gpu_instance_id, gi_before);
    assert_eq!(gi.compute_instances[0].profile, "2c.3g.20gb");
}

const BUSY: &str = "[[gpus]]
model = \"NVIDIA A100-SXM4-40GB\"
instances = [{ profile = \"3g.20gb\", start = 4 }, { profile = \"2g.10gb\", start = 0 }]
processes = [{ pid = 4242, name = \"python\", used_memory_mib = 1024, gpu_instance = 0 }]
";

#[test]
fn an_instance_in_use_is_never_destroyed() {
    let mut s = sim(BUSY);
    let before = layout_of(&s);
    // 4g.20gb needs slices 0-3 and the busy 3g.20gb sits at 4: it stays, 2g.10gb goes.
    let d = desires(
        &s,
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"3g.20gb\" = 1, \"1g.5gb\" = 4 }\n",
    );
    let (p, r) = apply(&mut s, &d, false);
    r.unwrap();
    assert!(p.blockers.is_empty());
    let after = layout_of(&s);
    let busy = before[&0].iter().find(|x| x.0 == "3g.20gb").unwrap();
    assert!(after[&0].contains(busy), "the busy instance keeps its UUID");

    // A layout without room for it is refused before anything changes.
    let d = desires(
        &s,
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"7g.40gb\" = 1 }\n",
    );
    let (p, r) = apply(&mut s, &d, true);
    let e = r.unwrap_err();
    assert_eq!(e.exit, Exit::Failed);
    assert!(e.message.starts_with("nothing was changed: GPU 0: no layout keeps the GPU instance(s) in use (3g.20gb at 4:4)"), "{}", e.message);
    assert!(
        e.message.ends_with("is used by pid 4242 (python)"),
        "the blocker names the process: {}",
        e.message
    );
    assert!(e.hint.unwrap().contains("even with --force"));
    assert!(p.changes.iter().all(|c| c.status.is_none()));
    assert_eq!(layout_of(&s), after);

    // Disabling MIG is refused too, naming the process.
    let d = desires(&s, "[[gpus]]\nselect = [0]\nmode = \"none\"\n");
    let p = plan_for(&s, &d, true);
    assert_eq!(p.blockers.len(), 1);
    assert!(
        p.blockers[0]
            .message
            .contains("is used by pid 4242 (python)"),
        "{}",
        p.blockers[0].message
    );
}

#[test]
fn a_busy_gpu_keeps_its_mode_unless_forced_and_then_waits_for_a_reboot() {
    let text = "[[gpus]]\nmodel = \"NVIDIA A100-SXM4-40GB\"\nprocesses = [{ pid = 7, name = \"train\", used_memory_mib = 100 }]\n";
    let mut s = sim(text);
    let d = desires(&s, BALANCED);
    let p = plan_for(&s, &d, false);
    assert!(p.changes.is_empty());
    assert_eq!(p.blockers.len(), 1);
    assert_eq!(
        p.blockers[0].message,
        "changing the MIG mode of GPU 0 needs a GPU reset, blocked by pid 7 (train)"
    );
    assert!(
        p.blockers[0]
            .hint
            .as_deref()
            .unwrap()
            .contains("stop pid 7")
    );

    let (p, r) = apply(&mut s, &d, true);
    assert_eq!(r.unwrap(), Exit::RebootRequired);
    assert_eq!(actions(&p), [(0, "set_mig_mode"), (0, "reboot")]);
    assert!(p.reboot_required && p.reboot_gpus == [0]);
    let gpu = &s.snapshot().unwrap().gpus[0];
    assert_eq!(
        (gpu.mig.current, gpu.mig.pending),
        (MigMode::Disabled, MigMode::Enabled)
    );

    // Still pending and still busy: reboot required, without --force and without a change.
    let p = plan_for(&s, &d, false);
    assert_eq!(actions(&p), [(0, "reboot")]);
    assert!(p.blockers.is_empty() && p.reboot_required);

    // After the reboot the same command finishes the job.
    s.reboot().unwrap();
    let (_, r) = apply(&mut s, &d, false);
    assert_eq!(r.unwrap(), Exit::Ok);
    assert!(plan_for(&s, &d, false).is_converged());
}

#[test]
fn holders_block_the_reset_and_are_named_with_a_way_to_stop_them() {
    let text = "holders = [{ name = \"nvidia-persistenced\", pid = 1834 }, { name = \"nvidia_drm\", kind = \"module\" }]\n[[gpus]]\nmodel = \"NVIDIA H100 80GB HBM3\"\n";
    let s = sim(text);
    let d = desires(
        &s,
        "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"7g.80gb\" = 1 }\n",
    );
    let p = plan_for(&s, &d, false);
    let b = &p.blockers[0];
    assert!(
        b.message
            .contains("nvidia-persistenced (pid 1834), kernel module nvidia_drm"),
        "{}",
        b.message
    );
    let hint = b.hint.as_deref().unwrap();
    assert!(
        hint.contains("`systemctl stop nvidia-persistenced`")
            && hint.contains("`rmmod nvidia_drm`"),
        "{hint}"
    );
    assert!(hint.contains("--force"));
}

#[test]
fn a_gpu_that_cannot_be_reset_waits_for_a_reboot() {
    // A VM with passthrough: the driver leaves the mode pending and cannot reset the GPU.
    let mut s = sim("[[gpus]]\nmodel = \"NVIDIA A100-SXM4-40GB\"\ncount = 2\nreset = false\n");
    let d = desires(&s, BALANCED);
    let (p, r) = apply(&mut s, &d, false);
    assert_eq!(r.unwrap(), Exit::RebootRequired);
    assert_eq!(p.reboot_gpus, [0, 1]);
    assert!(
        p.changes
            .iter()
            .filter(|c| c.action == "create_gpu_instance")
            .all(|c| c.status == Some(crate::change::plan::Status::AwaitingReboot))
    );
    s.reboot().unwrap();
    let (_, r) = apply(&mut s, &d, false);
    assert_eq!(r.unwrap(), Exit::Ok);
}

#[test]
fn a_pending_mode_is_reset_when_nothing_blocks_it() {
    let mut s = preset("a30x4");
    s.state_mut().gpus[1].mig_pending = MigMode::Enabled;
    let d = desires(
        &s,
        "[[gpus]]\nselect = [1]\nmode = \"mig\"\nmig.devices = { \"2g.12gb\" = 2 }\n",
    );
    let (p, r) = apply(&mut s, &d, false);
    r.unwrap();
    assert_eq!(actions(&p)[0], (1, "reset"));
    assert_eq!(p.changes[0].status, Some(crate::change::plan::Status::Done));
}

#[test]
fn whole_gpu_modes_and_none_turn_mig_off() {
    let mut s = preset("mixed");
    let d = desires(
        &s,
        "[[gpus]]\nselect = [0, 1]\nmode = \"mig\"\nmig.devices = { \"3g.40gb\" = 2 }\n",
    );
    apply(&mut s, &d, false).1.unwrap();
    let d = desires(
        &s,
        "[[gpus]]\nselect = [0]\nmode = \"none\"\n[[gpus]]\nselect = [1, 2]\nmode = \"mps\"\nmps.clients = 2\n",
    );
    let (p, r) = apply(&mut s, &d, false);
    r.unwrap();
    let node = s.snapshot().unwrap();
    assert!(!node.gpus[0].mig.current.is_enabled() && !node.gpus[1].mig.current.is_enabled());
    assert!(node.gpus[1].mig.instances.as_ref().unwrap().is_empty());
    let mode = p
        .changes
        .iter()
        .find(|c| c.gpu == 1 && c.action == "set_mig_mode")
        .unwrap();
    assert!(
        mode.detail.contains("mode = \"mps\" shares the whole GPU"),
        "{}",
        mode.detail
    );
}

#[test]
fn a_failure_at_any_operation_then_a_rerun_converges() {
    // GPU 0 has a busy 3g.20gb and an idle 2g.10gb; GPU 1 has MIG off; GPU 2 is pending enable.
    let node = "[[gpus]]
model = \"NVIDIA A100-SXM4-40GB\"
instances = [
  { profile = \"3g.20gb\", start = 4 },
  { profile = \"2g.10gb\", start = 0, compute_instances = [\"1c.2g.10gb\", \"1c.2g.10gb\"] },
  { profile = \"1g.10gb\", start = 2 },
]
processes = [{ pid = 4242, name = \"python\", used_memory_mib = 1024, gpu_instance = 0 }]
[[gpus]]
model = \"NVIDIA A100-SXM4-40GB\"
count = 2
";
    let config = "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"3g.20gb\" = 1, \"1g.5gb\" = 2, \"2c.2g.10gb\" = 1 }\n\
                  [[gpus]]\nselect = [1, 2]\nmode = \"mig\"\nmig.devices = { \"2g.10gb\" = 3, \"1g.5gb\" = 1 }\n";
    let fresh = || {
        let mut s = sim(node);
        s.state_mut().gpus[2].mig_pending = MigMode::Enabled;
        s
    };
    let reference = fresh();
    let d = desires(&reference, config);
    let p = plan_for(&reference, &d, false);
    // Driver calls per operation: one per change, except that the resets of GPUs 1 and 2 are one
    // call (and only GPU 2 is pending by then: GPU 1's mode applies at once).
    let mut counts: BTreeMap<&str, u32> = BTreeMap::new();
    for c in &p.changes {
        *counts.entry(c.action).or_default() += 1;
    }
    counts.insert("reset", 1);
    assert_eq!(
        counts,
        BTreeMap::from([
            ("create_compute_instance", 11),
            ("create_gpu_instance", 10),
            ("destroy_compute_instance", 3),
            ("destroy_gpu_instance", 1),
            ("reset", 1),
            ("set_mig_mode", 1),
        ])
    );
    let busy_uuid = reference.snapshot().unwrap().gpus[0]
        .mig
        .instances
        .iter()
        .flatten()
        .find(|g| g.profile == "3g.20gb")
        .unwrap()
        .compute_instances[0]
        .uuid
        .clone();
    let mut scenarios = 0;
    for op in FAULT_OPERATIONS {
        for n in 1..=counts.get(op).copied().unwrap_or(0) {
            let mut s = fresh();
            s.inject_faults(&format!("{op}:{n}")).unwrap();
            let (_, r) = apply(&mut s, &d, false);
            let e = r.expect_err("the injected failure stops the run");
            assert!(
                e.message.contains("injected failure"),
                "{op}:{n}: {}",
                e.message
            );
            s.inject_faults("").unwrap();
            let (_, r) = apply(&mut s, &d, false);
            assert_eq!(r.unwrap(), Exit::Ok, "{op}:{n}: the re-run finishes");
            assert!(
                plan_for(&s, &d, false).is_converged(),
                "{op}:{n}: converged"
            );
            let node = s.snapshot().unwrap();
            let busy = node.gpus[0]
                .mig
                .instances
                .iter()
                .flatten()
                .find(|g| g.profile == "3g.20gb")
                .unwrap();
            assert_eq!(
                busy.compute_instances[0].uuid, busy_uuid,
                "{op}:{n}: the busy instance was never touched"
            );
            scenarios += 1;
        }
    }
    assert_eq!(scenarios, counts.values().sum::<u32>());
}

#[test]
fn instances_of_a_gpu_the_catalog_does_not_know_are_planned_once_mig_is_on() {
    let sim = preset("dgx-a100");
    let later = GpuDesire {
        gpu: 0,
        layout: MigLayout::EnabledLater {
            wanted: vec!["1g.5gb".into(), "1g.5gb".into()],
            why: "the catalog does not know NVIDIA Future GPU".into(),
        },
        profiles: Vec::new(),
        origin: "gpushare.toml:1".into(),
        reason: None,
    };
    let p = plan_for(&sim, std::slice::from_ref(&later), false);
    assert_eq!(
        actions(&p),
        [
            (0, "set_mig_mode"),
            (0, "reset"),
            (0, "create_gpu_instance")
        ]
    );
    let last = p.changes.last().unwrap();
    assert!(last.later && last.operation == Operation::Later("create_gpu_instance"));
    assert!(
        last.detail.contains("1g.5gb ×2") && last.detail.contains("once MIG is on"),
        "{}",
        last.detail
    );
    // Only the changes before it run now.
    assert_eq!(
        crate::change::pipeline::planner::runnable(&p).changes.len(),
        2
    );
}

#[test]
fn nothing_is_planned_from_unknown_processes_or_an_unknown_layout() {
    let sim = preset("dgx-a100");
    let d = desires(
        &sim,
        "[[gpus]]\nselect = [0, 1]\nmode = \"mig\"\nmig.devices = { \"3g.20gb\" = 2 }\n",
    );
    let mut node = sim.snapshot().unwrap();
    node.gpus[0].processes = None;
    node.gpus[0].notes.push(crate::node::model::GpuNote {
        field: "processes".into(),
        message: "nvmlDeviceGetComputeRunningProcesses_v3 (Insufficient Permissions)".into(),
        needs_root: true,
    });
    let p = plan(&node, &d, PlanOptions::default());
    // GPU 0 would change MIG mode: whether processes block the reset is unknown.
    assert!(p.changes.iter().all(|c| c.gpu == 1), "{:?}", actions(&p));
    assert_eq!(p.blockers.len(), 1);
    assert!(
        p.blockers[0]
            .message
            .contains("its processes are unknown: nvmlDeviceGetComputeRunningProcesses_v3"),
        "{}",
        p.blockers[0].message
    );
    assert_eq!(
        p.blockers[0].hint.as_deref(),
        Some("run the command as root: the driver lists this only to root")
    );
    // A GPU with nothing to change needs no process list.
    let none = desires(&sim, "[[gpus]]\nselect = [0]\nmode = \"none\"\n");
    assert!(plan(&node, &none, PlanOptions::default()).is_converged());
    // An unknown layout blocks whatever is asked of the GPU.
    node.gpus[1].mig.current = MigMode::Enabled;
    node.gpus[1].mig.instances = None;
    let p = plan(&node, &d, PlanOptions::default());
    assert!(p.changes.is_empty(), "{:?}", actions(&p));
    assert!(
        p.blockers
            .iter()
            .any(|b| b.gpu == 1 && b.message.contains("its MIG layout is unknown")),
        "{:?}",
        p.blockers
    );
}

#[test]
fn mode_only_changes_the_mode_and_skip_reset_never_resets() {
    let sim = SimBackend::from_preset("dgx-a100").unwrap();
    let d = desires(
        &sim,
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"3g.20gb\" = 2 }\n",
    );
    let node = sim.snapshot().unwrap();
    let mode_only = plan(
        &node,
        &d,
        PlanOptions {
            mode_only: true,
            ..PlanOptions::default()
        },
    );
    assert_eq!(actions(&mode_only), [(0, "set_mig_mode"), (0, "reset")]);
    let skip = plan(
        &node,
        &d,
        PlanOptions {
            skip_reset: true,
            ..PlanOptions::default()
        },
    );
    assert_eq!(
        actions(&skip),
        [(0, "set_mig_mode"), (0, "create_gpu_instance")],
        "the layout waits for the mode (a `Later` change)"
    );
    assert!(skip.changes[1].later);
    // Busy and pending already: it waits for a reboot, nothing is refused.
    let mut busy = SimBackend::from_preset("dgx-a100").unwrap();
    busy.state_mut().gpus[0]
        .processes
        .push(crate::node::model::Process {
            pid: 7,
            name: "python".into(),
            used_memory_mib: Some(10),
            gpu_instance_id: None,
            compute_instance_id: None,
            kind: Default::default(),
            owner: None,
        });
    busy.set_mig_mode(0, MigMode::Enabled).unwrap();
    let p = plan(
        &busy.snapshot().unwrap(),
        &d,
        PlanOptions {
            skip_reset: true,
            mode_only: true,
            ..PlanOptions::default()
        },
    );
    assert!(p.blockers.is_empty());
    assert_eq!(actions(&p), [(0, "reboot")]);
    assert_eq!(p.reboot_gpus, [0]);
}
