//! `--target grafana-dashboard`: a Grafana dashboard for gpushare's metrics, in a ConfigMap
//! labelled `grafana_dashboard: "1"` (what the Grafana chart's dashboard sidecar, and so
//! kube-prometheus-stack, loads); its `gpushare.json` imports as it is too. One row each: the
//! slices and who holds them, per-pod usage, the changes gpushare made, health and the probe.

use super::objects::{labels, meta};
use super::{Bundle, Document, Request};
use crate::support::error::{Error, Result};
use k8s_openapi::api::core::v1::ConfigMap;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// One panel: its title, how it draws, and its queries (expression, legend).
struct Panel {
    title: &'static str,
    kind: &'static str,
    unit: &'static str,
    description: &'static str,
    queries: &'static [(&'static str, &'static str)],
}

/// The rows of the dashboard, top down.
const ROWS: &[(&str, &[Panel])] = &[
    (
        "Slices and holders",
        &[
            Panel {
                title: "MIG devices held by pods",
                kind: "table",
                unit: "none",
                description: "Each MIG device a pod holds, as the kubelet's pod-resources API says",
                queries: &[(
                    "gpushare_mig_device_held == 1",
                    "{{namespace}}/{{pod}} on GPU {{gpu}} {{profile}}",
                )],
            },
            Panel {
                title: "Free MIG devices by profile",
                kind: "timeseries",
                unit: "none",
                description: "MIG devices no pod holds",
                queries: &[(
                    "count by (profile) (gpushare_mig_device_held == 0)",
                    "{{profile}}",
                )],
            },
            Panel {
                title: "GPU instances by profile",
                kind: "timeseries",
                unit: "none",
                description: "The node's MIG layout",
                queries: &[(
                    "sum by (instance, profile) (gpushare_gpu_mig_instances)",
                    "{{instance}} {{profile}}",
                )],
            },
            Panel {
                title: "GPU memory in use",
                kind: "timeseries",
                unit: "percentunit",
                description: "Memory in use on each whole GPU, as the driver reports it",
                queries: &[(
                    "gpushare_gpu_memory_used_bytes / gpushare_gpu_memory_total_bytes",
                    "{{instance}} GPU {{gpu}}",
                )],
            },
        ],
    ),
    (
        "Per-pod usage",
        &[
            Panel {
                title: "GPU memory by pod",
                kind: "timeseries",
                unit: "bytes",
                description: "What each pod's processes use, from their cgroups",
                queries: &[(
                    "sum by (namespace, pod) (gpushare_owner_memory_used_bytes{owner=\"pod\"})",
                    "{{namespace}}/{{pod}}",
                )],
            },
            Panel {
                title: "Shares over their memory",
                kind: "table",
                unit: "bytes",
                description: "DRA claims' shares whose pods use more than they were given (none: 0)",
                queries: &[(
                    "sum(gpushare_share_memory_used_bytes > gpushare_share_memory_limit_bytes) or vector(0)",
                    "over",
                )],
            },
        ],
    ),
    (
        "Changes",
        &[
            Panel {
                title: "Changes made",
                kind: "timeseries",
                unit: "none",
                description: "Changes gpushare made on the nodes, by operation, from the journal",
                queries: &[(
                    "sum by (operation) (increase(gpushare_changes_applied_total[$__range]))",
                    "{{operation}}",
                )],
            },
            Panel {
                title: "Changes failed",
                kind: "stat",
                unit: "none",
                description: "Changes that failed (none: 0)",
                queries: &[("sum(gpushare_changes_failed_total) or vector(0)", "failed")],
            },
            Panel {
                title: "Last change succeeded",
                kind: "stat",
                unit: "none",
                description: "1: the last changing command or agent run ended as it should",
                queries: &[(
                    "min by (instance) (gpushare_last_apply_success)",
                    "{{instance}}",
                )],
            },
        ],
    ),
    (
        "Health and verification",
        &[
            Panel {
                title: "Unhealthy GPUs",
                kind: "stat",
                unit: "none",
                description: "GPUs the health policy calls unhealthy (none: 0)",
                queries: &[("count(gpushare_gpu_healthy == 0) or vector(0)", "unhealthy")],
            },
            Panel {
                title: "Probe verdict",
                kind: "stat",
                unit: "none",
                description: "1: every slice kept its promises at the last probe",
                queries: &[("min by (instance) (gpushare_probe_passed)", "{{instance}}")],
            },
            Panel {
                title: "Sources gpushare could read",
                kind: "table",
                unit: "none",
                description: "0: the series of that source are missing from the scrapes",
                queries: &[("gpushare_scrape_source_up", "{{instance}} {{source}}")],
            },
        ],
    ),
];

/// The dashboard: every panel on the `datasource` variable, rows of 24 columns.
pub(crate) fn dashboard() -> Value {
    let datasource = json!({ "type": "prometheus", "uid": "${datasource}" });
    let mut panels = Vec::new();
    let mut id = 1;
    let mut y = 0;
    for (row, row_panels) in ROWS {
        panels.push(json!({
            "id": id, "type": "row", "title": row, "collapsed": false,
            "gridPos": { "h": 1, "w": 24, "x": 0, "y": y },
        }));
        id += 1;
        y += 1;
        let width = 24 / row_panels.len().max(1) as u32;
        for (i, p) in row_panels.iter().enumerate() {
            let targets: Vec<Value> = p
                .queries
                .iter()
                .enumerate()
                .map(|(k, (expr, legend))| {
                    json!({
                        "datasource": datasource, "expr": expr, "legendFormat": legend,
                        "refId": char::from(b'A' + k as u8).to_string(),
                        "instant": p.kind != "timeseries",
                    })
                })
                .collect();
            panels.push(json!({
                "id": id, "type": p.kind, "title": p.title, "description": p.description,
                "datasource": datasource,
                "fieldConfig": { "defaults": { "unit": p.unit }, "overrides": [] },
                "gridPos": { "h": 8, "w": width, "x": width * i as u32, "y": y },
                "targets": targets,
            }));
            id += 1;
        }
        y += 8;
    }
    json!({
        "title": "gpushare",
        "uid": "gpushare",
        "tags": ["gpushare", "gpu"],
        "schemaVersion": 39,
        "editable": true,
        "time": { "from": "now-6h", "to": "now" },
        "refresh": "30s",
        "templating": { "list": [{
            "name": "datasource", "label": "Prometheus", "type": "datasource",
            "query": "prometheus",
        }] },
        "panels": panels,
    })
}

pub(crate) fn generate(req: &Request) -> Result<Bundle> {
    let text = serde_json::to_string_pretty(&dashboard())
        .map_err(|e| Error::failed(format!("the dashboard: {e}")))?;
    let ns = req.namespace_or("kube-system");
    let mut cm = ConfigMap {
        metadata: meta("gpushare-grafana-dashboard", Some(&ns)),
        data: Some(BTreeMap::from([("gpushare.json".to_string(), text)])),
        ..Default::default()
    };
    cm.metadata
        .labels
        .get_or_insert_with(Default::default)
        .extend(labels(&[("grafana_dashboard", "1")]));
    let mut b = Bundle::default();
    b.push(Document::object(&cm)?);
    b.note("The Grafana chart's dashboard sidecar loads ConfigMaps labelled grafana_dashboard=1 (kube-prometheus-stack does); or import its gpushare.json in Grafana and pick the Prometheus that scrapes gpushare.");
    Ok(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_panel_queries_gpushare_through_the_datasource_variable() {
        let d = dashboard();
        let panels = d["panels"].as_array().unwrap();
        let ids: std::collections::BTreeSet<u64> =
            panels.iter().map(|p| p["id"].as_u64().unwrap()).collect();
        assert_eq!(ids.len(), panels.len(), "ids are unique");
        let queried: Vec<&Value> = panels.iter().filter(|p| p["type"] != "row").collect();
        assert_eq!(queried.len(), 12);
        for p in queried {
            let targets = p["targets"].as_array().unwrap();
            assert!(!targets.is_empty(), "{p}");
            for t in targets {
                assert!(t["expr"].as_str().unwrap().contains("gpushare_"), "{t}");
                assert_eq!(t["datasource"]["uid"], "${datasource}");
            }
            assert!(p["gridPos"]["w"].as_u64().unwrap() <= 24);
        }
        assert_eq!(d["templating"]["list"][0]["query"], "prometheus");
    }
}
