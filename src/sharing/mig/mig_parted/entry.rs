//! One entry of a mig-parted label: which GPUs it covers (device filter, indexes) and the MIG
//! devices it asks for, with where it stands in the file.

use crate::node::model::{Gpu, PciId};
use serde_saphyr::Spanned;
use std::fmt;

/// One entry of a label.
#[derive(Debug, Clone)]
pub(crate) struct MigConfigEntry {
    pub at: Position,
    /// None: every GPU.
    pub device_filter: Option<Vec<DeviceFilter>>,
    pub devices: Devices,
    pub devices_at: Position,
    pub mig_enabled: bool,
    /// Profile name (as written, checked) → count, in file order; zero counts dropped.
    pub mig_devices: Vec<(String, u32, Position)>,
}

/// `0x20B010DE`, optionally `:0x147F10DE` for the PCI subsystem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DeviceFilter {
    pub device: PciId,
    pub subsystem: Option<PciId>,
}

impl DeviceFilter {
    fn matches(&self, gpu: &Gpu) -> bool {
        self.device == gpu.pci_device_id
            && self
                .subsystem
                .is_none_or(|s| gpu.pci_subsystem_id == Some(s))
    }
}

impl fmt::Display for DeviceFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.subsystem {
            Some(s) => write!(f, "{}:{s}", self.device),
            None => write!(f, "{}", self.device),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Devices {
    All,
    Indexes(Vec<u32>),
}

/// Line and column (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Position {
    pub line: usize,
    pub column: usize,
}

impl Position {
    pub(super) fn of<T>(s: &Spanned<T>) -> Self {
        Position {
            line: s.referenced.line() as usize,
            column: s.referenced.column() as usize,
        }
    }
}

impl MigConfigEntry {
    pub(crate) fn applies_to(&self, gpu: &Gpu) -> bool {
        let filtered = self
            .device_filter
            .as_ref()
            .is_none_or(|list| list.iter().any(|f| f.matches(gpu)));
        let listed = match &self.devices {
            Devices::All => true,
            Devices::Indexes(list) => list.contains(&gpu.index),
        };
        filtered && listed
    }
}
