//! The unified planner on simulated nodes: phases in order, MPS on MIG devices still to be made
//! described by profile, and nothing to do on a node that matches.

use super::*;
use crate::change::pipeline::host_change::mps_daemon::DaemonChange;
use crate::change::plan::Operation;
use crate::node::backend::Backend;
use crate::node::backend::sim::SimBackend;
use crate::node::config::Config;
use crate::node::model::{ComputeMode, MigMode, Placement};
use crate::sharing::mig::layout::ProfileBook;
use crate::support::source_file::SourceFile;
use gpu_states::GpuState;
use std::collections::BTreeSet;

fn desired(sim: &SimBackend, text: &str) -> Desired {
    let node = sim.snapshot().unwrap();
    let book = ProfileBook::load(sim, &node);
    let config = Config::parse(SourceFile::inline("gpushare.toml", text)).unwrap();
    Desired::check(config, &node, &book).unwrap()
}

fn seen(sim: &SimBackend) -> Observed {
    Observed {
        node: sim.snapshot().unwrap(),
        mps_records: Vec::new(),
        mps_orphans: Vec::new(),
        mps_answering: BTreeSet::new(),
        vgpu: None,
        clients: Default::default(),
        needs_reset: Default::default(),
        claimed: Vec::new(),
        shares: Vec::new(),
    }
}

fn actions(plan: &Plan) -> Vec<(u32, &str)> {
    plan.changes.iter().map(|c| (c.gpu, c.action)).collect()
}

#[test]
fn mps_on_mig_devices_to_be_made_comes_later_described_by_profile() {
    let mut sim = SimBackend::from_preset("dgx-a100").unwrap();
    sim.state_mut().gpus[1].compute_mode = ComputeMode::ExclusiveProcess;
    let d = desired(
        &sim,
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"3g.20gb\" = 2 }\nmig.mps = { clients = 2 }\n\
         [[gpus]]\nselect = [1]\nmode = \"time-slicing\"\ntime_slicing.replicas = 4\n",
    );
    let paths = crate::support::paths::Paths::new(Some("/tmp/x".into()));
    let plan = plan(&d, &seen(&sim), &paths, PlanOptions::default(), true).unwrap();
    assert_eq!(
        actions(&plan),
        [
            (0, "set_mig_mode"),
            (0, "reset"),
            (0, "create_gpu_instance"),
            (0, "create_compute_instance"),
            (0, "create_gpu_instance"),
            (0, "create_compute_instance"),
            (1, "set_compute_mode"),
            (0, "start_mps_daemon"),
        ]
    );
    let later = plan.changes.last().unwrap();
    assert!(matches!(later.operation, Operation::Later(_)));
    assert_eq!(
        later.detail,
        "once the MIG devices exist: an MPS daemon on each (3g.20gb ×2), 2 clients, threads 50% each, 1/2 of the memory each"
    );
    // What can run now stops before it.
    assert_eq!(runnable(&plan).changes.len(), 7);
    assert!(changes_anything(&plan));
}

#[test]
fn a_node_that_matches_needs_nothing() {
    let sim = SimBackend::from_preset("dgx-a100").unwrap();
    sim.set_mig_mode(0, MigMode::Enabled).unwrap();
    for start in [0, 4] {
        let gi = sim
            .create_gpu_instance(0, 9, Placement { start, size: 4 })
            .unwrap();
        sim.create_compute_instance(0, gi, 2).unwrap();
    }
    let d = desired(
        &sim,
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"3g.20gb\" = 2 }\n\
         [[gpus]]\nselect = [1]\nmode = \"none\"\n",
    );
    let paths = crate::support::paths::Paths::default();
    let plan = plan(&d, &seen(&sim), &paths, PlanOptions::default(), true).unwrap();
    assert!(plan.is_converged(), "{:?}", actions(&plan));
    assert!(!changes_anything(&plan));
}

#[test]
fn mps_on_a_settled_whole_gpu_is_planned_exactly() {
    let sim = SimBackend::from_preset("t4x4").unwrap();
    let d = desired(
        &sim,
        "[[gpus]]\nselect = [0, 1]\nmode = \"mps\"\nmps.clients = 4\n",
    );
    let paths = crate::support::paths::Paths::new(Some("/tmp/x".into()));
    let plan = plan(&d, &seen(&sim), &paths, PlanOptions::default(), true).unwrap();
    assert_eq!(actions(&plan), [(0, "start_mps_daemon")]);
    let Some(DaemonChange::Start(spec)) = plan.changes[0].operation.host_change() else {
        panic!()
    };
    assert_eq!(spec.name, "gpu0-1");
    assert_eq!(spec.thread_percentage, Some(25));
    assert_eq!(runnable(&plan).changes.len(), 1);
}

#[test]
fn gpu_states_follow_the_mig_plan() {
    let mut mig = Plan::default();
    mig.changes.push(crate::change::plan::Change::new(
        2,
        Operation::SetMigMode(MigMode::Enabled),
        "enable",
    ));
    mig.changes.push(crate::change::plan::Change::new(
        3,
        Operation::AwaitReboot,
        "wait",
    ));
    mig.mark_reboot(3);
    let s = GpuStates::of(&mig);
    assert_eq!(s.get(0), GpuState::Settled);
    assert_eq!(s.get(2), GpuState::Changing);
    assert_eq!(s.get(3), GpuState::AwaitingReboot);
}

/// Two A100s held by DCGM (its unit listed) and nvidia-persistenced (not listed).
fn held(with_persistenced: bool) -> (SimBackend, Desired, Observed) {
    let mut sim = SimBackend::from_preset("dgx-a100").unwrap();
    sim.state_mut().gpus.truncate(2);
    sim.state_mut().holders = vec![crate::node::model::Holder {
        name: "nv-hostengine".into(),
        kind: crate::node::model::HolderKind::Process,
        pid: Some(88),
        unit: Some("nvidia-dcgm.service".into()),
    }];
    if with_persistenced {
        sim.state_mut().holders.push(crate::node::model::Holder {
            name: "nvidia-persistenced".into(),
            kind: crate::node::model::HolderKind::Process,
            pid: Some(99),
            unit: None,
        });
    }
    let d = desired(
        &sim,
        "[clients]\nsystemd = [\"nvsm.service\", \"nvidia-dcgm.service\"]\nmodules = [\"nvidia_drm\"]\n\
         [[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"7g.40gb\" = 1 }\n",
    );
    let mut s = seen(&sim);
    s.clients.active = ["nvsm.service", "nvidia-dcgm.service"]
        .map(String::from)
        .into();
    s.clients.loaded = ["nvidia_drm".to_string()].into();
    (sim, d, s)
}

#[test]
fn listed_clients_are_stopped_around_the_mode_change_and_started_again_in_reverse() {
    let (_, d, s) = held(false);
    let paths = crate::support::paths::Paths::default();
    let plan = plan(&d, &s, &paths, PlanOptions::default(), true).unwrap();
    assert!(plan.blockers.is_empty(), "{:?}", plan.blockers);
    let node = crate::change::plan::NODE;
    assert_eq!(
        actions(&plan),
        [
            (node, "stop_service"),
            (node, "stop_service"),
            (node, "unload_module"),
            (0, "set_mig_mode"),
            (1, "set_mig_mode"),
            (0, "reset"),
            (1, "reset"),
            (0, "create_gpu_instance"),
            (0, "create_compute_instance"),
            (1, "create_gpu_instance"),
            (1, "create_compute_instance"),
            (node, "load_module"),
            (node, "start_service"),
            (node, "start_service"),
        ]
    );
    let names: Vec<String> = plan
        .changes
        .iter()
        .filter(|c| c.is_node_wide())
        .map(|c| c.detail.split(' ').next().unwrap().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "nvsm.service",
            "nvidia-dcgm.service",
            "kernel",
            "kernel",
            "nvidia-dcgm.service",
            "nvsm.service"
        ]
    );
    assert!(
        plan.changes
            .iter()
            .all(|c| c.phase.node_wide() == c.is_node_wide())
    );
    assert_eq!(plan.gpus(), [0, 1], "node-wide steps are on no GPU");
}

#[test]
fn a_holder_no_listed_client_accounts_for_still_blocks() {
    let (_, d, s) = held(true);
    let paths = crate::support::paths::Paths::default();
    let plan = plan(&d, &s, &paths, PlanOptions::default(), true).unwrap();
    assert_eq!(plan.blockers.len(), 2, "{:?}", plan.blockers);
    assert!(
        plan.blockers[0]
            .message
            .contains("nvidia-persistenced (pid 99)")
    );
    assert!(
        !plan.blockers[0].message.contains("nv-hostengine"),
        "the listed one is stopped first: {}",
        plan.blockers[0].message
    );
}

#[test]
fn what_an_earlier_run_stopped_is_started_even_with_nothing_else_to_do() {
    let sim = SimBackend::from_preset("t4x4").unwrap();
    let d = desired(&sim, "[[gpus]]\nselect = [0]\nmode = \"none\"\n");
    let mut s = seen(&sim);
    s.clients.stopped.services = vec!["nvsm.service".into(), "dcgm.service".into()];
    let paths = crate::support::paths::Paths::default();
    let plan = plan(&d, &s, &paths, PlanOptions::default(), true).unwrap();
    let details: Vec<&str> = plan.changes.iter().map(|c| c.detail.as_str()).collect();
    assert_eq!(
        details,
        [
            "dcgm.service again: an earlier run stopped it",
            "nvsm.service again: an earlier run stopped it"
        ]
    );
    assert!(changes_anything(&plan), "a start is owed");
}

#[test]
fn a_gpu_a_fatal_fault_left_unhealthy_is_reset_unless_something_runs_on_it() {
    let sim = SimBackend::from_preset("dgx-a100").unwrap();
    let mut d = desired(&sim, "");
    d.recover = Some((
        vec![1, 2, 3],
        crate::node::gpu_health::policy::Policy::default(),
    ));
    let mut s = seen(&sim);
    s.needs_reset = [
        (2, "Xid 79 (fatal)".to_string()),
        (3, "Xid 48 (fatal)".to_string()),
        (5, "Xid 79 (fatal)".to_string()),
    ]
    .into();
    s.node.gpus[3].processes = Some(vec![crate::node::model::Process {
        pid: 42,
        name: "python".into(),
        used_memory_mib: Some(1024),
        gpu_instance_id: None,
        compute_instance_id: None,
        kind: Default::default(),
        owner: None,
    }]);
    let plan = plan(&d, &s, &Paths::default(), PlanOptions::default(), true).unwrap();
    // GPU 1 needs nothing, GPU 5 is not asked for, GPU 3 is in use.
    assert_eq!(actions(&plan), [(2, "reset_unhealthy")]);
    assert_eq!(plan.blockers.len(), 1);
    assert_eq!(plan.blockers[0].gpu, 3);
    assert!(
        plan.blockers[0].message.contains("python (pid 42)"),
        "{:?}",
        plan.blockers
    );
}

#[test]
fn an_instance_made_for_a_dra_claim_is_never_taken_away_and_a_dynamic_gpu_keeps_its_instances() {
    let sim = SimBackend::from_preset("dgx-a100").unwrap();
    sim.set_mig_mode(0, MigMode::Enabled).unwrap();
    let gi = sim
        .create_gpu_instance(0, 9, crate::node::model::Placement { start: 4, size: 4 })
        .unwrap();
    sim.create_compute_instance(0, gi, 2).unwrap();
    let paths = crate::support::paths::Paths::new(Some("/tmp/x".into()));
    let mut observed = seen(&sim);
    // A dynamic GPU: MIG stays on, and nothing is made or destroyed.
    let dynamic = desired(
        &sim,
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.dynamic = true\n",
    );
    let plan_dynamic = plan(&dynamic, &observed, &paths, PlanOptions::default(), true).unwrap();
    assert!(
        actions(&plan_dynamic).is_empty(),
        "{:?}",
        actions(&plan_dynamic)
    );
    // A layout without it would destroy it: blocked while a claim's record names it, --force too.
    let halves = desired(
        &sim,
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 7 }\n",
    );
    let free = plan(&halves, &observed, &paths, PlanOptions::default(), true).unwrap();
    assert!(free.blockers.is_empty());
    assert!(actions(&free).contains(&(0, "destroy_gpu_instance")));
    observed.claimed = vec![(
        "0b6f0c9e".into(),
        crate::sharing::mig::claimed::Made {
            gpu_uuid: observed.node.gpus[0].uuid.clone(),
            profile: "3g.20gb".into(),
            start: 4,
            size: 4,
        },
    )];
    let force = PlanOptions {
        force: true,
        ..PlanOptions::default()
    };
    for options in [PlanOptions::default(), force] {
        let blocked = plan(&halves, &observed, &paths, options, true).unwrap();
        assert_eq!(blocked.blockers.len(), 1, "{:?}", blocked.blockers);
        assert!(
            blocked.blockers[0]
                .message
                .contains("3g.20gb instance at 4:4 was made for DRA claim 0b6f0c9e"),
            "{}",
            blocked.blockers[0].message
        );
    }
    let off = desired(&sim, "[[gpus]]\nselect = [0]\nmode = \"none\"\n");
    let blocked = plan(&off, &observed, &paths, PlanOptions::default(), true).unwrap();
    assert!(!blocked.blockers.is_empty());
}
