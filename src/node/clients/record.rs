//! What gpushare stopped and owes a start: `<lib_dir>/stopped-clients.json`, beside the journal.
//!
//! A client is added before it is stopped and removed once it is started again, so a run that is
//! killed in between (or fails, or gets a signal) leaves it here, and the next changing command
//! plans its start. Starting a client that runs already changes nothing, so erring towards a
//! start is safe.

use super::{Client, module_name, unit_name};
use crate::support::error::{Error, Result};
use crate::support::paths::Paths;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// In the order they were stopped.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Stopped {
    #[serde(default)]
    pub services: Vec<String>,
    #[serde(default)]
    pub modules: Vec<String>,
}

pub(crate) fn path(paths: &Paths) -> PathBuf {
    paths.lib_dir().join("stopped-clients.json")
}

impl Stopped {
    /// The record; empty when there is none.
    pub(crate) fn load(paths: &Paths) -> Result<Stopped> {
        let path = path(paths);
        let hint = "it lists the GPU clients a gpushare run stopped; start them yourself \
                    (systemctl start, modprobe) and remove it";
        let text = crate::support::fsutil::read_own_text(&path, 64 * 1024).map_err(|e| {
            Error::failed(format!("cannot read {}: {e}", path.display())).with_hint(hint)
        })?;
        let Some(text) = text else {
            return Ok(Stopped::default());
        };
        let record: Stopped = serde_json::from_str(&text).map_err(|e| {
            Error::in_file(&path, Some((e.line(), e.column())), e.to_string()).with_hint(hint)
        })?;
        // The names go to systemctl and modprobe: only names, never options.
        for s in &record.services {
            unit_name(s).map_err(|why| Error::in_file(&path, None, why).with_hint(hint))?;
        }
        for m in &record.modules {
            module_name(m).map_err(|why| Error::in_file(&path, None, why).with_hint(hint))?;
        }
        Ok(record)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.services.is_empty() && self.modules.is_empty()
    }

    #[cfg(test)]
    pub(crate) fn contains(&self, client: &Client) -> bool {
        match client {
            Client::Service(s) => self.services.contains(s),
            Client::Module(m) => self.modules.contains(m),
        }
    }

    /// Record `client` as stopped (before stopping it), or as started again (after).
    pub(crate) fn set(paths: &Paths, client: &Client, stopped: bool) -> Result<()> {
        let mut record = Self::load(paths)?;
        let (list, name) = match client {
            Client::Service(s) => (&mut record.services, s),
            Client::Module(m) => (&mut record.modules, m),
        };
        let had = list.contains(name);
        match (stopped, had) {
            (true, false) => list.push(name.clone()),
            (false, true) => list.retain(|n| n != name),
            _ => return Ok(()),
        }
        record.save(paths)
    }

    fn save(&self, paths: &Paths) -> Result<()> {
        let path = path(paths);
        let fail =
            |e: std::io::Error| Error::failed(format!("cannot write {}: {e}", path.display()));
        if self.is_empty() {
            return match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(fail(e)),
                _ => Ok(()),
            };
        }
        crate::support::fsutil::own_dir(&paths.lib_dir(), crate::support::paths::LIB_DIR_MODE)?;
        let mut text = serde_json::to_string_pretty(self)
            .map_err(|e| Error::failed(format!("cannot encode {}: {e}", path.display())))?;
        text.push('\n');
        crate::support::fsutil::write_atomic(&path, text.as_bytes(), 0o600).map_err(fail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_is_kept_until_it_is_started_again() {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::new(Some(dir.path().to_path_buf()));
        assert!(Stopped::load(&paths).unwrap().is_empty());
        let dcgm = Client::Service("nvidia-dcgm.service".into());
        let drm = Client::Module("nvidia_drm".into());
        Stopped::set(&paths, &dcgm, true).unwrap();
        Stopped::set(&paths, &drm, true).unwrap();
        Stopped::set(&paths, &dcgm, true).unwrap();
        let r = Stopped::load(&paths).unwrap();
        assert_eq!(r.services, ["nvidia-dcgm.service"]);
        assert!(r.contains(&drm));
        Stopped::set(&paths, &dcgm, false).unwrap();
        Stopped::set(&paths, &drm, false).unwrap();
        assert!(!path(&paths).exists(), "an empty record is removed");
    }

    #[test]
    fn a_record_that_names_an_option_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths::new(Some(dir.path().to_path_buf()));
        std::fs::create_dir_all(paths.lib_dir()).unwrap();
        std::fs::write(path(&paths), r#"{"services": ["--now"]}"#).unwrap();
        let e = Stopped::load(&paths).unwrap_err();
        assert!(
            e.message.contains("not a systemd unit name"),
            "{}",
            e.message
        );
        std::fs::write(path(&paths), "{").unwrap();
        assert!(Stopped::load(&paths).is_err());
    }
}
