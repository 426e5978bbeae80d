//! `gpushare doctor`: is this node ready to share its GPUs? Each check says PASS, WARN, FAIL or
//! SKIP, with a hint for anything that is not a pass.

mod boot;
mod driver;
mod gpu_health;
mod host;
mod runtime;
mod sharing;

use crate::node::Context;
use crate::node::model::Node;
use crate::support::error::{Error, Exit, Result};
use crate::support::output::{Output, Style, table};
use serde::Serialize;
use std::path::PathBuf;

pub(crate) use host::Host;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Status {
    Pass,
    Skip,
    Warn,
    Fail,
}

impl Status {
    fn label(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Skip => "SKIP",
            Status::Warn => "WARN",
            Status::Fail => "FAIL",
        }
    }

    fn style(self) -> Style {
        match self {
            Status::Pass => Style::Good,
            Status::Skip => Style::Dim,
            Status::Warn => Style::Warn,
            Status::Fail => Style::Bad,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Check {
    pub id: &'static str,
    pub status: Status,
    pub detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl Check {
    pub(crate) fn pass(id: &'static str, detail: impl Into<String>) -> Self {
        Check {
            id,
            status: Status::Pass,
            detail: detail.into(),
            hint: None,
        }
    }

    pub(crate) fn skip(id: &'static str, detail: impl Into<String>) -> Self {
        Check {
            status: Status::Skip,
            ..Check::pass(id, detail)
        }
    }

    pub(crate) fn warn(
        id: &'static str,
        detail: impl Into<String>,
        hint: impl Into<String>,
    ) -> Self {
        Check {
            status: Status::Warn,
            hint: Some(hint.into()),
            ..Check::pass(id, detail)
        }
    }

    pub(crate) fn fail(
        id: &'static str,
        detail: impl Into<String>,
        hint: impl Into<String>,
    ) -> Self {
        Check {
            status: Status::Fail,
            hint: Some(hint.into()),
            ..Check::pass(id, detail)
        }
    }
}

#[derive(Debug, Serialize)]
struct Report {
    checks: Vec<Check>,
    summary: Summary,
}

#[derive(Debug, Default, Serialize)]
struct Summary {
    pass: usize,
    warn: usize,
    fail: usize,
    skip: usize,
}

/// What the checks look at: the host tree, and the node when the driver answered.
pub(crate) struct Inputs<'a> {
    pub host: &'a Host,
    pub node: Option<&'a Node>,
    /// Set when the node is simulated: host checks only run against an explicit --host-root.
    pub host_checked: bool,
}

/// Run every check in order.
pub(crate) fn checks(inputs: &Inputs, driver: std::result::Result<&Node, &Error>) -> Vec<Check> {
    vec![
        driver::kernel_module(inputs),
        driver::nvml(driver),
        driver::device_nodes(inputs),
        driver::mig_caps(inputs),
        driver::persistence(inputs),
        sharing::reset_blockers(inputs),
        sharing::fabric_manager(inputs),
        runtime::container_toolkit(inputs),
        runtime::runtime_cdi(inputs),
        runtime::cdi_spec(inputs),
        runtime::spec_bypass(inputs),
        sharing::mps_control(inputs),
        sharing::iommu(inputs),
        boot::boot_unit(inputs),
    ]
}

pub(crate) fn run(ctx: &mut Context, host_root: Option<PathBuf>) -> Result<Exit> {
    let simulated = ctx.backend_options.sim.is_some() || ctx.backend_options.sim_state.is_some();
    let host_checked = host_root.is_some() || !simulated;
    let host = Host::new(host_root.unwrap_or_else(|| PathBuf::from("/")));
    let snapshot = ctx.snapshot();
    let inputs = Inputs {
        host: &host,
        node: snapshot.as_ref().ok(),
        host_checked,
    };
    let mut checks = checks(&inputs, snapshot.as_ref());
    let (policy, _) = crate::node::gpu_health::node_policy(&ctx.paths);
    let health = snapshot.as_ref().ok().map(|node| {
        crate::node::gpu_health::NodeHealth::read(
            &ctx.paths,
            node,
            &policy,
            crate::support::clock::unix_now(),
        )
        .map_err(|e| e.message)
    });
    checks.push(gpu_health::gpu_health(health));
    let refused = host.refused();
    if !refused.is_empty() {
        checks.push(Check::fail(
            "host-files",
            format!("cannot read {}", refused.join("; ")),
            "these host files must be regular files: the checks above read them as absent",
        ));
    }
    let mut summary = Summary::default();
    for c in &checks {
        match c.status {
            Status::Pass => summary.pass += 1,
            Status::Warn => summary.warn += 1,
            Status::Fail => summary.fail += 1,
            Status::Skip => summary.skip += 1,
        }
    }
    let report = Report { checks, summary };
    ctx.out.data(&report, |out| render(out, &report))?;
    Ok(match &snapshot {
        Err(e) if e.exit == Exit::NoDriver => Exit::NoDriver,
        _ if report.summary.fail > 0 => Exit::Differs,
        _ => Exit::Ok,
    })
}

fn render(out: &Output, report: &Report) -> String {
    let rows = report
        .checks
        .iter()
        .map(|c| {
            vec![
                out.paint(c.status.style(), c.status.label()),
                c.id.to_string(),
                c.detail.clone(),
            ]
        })
        .collect();
    let mut s = table(&["STATUS", "CHECK", "DETAIL"], rows);
    let hints: Vec<&Check> = report.checks.iter().filter(|c| c.hint.is_some()).collect();
    if !hints.is_empty() {
        s.push('\n');
        for c in hints {
            s.push_str(&format!(
                "{} {}: {}\n",
                out.paint(Style::Bold, "hint:"),
                c.id,
                c.hint.as_deref().unwrap_or_default()
            ));
        }
    }
    let m = &report.summary;
    s.push_str(&format!(
        "\n{} passed, {} warnings, {} failed, {} skipped\n",
        m.pass, m.warn, m.fail, m.skip
    ));
    s
}

#[cfg(test)]
mod tests;
