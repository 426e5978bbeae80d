//! `gpushare-metrics.service`, beside the boot unit: `gpushare metrics --listen ADDR` as a
//! long-running service on a node without Kubernetes, started after the driver and restarted
//! when it stops. It only reads, so it runs with a read-only view of the file system.

use crate::sharing::mps::systemd_unit::quote;
use std::path::PathBuf;

pub(crate) const UNIT: &str = "gpushare-metrics.service";

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MetricsUnit {
    /// Absolute path of the gpushare binary.
    pub program: PathBuf,
    /// Arguments after the program (`metrics --listen …`).
    pub args: Vec<String>,
}

impl MetricsUnit {
    pub(crate) fn render(&self) -> String {
        let command: Vec<String> = std::iter::once(self.program.to_string_lossy().into_owned())
            .chain(self.args.iter().cloned())
            .map(|w| quote(&w))
            .collect();
        format!(
            "# Written by gpushare (`gpushare unit --metrics`); regenerate it rather than edit it.\n\
             [Unit]\n\
             Description=Serve the GPU sharing metrics for Prometheus (gpushare)\n\
             Documentation=man:gpushare(1)\n\
             After=systemd-modules-load.service nvidia-persistenced.service {boot}\n\
             \n\
             [Service]\n\
             Type=simple\n\
             ExecStart={command}\n\
             Restart=on-failure\n\
             RestartSec=5\n\
             # It reads the driver, the journal and the probe's report; it writes nothing.\n\
             ProtectSystem=strict\n\
             ProtectHome=yes\n\
             PrivateTmp=yes\n\
             NoNewPrivileges=yes\n\
             \n\
             [Install]\n\
             WantedBy={wanted}\n",
            boot = crate::change::boot::UNIT,
            command = command.join(" "),
            wanted = crate::change::boot::WANTED_BY,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unit_serves_the_metrics_after_the_driver_and_never_writes() {
        let text = MetricsUnit {
            program: "/usr/local/bin/gpushare".into(),
            args: ["metrics", "--listen", "0.0.0.0:9407"]
                .map(String::from)
                .to_vec(),
        }
        .render();
        assert!(text.contains("ExecStart=/usr/local/bin/gpushare metrics --listen 0.0.0.0:9407\n"));
        assert!(text.contains("Type=simple\n") && text.contains("Restart=on-failure\n"));
        assert!(text.contains("After=systemd-modules-load.service nvidia-persistenced.service gpushare-apply.service\n"));
        assert!(text.contains("ProtectSystem=strict\n"));
        assert!(text.ends_with("[Install]\nWantedBy=multi-user.target\n"));
    }
}
