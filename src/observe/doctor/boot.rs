//! Whether the layout comes back after a reboot: MIG instances do not survive one, so a node with
//! a layout file needs the boot unit (`gpushare unit --install`) installed and enabled.

use super::{Check, Inputs};
use crate::change::boot::{UNIT, WANTED_BY};
use crate::node::config::DEFAULT_PATH;

pub(super) fn boot_unit(i: &Inputs) -> Check {
    const ID: &str = "boot-unit";
    if !i.host_checked {
        return Check::skip(ID, "simulated node");
    }
    if !i.host.exists(DEFAULT_PATH) {
        return Check::skip(ID, format!("no {DEFAULT_PATH}: nothing to apply at boot"));
    }
    let unit = format!("/etc/systemd/system/{UNIT}");
    if !i.host.exists(&unit) {
        return Check::warn(
            ID,
            format!(
                "{UNIT} is not installed: the MIG instances of {DEFAULT_PATH} are gone after a reboot"
            ),
            "install it with `gpushare unit --install`",
        );
    }
    let link = format!("/etc/systemd/system/{WANTED_BY}.wants/{UNIT}");
    if std::fs::symlink_metadata(i.host.path(&link)).is_err() {
        return Check::warn(
            ID,
            format!("{unit} is installed but not enabled: nothing runs it at boot"),
            format!("enable it with `systemctl enable {UNIT}`"),
        );
    }
    Check::pass(
        ID,
        format!("{UNIT} is installed and enabled: {DEFAULT_PATH} is applied at every boot"),
    )
}
