//! `--target prometheus-rules`: alerting rules on gpushare's metrics, as a Prometheus rules
//! file (`rule_files:`; the same `groups` are the `spec` of a prometheus-operator PrometheusRule).
//! A few that matter: a node agent stuck in `failed`, a node out of its layout, a probe verdict
//! that failed, an MPS daemon down, a source the metrics cannot read.

use super::{Bundle, DocKind, Document, Request};
use crate::support::error::Result;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Serialize)]
struct RulesFile {
    groups: Vec<Group>,
}

#[derive(Serialize)]
struct Group {
    name: &'static str,
    rules: Vec<Rule>,
}

#[derive(Serialize)]
struct Rule {
    alert: &'static str,
    expr: &'static str,
    #[serde(rename = "for")]
    for_: &'static str,
    labels: BTreeMap<&'static str, &'static str>,
    annotations: BTreeMap<&'static str, &'static str>,
}

fn rule(
    alert: &'static str,
    expr: &'static str,
    for_: &'static str,
    severity: &'static str,
    summary: &'static str,
    description: &'static str,
) -> Rule {
    Rule {
        alert,
        expr,
        for_,
        labels: BTreeMap::from([("severity", severity)]),
        annotations: BTreeMap::from([("summary", summary), ("description", description)]),
    }
}

pub(crate) fn generate(_req: &Request) -> Result<Bundle> {
    let rules = vec![
        rule(
            "GpushareAgentFailed",
            r#"gpushare_agent_state{state="failed"} == 1"#,
            "15m",
            "warning",
            "The gpushare agent on {{ $labels.instance }} cannot bring its node to its layout",
            "The agent's last run failed and has not succeeded since; `kubectl describe node` shows its LayoutFailed event with the reason.",
        ),
        rule(
            "GpushareLayoutUnmatched",
            "gpushare_layout_unmatched_seconds > 1800",
            "0m",
            "warning",
            "{{ $labels.instance }} has been out of its GPU layout for more than 30 minutes",
            "The agent last found the node as its layout says {{ $value | humanizeDuration }} ago.",
        ),
        rule(
            "GpushareProbeFailed",
            "gpushare_probe_target_passed == 0",
            "0m",
            "warning",
            "The gpushare probe found a slice that does not keep its promise on {{ $labels.instance }}",
            "Target {{ $labels.target }} ({{ $labels.uuid }}) failed the probe's last report: `gpushare probe` says which check and why.",
        ),
        rule(
            "GpushareMpsDaemonDown",
            "gpushare_mps_daemon_up == 0",
            "5m",
            "critical",
            "MPS daemon {{ $labels.daemon }} on {{ $labels.instance }} is down",
            "gpushare started this MPS control daemon and it no longer runs: its clients cannot start; `gpushare mps status` shows it and `gpushare apply` starts it again.",
        ),
        rule(
            "GpushareGpuUnhealthy",
            "gpushare_gpu_healthy == 0 or gpushare_mig_device_healthy == 0",
            "0m",
            "critical",
            "GPU {{ $labels.gpu }} ({{ $labels.uuid }}) on {{ $labels.instance }} is unhealthy",
            "An Xid or ECC error the health policy counts against it: `gpushare detect` says which and since when; the Node's GPUUnhealthy condition and events say the same.",
        ),
        rule(
            "GpushareMetricsSourceDown",
            "gpushare_scrape_source_up == 0",
            "10m",
            "warning",
            "gpushare cannot read {{ $labels.source }} on {{ $labels.instance }}",
            "The series from this source are absent from the scrapes until it answers again.",
        ),
    ];
    let mut b = Bundle::default();
    b.push(Document::new(
        "gpushare-rules.yaml",
        DocKind::PrometheusRules,
        &RulesFile {
            groups: vec![Group {
                name: "gpushare",
                rules,
            }],
        },
    )?);
    b.note("Load it with `rule_files: [gpushare-rules.yaml]` in prometheus.yml (check it with `promtool check rules`), or put its groups in the spec of a PrometheusRule.");
    Ok(b)
}
