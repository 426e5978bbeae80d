//! MIG made for the claim: a GPU that gpushare.toml gives to dynamic MIG (`mig.dynamic = true`)
//! is published as partitionable devices (`resource.k8s.io/v1`, KEP-4815).
//!
//! - **Counters.** The GPU is a counter set `gpu-<index>`: one counter per memory slice, its
//!   compute slices, its GPU-instance limit, and the limit of each profile that allows fewer
//!   instances than it has placements (A100's `1g.5gb+me`: one).
//! - **Devices.** One per placement of every GPU-instance profile the driver reports (its own
//!   profile and placement queries), named as the MIG device it becomes
//!   ([`super::devices::mig_name`]), with the profile's memory and multiprocessors as attributes
//!   and capacity. Each consumes its memory slices, compute slices and instance counts, so the
//!   scheduler allocates only placements that can coexist.
//! - **What exists.** An instance that exists takes its counters out of the set, and its device
//!   consumes none: whether a claim's prepare made it or it was there before (then the claim that
//!   is allocated it uses it as it is), no other device can be allocated over it. An instance
//!   that is not one full-size compute instance is not offered at all.
//! - **Order.** The scheduler places first fit in the order a slice lists its devices, so the
//!   order is the placement policy: what exists comes first (an idle instance is used before a
//!   new one is made), then [`crate::sharing::mig::partitions::order`] lists the placements that fit now
//!   so that the first of each profile leaves the most room for the largest profiles; what
//!   cannot fit now comes last.

use super::devices::{DraDevice, Placed, gpu_attributes, int, mig_name, string};
use crate::node::model::catalog::{GpuInstanceProfile, MigTable};
use crate::node::model::{Gpu, Node, Placement};
use crate::sharing::mig::partitions::{Partition, Taken, order};
use crate::support::error::{Error, Result};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// The most devices a slice may list when they consume counters (the API's limit).
const MAX_DEVICES: usize = 64;

/// The binding conditions of a placement on a GPU whose MIG is off: the scheduler waits in
/// PreBind until the plugin turned MIG on ([`super::mig_mode`]), and takes the pod elsewhere
/// when it could not.
pub(crate) const MIG_ENABLED: &str = "gpu.gpushare.io/mig-enabled";
pub(crate) const MIG_FAILED: &str = "gpu.gpushare.io/mig-failed";

/// A dynamic GPU as its two slices publish it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DynamicGpu {
    pub gpu: u32,
    /// The GPU's counter set (`sharedCounters[0]` of its counters slice).
    pub counter_set: Value,
    /// Its devices, in the order first fit should find them.
    pub devices: Vec<DraDevice>,
}

/// The name of the counter set of GPU `gpu`.
pub(crate) fn counter_set_name(gpu: u32) -> String {
    format!("gpu-{gpu}")
}

/// The MIG table of a GPU as its driver reports it: the slices, counts and placements of the
/// profiles it lists.
pub(crate) fn table_of(profiles: &[GpuInstanceProfile]) -> MigTable {
    MigTable {
        compute_slices: profiles.iter().map(|p| p.slices).max().unwrap_or(0),
        memory_slices: profiles
            .iter()
            .flat_map(|p| p.placements().map(Placement::end))
            .max()
            .unwrap_or(0),
        max_gpu_instances: profiles.iter().map(|p| p.max_instances).max().unwrap_or(0),
        profiles: profiles.to_vec(),
    }
}

/// The counters one instance of `profile` at `placement` takes.
fn consumed(table: &MigTable, profile: usize, placement: Placement) -> BTreeMap<String, u32> {
    let p = &table.profiles[profile];
    let mut c: BTreeMap<String, u32> = (placement.start..placement.end())
        .map(|k| (format!("memslice{k}"), 1))
        .collect();
    c.insert("compute".into(), p.slices);
    c.insert("instances".into(), 1);
    if limited(p) {
        c.insert(format!("profile{}", p.id), 1);
    }
    c
}

/// Whether a profile allows fewer instances than its placements could hold.
fn limited(p: &GpuInstanceProfile) -> bool {
    (p.max_instances as usize) < p.starts.len()
}

fn quantities(counters: &BTreeMap<String, u32>) -> Value {
    counters
        .iter()
        .map(|(k, v)| (k.clone(), json!({ "value": v.to_string() })))
        .collect::<Map<_, _>>()
        .into()
}

/// The slices of dynamic GPU `gpu`, from the profiles its driver lists; `base` holds the
/// attributes every device of the GPU has.
pub(crate) fn dynamic_gpu(
    node: &Node,
    gpu: &Gpu,
    profiles: &[GpuInstanceProfile],
    place: &super::devices::PciPlace,
    made_for_a_claim: impl Fn(&crate::node::model::GpuInstance) -> bool,
) -> Result<DynamicGpu> {
    let waits_for_mig = !gpu.mig.current.is_enabled();
    let table = table_of(profiles);
    let base = gpu_attributes(node, gpu, place);
    let mut free: BTreeMap<String, u32> = (0..table.memory_slices)
        .map(|k| (format!("memslice{k}"), 1))
        .collect();
    free.insert("compute".into(), table.compute_slices);
    free.insert("instances".into(), table.max_gpu_instances);
    for p in profiles.iter().filter(|p| limited(p)) {
        free.insert(format!("profile{}", p.id), p.max_instances);
    }
    let mut taken = Taken::default();
    // (goes with its claim, device)
    let mut made: Vec<(bool, DraDevice)> = Vec::new();
    for gi in gpu.mig_instances()? {
        let profile = table
            .profiles
            .iter()
            .position(|p| p.name == gi.profile)
            .ok_or_else(|| {
                Error::failed(format!(
                    "GPU {} has a GPU instance of profile {} that its driver does not list",
                    gpu.index, gi.profile
                ))
            })?;
        for (k, n) in consumed(&table, profile, gi.placement) {
            let left = free.entry(k).or_default();
            *left = left.saturating_sub(n);
        }
        taken.instances.push(Partition {
            profile,
            placement: gi.placement,
        });
        // Offered only as the one full-size compute instance a claim's prepare makes.
        if let [ci] = gi.compute_instances.as_slice()
            && ci.profile == gi.profile
        {
            let uuid = gpu.mig_uuid(gi, ci)?.to_string();
            let mut device = device(gpu, &base, &table, profile, gi.placement, None);
            device.published["attributes"]["uuid"] = string(&uuid);
            device.mig = Some((gi.gpu_instance_id, ci.compute_instance_id));
            device.uuid = uuid;
            made.push((made_for_a_claim(gi), device));
        }
    }
    // What exists first (an idle instance is used as it is: nothing to make, nothing more
    // taken), those that stay before those that go when their claim does; then the placements
    // in the order that packs, then those that cannot be made now (listed all the same, so a
    // device allocated before stays in the slice).
    made.sort_by_key(|(goes, _)| *goes);
    let mut devices: Vec<DraDevice> = made.into_iter().map(|(_, d)| d).collect();
    let made_names: Vec<String> = devices.iter().map(|d| d.name.clone()).collect();
    let first: Vec<Partition> = order(&table, &taken);
    devices.extend(first.iter().map(|p| {
        let uses = consumed(&table, p.profile, p.placement);
        device(gpu, &base, &table, p.profile, p.placement, Some(&uses))
    }));
    for p in crate::sharing::mig::partitions::partitions(&table) {
        let name = mig_name(
            gpu.index,
            &table.profiles[p.profile].name,
            p.placement.start,
        );
        if first.contains(&p) || made_names.contains(&name) {
            continue;
        }
        let uses = consumed(&table, p.profile, p.placement);
        devices.push(device(
            gpu,
            &base,
            &table,
            p.profile,
            p.placement,
            Some(&uses),
        ));
    }
    if waits_for_mig {
        for d in &mut devices {
            d.published["bindingConditions"] = json!([MIG_ENABLED]);
            d.published["bindingFailureConditions"] = json!([MIG_FAILED]);
            d.published["bindsToNode"] = json!(true);
        }
    }
    if devices.len() > MAX_DEVICES {
        return Err(Error::failed(format!(
            "GPU {} has {} MIG placements, more than a ResourceSlice may list ({MAX_DEVICES})",
            gpu.index,
            devices.len()
        )));
    }
    Ok(DynamicGpu {
        gpu: gpu.index,
        counter_set: json!({ "name": counter_set_name(gpu.index), "counters": quantities(&free) }),
        devices,
    })
}

/// The device of `profile` at `placement`; `uses`: the counters it consumes (None: it exists).
fn device(
    gpu: &Gpu,
    base: &Map<String, Value>,
    table: &MigTable,
    profile: usize,
    placement: Placement,
    uses: Option<&BTreeMap<String, u32>>,
) -> DraDevice {
    let p = &table.profiles[profile];
    let name = mig_name(gpu.index, &p.name, placement.start);
    let mut a = base.clone();
    a.insert("type".into(), string("mig"));
    a.insert("dynamic".into(), json!({ "bool": true }));
    a.insert("parentUUID".into(), string(&gpu.uuid));
    a.insert("profile".into(), string(&p.name));
    a.insert("placementStart".into(), int(u64::from(placement.start)));
    a.insert("placementSize".into(), int(u64::from(placement.size)));
    a.insert("multiprocessors".into(), int(u64::from(p.sm)));
    let mut published = json!({
        "name": name,
        "attributes": a,
        "capacity": {
            "memory": { "value": format!("{}Mi", p.memory_mib) },
            "multiprocessors": { "value": p.sm.to_string() },
        },
    });
    if let Some(uses) = uses {
        published["consumesCounters"] = json!([{
            "counterSet": counter_set_name(gpu.index),
            "counters": quantities(uses),
        }]);
    }
    DraDevice {
        name,
        gpu: gpu.index,
        mig: None,
        uuid: String::new(),
        placed: Some(Placed {
            profile: p.name.clone(),
            placement,
        }),
        shared: None,
        published,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::backend::Backend;
    use crate::node::backend::sim::SimBackend;
    use crate::sharing::mig::layout::ProfileBook;

    fn a100() -> (SimBackend, Vec<GpuInstanceProfile>) {
        let sim = SimBackend::from_preset("dgx-a100").unwrap();
        sim.set_mig_mode(0, crate::node::model::MigMode::Enabled)
            .unwrap();
        let node = sim.snapshot().unwrap();
        let book = ProfileBook::load(&sim, &node);
        let profiles = book.known(&node.gpus[0]).unwrap().unwrap().to_vec();
        (sim, profiles)
    }

    fn counters(d: &DraDevice) -> BTreeMap<String, String> {
        d.published["consumesCounters"][0]["counters"]
            .as_object()
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), v["value"].as_str().unwrap().to_string()))
                    .collect()
            })
            .unwrap_or_default()
    }

    #[test]
    fn every_placement_consumes_its_slices_and_the_first_of_each_profile_packs() {
        let (sim, profiles) = a100();
        let node = sim.snapshot().unwrap();
        let g = dynamic_gpu(&node, &node.gpus[0], &profiles, &Default::default(), |_| {
            false
        })
        .unwrap();
        let placements: usize = profiles.iter().map(|p| p.starts.len()).sum();
        assert_eq!(g.devices.len(), placements);
        let set = &g.counter_set["counters"];
        assert_eq!(set["memslice7"]["value"], "1");
        assert_eq!(set["compute"]["value"], "7");
        assert_eq!(set["instances"]["value"], "7");
        // 1g.5gb+me allows one instance of its seven placements: a counter of its own.
        let me = profiles.iter().find(|p| p.name == "1g.5gb+me").unwrap();
        assert_eq!(set[format!("profile{}", me.id)]["value"], "1");
        // The first 1g.5gb goes where it leaves room for the largest profiles: at the end.
        let first_1g = g
            .devices
            .iter()
            .find(|d| d.placed.as_ref().unwrap().profile == "1g.5gb")
            .unwrap();
        assert_eq!(first_1g.name, "gpu-0-mig-1g5gb-6");
        assert_eq!(
            counters(first_1g),
            BTreeMap::from([
                ("compute".into(), "1".into()),
                ("instances".into(), "1".into()),
                ("memslice6".into(), "1".into()),
            ])
        );
        let three = g
            .devices
            .iter()
            .find(|d| d.name == "gpu-0-mig-3g20gb-4")
            .unwrap();
        assert_eq!(counters(three)["memslice7"], "1");
        assert_eq!(three.published["attributes"]["dynamic"]["bool"], true);
        assert!(three.published["attributes"].get("uuid").is_none());
        assert!(
            g.devices
                .iter()
                .all(|d| crate::support::dns_name::is_dns_label(&d.name)),
            "{:?}",
            g.devices.iter().map(|d| &d.name).collect::<Vec<_>>()
        );
    }

    #[test]
    fn an_instance_that_exists_takes_its_counters_and_consumes_none() {
        let (sim, profiles) = a100();
        let three = profiles.iter().find(|p| p.name == "3g.20gb").unwrap();
        let gi = sim
            .create_gpu_instance(0, three.id, Placement { start: 4, size: 4 })
            .unwrap();
        sim.create_compute_instance(0, gi, 2).unwrap();
        let node = sim.snapshot().unwrap();
        let g = dynamic_gpu(&node, &node.gpus[0], &profiles, &Default::default(), |_| {
            false
        })
        .unwrap();
        let set = &g.counter_set["counters"];
        assert_eq!(set["memslice4"]["value"], "0");
        assert_eq!(set["memslice3"]["value"], "1");
        assert_eq!(set["compute"]["value"], "4");
        let made = g
            .devices
            .iter()
            .find(|d| d.name == "gpu-0-mig-3g20gb-4")
            .unwrap();
        assert!(made.published.get("consumesCounters").is_none());
        assert!(made.mig.is_some());
        assert!(made.uuid.starts_with("MIG-"), "{}", made.uuid);
        assert_eq!(
            made.published["attributes"]["uuid"]["string"],
            made.uuid.as_str()
        );
        assert_eq!(g.devices[0].name, made.name, "what exists comes first");
        // Placements over it are still listed (they consume what is gone), after those that fit.
        let over = g
            .devices
            .iter()
            .position(|d| d.name == "gpu-0-mig-1g5gb-4")
            .unwrap();
        let fits = g
            .devices
            .iter()
            .position(|d| d.name == "gpu-0-mig-1g5gb-0")
            .unwrap();
        assert!(fits < over);
    }
}
