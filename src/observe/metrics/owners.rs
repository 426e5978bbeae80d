//! Who uses each device: every GPU process's memory, summed per container (a pod's), the host,
//! or unknown, on the GPU or MIG device it runs on. A container's processes come and go; its
//! series are one per device it uses. The series are bounded: beyond [`SERIES_LIMIT`] owners
//! the smallest users of a device are summed into one `owner="other"` series, and
//! `gpushare_owner_series_folded` says how many were.

use super::devices::gpu_labels;
use super::sheet::{Labels, Sheet, Spec};
use crate::node::model::{Gpu, Node, Owner, Process};
use std::collections::BTreeMap;

const MIB: f64 = 1024.0 * 1024.0;
/// Owner series per family in one scrape, `other` series not counted.
pub(crate) const SERIES_LIMIT: usize = 1024;

pub(crate) static OWNER_MEMORY_USED: Spec = Spec::gauge(
    "owner_memory_used",
    "GPU memory used by an owner's processes on the device (owner=pod with namespace, pod and container; host; unknown: not read; other: the owners past the series limit); absent when the driver does not say for one of them",
)
.unit("bytes");
pub(crate) static OWNER_PROCESSES: Spec = Spec::gauge(
    "owner_processes",
    "GPU processes of an owner on the device (labels as gpushare_owner_memory_used_bytes)",
);
pub(crate) static OWNER_SERIES_FOLDED: Spec = Spec::gauge(
    "owner_series_folded",
    "Owners of a device summed into its owner=\"other\" series, past the limit on series",
);

/// One owner's use of one device.
#[derive(Default)]
struct Use {
    /// None once a process's memory is unknown.
    mib: Option<u64>,
    processes: u64,
}

impl Use {
    fn of(p: &Process) -> Use {
        Use {
            mib: p.used_memory_mib,
            processes: 1,
        }
    }

    /// `other`'s processes and memory added to these.
    fn merge(&mut self, other: &Use) {
        self.mib = if self.processes == 0 {
            other.mib
        } else {
            self.mib.zip(other.mib).and_then(|(a, b)| a.checked_add(b))
        };
        self.processes += other.processes;
    }
}

/// Each owner's use of each device of `node`; a process without an owner is `unknown`.
pub(crate) fn add(sheet: &mut Sheet, node: &Node) {
    // (device labels, owner labels) → use; devices in node order.
    let mut uses: BTreeMap<(Labels, Labels), Use> = BTreeMap::new();
    for gpu in &node.gpus {
        for p in gpu.processes.iter().flatten() {
            let key = (device_labels(gpu, p), owner_labels(p.owner.as_ref()));
            uses.entry(key).or_default().merge(&Use::of(p));
        }
    }
    // The largest users keep their series; unknown memory counts as the least.
    let mut ranked: Vec<_> = uses.into_iter().collect();
    ranked.sort_by(|a, b| {
        b.1.mib
            .unwrap_or(0)
            .cmp(&a.1.mib.unwrap_or(0))
            .then(a.0.cmp(&b.0))
    });
    let mut other: BTreeMap<Labels, (Use, usize)> = BTreeMap::new();
    for (i, ((device, owner), u)) in ranked.into_iter().enumerate() {
        if i >= SERIES_LIMIT {
            let (sum, n) = other.entry(device).or_default();
            sum.merge(&u);
            *n += 1;
            continue;
        }
        let mut l = device;
        l.extend(owner);
        put(sheet, l, &u);
    }
    for (device, (u, n)) in other {
        let mut l = device.clone();
        l.push(("owner", "other".into()));
        put(sheet, l, &u);
        sheet.set(&OWNER_SERIES_FOLDED, device, n as f64);
    }
}

fn put(sheet: &mut Sheet, labels: Labels, u: &Use) {
    if let Some(mib) = u.mib {
        sheet.set(&OWNER_MEMORY_USED, labels.clone(), mib as f64 * MIB);
    }
    sheet.set(&OWNER_PROCESSES, labels, u.processes as f64);
}

/// The GPU, and the MIG device when the process runs on one the driver names.
fn device_labels(gpu: &Gpu, p: &Process) -> Labels {
    let mut l = gpu_labels(gpu);
    let mig = gpu
        .mig
        .instances
        .iter()
        .flatten()
        .filter(|gi| Some(gi.gpu_instance_id) == p.gpu_instance_id)
        .flat_map(|gi| &gi.compute_instances)
        .find(|ci| Some(ci.compute_instance_id) == p.compute_instance_id)
        .and_then(|ci| ci.uuid.clone());
    if let Some(uuid) = mig {
        l.push(("mig_uuid", uuid));
    }
    l
}

fn owner_labels(owner: Option<&Owner>) -> Labels {
    match owner {
        None => vec![("owner", "unknown".into())],
        Some(Owner::Host) => vec![("owner", "host".into())],
        Some(Owner::Pod(p)) => {
            let mut l = vec![("owner", "pod".into())];
            match (&p.namespace, &p.pod) {
                (Some(ns), Some(pod)) => {
                    l.push(("namespace", ns.clone()));
                    l.push(("pod", pod.clone()));
                }
                // Not named: the UID still tells pods apart.
                _ => l.push(("pod_uid", p.pod_uid.clone())),
            }
            if let Some(c) = &p.container {
                l.push(("container", c.clone()));
            } else if let Some(id) = &p.container_id {
                l.push(("container_id", id.clone()));
            }
            l
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::backend::Backend;
    use crate::node::backend::sim::SimBackend;
    use crate::node::backend::sim::processes::NewProcess;
    use crate::node::model::PodContainer;

    fn container(i: usize) -> Owner {
        Owner::Pod(PodContainer {
            namespace: Some("ml".into()),
            pod: Some(format!("job-{i}")),
            pod_uid: format!("{i:032x}"),
            container: Some("cuda".into()),
            container_id: Some(format!("{i:064x}")),
        })
    }

    #[test]
    fn past_the_limit_the_smallest_users_of_a_device_are_one_counted_series() {
        let sim = SimBackend::from_preset("t4x4").unwrap();
        let n = SERIES_LIMIT + 44;
        for i in 0..n {
            let p = NewProcess {
                gpu: (i % 2) as u32,
                pid: 1000 + i as u32,
                name: "python".into(),
                used_memory_mib: 1 + i as u64 % 10,
                mig_device: None,
                kind: Default::default(),
            };
            sim.start_process(p).unwrap();
        }
        let mut node = sim.snapshot().unwrap();
        for g in &mut node.gpus {
            for p in g.processes.iter_mut().flatten() {
                p.owner = Some(container(p.pid as usize - 1000));
            }
        }
        // Two processes of one container on GPU 0 are one series: 100 + 3 MiB.
        let gpu0 = node.gpus[0].processes.as_mut().unwrap();
        gpu0[0].used_memory_mib = Some(100);
        gpu0[1].owner = Some(container(0));
        let mut sheet = Sheet::default();
        add(&mut sheet, &node);
        let owners = sheet.series(&OWNER_PROCESSES);
        let other: Vec<_> = owners
            .iter()
            .filter(|(l, _)| l.contains(&("owner", "other".into())))
            .collect();
        assert_eq!(owners.len() - other.len(), SERIES_LIMIT);
        let folded: f64 = sheet
            .series(&OWNER_SERIES_FOLDED)
            .iter()
            .map(|(_, v)| v)
            .sum();
        assert_eq!(folded as usize, n - 1 - SERIES_LIMIT);
        // Nothing is lost: every process and MiB is in a series.
        let processes: f64 = owners.iter().map(|(_, v)| v).sum();
        assert_eq!(processes as usize, n);
        let mib: f64 = sheet
            .series(&OWNER_MEMORY_USED)
            .iter()
            .map(|(_, v)| v / MIB)
            .sum();
        let used: u64 = node
            .gpus
            .iter()
            .flat_map(|g| g.processes.iter().flatten())
            .map(|p| p.used_memory_mib.unwrap())
            .sum();
        assert_eq!(mib as u64, used);
        // The largest users are the ones kept.
        let kept_min = owners
            .iter()
            .filter(|(l, _)| !l.contains(&("owner", "other".into())))
            .filter_map(|(l, _)| sheet.value(&OWNER_MEMORY_USED, l))
            .fold(f64::MAX, f64::min);
        let mut sizes: Vec<u64> = (3..n).map(|i| 1 + i as u64 % 10).collect();
        sizes.extend([103, 2]);
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        assert_eq!(kept_min, sizes[SERIES_LIMIT - 1] as f64 * MIB);
        let job0 = sheet
            .series(&OWNER_MEMORY_USED)
            .into_iter()
            .find(|(l, _)| l.contains(&("pod", "job-0".into())))
            .unwrap();
        assert_eq!(job0.1, 103.0 * MIB);
    }

    #[test]
    fn unknown_memory_leaves_the_memory_series_out_and_the_process_counted() {
        let sim = SimBackend::from_preset("t4x4").unwrap();
        for pid in [1, 2] {
            let p = NewProcess {
                gpu: 0,
                pid,
                name: "x".into(),
                used_memory_mib: 10,
                mig_device: None,
                kind: Default::default(),
            };
            sim.start_process(p).unwrap();
        }
        let mut node = sim.snapshot().unwrap();
        node.gpus[0].processes.as_mut().unwrap()[0].used_memory_mib = None;
        let mut sheet = Sheet::default();
        add(&mut sheet, &node);
        assert!(sheet.series(&OWNER_MEMORY_USED).is_empty());
        let owners = sheet.series(&OWNER_PROCESSES);
        assert_eq!(owners.len(), 1);
        assert!(owners[0].0.contains(&("owner", "unknown".into())));
        assert_eq!(owners[0].1, 2.0);
    }
}
