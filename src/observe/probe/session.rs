//! How one target is probed: which runs (alone, N at once), which clients test the memory limit,
//! and what each worker is told.

use super::mps_reach::{self, Reach};
use super::protocol::{Failure, Plan, Request, Step};
use super::report::TargetReport;
use super::summary::target_report;
use super::targets::{Target, TargetKind};
use super::worker_env::WorkerEnv;
use super::workers::{Launcher, WorkerSpec};

/// What the user asked for.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Options {
    pub plan: Plan,
    /// Clients at once (1: the target alone).
    pub clients: u32,
    /// Run alone first, then the clients at once, and report the slowdown.
    pub compare: bool,
}

impl Options {
    /// Runs per target: alone, N at once, or both.
    pub(crate) fn runs(&self) -> usize {
        usize::from(self.clients == 1 || self.compare) + usize::from(self.clients > 1)
    }
}

/// Probe one target. `on_step(run, step)` reports the first client's progress in each run;
/// `note` gets what the run should tell the user.
pub(crate) fn probe(
    launcher: &Launcher,
    env: &WorkerEnv,
    target: &Target,
    options: &Options,
    on_step: &mut dyn FnMut(usize, Step),
    note: &mut dyn FnMut(String),
) -> TargetReport {
    if target.kind == TargetKind::Mps
        && let Some(pipe) = &target.mps_pipe_dir
    {
        match mps_reach::check(pipe, launcher.mps_timeout) {
            Reach::Answers => {}
            Reach::Unchecked(why) => note(format!("{}: {why}", target.label())),
            Reach::NoDaemon(why) => return no_daemon(target, why),
        }
    }
    let mut run = 0;
    let solo = if options.clients == 1 || options.compare {
        let spec = worker_spec(env, target, &options.plan, true, false);
        let mut out = launcher.run_group(&[spec], &mut |_, step| on_step(run, step));
        run += 1;
        out.pop()
    } else {
        None
    };
    if options.clients == 1 {
        let main: Vec<_> = solo.into_iter().collect();
        return target_report(target, &main, None);
    }
    // Each MPS client has its own memory limit, so each one tests it. Clients of a whole GPU or
    // MIG device share its memory: one test is enough, and the run alone already made it.
    let specs: Vec<WorkerSpec> = (0..options.clients)
        .map(|i| {
            let limit = target.kind == TargetKind::Mps || (solo.is_none() && i == 0);
            worker_spec(env, target, &options.plan, limit, true)
        })
        .collect();
    let main = launcher.run_group(&specs, &mut |client, step| {
        if client == 0 {
            on_step(run, step);
        }
    });
    target_report(target, &main, solo.as_ref())
}

/// The report of an MPS target whose pipe directory has no daemon: nothing ran.
fn no_daemon(target: &Target, why: String) -> TargetReport {
    let failure = Failure {
        step: Step::Context,
        message: format!("{why}; CUDA would run its clients without MPS, on the whole GPU"),
        hint: Some(
            "start the MPS daemon (gpushare mps start), or point the probe at its pipe directory with --mps-pipe-dir"
                .into(),
        ),
        cuda: None,
    };
    let mut report = target_report(target, &[Err(failure)], None);
    report.error_check = "mps";
    report
}

/// The request and environment of one client of `target`.
pub(crate) fn worker_spec(
    env: &WorkerEnv,
    target: &Target,
    plan: &Plan,
    limit_test: bool,
    wait_for_go: bool,
) -> WorkerSpec {
    let e = env.for_target(target);
    WorkerSpec {
        request: Request {
            device: e.device,
            limit_mib: limit_test.then_some(target.promise.memory_mib),
            memory_mib: target.promise.memory_mib,
            cpus: target.local_cpus.clone(),
            physical_multiprocessors: target.device_multiprocessors,
            plan: *plan,
            wait_for_go,
        },
        env: e.set,
        env_remove: e.remove,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::probe::targets::Promise;
    use std::path::Path;

    fn target(kind: TargetKind) -> Target {
        Target {
            kind,
            gpu: 2,
            gpu_uuid: "GPU-g".into(),
            pci_bus_id: "00000000:07:00.0".into(),
            uuid: "MIG-m".into(),
            name: "1g.5gb".into(),
            device_memory_mib: 4864,
            device_multiprocessors: 14,
            mps_pipe_dir: (kind == TargetKind::Mps).then(|| "/run/gpushare/mps/m/pipe".into()),
            local_cpus: Some(vec![0, 1]),
            promise: Promise {
                memory_mib: 2432,
                memory_from: "x".into(),
                multiprocessors: None,
                max_multiprocessors: None,
                thread_percentage: None,
                clients: None,
                mps_missing: false,
            },
        }
    }

    #[test]
    fn requests_carry_the_promise_the_limit_test_and_the_cpus() {
        let env = WorkerEnv::new(Path::new("/tmp/empty"), Vec::new());
        let s = worker_spec(
            &env,
            &target(TargetKind::Mig),
            &Plan::quick(None),
            true,
            false,
        );
        assert_eq!(s.request.limit_mib, Some(2432));
        assert_eq!(s.request.memory_mib, 2432);
        assert_eq!(s.request.cpus, Some(vec![0, 1]));
        assert_eq!(s.request.physical_multiprocessors, 14);
        let s = worker_spec(
            &env,
            &target(TargetKind::Mps),
            &Plan::quick(None),
            false,
            true,
        );
        assert_eq!(s.request.limit_mib, None);
        assert_eq!(s.request.memory_mib, 2432, "buffers stay within the limit");
        assert!(s.request.wait_for_go);
    }

    #[test]
    fn runs_per_target() {
        let o = |clients, compare| Options {
            plan: Plan::quick(None),
            clients,
            compare,
        };
        assert_eq!(o(1, false).runs(), 1);
        assert_eq!(o(4, false).runs(), 1);
        assert_eq!(o(4, true).runs(), 2);
    }
}
