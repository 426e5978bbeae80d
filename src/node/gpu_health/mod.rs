//! GPU health: the Xid and ECC events the driver raises, heard by a watch, kept in a record and
//! weighed by a policy into each GPU's and MIG device's health.
//!
//! - [`listener`]: the watch that runs in `gpushare agent` and `gpushare metrics --listen`;
//! - [`record`]: what it heard, per GPU and cause (`/var/lib/gpushare/health.json`);
//! - [`policy`]: which causes are recorded, fatal or recoverable (`[health]` in gpushare.toml);
//! - [`verdict`]: a GPU's health now, from its record and the policy.
//!
//! Health is only known while a watch listens: the driver tells only the clients registered when
//! an event happens. Without one, every reader says the health is unknown, never "healthy".

pub(crate) mod listener;
pub(crate) mod policy;
pub(crate) mod record;
pub(crate) mod verdict;

use crate::node::model::Node;
use crate::support::error::Result;
use crate::support::paths::Paths;
use policy::Policy;
use record::HealthRecord;
use std::collections::BTreeMap;
use verdict::GpuHealth;

/// The taint of an unhealthy device, for DRA (in gpushare's slices, in the agent's
/// DeviceTaintRules): its value says the first cause ([`taint_value`]).
pub(crate) const TAINT_KEY: &str = "gpushare.io/unhealthy";

/// A taint's value (a label value: 63 characters of `[A-Za-z0-9]`) from the first cause:
/// `Xid79`, `EccDoubleBit`, `fault` when nothing is left.
pub(crate) fn taint_value(why: &str) -> String {
    let first = why.split([',', '(']).next().unwrap_or("");
    let first = first.split(" on ").next().unwrap_or("").trim();
    let value: String = first
        .replace("double-bit ECC error", "EccDoubleBit")
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(63)
        .collect();
    if value.is_empty() {
        "fault".into()
    } else {
        value
    }
}

/// A watch that has not marked the record for this long has stopped.
pub(crate) const STALE_AFTER_SECONDS: f64 = 120.0;

/// Each GPU's health by index, or why it is unknown.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NodeHealth {
    pub gpus: BTreeMap<u32, std::result::Result<GpuHealth, String>>,
}

impl NodeHealth {
    /// The health of `node`'s GPUs by the record at `paths` (see [`NodeHealth::of`]).
    pub(crate) fn read(
        paths: &Paths,
        node: &Node,
        policy: &Policy,
        now: f64,
    ) -> Result<NodeHealth> {
        Ok(Self::of(
            HealthRecord::load(paths)?.as_ref(),
            node,
            policy,
            now,
        ))
    }

    /// The health of `node`'s GPUs: unknown without a live watch, or for a GPU the driver
    /// delivers no events for; healthy when nothing was heard of it.
    pub(crate) fn of(
        record: Option<&HealthRecord>,
        node: &Node,
        policy: &Policy,
        now: f64,
    ) -> NodeHealth {
        let watch = record.and_then(|r| r.watch.as_ref());
        let live = watch.filter(|w| now - w.alive_at < STALE_AFTER_SECONDS);
        let gpus = node
            .gpus
            .iter()
            .map(|gpu| {
                let health = match live {
                    None if watch.is_some() => Err(
                        "the health watch stopped (gpushare agent or gpushare metrics --listen)"
                            .to_string(),
                    ),
                    None => Err(
                        "no health watch runs on this node (gpushare agent or gpushare metrics --listen)"
                            .to_string(),
                    ),
                    Some(w) => match w.unwatched.iter().find(|(i, _)| *i == gpu.index) {
                        Some((_, why)) => Err(format!("the driver delivers no health events: {why}")),
                        None => Ok(record
                            .and_then(|r| r.gpus.get(&gpu.uuid))
                            .map_or_else(GpuHealth::clear, |g| GpuHealth::of(g, policy, now))),
                    },
                };
                (gpu.index, health)
            })
            .collect();
        NodeHealth { gpus }
    }

    /// The GPUs known to be unhealthy in part or in whole.
    pub(crate) fn unhealthy(&self) -> impl Iterator<Item = (u32, &GpuHealth)> {
        self.gpus.iter().filter_map(|(i, h)| {
            h.as_ref()
                .ok()
                .filter(|h| !h.all_healthy())
                .map(|h| (*i, h))
        })
    }

    /// When a recoverable cause is next over.
    pub(crate) fn next_change(&self) -> Option<f64> {
        self.gpus
            .values()
            .filter_map(|h| h.as_ref().ok().and_then(GpuHealth::next_change))
            .min_by(f64::total_cmp)
    }
}

/// The policy of the node's gpushare.toml (`/etc/gpushare/gpushare.toml`), or the defaults
/// when there is none; a file that cannot be read gives the defaults and says why.
pub(crate) fn node_policy(paths: &Paths) -> (Policy, Option<String>) {
    let path = paths.etc_dir().join("gpushare.toml");
    if !path.exists() {
        return (Policy::default(), None);
    }
    match crate::node::config::Config::load(&path) {
        Ok(config) => (Policy::of(config.file.health.as_deref()), None),
        Err(e) => (
            Policy::default(),
            Some(format!(
                "health weighed by the default policy: {}: {}",
                path.display(),
                e.message
            )),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taint_values_are_label_values() {
        assert_eq!(taint_value("Xid 79 (fatal)"), "Xid79");
        assert_eq!(taint_value("double-bit ECC error (fatal)"), "EccDoubleBit");
        assert_eq!(taint_value("(((("), "fault");
        assert!(taint_value(&"x".repeat(500)).len() <= 63);
    }
}
