//! A probe of the node, as `gpushare probe` and `init` run it: find the targets, run the workers
//! target by target, judge what they measured, and keep the report for the metrics.

use super::clients::Clients;
use super::protocol::{Plan, Step};
use super::report::{self, Report, Verdict};
use super::session::{self, Options};
use super::targets::{self, Sources};
use super::worker_env::{PrivateDir, WorkerEnv};
use super::workers::Launcher;
use super::{affinity, cuda, kept, mps_settings, share, sharers, verdict, worker};
use crate::node::Context;
use crate::node::config::{AssignedConfig, Config};
use crate::node::model::Node;
use crate::node::model::selector::GpuSelector;
use crate::observe::owners::OwnerReader;
use crate::sharing::vgpu::sysfs::SysfsRoot;
use crate::support::error::{Error, Result};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What a probe measures, and how.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub target: GpuSelector,
    /// gpushare.toml: what each target is promised.
    pub config: Option<PathBuf>,
    pub mps_pipe_dir: Option<PathBuf>,
    /// Clients at once on each target.
    pub clients: Clients,
    /// Each target alone first, then with `clients` at once.
    pub compare: bool,
    pub quick: bool,
    /// Each host-to-device and device-to-host copy, in bytes (None: 256M, 32M when quick).
    pub buffer: Option<u64>,
    /// For each worker.
    pub timeout: Duration,
    pub sysfs_root: PathBuf,
    /// Where whose the other processes on a device are is read (see `crate::observe::owners`).
    pub host_root: Option<PathBuf>,
    /// Where the kubelet puts pods there.
    pub pod_cgroups: crate::observe::owners::cgroup::PodCgroups,
    /// The share this container holds, instead of the node's targets ([`share`]).
    pub share: bool,
}

impl Request {
    /// `init`'s: every slice of the node, quickly, against the layout it applied.
    pub(crate) fn after_init(config: &Path, sysfs_root: &Path) -> Request {
        Request {
            target: GpuSelector::All,
            config: Some(config.to_path_buf()),
            mps_pipe_dir: None,
            clients: Clients::Each(1),
            compare: false,
            quick: true,
            buffer: None,
            timeout: Duration::from_secs(120),
            sysfs_root: sysfs_root.to_path_buf(),
            host_root: None,
            pod_cgroups: Default::default(),
            share: false,
        }
    }
}

/// Probe every target and judge the results; nothing printed on stdout (`init` reports it).
pub(crate) fn probe(ctx: &mut Context, args: &Request) -> Result<Report> {
    if args.compare && matches!(args.clients, Clients::Each(n) if n < 2) {
        return Err(
            Error::usage("--compare compares a target alone with N clients at once: it needs --clients N (2 or more)")
                .with_hint("e.g. gpushare probe --clients 4 --compare, or --clients promised"),
        );
    }
    let config = args.config.as_deref().map(Config::load).transpose()?;
    // The parent never calls CUDA, but without a usable libcuda no worker can: say so once.
    // (Looking symbols up only reads the library's tables.)
    let unusable = if cuda::library_present() {
        worker::driver_too_old()
    } else {
        Some(worker::no_library())
    };
    if let Some(f) = unusable {
        let e = Error::no_driver(f.message);
        return Err(match f.hint {
            Some(h) => e.with_hint(h),
            None => e,
        });
    }
    if args.share {
        return probe_share(ctx, args);
    }
    let mut node = ctx.snapshot()?;
    let owners =
        crate::observe::pod_resources::host_root(args.host_root.as_deref(), ctx.simulated()).map(
            |root| OwnerReader::with_kubelet_logs(&root).with_pod_cgroups(args.pod_cgroups.clone()),
        );
    if let Some(reader) = &owners {
        reader.attribute(&mut node);
    }
    let config = config.map(|c| AssignedConfig::new(c, &node)).transpose()?;
    let daemons = mps_settings::load_all(&ctx.paths)?;
    let mut notes = Vec::new();
    let sources = Sources {
        node: &node,
        config: config.as_ref(),
        daemons: &daemons,
        pipe_dir: args.mps_pipe_dir.as_deref(),
    };
    let found = targets::discover(&sources, &mut notes)?;
    let mut targets = targets::select(found, &args.target, &node)?;
    let sysfs = SysfsRoot::new(&args.sysfs_root);
    for t in &mut targets {
        t.local_cpus = affinity::gpu_local_cpus(&sysfs, &t.pci_bus_id);
    }
    for note in &notes {
        ctx.out.note(format!("note: {note}"));
    }
    if targets.is_empty() {
        return Err(Error::failed(
            "nothing to probe: this node has no GPU or MIG device that CUDA can open",
        )
        .with_hint("`gpushare detect` shows the GPUs and their MIG devices"));
    }
    if args.mps_pipe_dir.is_some() && !targets.iter().any(|t| t.mps_pipe_dir.is_some()) {
        ctx.out
            .warn("--mps-pipe-dir is not used: gpushare.toml puts none of these devices under MPS");
    }
    for t in &targets {
        if let (Some(promised), Clients::Each(n)) = (t.promise.clients, args.clients)
            && n > promised
        {
            ctx.out.warn(format!(
                "{} is promised to {promised} clients; --clients {n} runs more than that",
                t.label()
            ));
        }
    }
    let no_mps_dir = PrivateDir::create()?;
    let env = WorkerEnv::new(no_mps_dir.path(), std::env::vars_os().map(|(k, _)| k));
    let mut reports = measure(ctx, args, &targets, &env)?;
    drop(no_mps_dir);
    // Who else was on each device: at the start, and now the workers are gone.
    let mut after = ctx.snapshot().ok();
    if let (Some(reader), Some(after)) = (&owners, &mut after) {
        reader.attribute(after);
    }
    let nodes: Vec<&Node> = std::iter::once(&node).chain(after.as_ref()).collect();
    for r in &mut reports {
        r.shared_with = sharers::on_device(&nodes, r.gpu, &r.uuid);
    }
    let failures = verdict::judge(&reports);
    let verdict = if failures.is_empty() {
        Verdict::Pass
    } else {
        Verdict::Fail
    };
    let report = Report {
        source: node.source.clone(),
        quick: args.quick,
        d2d_counts: report::D2D_COUNTS,
        targets: reports,
        verdict,
        failures,
    };
    keep(ctx, &report);
    Ok(report)
}

/// Measure `targets` in worker processes (with `env`), target by target, with progress.
fn measure(
    ctx: &Context,
    args: &Request,
    targets: &[targets::Target],
    env: &WorkerEnv,
) -> Result<Vec<report::TargetReport>> {
    let exe = std::env::current_exe().map_err(|e| {
        Error::failed(format!(
            "cannot find the gpushare binary to start probe workers: {e}"
        ))
    })?;
    let launcher = Launcher {
        exe,
        timeout: args.timeout,
        mps_timeout: crate::sharing::mps::DEFAULT_TIMEOUT,
    };
    let plan = if args.quick {
        Plan::quick(args.buffer)
    } else {
        Plan::full(args.buffer)
    };
    let options: Vec<Options> = targets
        .iter()
        .map(|t| Options {
            plan,
            clients: args.clients.on(t),
            compare: args.compare,
        })
        .collect();

    let steps = Step::ALL.len() as u64;
    let bar = ctx
        .out
        .progress(options.iter().map(|o| o.runs() as u64 * steps).sum());
    let mut reports = Vec::with_capacity(targets.len());
    let mut run_notes = Vec::new();
    let mut base = 0;
    for (target, options) in targets.iter().zip(&options) {
        let per_target = options.runs() as u64 * steps;
        let label = target.label();
        bar.set_message(label.clone());
        let report = session::probe(
            &launcher,
            env,
            target,
            options,
            &mut |run, step| {
                bar.set_position(base + run as u64 * steps + step.position() as u64);
                bar.set_message(format!("{label}: {}", step.label()));
            },
            &mut |note| run_notes.push(note),
        );
        base += per_target;
        bar.set_position(base);
        reports.push(report);
    }
    bar.finish_and_clear();
    for note in run_notes {
        ctx.out.warn(note);
    }

    // Every worker found no usable driver: that is exit 4, not a failed verdict.
    if let Some(first) = reports.first()
        && reports.iter().all(|r| r.no_driver)
    {
        let e = Error::no_driver(first.error.clone().unwrap_or_default());
        return Err(match &first.hint {
            Some(h) => e.with_hint(h.clone()),
            None => e,
        });
    }
    Ok(reports)
}

/// `--share`: the share this container holds, checked from inside against what it was given.
fn probe_share(ctx: &mut Context, args: &Request) -> Result<Report> {
    let target = share::target(|k| std::env::var(k).ok())?;
    let no_mps_dir = PrivateDir::create()?;
    // The container's client limits are what is measured: the worker keeps them.
    let caller = std::env::vars_os()
        .map(|(k, _)| k)
        .filter(|k| !share::CLIENT_LIMITS.iter().any(|l| k == l));
    let env = WorkerEnv::new(no_mps_dir.path(), caller);
    let reports = measure(ctx, args, std::slice::from_ref(&target), &env)?;
    drop(no_mps_dir);
    let failures = verdict::judge(&reports);
    Ok(Report {
        source: format!("share of {}", target.uuid),
        quick: args.quick,
        d2d_counts: report::D2D_COUNTS,
        verdict: if failures.is_empty() {
            Verdict::Pass
        } else {
            Verdict::Fail
        },
        targets: reports,
        failures,
    })
}

/// Keep the report for the metrics. A simulated node's report stays out of the host's own
/// state (unless a state root holds the simulation's); a report that cannot be kept is said,
/// and the probe's answer stands.
fn keep(ctx: &Context, report: &Report) {
    if ctx.simulated() && ctx.paths.root().is_none() {
        return;
    }
    if let Err(why) = kept::keep(&ctx.paths, report) {
        ctx.out.warn(format!(
            "cannot keep the report for `gpushare metrics`: {why}"
        ));
    }
}
