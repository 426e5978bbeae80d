//! Persistent mdev devices: an mdev device the kernel made is gone after a reboot unless mdevctl
//! has a definition of it (`/etc/mdevctl.d`), which it starts again when the parent appears. So
//! each device `vgpu apply` creates is defined (`mdevctl define --uuid U --auto`) and each one
//! it removes is undefined, when mdevctl is installed. mdevctl is found on `PATH` (tests put a
//! stand-in first); without it devices are not kept across reboots, as before.
//!
//! A definition that fails does not undo the device: the device works now, and a warning says
//! what to run.

use std::path::PathBuf;

pub(crate) const PROGRAM: &str = "mdevctl";

fn program() -> Option<PathBuf> {
    which::which(PROGRAM).ok()
}

/// Define a device that exists, started automatically; `None` without mdevctl, else what went
/// wrong.
pub(crate) fn define(uuid: &str) -> Option<Result<(), String>> {
    Some(crate::support::program::run(
        &program()?,
        &["define", "--uuid", uuid, "--auto"],
    ))
}

/// Remove the definition of a device.
pub(crate) fn undefine(uuid: &str) -> Option<Result<(), String>> {
    Some(crate::support::program::run(
        &program()?,
        &["undefine", "--uuid", uuid],
    ))
}
