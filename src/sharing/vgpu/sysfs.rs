//! The filesystem the vGPU code reads and writes, under a root directory (`--sysfs-root`, default
//! `/`), so tests and demos can point it at a fake tree shaped like the real one.
//!
//! Writes are plain writes to existing attributes: sysfs attributes cannot be created, renamed or
//! replaced, so the temp-and-rename of `fsutil::write_atomic` does not apply here.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

pub(crate) const PCI_DEVICES: &str = "/sys/bus/pci/devices";
pub(crate) const MDEV_BUS: &str = "/sys/class/mdev_bus";
pub(crate) const MDEV_DEVICES: &str = "/sys/bus/mdev/devices";

#[derive(Debug, Clone)]
pub(crate) struct SysfsRoot {
    root: PathBuf,
}

impl SysfsRoot {
    /// The root, made absolute: links the fake kernel writes must not depend on the cwd.
    pub(crate) fn new(root: impl Into<PathBuf>) -> Self {
        let root = root.into();
        SysfsRoot {
            root: std::path::absolute(&root).unwrap_or(root),
        }
    }

    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// The real system (`/`), as opposed to a tree under another directory.
    pub(crate) fn is_system(&self) -> bool {
        self.root == Path::new("/")
    }

    /// An absolute system path (`/sys/...`, `/proc/...`) under the root.
    pub(crate) fn path(&self, system_path: &str) -> PathBuf {
        self.root.join(system_path.trim_start_matches('/'))
    }

    /// `/sys/bus/pci/devices/<bdf>` under the root.
    pub(crate) fn pci_device(&self, bdf: &str) -> PathBuf {
        self.path(PCI_DEVICES).join(bdf)
    }
}

/// An attribute's content without the trailing newline; `None` when it does not exist.
/// A FIFO, a device or an oversize file there is an error, never a wait (see
/// [`crate::support::fsutil::host_file`]).
pub(crate) fn read_attr(path: &Path) -> io::Result<Option<String>> {
    Ok(crate::support::fsutil::read_host_text(path, ATTR_LIMIT)?.map(|s| s.trim_end().to_string()))
}

/// A sysfs attribute is at most a page; a vGPU type's `description` is a line.
const ATTR_LIMIT: u64 = 64 * 1024;

/// A numeric attribute (`16`, `0x10de`); `None` when it does not exist or does not parse. One
/// that is there but refused (a FIFO, a device) is an error.
pub(crate) fn read_number(path: &Path) -> io::Result<Option<u64>> {
    let Some(text) = read_attr(path).or_else(|e| match e.kind() {
        io::ErrorKind::InvalidInput => Err(e),
        _ => Ok(None),
    })?
    else {
        return Ok(None);
    };
    let t = text.trim();
    Ok(
        match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            Some(hex) => u64::from_str_radix(hex, 16).ok(),
            None => t.parse().ok(),
        },
    )
}

/// The last component of a symlink's target (`driver` → `nvidia`, `iommu_group` → `42`).
pub(crate) fn link_name(path: &Path) -> Option<String> {
    let target = fs::read_link(path).ok()?;
    target.file_name().map(|n| n.to_string_lossy().into_owned())
}

/// Names in a directory, sorted; empty when it does not exist.
pub(crate) fn list_dir(path: &Path) -> io::Result<Vec<String>> {
    let entries = match fs::read_dir(path) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut names = Vec::new();
    for entry in entries {
        names.push(entry?.file_name().to_string_lossy().into_owned());
    }
    names.sort();
    Ok(names)
}

/// Write a value to an existing attribute, as `echo VALUE > ATTR` does. The attribute is never
/// created: a missing one is an error, not a new file.
pub(crate) fn write_attr(path: &Path, value: &str) -> io::Result<()> {
    let mut f = fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(path)?;
    f.write_all(value.as_bytes())?;
    f.flush()
}

/// A PCI address `domain:bus:device.function`, compared by value so `0000:07:00.0` (sysfs) and
/// `00000000:07:00.0` (NVML) are the same device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct PciAddress {
    pub domain: u32,
    pub bus: u8,
    pub device: u8,
    pub function: u8,
}

impl PciAddress {
    pub(crate) fn parse(text: &str) -> Option<PciAddress> {
        let t = text.trim();
        let (domain, rest) = t.split_once(':')?;
        let (bus, rest) = rest.split_once(':')?;
        let (device, function) = rest.split_once('.')?;
        let ok_len = |s: &str, max: usize| !s.is_empty() && s.len() <= max;
        if !(ok_len(domain, 8) && ok_len(bus, 2) && ok_len(device, 2) && ok_len(function, 1)) {
            return None;
        }
        Some(PciAddress {
            domain: u32::from_str_radix(domain, 16).ok()?,
            bus: u8::from_str_radix(bus, 16).ok()?,
            device: u8::from_str_radix(device, 16).ok().filter(|d| *d < 32)?,
            function: u8::from_str_radix(function, 16).ok().filter(|f| *f < 8)?,
        })
    }
}

impl std::fmt::Display for PciAddress {
    /// The sysfs form, `0000:07:00.0`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:04x}:{:02x}:{:02x}.{:x}",
            self.domain, self.bus, self.device, self.function
        )
    }
}

/// Whether two bus ids (any padding, any case) name the same PCI device.
pub(crate) fn same_pci_address(a: &str, b: &str) -> bool {
    matches!((PciAddress::parse(a), PciAddress::parse(b)), (Some(x), Some(y)) if x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pci_addresses_compare_by_value() {
        assert!(same_pci_address("0000:07:00.0", "00000000:07:00.0"));
        assert!(same_pci_address("0000:4E:00.0", "0000:4e:00.0"));
        assert!(!same_pci_address("0000:07:00.0", "0000:07:00.4"));
        assert_eq!(
            PciAddress::parse("00000000:B7:00.0").unwrap().to_string(),
            "0000:b7:00.0"
        );
        for bad in [
            "07:00.0",
            "0000:07:00",
            "0000:07:40.0",
            "0000:07:00.9",
            "x:y:z.w",
        ] {
            assert!(PciAddress::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn attributes_are_written_in_place_never_created() {
        let dir = tempfile::tempdir().unwrap();
        let attr = dir.path().join("current_vgpu_type");
        fs::write(&attr, "1414\n").unwrap();
        write_attr(&attr, "0").unwrap();
        assert_eq!(read_attr(&attr).unwrap().as_deref(), Some("0"));
        assert!(write_attr(&dir.path().join("missing"), "1").is_err());
        assert!(!dir.path().join("missing").exists());
        assert_eq!(read_attr(&dir.path().join("missing")).unwrap(), None);
    }

    #[test]
    fn numbers_read_in_decimal_or_hex() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("vendor"), "0x10de\n").unwrap();
        fs::write(dir.path().join("sriov_totalvfs"), "32\n").unwrap();
        fs::write(dir.path().join("junk"), "many\n").unwrap();
        assert_eq!(
            read_number(&dir.path().join("vendor")).unwrap(),
            Some(0x10de)
        );
        assert_eq!(
            read_number(&dir.path().join("sriov_totalvfs")).unwrap(),
            Some(32)
        );
        assert_eq!(read_number(&dir.path().join("junk")).unwrap(), None);
    }
}
