//! GPU clients on the host: systemd services (nvsm, DCGM, dcgm-exporter…) and kernel modules
//! (`nvidia_drm`) that hold the GPUs open, so that a GPU reset — and so a MIG mode change — fails
//! while they run. gpushare.toml lists them under `[clients]`, or `--gpu-clients-file` names
//! mig-parted's `gpu-clients.yaml`:
//!
//! ```yaml
//! version: v1
//! systemd-services:
//!   - nvsm.service
//!   - nvidia-dcgm.service
//! ```
//!
//! Around a change that needs a GPU reset or a MIG mode change, the planner stops those that
//! run and starts them again afterwards, in reverse order ([`crate::change::pipeline::planner`]); what
//! was stopped is kept in a [`record`] beside the journal, so a run that was interrupted is made
//! good by the next one.

pub(crate) mod modules;
pub(crate) mod record;
pub(crate) mod systemd;

use crate::support::error::{Error, Result};
use crate::support::source_file::SourceFile;
use serde::Deserialize;
use std::path::Path;

/// The most entries of one list of GPU clients: each is a `systemctl` or `modprobe` call before
/// and after a change, and a node has a handful (mig-parted's default file lists 11).
pub(crate) const MAX_CLIENTS: usize = 64;

/// The error for the entry past [`MAX_CLIENTS`] in a list.
pub(crate) fn too_many(what: &str) -> String {
    format!(
        "more than {MAX_CLIENTS} {what}: each is stopped and started around every change, so a node lists a handful"
    )
}

/// The GPU clients a command may stop and start again, each list in the order given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct GpuClients {
    /// systemd units (`nvidia-dcgm.service`).
    pub services: Vec<String>,
    /// Kernel modules (`nvidia_drm`).
    pub modules: Vec<String>,
}

/// One GPU client.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Client {
    Service(String),
    Module(String),
}

impl std::fmt::Display for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Client::Service(unit) => f.write_str(unit),
            Client::Module(name) => write!(f, "kernel module {name}"),
        }
    }
}

impl GpuClients {
    /// Add the clients of `other` that are not listed yet, after these.
    pub(crate) fn merge(&mut self, other: GpuClients) {
        for s in other.services {
            if !self.services.contains(&s) {
                self.services.push(s);
            }
        }
        for m in other.modules {
            if !self.modules.contains(&m) {
                self.modules.push(m);
            }
        }
    }

    /// mig-parted's `gpu-clients.yaml` (`--gpu-clients-file`), read unchanged.
    pub(crate) fn load_mig_parted(path: &Path) -> Result<GpuClients> {
        let source = SourceFile::read(path)?;
        Self::parse_mig_parted(&source)
    }

    pub(crate) fn parse_mig_parted(source: &SourceFile) -> Result<GpuClients> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Raw {
            version: Option<serde_saphyr::Spanned<String>>,
            #[serde(rename = "systemd-services", default)]
            systemd_services: Option<Vec<serde_saphyr::Spanned<String>>>,
        }
        let raw: Raw = source.parse_yaml().map_err(|e| {
            e.with_hint("a GPU clients file is `version: v1` and `systemd-services: [units]`")
        })?;
        let at = |s: &serde_saphyr::Spanned<String>| {
            Some((s.referenced.line() as usize, s.referenced.column() as usize))
        };
        match &raw.version {
            Some(v) if v.value == "v1" => {}
            Some(v) => {
                return Err(Error::in_file(
                    &source.path,
                    at(v),
                    format!("version `{}`: only v1 exists", v.value),
                ));
            }
            None => {
                return Err(source
                    .error_at_start("no `version`")
                    .with_hint("a GPU clients file starts with `version: v1`"));
            }
        }
        let mut clients = GpuClients::default();
        let services = raw.systemd_services.unwrap_or_default();
        if let Some(s) = services.get(MAX_CLIENTS) {
            return Err(
                Error::in_file(&source.path, at(s), too_many("systemd-services"))
                    .with_hint("list only the services that hold the GPUs open"),
            );
        }
        for s in services {
            let unit =
                unit_name(&s.value).map_err(|why| Error::in_file(&source.path, at(&s), why))?;
            if !clients.services.contains(&unit) {
                clients.services.push(unit);
            }
        }
        Ok(clients)
    }
}

/// A systemd unit name as systemctl takes it; `nvsm` is `nvsm.service`, as systemctl reads it.
pub(crate) fn unit_name(name: &str) -> std::result::Result<String, String> {
    let valid = !name.is_empty()
        && name.len() <= 255
        && !name.starts_with(['-', '.'])
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || ":_.\\@-".contains(c));
    if !valid {
        return Err(format!(
            "`{}` is not a systemd unit name (letters, digits and `:_.\\@-`, e.g. nvidia-dcgm.service; no patterns)",
            name.escape_debug()
        ));
    }
    const TYPES: [&str; 6] = [
        ".service", ".socket", ".target", ".mount", ".scope", ".timer",
    ];
    Ok(if TYPES.iter().any(|t| name.ends_with(t)) {
        name.to_string()
    } else {
        format!("{name}.service")
    })
}

/// A kernel module name as modprobe takes it; the kernel reads `-` as `_`.
pub(crate) fn module_name(name: &str) -> std::result::Result<String, String> {
    let valid = !name.is_empty()
        && name.len() <= 55
        && !name.starts_with('-')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !valid {
        return Err(format!(
            "`{}` is not a kernel module name (letters, digits, `_` and `-`, e.g. nvidia_drm)",
            name.escape_debug()
        ));
    }
    Ok(name.replace('-', "_"))
}

#[cfg(test)]
mod tests;
