//! The executor on the simulator: order, batching of resets, stopping at the first failure.

use super::*;
use crate::change::pipeline::host_change::mps_daemon::DaemonChange;
use crate::change::plan::{Blocker, Change, GpuInstanceRef};
use crate::node::backend::sim::SimBackend;
use crate::node::backend::{Backend, DeviceRef};
use crate::node::model::{ComputeMode, MigMode, Placement};
use std::sync::Arc;

fn quiet() -> Output {
    Output::new(Default::default(), true, Default::default())
}

fn a100() -> SimBackend {
    SimBackend::from_preset("dgx-a100").unwrap()
}

fn shared(sim: SimBackend) -> Arc<SimBackend> {
    Arc::new(sim)
}

#[test]
fn runs_changes_in_order_and_resolves_created_instances() {
    let sim = shared(a100());
    let at = Placement { start: 4, size: 4 };
    let mut plan = Plan {
        changes: vec![
            Change::new(0, Operation::SetMigMode(MigMode::Enabled), "enable"),
            Change::new(
                0,
                Operation::CreateGpuInstance {
                    profile_id: 9,
                    placement: at,
                },
                "3g",
            ),
            Change::new(
                0,
                Operation::CreateComputeInstance {
                    gpu_instance: GpuInstanceRef::CreatedAt(at),
                    profile_id: 2,
                },
                "ci",
            ),
            Change::new(
                1,
                Operation::SetComputeMode {
                    device: DeviceRef::Gpu(1),
                    mode: ComputeMode::ExclusiveProcess,
                },
                "mode",
            ),
        ],
        ..Plan::default()
    };
    assert_eq!(execute(&mut plan, sim.clone(), &quiet()).unwrap(), Exit::Ok);
    assert!(plan.changes.iter().all(|c| c.status == Some(Status::Done)));
    let node = sim.snapshot().unwrap();
    assert_eq!(
        node.gpus[0].mig.instances.as_ref().unwrap()[0]
            .compute_instances
            .len(),
        1
    );
    assert_eq!(
        node.gpus[1].compute_mode,
        Some(ComputeMode::ExclusiveProcess)
    );
}

#[test]
fn stops_at_the_first_failure_and_says_what_was_done() {
    let mut sim = a100();
    sim.inject_faults("create_gpu_instance:2").unwrap();
    let sim = shared(sim);
    let mut plan = Plan {
        changes: vec![
            Change::new(0, Operation::SetMigMode(MigMode::Enabled), "enable MIG"),
            Change::new(
                0,
                Operation::CreateGpuInstance {
                    profile_id: 9,
                    placement: Placement { start: 0, size: 4 },
                },
                "3g.20gb at 0:4",
            ),
            Change::new(
                0,
                Operation::CreateGpuInstance {
                    profile_id: 9,
                    placement: Placement { start: 4, size: 4 },
                },
                "3g.20gb at 4:4",
            ),
            Change::new(0, Operation::DestroyGpuInstance { gpu_instance_id: 1 }, "x"),
        ],
        ..Plan::default()
    };
    let e = execute(&mut plan, sim.clone(), &quiet()).unwrap_err();
    assert_eq!(e.exit, Exit::Failed);
    assert!(
        e.message
            .starts_with("GPU 0: create_gpu_instance (3g.20gb at 4:4) failed: injected failure"),
        "{}",
        e.message
    );
    assert!(e.hint.unwrap().contains("2 of 4 change(s) were made"));
    let statuses: Vec<_> = plan.changes.iter().map(|c| c.status).collect();
    assert_eq!(
        statuses,
        [
            Some(Status::Done),
            Some(Status::Done),
            Some(Status::Failed),
            Some(Status::NotRun)
        ]
    );
}

#[test]
fn resets_run_as_one_call_and_only_where_a_mode_is_pending() {
    let mut sim = a100();
    for g in [0, 1] {
        sim.state_mut().gpus[g].mig_pending = MigMode::Enabled;
    }
    // The second reset call would fail: there must be only one.
    sim.inject_faults("reset:2").unwrap();
    let sim = shared(sim);
    let mut plan = Plan {
        changes: (0..3)
            .map(|g| Change::new(g, Operation::ResetIfPending, "reset"))
            .collect(),
        ..Plan::default()
    };
    assert_eq!(execute(&mut plan, sim.clone(), &quiet()).unwrap(), Exit::Ok);
    let statuses: Vec<_> = plan.changes.iter().map(|c| c.status).collect();
    assert_eq!(
        statuses,
        [
            Some(Status::Done),
            Some(Status::Done),
            Some(Status::NotNeeded)
        ]
    );
    assert!(sim.snapshot().unwrap().gpus[1].mig.current.is_enabled());
}

#[test]
fn a_plan_with_blockers_is_refused_whole() {
    let sim = shared(a100());
    let mut plan = Plan {
        changes: vec![Change::new(
            0,
            Operation::SetMigMode(MigMode::Enabled),
            "enable MIG",
        )],
        blockers: vec![Blocker {
            gpu: 3,
            message: "busy".into(),
            hint: Some("stop it".into()),
        }],
        ..Plan::default()
    };
    let e = execute(&mut plan, sim.clone(), &quiet()).unwrap_err();
    assert_eq!(e.message, "nothing was changed: GPU 3: busy");
    assert_eq!(e.hint.as_deref(), Some("stop it"));
    assert!(!sim.snapshot().unwrap().gpus[0].mig.current.is_enabled());
}

/// A runner that records what it is asked and stops before the change at `stop_at`.
struct Recorder {
    sim: SharedBackend,
    stop_at: usize,
    seen: Vec<String>,
    jobs: Option<NonZeroUsize>,
}

impl Recorder {
    fn new(sim: SharedBackend, stop_at: usize) -> Self {
        Recorder {
            sim,
            stop_at,
            seen: Vec::new(),
            jobs: None,
        }
    }
}

impl Runner for Recorder {
    fn backend(&mut self) -> Result<SharedBackend> {
        Ok(self.sim.clone())
    }

    fn jobs(&self) -> Option<NonZeroUsize> {
        self.jobs
    }

    fn run_other(&mut self, change: &Change) -> Result<()> {
        self.seen.push(format!("run {}", change.detail));
        Ok(())
    }

    fn before(&mut self, change: &Change) -> Result<()> {
        if self.seen.iter().filter(|s| s.starts_with("before")).count() == self.stop_at {
            return Err(Error::failed("stopped").with_hint("run it again"));
        }
        self.seen.push(format!("before {}", change.detail));
        Ok(())
    }

    fn after(&mut self, change: &Change) {
        self.seen
            .push(format!("after {} {:?}", change.detail, change.status));
    }
}

/// An MPS daemon for a runner's step (the runners here never start one).
fn daemon_spec() -> crate::sharing::mps::settings::DaemonSpec {
    crate::sharing::mps::settings::DaemonSpec {
        version: 1,
        name: "gpu1".into(),
        pipe_dir: "/p".into(),
        log_dir: "/l".into(),
        multiuser: false,
        clients: None,
        thread_percentage: None,
        devices: Vec::new(),
        created_dirs: Vec::new(),
    }
}

#[test]
fn a_runner_makes_the_other_steps_and_can_stop_between_two() {
    let plan = || Plan {
        changes: vec![
            Change::new(0, Operation::SetMigMode(MigMode::Enabled), "mode"),
            Change::new(
                1,
                Operation::host(DaemonChange::Start(daemon_spec())),
                "daemon",
            ),
            Change::new(
                1,
                Operation::host(DaemonChange::Stop(daemon_spec())),
                "stop",
            ),
        ],
        ..Plan::default()
    };
    let mut all = plan();
    let mut r = Recorder::new(shared(a100()), 99);
    assert_eq!(execute_with(&mut all, &mut r, &quiet()).unwrap(), Exit::Ok);
    assert_eq!(
        r.seen,
        [
            "before mode",
            "after mode Some(Done)",
            "before daemon",
            "run daemon",
            "after daemon Some(Done)",
            "before stop",
            "run stop",
            "after stop Some(Done)",
        ]
    );
    let mut stopped = plan();
    let mut r = Recorder::new(shared(a100()), 1);
    let e = execute_with(&mut stopped, &mut r, &quiet()).unwrap_err();
    // What each GPU got follows what stopped the run.
    assert_eq!(e.message, "stopped\n  GPU 0: 1 done\n  GPU 1: 2 not run");
    assert_eq!(
        e.hint.as_deref(),
        Some("1 of 3 change(s) were made; run it again")
    );
    let statuses: Vec<_> = stopped.changes.iter().map(|c| c.status).collect();
    assert_eq!(
        statuses,
        [
            Some(Status::Done),
            Some(Status::NotRun),
            Some(Status::NotRun)
        ]
    );
    assert!(r.sim.snapshot().unwrap().gpus[0].mig.current.is_enabled());
}

/// A runner whose other steps fail with an error that names its GPU, as driver errors do.
struct NamesItsGpu(SharedBackend);

impl Runner for NamesItsGpu {
    fn backend(&mut self) -> Result<SharedBackend> {
        Ok(self.0.clone())
    }

    fn run_other(&mut self, change: &Change) -> Result<()> {
        Err(Error::failed(format!("GPU {}: refused", change.gpu)))
    }
}

#[test]
fn a_failure_names_its_gpu_once() {
    let mut plan = Plan {
        changes: vec![Change::new(
            0,
            Operation::Later("start_mps_daemon"),
            "daemon",
        )],
        ..Plan::default()
    };
    let e = execute_with(&mut plan, &mut NamesItsGpu(shared(a100())), &quiet()).unwrap_err();
    assert_eq!(
        e.message,
        "GPU 0: start_mps_daemon (daemon) failed: refused"
    );
}

mod parallel;
