//! Host CPU affinity of a worker: the GPU's local CPUs (`/sys/bus/pci/devices/<bdf>/local_cpulist`),
//! as nvbandwidth binds before it allocates pinned memory, so host buffers live on the GPU's NUMA
//! node and copies do not cross the socket interconnect.

use crate::sharing::vgpu::sysfs::{PciAddress, SysfsRoot};
use std::collections::BTreeSet;

/// The most CPU ids a list may name: larger lists are not a real sysfs file.
const MAX_CPU: u32 = 1 << 16;

/// `0-3,8,10-11` → {0, 1, 2, 3, 8, 10, 11}; `None` when malformed or empty.
pub(crate) fn parse_cpulist(text: &str) -> Option<BTreeSet<u32>> {
    let mut cpus = BTreeSet::new();
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        let (first, last) = match part.split_once('-') {
            Some((a, b)) => (a.trim().parse().ok()?, b.trim().parse().ok()?),
            None => {
                let n: u32 = part.trim().parse().ok()?;
                (n, n)
            }
        };
        if first > last || last >= MAX_CPU {
            return None;
        }
        cpus.extend(first..=last);
    }
    (!cpus.is_empty()).then_some(cpus)
}

/// {0, 1, 2, 3, 8} → `0-3,8`.
pub(crate) fn format_cpulist(cpus: &[u32]) -> String {
    let mut sorted = cpus.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        let mut end = start;
        while i + 1 < sorted.len() && sorted[i + 1] == end + 1 {
            i += 1;
            end = sorted[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    parts.join(",")
}

/// The CPUs a worker of the GPU at `pci_bus_id` should run on: its local CPUs that this process
/// may use. `None` when sysfs does not say (a simulated node, a VM), or when none of them is
/// allowed here (a cpuset that excludes the GPU's node): then the affinity is left alone.
pub(crate) fn gpu_local_cpus(sysfs: &SysfsRoot, pci_bus_id: &str) -> Option<Vec<u32>> {
    let bdf = PciAddress::parse(pci_bus_id)?.to_string();
    let path = sysfs.pci_device(&bdf).join("local_cpulist");
    // A sysfs cpulist is a line; never read more than a page of whatever is there instead.
    let text = crate::support::fsutil::read_host_text(&path, 4096).ok()??;
    let local = parse_cpulist(&text)?;
    let allowed = allowed_cpus()?;
    let both: Vec<u32> = local.intersection(&allowed).copied().collect();
    (!both.is_empty()).then_some(both)
}

/// The CPUs this process may run on (`sched_getaffinity`).
pub(crate) fn allowed_cpus() -> Option<BTreeSet<u32>> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; the call writes at most its size.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: pid 0 is this thread; the size is the set's.
    let rc =
        unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if rc != 0 {
        return None;
    }
    let max = 8 * std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: CPU_ISSET reads the set for ids below its capacity.
    Some(
        (0..max)
            .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
            .map(|cpu| cpu as u32)
            .collect(),
    )
}

/// Run this process on `cpus` from now on (`sched_setaffinity`); threads started later inherit it.
pub(crate) fn bind(cpus: &[u32]) -> std::io::Result<()> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let max = 8 * std::mem::size_of::<libc::cpu_set_t>();
    for &cpu in cpus.iter().filter(|&&c| (c as usize) < max) {
        // SAFETY: the id is below the set's capacity.
        unsafe { libc::CPU_SET(cpu as usize, &mut set) };
    }
    // SAFETY: pid 0 is this thread; the set and its size are valid.
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpulists_parse_and_print() {
        let set = parse_cpulist("0-3,8,10-11\n").unwrap();
        assert_eq!(
            set.iter().copied().collect::<Vec<_>>(),
            [0, 1, 2, 3, 8, 10, 11]
        );
        assert_eq!(
            format_cpulist(&set.into_iter().collect::<Vec<_>>()),
            "0-3,8,10-11"
        );
        assert_eq!(format_cpulist(&[5]), "5");
        for bad in ["", "\n", "3-1", "a", "1-", "0-99999999"] {
            assert_eq!(parse_cpulist(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn local_cpus_come_from_sysfs_and_stay_within_what_is_allowed() {
        let dir = tempfile::tempdir().unwrap();
        let dev = dir.path().join("sys/bus/pci/devices/0000:07:00.0");
        std::fs::create_dir_all(&dev).unwrap();
        let allowed = allowed_cpus().unwrap();
        let first = *allowed.iter().next().unwrap();
        std::fs::write(
            dev.join("local_cpulist"),
            format!("{first},{}\n", MAX_CPU - 1),
        )
        .unwrap();
        let root = SysfsRoot::new(dir.path());
        assert_eq!(
            gpu_local_cpus(&root, "00000000:07:00.0"),
            Some(vec![first]),
            "CPUs this process may not use are left out"
        );
        assert_eq!(gpu_local_cpus(&root, "00000000:08:00.0"), None);
        std::fs::write(dev.join("local_cpulist"), format!("{}\n", MAX_CPU - 1)).unwrap();
        assert_eq!(gpu_local_cpus(&root, "00000000:07:00.0"), None);
    }
}
