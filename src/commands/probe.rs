//! `gpushare probe`: measure every target of the node in worker processes and judge the results
//! against what each target was promised (`crate::observe::probe::run`).

use crate::commands::cli::ProbeArgs;
use crate::node::Context;
use crate::observe::probe::report::{self, Verdict};
use crate::observe::probe::run::{Request, probe};
use crate::support::error::{Exit, Result};
use std::time::Duration;

pub(super) fn run(ctx: &mut Context, args: &ProbeArgs) -> Result<Exit> {
    let report = probe(ctx, &request(args))?;
    ctx.out.data(&report, |out| report::render(out, &report))?;
    Ok(match report.verdict {
        Verdict::Pass => Exit::Ok,
        Verdict::Fail => Exit::Differs,
    })
}

fn request(args: &ProbeArgs) -> Request {
    Request {
        target: args.target.clone(),
        config: args.config.clone(),
        mps_pipe_dir: args.mps_pipe_dir.clone(),
        clients: args.clients,
        compare: args.compare,
        quick: args.quick,
        buffer: args.buffer,
        timeout: Duration::from_secs(args.timeout),
        sysfs_root: args.sysfs.sysfs_root.clone(),
        host_root: args.host_root.clone(),
        pod_cgroups: args.kubelet_cgroup_root.clone(),
        share: args.share,
    }
}
