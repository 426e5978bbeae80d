//! The boot unit, `gpushare-apply.service`: MIG instances do not survive a reboot (only the MIG
//! mode does), so a oneshot runs `gpushare apply --yes` with the layout file at every boot,
//! after the driver and nvidia-persistenced are up and before the container runtimes and
//! kubelet start, so nothing meets a node without its layout.
//!
//! Exit 5 (a MIG mode change waits for a reboot) is a success of the unit (`SuccessExitStatus`):
//! the machine is never rebooted from here, so no reboot loop can happen; the journal says it.

use crate::sharing::mps::systemd_unit::quote;
use std::path::{Path, PathBuf};

pub(crate) const UNIT: &str = "gpushare-apply.service";
/// The target that wants it (`[Install] WantedBy=`).
pub(crate) const WANTED_BY: &str = "multi-user.target";

/// Ordered after these (the driver's modules, persistence, NVSwitch fabric)…
const AFTER: [&str; 3] = [
    "systemd-modules-load.service",
    "nvidia-persistenced.service",
    "nvidia-fabricmanager.service",
];
/// …and before these (what runs containers on the GPUs).
const BEFORE: [&str; 4] = [
    "containerd.service",
    "docker.service",
    "crio.service",
    "kubelet.service",
];

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BootUnit {
    /// Absolute path of the gpushare binary.
    pub program: PathBuf,
    /// The layout file (absolute).
    pub config: PathBuf,
    /// Arguments after the program (`apply --yes -c …`).
    pub args: Vec<String>,
}

impl BootUnit {
    pub(crate) fn render(&self) -> String {
        let command: Vec<String> = std::iter::once(self.program.to_string_lossy().into_owned())
            .chain(self.args.iter().cloned())
            .map(|w| quote(&w))
            .collect();
        let config = self.config.to_string_lossy();
        format!(
            "# Written by gpushare (`gpushare unit`); regenerate it rather than edit it.\n\
             [Unit]\n\
             Description=Apply the GPU sharing layout {config} (gpushare)\n\
             Documentation=man:gpushare(1)\n\
             After={after}\n\
             Before={before}\n\
             ConditionPathExists={condition}\n\
             \n\
             [Service]\n\
             Type=oneshot\n\
             RemainAfterExit=yes\n\
             ExecStart={command}\n\
             # 5: a MIG mode change waits for a reboot. Not a failure, and no reboot from here.\n\
             SuccessExitStatus=5\n\
             TimeoutStartSec=900\n\
             \n\
             [Install]\n\
             WantedBy={WANTED_BY}\n",
            after = AFTER.join(" "),
            before = BEFORE.join(" "),
            condition = quote(&config),
            command = command.join(" "),
        )
    }
}

/// Where `systemctl enable` links `unit` (wanted by [`WANTED_BY`]), under a systemd unit
/// directory.
pub(crate) fn enabled_link(systemd_dir: &Path, unit: &str) -> PathBuf {
    systemd_dir.join(format!("{WANTED_BY}.wants")).join(unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unit_applies_the_layout_once_at_boot_between_the_driver_and_kubelet() {
        let unit = BootUnit {
            program: "/usr/local/bin/gpushare".into(),
            config: "/etc/gpushare/gpushare.toml".into(),
            args: ["apply", "--yes", "-c", "/etc/gpushare/gpushare.toml"]
                .map(String::from)
                .to_vec(),
        };
        let text = unit.render();
        assert!(
            text.contains("Type=oneshot\nRemainAfterExit=yes\n"),
            "{text}"
        );
        assert!(text.contains(
            "ExecStart=/usr/local/bin/gpushare apply --yes -c /etc/gpushare/gpushare.toml\n"
        ));
        assert!(text.contains("After=systemd-modules-load.service nvidia-persistenced.service"));
        assert!(
            text.contains(
                "Before=containerd.service docker.service crio.service kubelet.service\n"
            )
        );
        assert!(text.contains("SuccessExitStatus=5\n"));
        assert!(text.contains("ConditionPathExists=/etc/gpushare/gpushare.toml\n"));
        assert!(text.ends_with("[Install]\nWantedBy=multi-user.target\n"));
        assert_eq!(
            enabled_link(Path::new("/etc/systemd/system"), UNIT),
            Path::new("/etc/systemd/system/multi-user.target.wants/gpushare-apply.service")
        );
    }
}
