//! How one target is probed: which runs (alone, N at once), which clients test the memory limit,
//! and the environment that points each worker at its device.

use super::protocol::{DeviceChoice, Plan, Request, Step};
use super::report::TargetReport;
use super::summary::target_report;
use super::targets::{Target, TargetKind};
use super::workers::{Launcher, WorkerSpec};

/// What the user asked for.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub plan: Plan,
    /// Clients at once (1: the target alone).
    pub clients: u32,
    /// Run alone first, then the clients at once, and report the slowdown.
    pub compare: bool,
}

impl Options {
    /// Runs per target: alone, N at once, or both.
    pub fn runs(&self) -> usize {
        usize::from(self.clients == 1 || self.compare) + usize::from(self.clients > 1)
    }
}

/// Probe one target. `on_step(run, step)` reports the first client's progress in each run.
pub fn probe(
    launcher: &Launcher,
    target: &Target,
    options: &Options,
    on_step: &mut dyn FnMut(usize, Step),
) -> TargetReport {
    let mut run = 0;
    let solo = if options.clients == 1 || options.compare {
        let spec = worker_spec(target, &options.plan, true, false);
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
            worker_spec(target, &options.plan, limit, true)
        })
        .collect();
    let main = launcher.run_group(&specs, &mut |client, step| {
        if client == 0 {
            on_step(run, step);
        }
    });
    target_report(target, &main, solo.as_ref())
}

/// The request and environment of one client of `target`.
pub fn worker_spec(
    target: &Target,
    plan: &Plan,
    limit_test: bool,
    wait_for_go: bool,
) -> WorkerSpec {
    let uuid = target.uuid.clone();
    let (device, env, env_remove) = match (&target.mps_pipe_dir, target.kind) {
        // An MPS client sees the devices the daemon exposes; it finds its own by UUID.
        (Some(pipe), TargetKind::Mps) => (
            DeviceChoice::ByUuid { uuid },
            vec![(
                "CUDA_MPS_PIPE_DIRECTORY".to_string(),
                pipe.clone().into_os_string(),
            )],
            vec!["CUDA_VISIBLE_DEVICES".to_string()],
        ),
        // A whole GPU or MIG device: the only one visible, and never through an MPS daemon the
        // caller's environment may name.
        _ => (
            DeviceChoice::Visible { uuid: uuid.clone() },
            vec![("CUDA_VISIBLE_DEVICES".to_string(), uuid.into())],
            vec!["CUDA_MPS_PIPE_DIRECTORY".to_string()],
        ),
    };
    let mut env = env;
    env.push(("CUDA_DEVICE_ORDER".to_string(), "PCI_BUS_ID".into()));
    WorkerSpec {
        request: Request {
            device,
            limit_mib: limit_test.then_some(target.promise.memory_mib),
            physical_multiprocessors: target.device_multiprocessors,
            plan: *plan,
            wait_for_go,
        },
        env,
        env_remove,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::targets::Promise;

    fn target(kind: TargetKind) -> Target {
        Target {
            kind,
            gpu: 2,
            gpu_uuid: "GPU-g".into(),
            uuid: "MIG-m".into(),
            name: "1g.5gb".into(),
            device_memory_mib: 4864,
            device_multiprocessors: 14,
            mps_pipe_dir: (kind == TargetKind::Mps).then(|| "/run/gpushare/mps/m/pipe".into()),
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
    fn mig_workers_see_only_their_device() {
        let s = worker_spec(&target(TargetKind::Mig), &Plan::quick(None), true, false);
        assert_eq!(
            s.request.device,
            DeviceChoice::Visible {
                uuid: "MIG-m".into()
            }
        );
        assert!(
            s.env
                .contains(&("CUDA_VISIBLE_DEVICES".into(), "MIG-m".into()))
        );
        assert_eq!(s.env_remove, ["CUDA_MPS_PIPE_DIRECTORY"]);
        assert_eq!(s.request.limit_mib, Some(2432));
        assert_eq!(s.request.physical_multiprocessors, 14);
    }

    #[test]
    fn mps_clients_go_through_the_pipe_dir_and_find_their_device() {
        let s = worker_spec(&target(TargetKind::Mps), &Plan::quick(None), false, true);
        assert_eq!(
            s.request.device,
            DeviceChoice::ByUuid {
                uuid: "MIG-m".into()
            }
        );
        assert!(s.env.contains(&(
            "CUDA_MPS_PIPE_DIRECTORY".into(),
            "/run/gpushare/mps/m/pipe".into()
        )));
        assert_eq!(s.env_remove, ["CUDA_VISIBLE_DEVICES"]);
        assert_eq!(s.request.limit_mib, None);
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
