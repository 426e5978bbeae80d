//! NVIDIA's vendor-specific VFIO layout (vGPU 17+, Ada/Hopper/Blackwell; the `nvidia-vgpu-vfio`
//! module and vgpu-device-manager `pkg/vgpu/vfio`):
//!
//! ```text
//! /sys/bus/pci/devices/<pf>/virtfn<N> -> ../<vf>        after `sriov-manage -e <pf>`
//! <vf>/nvidia/creatable_vgpu_types    "ID    : vGPU Name" then "1414  : NVIDIA H200X-1-18C" lines;
//!                                     only what can still be created, empty on a VF with a vGPU
//! <vf>/nvidia/current_vgpu_type       0, or the type id; write an id to create, 0 to remove
//! ```

use super::sysfs::{SysfsRoot, read_attr};
use std::io;
use std::path::{Path, PathBuf};

pub(crate) fn vendor_dir(vf_dir: &Path) -> PathBuf {
    vf_dir.join("nvidia")
}

pub(crate) fn current_type_path(root: &SysfsRoot, vf: &str) -> PathBuf {
    vendor_dir(&root.pci_device(vf)).join("current_vgpu_type")
}

pub(crate) fn creatable_path(root: &SysfsRoot, vf: &str) -> PathBuf {
    vendor_dir(&root.pci_device(vf)).join("creatable_vgpu_types")
}

/// The type id a VF carries (0: none); `None` when the VF has no vendor directory.
pub(crate) fn current_type(vf_dir: &Path) -> io::Result<Option<u32>> {
    let Some(text) = read_attr(&vendor_dir(vf_dir).join("current_vgpu_type"))? else {
        return Ok(None);
    };
    text.trim().parse().map(Some).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("current_vgpu_type reads `{text}`, not a type id"),
        )
    })
}

/// The types a VF can create now, `(id, full name)`.
pub(crate) fn creatable_types(vf_dir: &Path) -> io::Result<Vec<(u32, String)>> {
    Ok(parse_creatable(
        &read_attr(&vendor_dir(vf_dir).join("creatable_vgpu_types"))?.unwrap_or_default(),
    ))
}

/// Parse `creatable_vgpu_types`. The driver prints `ID : Name` lines under a header; some builds
/// print `Name   ID`. Lines without a numeric id (the header) are skipped.
pub(crate) fn parse_creatable(text: &str) -> Vec<(u32, String)> {
    let mut types = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let parsed = match line.split_once(':') {
            Some((id, name)) => id.trim().parse().ok().map(|id| (id, name.trim())),
            None => line
                .rsplit_once(char::is_whitespace)
                .and_then(|(name, id)| id.parse().ok().map(|id| (id, name.trim()))),
        };
        if let Some((id, name)) = parsed
            && !name.is_empty()
        {
            types.push((id, name.to_string()));
        }
    }
    types
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_driver_format_and_the_name_first_format() {
        let driver = "ID    : vGPU Name\n1414  : NVIDIA H200X-1-18C\n1428  : NVIDIA H200X-141C\n";
        assert_eq!(
            parse_creatable(driver),
            vec![
                (1414, "NVIDIA H200X-1-18C".to_string()),
                (1428, "NVIDIA H200X-141C".to_string())
            ]
        );
        let other = "NVIDIA L40S-1Q           1147\nNVIDIA L40S-48Q          1159\n";
        assert_eq!(parse_creatable(other)[1], (1159, "NVIDIA L40S-48Q".into()));
        assert!(parse_creatable("ID    : vGPU Name\n").is_empty());
        assert!(parse_creatable("").is_empty());
    }
}
