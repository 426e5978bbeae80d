//! `gpushare metrics`: one scrape printed, or `--listen ADDR` served until SIGTERM (see
//! `crate::observe::metrics`).

use crate::change::pipeline::signals::Trap;
use crate::commands::cli::MetricsArgs;
use crate::node::Context;
use crate::node::gpu_health::listener::Listener;
use crate::observe::metrics::{Collector, Format, Sources};
use crate::support::error::{Error, Exit, Result};
use crate::support::http_endpoint;
use std::sync::Arc;
use std::time::Duration;

pub(super) fn run(ctx: &mut Context, args: &MetricsArgs) -> Result<Exit> {
    // The metrics are Prometheus's text or OpenMetrics: a JSON or YAML that is neither is refused
    // rather than answered with text that is not what was asked.
    if ctx.out.format != crate::support::output::Format::Table {
        let asked = format!("{:?}", ctx.out.format).to_ascii_lowercase();
        return Err(Error::usage(format!(
            "--format {asked}: the metrics are written in the Prometheus text format"
        ))
        .with_hint("drop --format; pass --openmetrics for OpenMetrics text, or read `gpushare detect --format json` for the node's data"));
    }
    // A driver that does not answer is exit 4 now, not a service that serves nothing.
    ctx.snapshot()?;
    let collector = Collector::new(Sources {
        backend: ctx.backend_options.clone(),
        paths: ctx.paths.clone(),
        pod_resources_root: crate::observe::pod_resources::host_root(
            args.host_root.as_deref(),
            ctx.simulated(),
        ),
        config: Some(
            args.config
                .clone()
                .unwrap_or_else(|| ctx.paths.etc_dir().join("gpushare.toml")),
        ),
        agent: None,
        pod_names: None,
        own_container: None,
        pod_cgroups: args.kubelet_cgroup_root.clone(),
    });
    let collector = Arc::new(collector.with_backend(ctx.shared_backend()?));
    let Some(addr) = args.listen else {
        let format = if args.openmetrics {
            Format::OpenMetrics
        } else {
            Format::Prometheus
        };
        ctx.out.stdout(&collector.scrape(format))?;
        return Ok(Exit::Ok);
    };
    let trap = Trap::install();
    // Health is known only while a watch listens: the driver tells only those registered.
    let _listener = Listener::start(
        ctx.backend_options.clone(),
        ctx.paths.clone(),
        ctx.out.clone(),
        || {},
    );
    let liveness = Arc::new(crate::observe::liveness::Liveness::serving());
    let bound = http_endpoint::serve(
        addr,
        "metrics endpoint",
        "--listen",
        vec![
            collector.route(),
            crate::observe::liveness::route(liveness.clone()),
        ],
    )?;
    ctx.out.note(format!(
        "gpushare metrics at http://{bound}/metrics (liveness: /healthz)"
    ));
    let stopped = loop {
        if let Some(signal) = trap.received() {
            break signal;
        }
        liveness.turn();
        std::thread::sleep(Duration::from_millis(200));
    };
    ctx.out
        .note(format!("gpushare metrics: stopping on {stopped}"));
    Ok(Exit::Ok)
}
