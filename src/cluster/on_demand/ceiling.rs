//! The most MIG devices any node that opts in could ever hold, per profile and in all: a pod
//! that asks for more is told so with the limit, before anything is planned for it. The limit
//! bounds every list the decision makes for a pod, whatever number the pod wrote.

use super::demand::MigAsk;
use super::reshape::GpuShape;
use crate::cluster::manifests::device_plugin::mig_resource_suffix;
use crate::sharing::mig::solver::Geometry;
use std::collections::BTreeMap;

#[derive(Debug, Default)]
pub(crate) struct Ceiling {
    /// Resource suffix → the most instances of it one node's GPUs allow.
    per_profile: BTreeMap<String, u64>,
    /// The most GPU instances one node's GPUs allow.
    total: u64,
}

impl Ceiling {
    /// From each node's GPUs.
    pub(crate) fn of<'a>(nodes: impl IntoIterator<Item = &'a [GpuShape]>) -> Ceiling {
        let mut ceiling = Ceiling::default();
        for gpus in nodes {
            let mut per_profile: BTreeMap<String, u64> = BTreeMap::new();
            let mut total = 0u64;
            for g in gpus {
                for p in g.profiles.iter() {
                    *per_profile.entry(mig_resource_suffix(&p.name)).or_default() +=
                        u64::from(p.max_instances);
                }
                total += u64::from(Geometry::of(&g.profiles).max_gpu_instances);
            }
            for (profile, n) in per_profile {
                let most = ceiling.per_profile.entry(profile).or_default();
                *most = (*most).max(n);
            }
            ceiling.total = ceiling.total.max(total);
        }
        ceiling
    }

    /// One resource suffix per instance the pod needs, or why no node could ever hold them.
    pub(crate) fn wants(&self, asks: &MigAsk) -> Result<Vec<String>, String> {
        let mut total = 0u64;
        for (profile, &n) in asks {
            let most = self.per_profile.get(profile).copied().unwrap_or(0);
            if most == 0 {
                return Err(format!(
                    "no node that opts in to MIG on demand offers {}{profile}",
                    super::MIG_RESOURCE_PREFIX
                ));
            }
            if n > most {
                return Err(format!(
                    "it asks for {n} {}{profile}; the most any node that opts in could hold is {most}",
                    super::MIG_RESOURCE_PREFIX
                ));
            }
            total += n;
        }
        if total > self.total {
            return Err(format!(
                "it asks for {total} MIG devices; the most any node that opts in could hold is {}",
                self.total
            ));
        }
        Ok(asks
            .iter()
            .flat_map(|(profile, &n)| std::iter::repeat_n(profile.clone(), n as usize))
            .collect())
    }
}
