//! Phases on several GPUs at once: each GPU's changes in order, phases as barriers, one writer,
//! the first failure or a signal stopping new steps everywhere, what each GPU got.

use super::*;
use crate::change::plan::Phase;
use crate::node::backend::sim::node_file;
use crate::node::backend::{Backend, DriverError, DriverResult, MigProfiles, ModeChange};
use crate::node::model::Node;
use crate::node::model::catalog::ComputeInstanceProfile;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The simulator, each changing call taking a little while and watched: the calls in the order
/// they started, and how many were in flight at once at most.
struct Watched {
    sim: SimBackend,
    in_flight: AtomicUsize,
    most: AtomicUsize,
    started: Mutex<Vec<(u32, &'static str)>>,
}

impl Watched {
    fn new(sim: SimBackend) -> Arc<Watched> {
        Arc::new(Watched {
            sim,
            in_flight: AtomicUsize::new(0),
            most: AtomicUsize::new(0),
            started: Mutex::new(Vec::new()),
        })
    }

    /// Its errors name the GPU, as the NVML backend's do (the failure names it once all the same).
    fn call<T>(
        &self,
        gpu: u32,
        name: &'static str,
        f: impl FnOnce(&SimBackend) -> DriverResult<T>,
    ) -> DriverResult<T> {
        self.started.lock().unwrap().push((gpu, name));
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.most.fetch_max(now, Ordering::SeqCst);
        std::thread::sleep(std::time::Duration::from_millis(10));
        let out = f(&self.sim);
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        out.map_err(|e| DriverError::new(e.kind, format!("GPU {gpu}: {}", e.detail)))
    }

    fn most(&self) -> usize {
        self.most.load(Ordering::SeqCst)
    }

    fn calls_of(&self, gpu: u32) -> Vec<&'static str> {
        let started = self.started.lock().unwrap();
        started
            .iter()
            .filter(|(g, _)| *g == gpu)
            .map(|(_, n)| *n)
            .collect()
    }

    fn position(&self, name: &str, last: bool) -> usize {
        let started = self.started.lock().unwrap();
        let mut at = started.iter().enumerate().filter(|(_, (_, n))| *n == name);
        let found = if last { at.next_back() } else { at.next() };
        found.unwrap().0
    }
}

impl Backend for Watched {
    fn source(&self) -> String {
        self.sim.source()
    }
    fn snapshot(&self) -> DriverResult<Node> {
        self.sim.snapshot()
    }
    fn gpu_instance_profiles(&self, gpu: u32) -> DriverResult<MigProfiles> {
        self.sim.gpu_instance_profiles(gpu)
    }
    fn compute_instance_profiles(
        &self,
        gpu: u32,
        gi: u32,
    ) -> DriverResult<Vec<ComputeInstanceProfile>> {
        self.sim.compute_instance_profiles(gpu, gi)
    }
    fn set_mig_mode(&self, gpu: u32, mode: MigMode) -> DriverResult<ModeChange> {
        self.call(gpu, "set_mig_mode", |s| s.set_mig_mode(gpu, mode))
    }
    fn reset_gpus(&self, gpus: &[u32]) -> DriverResult<()> {
        self.call(gpus[0], "reset", |s| s.reset_gpus(gpus))
    }
    fn create_gpu_instance(&self, gpu: u32, profile: u32, at: Placement) -> DriverResult<u32> {
        self.call(gpu, "create_gpu_instance", |s| {
            s.create_gpu_instance(gpu, profile, at)
        })
    }
    fn create_compute_instance(&self, gpu: u32, gi: u32, profile: u32) -> DriverResult<u32> {
        self.call(gpu, "create_compute_instance", |s| {
            s.create_compute_instance(gpu, gi, profile)
        })
    }
    fn destroy_compute_instance(&self, gpu: u32, gi: u32, ci: u32) -> DriverResult<()> {
        self.call(gpu, "destroy_compute_instance", |s| {
            s.destroy_compute_instance(gpu, gi, ci)
        })
    }
    fn destroy_gpu_instance(&self, gpu: u32, gi: u32) -> DriverResult<()> {
        self.call(gpu, "destroy_gpu_instance", |s| {
            s.destroy_gpu_instance(gpu, gi)
        })
    }
    fn set_compute_mode(&self, device: DeviceRef, mode: ComputeMode) -> DriverResult<()> {
        self.call(device.gpu(), "set_compute_mode", |s| {
            s.set_compute_mode(device, mode)
        })
    }
}

/// MIG on GPUs `gpus` with three 1g.5gb devices each, then one step for the runner (an MPS
/// daemon phase change on GPU 1).
fn three_devices_each(gpus: std::ops::Range<u32>) -> Plan {
    let mut changes = Vec::new();
    for g in gpus.clone() {
        changes.push(Change::new(
            g,
            Operation::SetMigMode(MigMode::Enabled),
            format!("enable {g}"),
        ));
    }
    for g in gpus {
        for start in 0..3 {
            let at = Placement { start, size: 1 };
            changes.push(Change::new(
                g,
                Operation::CreateGpuInstance {
                    profile_id: 19,
                    placement: at,
                },
                format!("gi {g}:{start}"),
            ));
            changes.push(Change::new(
                g,
                Operation::CreateComputeInstance {
                    gpu_instance: GpuInstanceRef::CreatedAt(at),
                    profile_id: 0,
                },
                format!("ci {g}:{start}"),
            ));
        }
    }
    changes.push(
        Change::new(1, Operation::Later("start_mps_daemon"), "daemon").in_phase(Phase::Daemons),
    );
    Plan {
        changes,
        ..Plan::default()
    }
}

/// What the runner saw of `detail`: the positions of its `before` and `after` entries.
fn seen_at(seen: &[String], detail: &str) -> (usize, usize) {
    let at = |prefix: &str| {
        seen.iter()
            .position(|s| {
                s == &format!("{prefix} {detail}") || s.starts_with(&format!("{prefix} {detail} "))
            })
            .unwrap_or_else(|| panic!("no {prefix} {detail}: {seen:?}"))
    };
    (at("before"), at("after"))
}

#[test]
fn gpus_change_at_once_each_in_order_and_phases_are_barriers() {
    let watched = Watched::new(a100());
    let mut plan = three_devices_each(0..4);
    // The runner's own step (not a driver call) comes in its own phase, after the MIG ones.
    plan.changes.last_mut().unwrap().operation = Operation::host(
        crate::change::pipeline::host_change::mps_daemon::DaemonChange::Stop(daemon_spec()),
    );
    let mut r = Recorder::new(watched.clone(), 99);
    assert_eq!(execute_with(&mut plan, &mut r, &quiet()).unwrap(), Exit::Ok);
    assert!(
        plan.changes.iter().all(|c| c.status == Some(Status::Done)),
        "{plan:?}"
    );
    assert!(watched.most() > 1, "the GPUs were changed at once");
    for g in 0..4 {
        let mut expected = vec!["set_mig_mode"];
        for _ in 0..3 {
            expected.extend(["create_gpu_instance", "create_compute_instance"]);
        }
        assert_eq!(watched.calls_of(g), expected, "GPU {g} in plan order");
    }
    assert!(
        watched.position("set_mig_mode", true) < watched.position("create_gpu_instance", false),
        "every MIG mode before any instance"
    );
    // The one writer saw each step start and end, the runner's step after all the others.
    // before and after each change; before, run and after the runner's own.
    assert_eq!(r.seen.len(), 2 * 4 * 7 + 3);
    let (daemon_before, _) = seen_at(&r.seen, "daemon");
    for change in &plan.changes[..plan.changes.len() - 1] {
        let (before, after) = seen_at(&r.seen, &change.detail);
        assert!(before < after && after < daemon_before, "{}", change.detail);
    }
    let node = watched.snapshot().unwrap();
    for g in 0..4 {
        assert_eq!(node.gpus[g].mig.instances.as_ref().unwrap().len(), 3);
    }
}

#[test]
fn jobs_1_runs_one_change_after_another_in_plan_order() {
    let watched = Watched::new(a100());
    let mut plan = three_devices_each(0..3);
    plan.changes.pop();
    let mut r = Recorder::new(watched.clone(), 99);
    r.jobs = NonZeroUsize::new(1);
    assert_eq!(execute_with(&mut plan, &mut r, &quiet()).unwrap(), Exit::Ok);
    assert_eq!(watched.most(), 1);
    let expected: Vec<String> = plan
        .changes
        .iter()
        .flat_map(|c| {
            [
                format!("before {}", c.detail),
                format!("after {} Some(Done)", c.detail),
            ]
        })
        .collect();
    assert_eq!(r.seen, expected);
}

#[test]
fn the_first_failure_stops_new_steps_everywhere_and_the_error_says_what_each_gpu_got() {
    let mut sim = a100();
    sim.inject_faults("create_gpu_instance:5").unwrap();
    let watched = Watched::new(sim);
    let mut plan = three_devices_each(0..4);
    let mut r = Recorder::new(watched.clone(), 99);
    let e = execute_with(&mut plan, &mut r, &quiet()).unwrap_err();
    let failed: Vec<&Change> = plan
        .changes
        .iter()
        .filter(|c| c.status == Some(Status::Failed))
        .collect();
    assert_eq!(failed.len(), 1, "{plan:?}");
    assert!(
        e.message.starts_with(&format!(
            "GPU {}: create_gpu_instance ({}) failed: injected failure",
            failed[0].gpu, failed[0].detail
        )),
        "{}",
        e.message
    );
    // No step starts once the failure is known; the steps in flight then end.
    let failure = r
        .seen
        .iter()
        .position(|s| s.ends_with("Some(Failed)"))
        .unwrap();
    assert!(
        !r.seen[failure..].iter().any(|s| s.starts_with("before")),
        "{:?}",
        r.seen
    );
    let befores = r.seen.iter().filter(|s| s.starts_with("before")).count();
    let afters = r.seen.iter().filter(|s| s.starts_with("after")).count();
    assert_eq!(befores, afters);
    let made = plan
        .changes
        .iter()
        .filter(|c| matches!(c.status, Some(Status::Done | Status::Failed)))
        .count();
    assert_eq!(made, befores);
    assert!(plan.changes.iter().all(|c| c.status.is_some()));
    assert_eq!(plan.changes.last().unwrap().status, Some(Status::NotRun));
    for g in 0..4 {
        assert!(
            e.message.contains(&format!("\n  GPU {g}: ")),
            "{}",
            e.message
        );
    }
    assert!(
        e.message.contains("create_gpu_instance FAILED") && e.message.contains("not run"),
        "{}",
        e.message
    );
    assert!(
        e.hint
            .unwrap()
            .contains(&format!("{} of 29 change(s) were made", made - 1))
    );
}

#[test]
fn a_stop_between_steps_lets_the_steps_in_flight_end() {
    let watched = Watched::new(a100());
    let mut plan = three_devices_each(0..4);
    // The 4 mode changes, then 2 steps of the layouts: the 7th is refused.
    let mut r = Recorder::new(watched.clone(), 6);
    let e = execute_with(&mut plan, &mut r, &quiet()).unwrap_err();
    assert!(e.message.starts_with("stopped"), "{}", e.message);
    assert!(
        e.hint
            .unwrap()
            .starts_with("6 of 29 change(s) were made; run it again")
    );
    let afters = r.seen.iter().filter(|s| s.starts_with("after")).count();
    assert_eq!(afters, 6, "{:?}", r.seen);
    let done = plan
        .changes
        .iter()
        .filter(|c| c.status == Some(Status::Done))
        .count();
    assert_eq!(done, 6);
    assert!(
        plan.changes
            .iter()
            .all(|c| matches!(c.status, Some(Status::Done | Status::NotRun)))
    );
}

#[test]
fn a_gpu_waiting_for_a_reboot_skips_its_changes_in_either_mode() {
    let text = "[[gpus]]\nmodel = \"NVIDIA A100-SXM4-40GB\"\n\
                [[gpus]]\nmodel = \"NVIDIA A100-SXM4-40GB\"\nreset = false\n\
                [[gpus]]\nmodel = \"NVIDIA A100-SXM4-40GB\"\n";
    let node = || {
        SimBackend::from_state(
            node_file::from_file(&crate::support::source_file::SourceFile::inline(
                "vm.toml", text,
            ))
            .unwrap(),
        )
    };
    for jobs in [None, NonZeroUsize::new(1)] {
        let mut plan = three_devices_each(0..3);
        plan.changes.pop();
        let mut r = Recorder::new(shared(node()), 99);
        r.jobs = jobs;
        assert_eq!(
            execute_with(&mut plan, &mut r, &quiet()).unwrap(),
            Exit::RebootRequired
        );
        assert_eq!(plan.reboot_gpus, [1]);
        for c in &plan.changes {
            let expected = if c.gpu == 1 {
                Status::AwaitingReboot
            } else {
                Status::Done
            };
            assert_eq!(c.status, Some(expected), "{jobs:?}: {}", c.detail);
        }
    }
}

/// The plan of [`three_devices_each`] without its runner step, with the node-wide steps an
/// `apply` with GPU clients and hooks has: each in its phase, in plan order.
fn with_node_wide_steps(gpus: std::ops::Range<u32>) -> Plan {
    use crate::change::hooks::{Hook, HookPoint};
    use crate::node::clients::Client;
    let hook = |point| {
        Operation::Hook(Box::new(Hook {
            point,
            commands: Vec::new(),
            vars: Default::default(),
            timeout: crate::change::hooks::DEFAULT_TIMEOUT,
        }))
    };
    let dcgm = || Client::Service("nvidia-dcgm.service".into());
    let mut plan = three_devices_each(gpus);
    plan.changes.pop();
    plan.changes.extend([
        Change::node_wide(hook(HookPoint::ApplyStart), "apply-start"),
        Change::node_wide(Operation::StopClient(dcgm()), "stop dcgm"),
        Change::node_wide(hook(HookPoint::PreApplyMode), "pre-apply-mode"),
        Change::node_wide(hook(HookPoint::PreApplyConfig), "pre-apply-config"),
        Change::node_wide(Operation::StartClient(dcgm()), "start dcgm"),
        Change::node_wide(hook(HookPoint::ApplyExit), "apply-exit"),
    ]);
    plan.changes.sort_by_key(|c| c.phase);
    plan
}

#[test]
fn node_wide_steps_run_alone_on_the_executors_thread_between_the_parallel_phases() {
    let watched = Watched::new(a100());
    let mut plan = with_node_wide_steps(0..4);
    let mut r = Recorder::new(watched.clone(), 99);
    assert_eq!(execute_with(&mut plan, &mut r, &quiet()).unwrap(), Exit::Ok);
    assert!(watched.most() > 1, "the MIG phases ran on the GPUs at once");
    // The runner (on the executor's thread) made each node-wide step between its own before and
    // after, nothing else in between.
    for change in plan.changes.iter().filter(|c| c.is_node_wide()) {
        let (before, after) = seen_at(&r.seen, &change.detail);
        assert_eq!(
            r.seen[before..=after],
            [
                format!("before {}", change.detail),
                format!("run {}", change.detail),
                format!("after {} Some(Done)", change.detail),
            ],
            "{:?}",
            r.seen
        );
    }
    // Phases are barriers around them: no driver call was in flight while one ran.
    let node_wide = |detail: &str| seen_at(&r.seen, detail);
    for change in plan.changes.iter().filter(|c| !c.is_node_wide()) {
        let (before, after) = seen_at(&r.seen, &change.detail);
        let (opened, closed) = if change.phase == Phase::MigModes {
            (
                node_wide("pre-apply-mode").1,
                node_wide("pre-apply-config").0,
            )
        } else {
            (node_wide("pre-apply-config").1, node_wide("start dcgm").0)
        };
        assert!(
            opened < before && after < closed,
            "{}: {:?}",
            change.detail,
            r.seen
        );
    }
}

#[test]
fn a_stopped_run_says_what_the_node_wide_steps_got_too() {
    let mut plan = with_node_wide_steps(0..2);
    // apply-start, stop, pre-apply-mode and the 2 mode changes; pre-apply-config is refused.
    let mut r = Recorder::new(shared(a100()), 5);
    let e = execute_with(&mut plan, &mut r, &quiet()).unwrap_err();
    assert_eq!(
        e.message,
        "stopped\n  GPU 0: 1 done, 6 not run\n  GPU 1: 1 done, 6 not run\n  node: 3 done, 3 not run"
    );
}
