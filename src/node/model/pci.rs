//! PCI ids packed as `0xDDDDVVVV` (device << 16 | vendor), the form NVML and mig-parted use.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

pub(crate) const NVIDIA_VENDOR: u32 = 0x10DE;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PciId(pub u32);

impl PciId {
    pub fn device(self) -> u16 {
        (self.0 >> 16) as u16
    }

    pub fn vendor(self) -> u16 {
        (self.0 & 0xFFFF) as u16
    }
}

impl fmt::Display for PciId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{:08X}", self.0)
    }
}

impl FromStr for PciId {
    type Err = String;

    /// Accepts `0x20B010DE`, `20B010DE` (as nvidia-smi prints it) and `0x20b010de`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let trimmed = s.trim();
        let hex = trimmed
            .strip_prefix("0x")
            .or_else(|| trimmed.strip_prefix("0X"))
            .unwrap_or(trimmed);
        if hex.is_empty() || hex.len() > 8 {
            return Err(format!(
                "`{s}` is not a PCI id (expected 0xDDDDVVVV, e.g. 0x20B010DE)"
            ));
        }
        u32::from_str_radix(hex, 16)
            .map(PciId)
            .map_err(|_| format!("`{s}` is not a PCI id (expected 0xDDDDVVVV, e.g. 0x20B010DE)"))
    }
}

impl Serialize for PciId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for PciId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_the_mig_parted_form() {
        let id: PciId = "0x20b010de".parse().unwrap();
        assert_eq!(id.to_string(), "0x20B010DE");
        assert_eq!(id.device(), 0x20B0);
        assert_eq!(id.vendor(), 0x10DE);
        assert_eq!("20B010DE".parse::<PciId>().unwrap(), id);
        assert!("0xZZ".parse::<PciId>().is_err());
        assert!("".parse::<PciId>().is_err());
        assert!("0x123456789".parse::<PciId>().is_err());
    }
}
