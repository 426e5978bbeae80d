//! `systemctl`, found on `PATH` (tests put a stand-in first) and run with duct.

use crate::support::error::{Error, Result};
use std::path::PathBuf;

pub(crate) const PROGRAM: &str = "systemctl";

#[derive(Debug, Clone)]
pub(crate) struct Systemctl {
    program: PathBuf,
}

impl Systemctl {
    pub(crate) fn find() -> Result<Self> {
        let program = which::which(PROGRAM).map_err(|_| {
            Error::failed(format!("{PROGRAM} is not on PATH")).with_hint(
                "GPU clients and the boot unit are systemd's: run gpushare on a systemd host",
            )
        })?;
        Ok(Systemctl { program })
    }

    /// Whether the unit is active (`systemctl is-active --quiet`: 0 active, anything else not).
    pub(crate) fn is_active(&self, unit: &str) -> Result<bool> {
        let out = duct::cmd(&self.program, ["is-active", "--quiet", unit])
            .stdin_null()
            .stdout_null()
            .stderr_null()
            .unchecked()
            .run()
            .map_err(|e| Error::failed(format!("cannot run {PROGRAM}: {e}")))?;
        Ok(out.status.success())
    }

    /// Stop a unit and wait until it is stopped.
    pub(crate) fn stop(&self, unit: &str) -> Result<()> {
        self.run(&["stop", unit])
    }

    /// Start a unit without waiting for it (`--no-block`), as mig-parted's hooks do: at boot a
    /// client ordered after gpushare's own unit would wait for it, and it for the client.
    pub(crate) fn start(&self, unit: &str) -> Result<()> {
        self.run(&["start", "--no-block", unit])
    }

    /// Run `systemctl ARGS`; its output becomes the error when it fails.
    pub(crate) fn run(&self, args: &[&str]) -> Result<()> {
        crate::support::program::run(&self.program, args).map_err(Error::failed)
    }
}

/// The systemd service a process runs in, from its `/proc/PID/cgroup`: the deepest `.service` of
/// the unified hierarchy (`0::/system.slice/nvidia-dcgm.service`) or of v1's `name=systemd`.
pub(crate) fn unit_of_cgroup(text: &str) -> Option<String> {
    let path = text.lines().find_map(|l| {
        let mut parts = l.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        (controllers.is_empty() || controllers == "name=systemd").then_some(path)
    })?;
    path.split('/')
        .rev()
        .find(|c| c.ends_with(".service"))
        .filter(|c| super::unit_name(c).is_ok())
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unit_of_a_process_comes_from_its_cgroup() {
        assert_eq!(
            unit_of_cgroup("0::/system.slice/nvidia-dcgm.service\n").as_deref(),
            Some("nvidia-dcgm.service")
        );
        let v1 =
            "12:pids:/system.slice/x.service\n1:name=systemd:/system.slice/nvsm-core.service/sub\n";
        assert_eq!(unit_of_cgroup(v1).as_deref(), Some("nvsm-core.service"));
        assert_eq!(
            unit_of_cgroup("0::/user.slice/user-1000.slice/session-2.scope\n"),
            None
        );
        assert_eq!(unit_of_cgroup(""), None);
    }
}
