//! Events the simulated driver raises: Xid errors and ECC errors, as NVML hands them to the
//! clients that registered for them (`nvmlEventSetWait`). The state keeps the last
//! [`EVENT_LIMIT`], each with a sequence number, so that every process serving one state file
//! (gpushare, the NVML stand-in and the NVIDIA programs on it) sees each event once, and only
//! those raised after it registered, as the driver delivers them.

use serde::{Deserialize, Serialize};

/// Events kept in the state; older ones are gone, as a driver's queue drops them.
pub(crate) const EVENT_LIMIT: usize = 256;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimEvent {
    /// 1 for the first event of a node, then one more each.
    pub seq: u64,
    pub gpu: u32,
    pub kind: EventKind,
    /// The Xid of an Xid event (NVML's `eventData`); 0 for ECC events.
    #[serde(default)]
    pub xid: u64,
    /// The MIG device it happened on, when it happened on one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mig_device: Option<(u32, u32)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventKind {
    Xid,
    EccSingleBit,
    EccDoubleBit,
}

impl EventKind {
    /// NVML's `nvmlEventType*` bit.
    pub fn nvml_type(self) -> u64 {
        match self {
            EventKind::EccSingleBit => 0x1,
            EventKind::EccDoubleBit => 0x2,
            EventKind::Xid => 0x8,
        }
    }
}
