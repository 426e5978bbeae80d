//! Health events from the driver: Xid errors and ECC errors, as NVML hands them to a client that
//! registered for them (`nvmlDeviceRegisterEvents`, `nvmlEventSetWait_v2`). A watch is opened
//! on its own driver session, apart from the backend that changes the node: the driver refuses
//! to reset a GPU that any NVML client holds, so a watch is closed around resets.

use super::DriverResult;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::Duration;

/// What happened to a device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cause {
    /// An Xid error (`nvmlEventTypeXidCriticalError`), with its number.
    Xid(u64),
    /// A single-bit ECC error, corrected (`nvmlEventTypeSingleBitEccError`).
    EccSingleBit,
    /// A double-bit ECC error, not corrected (`nvmlEventTypeDoubleBitEccError`).
    EccDoubleBit,
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cause::Xid(x) => write!(f, "Xid {x}"),
            Cause::EccSingleBit => f.write_str("single-bit ECC error"),
            Cause::EccDoubleBit => f.write_str("double-bit ECC error"),
        }
    }
}

/// One event, as the driver attributed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceEvent {
    pub gpu: u32,
    /// The GPU's UUID: events are kept by it, as indexes can change between boots.
    pub uuid: String,
    pub cause: Cause,
    /// The MIG device (GPU instance, compute instance) it happened on; None: the whole GPU.
    pub mig_device: Option<(u32, u32)>,
}

/// An open watch on the node's GPUs.
pub trait EventWatch: Send {
    /// The next event, waiting at most `timeout`; None when none came.
    fn next(&mut self, timeout: Duration) -> DriverResult<Option<DeviceEvent>>;

    /// GPUs whose events the driver will not deliver, with why (their health is unknown).
    fn unwatched(&self) -> Vec<(u32, String)>;
}
