//! A GPU's health now: the record's causes since its last reset, weighed by the policy. A cause
//! on the whole GPU (the driver names no MIG device) makes the GPU and all its MIG devices
//! unhealthy; a cause on a MIG device makes that device unhealthy.

use super::policy::{Class, Policy};
use super::record::{CauseRecord, GpuRecord};
use crate::node::backend::events::Cause;
use serde::Serialize;

/// Causes shown beside the health, the latest first.
const RECENT: usize = 5;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct GpuHealth {
    /// The whole GPU: no cause on it makes it unhealthy now.
    pub healthy: bool,
    /// MIG devices (GPU instance, compute instance) unhealthy by causes of their own.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unhealthy_mig_devices: Vec<(u32, u32)>,
    /// What makes it (or its MIG devices) unhealthy.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<Reason>,
    /// The latest causes heard, whatever their class.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub recent: Vec<Reason>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Reason {
    pub cause: Cause,
    pub class: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mig_device: Option<(u32, u32)>,
    pub count: u64,
    pub last_at: f64,
    /// When a recoverable cause is over, if no other comes; None for fatal ones (a reset).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until: Option<f64>,
}

impl Reason {
    /// `Xid 79 on MIG device 1:0 (fatal, 2 times)`.
    pub(crate) fn describe(&self) -> String {
        let on = self
            .mig_device
            .map(|(gi, ci)| format!(" on MIG device {gi}:{ci}"))
            .unwrap_or_default();
        let times = if self.count == 1 {
            String::new()
        } else {
            format!(", {} times", self.count)
        };
        format!("{}{on} ({}{times})", self.cause, self.class)
    }
}

impl GpuHealth {
    /// A GPU nothing was heard of.
    pub(crate) fn clear() -> GpuHealth {
        GpuHealth {
            healthy: true,
            unhealthy_mig_devices: Vec::new(),
            reasons: Vec::new(),
            recent: Vec::new(),
        }
    }

    pub(crate) fn of(record: &GpuRecord, policy: &Policy, now: f64) -> GpuHealth {
        let reason = |c: &CauseRecord| {
            let class = policy.class(c.cause);
            Reason {
                cause: c.cause,
                class: class.as_str(),
                mig_device: c.mig_device,
                count: c.count,
                last_at: c.last_at,
                until: (class == Class::Recoverable)
                    .then_some(c.last_at + policy.recover_after_seconds as f64),
            }
        };
        let since_reset = |c: &&CauseRecord| record.reset_at.is_none_or(|r| c.last_at > r);
        let mut health = GpuHealth::clear();
        for c in record.causes.iter().filter(since_reset) {
            let class = policy.class(c.cause);
            let now_unhealthy = match class {
                Class::Recorded => false,
                Class::Fatal => true,
                Class::Recoverable => now < c.last_at + policy.recover_after_seconds as f64,
            };
            if !now_unhealthy {
                continue;
            }
            match c.mig_device {
                None => health.healthy = false,
                Some(d) if !health.unhealthy_mig_devices.contains(&d) => {
                    health.unhealthy_mig_devices.push(d)
                }
                Some(_) => {}
            }
            health.reasons.push(reason(c));
        }
        health.unhealthy_mig_devices.sort_unstable();
        let mut recent: Vec<&CauseRecord> = record.causes.iter().collect();
        recent.sort_by(|a, b| b.last_at.total_cmp(&a.last_at));
        health.recent = recent.into_iter().take(RECENT).map(reason).collect();
        health
    }

    /// Whether a MIG device is healthy: neither its GPU nor it has a cause now.
    pub(crate) fn mig_device_healthy(&self, device: (u32, u32)) -> bool {
        self.healthy && !self.unhealthy_mig_devices.contains(&device)
    }

    /// Whether everything on the GPU is healthy.
    pub(crate) fn all_healthy(&self) -> bool {
        self.healthy && self.unhealthy_mig_devices.is_empty()
    }

    /// The next time a recoverable cause is over (when to look again).
    pub(crate) fn next_change(&self) -> Option<f64> {
        self.reasons
            .iter()
            .filter_map(|r| r.until)
            .min_by(f64::total_cmp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cause, where it happened and when.
    type Heard = (Cause, Option<(u32, u32)>, f64);

    fn record(causes: &[Heard], reset_at: Option<f64>) -> GpuRecord {
        GpuRecord {
            index: 0,
            causes: causes
                .iter()
                .map(|&(cause, mig_device, at)| CauseRecord {
                    cause,
                    mig_device,
                    count: 1,
                    first_at: at,
                    last_at: at,
                })
                .collect(),
            reset_at,
        }
    }

    #[test]
    fn an_application_xid_leaves_the_gpu_healthy() {
        let h = GpuHealth::of(
            &record(&[(Cause::Xid(13), None, 10.0)], None),
            &Policy::default(),
            11.0,
        );
        assert!(h.all_healthy());
        assert_eq!(h.recent.len(), 1, "it is still shown");
    }

    #[test]
    fn a_fatal_xid_lasts_until_a_reset() {
        let r = record(&[(Cause::Xid(79), None, 10.0)], None);
        let h = GpuHealth::of(&r, &Policy::default(), 1e9);
        assert!(!h.healthy);
        assert_eq!(h.reasons[0].describe(), "Xid 79 (fatal)");
        let reset = record(&[(Cause::Xid(79), None, 10.0)], Some(20.0));
        assert!(GpuHealth::of(&reset, &Policy::default(), 21.0).all_healthy());
    }

    #[test]
    fn a_recoverable_xid_is_over_after_the_quiet_period() {
        let policy = Policy {
            recover_after_seconds: 60,
            ..Policy::default()
        };
        let r = record(&[(Cause::Xid(62), Some((1, 0)), 100.0)], None);
        let h = GpuHealth::of(&r, &policy, 130.0);
        assert!(h.healthy, "the GPU itself is fine");
        assert!(!h.mig_device_healthy((1, 0)));
        assert!(h.mig_device_healthy((2, 0)));
        assert_eq!(h.next_change(), Some(160.0));
        assert!(GpuHealth::of(&r, &policy, 160.0).all_healthy());
    }

    #[test]
    fn a_double_bit_ecc_error_is_fatal_and_a_single_bit_one_is_not() {
        let r = record(&[(Cause::EccSingleBit, None, 1.0)], None);
        assert!(GpuHealth::of(&r, &Policy::default(), 2.0).all_healthy());
        let r = record(&[(Cause::EccDoubleBit, None, 1.0)], None);
        assert!(!GpuHealth::of(&r, &Policy::default(), 2.0).healthy);
    }
}
