//! The node's MIG state as a mig-parted v1 config (`gpushare mig export`, label `current`).
//!
//! As mig-parted does: one entry per GPU (device filter = its PCI id, `devices = [index]`), then
//! entries with the same MIG state merged, filters dropped when one kind of GPU is present, and
//! device lists turned into `all` when they cover every GPU of their filters. Each compute
//! instance counts as one MIG device, named `2c.3g.40gb` when it is smaller than its GPU instance.

use crate::node::model::Node;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ExportSpec {
    pub version: &'static str,
    #[serde(rename = "mig-configs")]
    pub mig_configs: BTreeMap<String, Vec<ExportEntry>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ExportEntry {
    #[serde(rename = "device-filter", skip_serializing_if = "Option::is_none")]
    pub device_filter: Option<OneOrMany>,
    pub devices: ExportDevices,
    #[serde(rename = "mig-enabled")]
    pub mig_enabled: bool,
    #[serde(rename = "mig-devices")]
    pub mig_devices: BTreeMap<String, u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub(crate) enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub(crate) enum ExportDevices {
    All(&'static str),
    Indexes(Vec<u32>),
}

/// What the export cannot say: GPU instances without exactly one compute instance.
pub(crate) fn unrepresentable(node: &Node) -> Vec<String> {
    let mut out = Vec::new();
    for gpu in &node.gpus {
        for gi in gpu.mig.instances.iter().flatten() {
            if gi.compute_instances.len() != 1 {
                out.push(format!(
                    "GPU {}: GPU instance {} ({} at {}) has {} compute instances; a mig-parted config creates one per GPU instance",
                    gpu.index,
                    gi.gpu_instance_id,
                    gi.profile,
                    gi.placement,
                    gi.compute_instances.len()
                ));
            }
        }
    }
    out
}

/// The node as a v1 config with one label; an error when a GPU's MIG layout is unknown (the
/// driver would not list it): an export never says "no instances" for it.
pub(crate) fn export(node: &Node, label: &str) -> crate::support::error::Result<ExportSpec> {
    for gpu in &node.gpus {
        gpu.mig_instances()?;
    }
    struct One {
        filter: String,
        index: u32,
        enabled: bool,
        devices: BTreeMap<String, u32>,
    }
    let per_gpu: Vec<One> = node
        .gpus
        .iter()
        .map(|g| {
            let enabled = g.mig.capable && g.mig.current.is_enabled();
            let mut devices = BTreeMap::new();
            if enabled {
                for ci in g
                    .mig
                    .instances
                    .iter()
                    .flatten()
                    .flat_map(|gi| &gi.compute_instances)
                {
                    *devices.entry(ci.profile.clone()).or_insert(0) += 1;
                }
            }
            One {
                filter: g.pci_device_id.to_string(),
                index: g.index,
                enabled,
                devices,
            }
        })
        .collect();
    // Merge GPUs with the same state: (filters, indexes, enabled, devices).
    type Merged = (Vec<String>, Vec<u32>, bool, BTreeMap<String, u32>);
    let mut merged: Vec<Merged> = Vec::new();
    for one in &per_gpu {
        match merged
            .iter_mut()
            .find(|(_, _, e, d)| *e == one.enabled && *d == one.devices)
        {
            Some((filters, indexes, _, _)) => {
                if !filters.contains(&one.filter) {
                    filters.push(one.filter.clone());
                    filters.sort();
                }
                indexes.push(one.index);
            }
            None => merged.push((
                vec![one.filter.clone()],
                vec![one.index],
                one.enabled,
                one.devices.clone(),
            )),
        }
    }
    let kinds: std::collections::BTreeSet<&str> =
        per_gpu.iter().map(|o| o.filter.as_str()).collect();
    let single = merged.len() == 1;
    let entries = merged
        .into_iter()
        .map(|(filters, indexes, enabled, devices)| {
            // Every GPU of these filters is in this entry: say `all`.
            let covered: Vec<u32> = per_gpu
                .iter()
                .filter(|o| filters.contains(&o.filter))
                .map(|o| o.index)
                .collect();
            let all = covered == indexes;
            let device_filter = if kinds.len() == 1 || single {
                None
            } else if filters.len() == 1 {
                Some(OneOrMany::One(filters[0].clone()))
            } else {
                Some(OneOrMany::Many(filters))
            };
            ExportEntry {
                device_filter,
                devices: if all {
                    ExportDevices::All("all")
                } else {
                    ExportDevices::Indexes(indexes)
                },
                mig_enabled: enabled,
                mig_devices: devices,
            }
        })
        .collect();
    Ok(ExportSpec {
        version: "v1",
        mig_configs: BTreeMap::from([(label.to_string(), entries)]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::backend::Backend;
    use crate::node::backend::sim::SimBackend;

    #[test]
    fn a_uniform_node_exports_as_one_entry_for_all() {
        let node = SimBackend::from_preset("dgx-a100")
            .unwrap()
            .snapshot()
            .unwrap();
        let spec = export(&node, "current").unwrap();
        let v = serde_json::to_value(&spec).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"version": "v1", "mig-configs": {"current": [
                {"devices": "all", "mig-enabled": false, "mig-devices": {}}
            ]}})
        );
    }

    #[test]
    fn a_mixed_node_keeps_filters_and_indexes() {
        let sim = SimBackend::from_preset("mixed").unwrap();
        sim.set_mig_mode(1, crate::node::model::MigMode::Enabled)
            .unwrap();
        let gi = sim
            .create_gpu_instance(1, 9, crate::node::model::Placement { start: 4, size: 4 })
            .unwrap();
        sim.create_compute_instance(1, gi, 1).unwrap();
        let node = sim.snapshot().unwrap();
        let v = serde_json::to_value(export(&node, "current").unwrap()).unwrap();
        assert_eq!(
            v["mig-configs"]["current"],
            serde_json::json!([
                {"device-filter": ["0x1EB810DE", "0x20B510DE"], "devices": [0, 2, 3], "mig-enabled": false, "mig-devices": {}},
                {"device-filter": "0x20B510DE", "devices": [1], "mig-enabled": true, "mig-devices": {"2c.3g.40gb": 1}},
            ])
        );
        assert!(unrepresentable(&node).is_empty());
    }
}
