//! The node as gpushare's DRA driver offers it: each whole GPU without MIG, and each MIG device
//! that exists, named stably (`gpu-<index>`, `gpu-<index>-mig-<profile>-<placement start>`,
//! with `-ci<id>` where a GPU instance has several compute instances), with the attributes a
//! claim selects on and the memory and multiprocessors as capacity.

use crate::support::error::Result;

/// gpushare's DRA driver: a domain the project owns.
pub(crate) const DRIVER: &str = "gpu.gpushare.io";
use crate::node::model::{Gpu, Node};
use serde_json::{Value, json};

/// What a DRA device of the node is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DraDevice {
    pub name: String,
    pub gpu: u32,
    /// The MIG device (GPU instance, compute instance); None: the whole GPU.
    pub mig: Option<(u32, u32)>,
    /// The UUID the driver gives it (`GPU-…`, `MIG-…`): the CDI generator's name for it; empty
    /// for a placement of a dynamic GPU that is not made yet.
    pub uuid: String,
    /// A placement of a dynamic GPU (`mig.dynamic`): the GPU instance a claim's prepare makes.
    pub placed: Option<Placed>,
    /// Shared by claims (`shares`): what each may ask for.
    pub shared: Option<crate::node::config::shares::SharePolicy>,
    /// The device as a ResourceSlice lists it (`resource.k8s.io/v1` `Device`).
    pub published: Value,
}

/// A placement of a dynamic GPU: its profile, where it goes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Placed {
    pub profile: String,
    pub placement: crate::node::model::Placement,
}

/// The name of the MIG device of `profile` at memory slice `start` of GPU `gpu`:
/// `gpu-1-mig-3g20gb-4`, `gpu-1-mig-1g5gb-me-6` (a DNS label, as a device name must be).
pub(crate) fn mig_name(gpu: u32, profile: &str, start: u32) -> String {
    let profile: String = profile
        .chars()
        .filter(|c| *c != '.')
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    format!("gpu-{gpu}-mig-{profile}-{start}")
}

pub(crate) fn string(v: &str) -> Value {
    json!({ "string": v })
}

pub(crate) fn int(v: u64) -> Value {
    json!({ "int": v })
}

/// `8.0` → `8.0.0`, a semantic version a claim compares with `semver`.
fn version(v: &str) -> Option<Value> {
    let mut parts: Vec<&str> = v.split('.').collect();
    if parts.is_empty() || parts.len() > 3 || parts.iter().any(|p| p.parse::<u64>().is_err()) {
        return None;
    }
    while parts.len() < 3 {
        parts.push("0");
    }
    Some(json!({ "version": parts.join(".") }))
}

/// Where a GPU sits on the host, from sysfs: its NUMA node and its PCIe root
/// (`pci<domain>:<bus>`, the standard `resource.kubernetes.io/pcieRoot` a claim matches a NIC
/// with). Unknown (a simulated node, no sysfs) is left out, never guessed.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct PciPlace {
    pub numa_node: Option<u64>,
    pub pcie_root: Option<String>,
}

impl PciPlace {
    /// The place of the GPU at `bus_id` (NVML's `00000000:07:00.0`) under `sysfs_root`.
    pub(crate) fn read(sysfs_root: &std::path::Path, bus_id: &str) -> PciPlace {
        let lower = bus_id.to_ascii_lowercase();
        let sysfs_id = match lower.split_once(':') {
            Some((domain, rest)) if domain.len() > 4 => {
                format!("{}:{rest}", &domain[domain.len() - 4..])
            }
            _ => lower,
        };
        let device = sysfs_root.join("sys/bus/pci/devices").join(&sysfs_id);
        let numa_node = crate::support::fsutil::read_host_text(&device.join("numa_node"), 64)
            .ok()
            .flatten()
            .and_then(|t| t.trim().parse::<i64>().ok())
            .and_then(|n| u64::try_from(n).ok());
        // /sys/bus/pci/devices/<id> links to /sys/devices/pci0000:00/…/<id>.
        let pcie_root = std::fs::canonicalize(&device).ok().and_then(|real| {
            real.components()
                .filter_map(|c| c.as_os_str().to_str())
                .find(|c| c.starts_with("pci") && c.len() == 10 && c.as_bytes()[7] == b':')
                .map(str::to_string)
        });
        PciPlace {
            numa_node,
            pcie_root,
        }
    }
}

/// The attributes every device of `gpu` has.
pub(crate) fn gpu_attributes(
    node: &Node,
    gpu: &Gpu,
    place: &PciPlace,
) -> serde_json::Map<String, Value> {
    let mut a = serde_json::Map::new();
    a.insert("index".into(), int(u64::from(gpu.index)));
    a.insert("productName".into(), string(&gpu.name));
    a.insert("pciBusID".into(), string(&gpu.pci_bus_id));
    if let Some(arch) = &gpu.architecture {
        a.insert("architecture".into(), string(arch));
    }
    if let Some(v) = version(&gpu.compute_capability) {
        a.insert("cudaComputeCapability".into(), v);
    }
    // A driver version such as 580.105.08 is not a semantic version (a leading zero): a string.
    a.insert("driverVersion".into(), string(&node.driver_version));
    if let Some(numa) = place.numa_node {
        a.insert("numaNode".into(), int(numa));
    }
    if let Some(root) = &place.pcie_root {
        a.insert("resource.kubernetes.io/pcieRoot".into(), string(root));
    }
    a
}

/// Every device the node offers now, in a stable order (GPU index, then placement); `place`
/// says where each GPU sits.
pub(crate) fn devices_placed(
    node: &Node,
    place: impl Fn(&Gpu) -> PciPlace,
) -> Result<Vec<DraDevice>> {
    let mut out = Vec::new();
    for gpu in &node.gpus {
        let base = gpu_attributes(node, gpu, &place(gpu));
        if !gpu.mig.current.is_enabled() {
            let mut a = base.clone();
            a.insert("type".into(), string("gpu"));
            a.insert("uuid".into(), string(&gpu.uuid));
            if let Some(sm) = gpu.multiprocessors {
                a.insert("multiprocessors".into(), int(u64::from(sm)));
            }
            let mut capacity =
                json!({ "memory": { "value": format!("{}Mi", gpu.memory_total_mib) } });
            if let Some(sm) = gpu.multiprocessors {
                capacity["multiprocessors"] = json!({ "value": sm.to_string() });
            }
            let name = format!("gpu-{}", gpu.index);
            out.push(DraDevice {
                published: json!({ "name": name, "attributes": a, "capacity": capacity }),
                name,
                gpu: gpu.index,
                mig: None,
                uuid: gpu.uuid.clone(),
                placed: None,
                shared: None,
            });
            continue;
        }
        let mut instances: Vec<_> = gpu.mig_instances()?.iter().collect();
        instances.sort_by_key(|gi| gi.placement.start);
        for gi in instances {
            for ci in &gi.compute_instances {
                let uuid = gpu.mig_uuid(gi, ci)?.to_string();
                let mut name = mig_name(gpu.index, &gi.profile, gi.placement.start);
                if gi.compute_instances.len() > 1 {
                    name.push_str(&format!("-ci{}", ci.compute_instance_id));
                }
                let mut a = base.clone();
                a.insert("type".into(), string("mig"));
                a.insert("uuid".into(), string(&uuid));
                a.insert("parentUUID".into(), string(&gpu.uuid));
                a.insert("profile".into(), string(&gi.profile));
                a.insert("placementStart".into(), int(u64::from(gi.placement.start)));
                a.insert("placementSize".into(), int(u64::from(gi.placement.size)));
                a.insert("multiprocessors".into(), int(u64::from(ci.multiprocessors)));
                let capacity = json!({
                    "memory": { "value": format!("{}Mi", gi.memory_mib) },
                    "multiprocessors": { "value": ci.multiprocessors.to_string() },
                });
                out.push(DraDevice {
                    published: json!({ "name": name, "attributes": a, "capacity": capacity }),
                    name,
                    gpu: gpu.index,
                    mig: Some((gi.gpu_instance_id, ci.compute_instance_id)),
                    uuid,
                    placed: None,
                    shared: None,
                });
            }
        }
    }
    Ok(out)
}

/// [`devices_placed`] without where they sit (matching names to holders needs none).
pub(crate) fn devices(node: &Node) -> Result<Vec<DraDevice>> {
    devices_placed(node, |_| PciPlace::default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::backend::Backend;
    use crate::node::backend::sim::SimBackend;

    #[test]
    fn whole_gpus_and_the_mig_devices_that_exist_with_stable_names() {
        let sim = SimBackend::from_preset("dgx-a100").unwrap();
        sim.set_mig_mode(1, crate::node::model::MigMode::Enabled)
            .unwrap();
        for (profile, start) in [(9, 4), (19, 0)] {
            let size = if profile == 9 { 4 } else { 1 };
            let gi = sim
                .create_gpu_instance(1, profile, crate::node::model::Placement { start, size })
                .unwrap();
            sim.create_compute_instance(1, gi, if profile == 9 { 2 } else { 0 })
                .unwrap();
        }
        let node = sim.snapshot().unwrap();
        let list = devices(&node).unwrap();
        let names: Vec<&str> = list.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(
            &names[..3],
            ["gpu-0", "gpu-1-mig-1g5gb-0", "gpu-1-mig-3g20gb-4"]
        );
        assert_eq!(list.len(), 9, "seven whole GPUs and two MIG devices");
        let mig = &list[2].published;
        assert_eq!(mig["attributes"]["profile"]["string"], "3g.20gb");
        assert_eq!(
            mig["attributes"]["parentUUID"]["string"],
            node.gpus[1].uuid.as_str()
        );
        assert_eq!(
            mig["attributes"]["cudaComputeCapability"]["version"],
            "8.0.0"
        );
        assert_eq!(mig["capacity"]["memory"]["value"], "19968Mi");
        let gpu = &list[0].published;
        assert_eq!(gpu["capacity"]["memory"]["value"], "40960Mi");
        assert_eq!(gpu["attributes"]["type"]["string"], "gpu");
        assert_eq!(list[2].mig.map(|m| m.1), Some(0));
        assert!(
            names
                .iter()
                .all(|n| crate::support::dns_name::is_dns_label(n))
        );
    }

    #[test]
    fn the_pci_place_is_read_from_sysfs_or_left_out() {
        let root = tempfile::tempdir().unwrap();
        let real = root
            .path()
            .join("sys/devices/pci0000:40/0000:40:01.1/0000:47:00.0");
        std::fs::create_dir_all(&real).unwrap();
        std::fs::write(real.join("numa_node"), "1\n").unwrap();
        let bus = root.path().join("sys/bus/pci/devices");
        std::fs::create_dir_all(&bus).unwrap();
        std::os::unix::fs::symlink(&real, bus.join("0000:47:00.0")).unwrap();
        let place = PciPlace::read(root.path(), "00000000:47:00.0");
        assert_eq!(place.numa_node, Some(1));
        assert_eq!(place.pcie_root.as_deref(), Some("pci0000:40"));
        std::fs::write(real.join("numa_node"), "-1\n").unwrap();
        assert_eq!(
            PciPlace::read(root.path(), "00000000:47:00.0").numa_node,
            None
        );
        assert_eq!(
            PciPlace::read(root.path(), "00000000:07:00.0"),
            PciPlace::default()
        );
        let node = SimBackend::from_preset("t4x4").unwrap().snapshot().unwrap();
        let placed = devices_placed(&node, |_| PciPlace {
            numa_node: Some(0),
            pcie_root: Some("pci0000:00".into()),
        })
        .unwrap();
        let a = &placed[0].published["attributes"];
        assert_eq!(a["numaNode"]["int"], 0);
        assert_eq!(a["resource.kubernetes.io/pcieRoot"]["string"], "pci0000:00");
        assert!(
            devices(&node).unwrap()[0].published["attributes"]
                .get("numaNode")
                .is_none()
        );
    }
}
