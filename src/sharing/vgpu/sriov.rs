//! `sriov-manage`, the vGPU Manager's script that creates a GPU's SR-IOV virtual functions. It
//! finishes when the VFs exist (vgpu-device-manager relies on that too), and it resets the GPU's
//! heterogeneous mode, so that mode is set after it.

use super::sysfs::PciAddress;
use crate::support::error::{Error, Result};
use std::path::PathBuf;

/// Where the vGPU Manager installs it; not usually on PATH.
pub(crate) const DEFAULT_PATH: &str = "/usr/lib/nvidia/sriov-manage";

/// `sriov-manage` on PATH, else the vGPU Manager's own copy.
pub(crate) fn find() -> Result<PathBuf> {
    if let Ok(path) = which::which("sriov-manage") {
        return Ok(path);
    }
    let default = PathBuf::from(DEFAULT_PATH);
    if default.is_file() {
        return Ok(default);
    }
    Err(
        Error::no_driver("cannot enable SR-IOV: sriov-manage is neither on PATH nor in /usr/lib/nvidia")
            .with_hint("it ships with the NVIDIA vGPU Manager; install the host driver, or run `sriov-manage -e <bdf>` yourself"),
    )
}

/// `sriov-manage -e <pf>`.
pub(crate) fn enable(pf: &str) -> Result<()> {
    // The address goes on a command line: accept nothing but an address.
    if PciAddress::parse(pf).is_none() {
        return Err(Error::failed(format!("`{pf}` is not a PCI address")));
    }
    let program = find()?;
    let out = duct::cmd(&program, ["-e", pf])
        .stdout_capture()
        .stderr_capture()
        .unchecked()
        .run()
        .map_err(|e| Error::failed(format!("cannot run {}: {e}", program.display())))?;
    if out.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&out.stderr);
    let said = if said.trim().is_empty() {
        String::from_utf8_lossy(&out.stdout)
    } else {
        said
    };
    Err(Error::failed(format!(
        "`{} -e {pf}` failed ({}): {}",
        program.display(),
        out.status,
        said.trim()
    ))
    .with_hint(
        "check `dmesg`; the GPU must be bound to the nvidia driver and SR-IOV enabled in the BIOS",
    ))
}
