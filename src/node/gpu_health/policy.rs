//! What an event does to a device's health (`[health]` in gpushare.toml):
//!
//! - **recorded**: the application's own fault (Xid 13, 31, 43, 45, 68, 109, the list NVIDIA's
//!   device plugin skips) or a corrected single-bit ECC error: counted, the device stays healthy;
//! - **fatal**: the GPU needs a reset (Xid 48, 79, 95, 119, 120, 140, 64, or a double-bit ECC
//!   error): unhealthy until gpushare resets it;
//! - **recoverable**: every other Xid: unhealthy until `recover_after_seconds` pass without
//!   another, or a reset.
//!
//! ```toml
//! [health]
//! application_xids = [13, 31, 43, 45, 68, 109]
//! fatal_xids = [48, 64, 79, 95, 119, 120, 140]
//! recover_after_seconds = 300
//! ```

use crate::node::backend::events::Cause;
use crate::node::config::HealthSection;
use std::collections::BTreeSet;

/// The Xids of faults in the application, not the GPU (NVIDIA's device plugin skips these).
pub(crate) const APPLICATION_XIDS: [u64; 6] = [13, 31, 43, 45, 68, 109];
/// The Xids after which the GPU needs a reset: double-bit ECC (48), row remapping failed (64),
/// fallen off the bus (79), uncontained ECC (95), GSP errors (119, 120), unrecovered ECC (140).
pub(crate) const FATAL_XIDS: [u64; 7] = [48, 64, 79, 95, 119, 120, 140];
pub(crate) const RECOVER_AFTER_SECONDS: u64 = 300;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Policy {
    pub application: BTreeSet<u64>,
    pub fatal: BTreeSet<u64>,
    pub recover_after_seconds: u64,
}

/// What a cause does, by the policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Class {
    Recorded,
    Recoverable,
    Fatal,
}

impl Class {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Class::Recorded => "recorded",
            Class::Recoverable => "recoverable",
            Class::Fatal => "fatal",
        }
    }
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            application: APPLICATION_XIDS.into(),
            fatal: FATAL_XIDS.into(),
            recover_after_seconds: RECOVER_AFTER_SECONDS,
        }
    }
}

impl Policy {
    /// The policy of a checked `[health]` section (lists it leaves out keep their defaults).
    pub(crate) fn of(section: Option<&HealthSection>) -> Policy {
        let mut policy = Policy::default();
        if let Some(s) = section {
            if let Some(list) = &s.application_xids {
                policy.application = list.get_ref().iter().map(|x| *x.get_ref()).collect();
            }
            if let Some(list) = &s.fatal_xids {
                policy.fatal = list.get_ref().iter().map(|x| *x.get_ref()).collect();
            }
            if let Some(after) = &s.recover_after_seconds {
                policy.recover_after_seconds = *after.get_ref();
            }
        }
        policy
    }

    pub(crate) fn class(&self, cause: Cause) -> Class {
        match cause {
            Cause::EccSingleBit => Class::Recorded,
            Cause::EccDoubleBit => Class::Fatal,
            Cause::Xid(x) if self.application.contains(&x) => Class::Recorded,
            Cause::Xid(x) if self.fatal.contains(&x) => Class::Fatal,
            Cause::Xid(_) => Class::Recoverable,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_sort_every_cause() {
        let p = Policy::default();
        assert_eq!(p.class(Cause::Xid(13)), Class::Recorded);
        assert_eq!(p.class(Cause::Xid(79)), Class::Fatal);
        assert_eq!(p.class(Cause::Xid(62)), Class::Recoverable);
        assert_eq!(p.class(Cause::EccSingleBit), Class::Recorded);
        assert_eq!(p.class(Cause::EccDoubleBit), Class::Fatal);
    }
}
