//! What gpushare has learned about vendor-VFIO type ids: each GPU's full type list.
//!
//! A VF's `nvidia/creatable_vgpu_types` lists only what can still be created, so once a GPU is
//! full no file names the ids in `current_vgpu_type` any more. The full list shows while the GPU
//! holds no vGPU; `vgpu apply` and `vgpu clear` keep it in `/var/lib/gpushare/vgpu-types.json`
//! (under `--state-root`), so later runs can still name the types and match them.

use crate::support::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub(crate) const FILE_NAME: &str = "vgpu-types.json";

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TypeRegistry {
    /// GPU (PF address) → type id → full name, each list complete.
    #[serde(default)]
    pub gpus: BTreeMap<String, BTreeMap<u32, String>>,
    #[serde(skip)]
    changed: bool,
}

impl TypeRegistry {
    /// Load the registry; a missing file is an empty registry. A damaged one is ignored with the
    /// reason returned, since it is a cache the next apply rebuilds.
    pub(crate) fn load(path: &Path) -> (TypeRegistry, Option<String>) {
        match crate::support::fsutil::read_own_text(
            path,
            crate::support::source_file::MAX_INPUT_BYTES,
        ) {
            Ok(None) => (TypeRegistry::default(), None),
            Ok(Some(text)) => match serde_json::from_str(&text) {
                Ok(r) => (r, None),
                Err(e) => (
                    TypeRegistry::default(),
                    Some(format!("ignoring {}: {e}", path.display())),
                ),
            },
            Err(e) => (
                TypeRegistry::default(),
                Some(format!("cannot read {}: {e}", path.display())),
            ),
        }
    }

    /// The full type list of a GPU, when known.
    pub(crate) fn full_list(&self, pf: &str) -> Option<&BTreeMap<u32, String>> {
        self.gpus.get(pf)
    }

    /// Record a GPU's full type list (read while it held no vGPU).
    pub(crate) fn learn(&mut self, pf: &str, types: BTreeMap<u32, String>) {
        if types.is_empty() || self.gpus.get(pf) == Some(&types) {
            return;
        }
        self.gpus.insert(pf.to_string(), types);
        self.changed = true;
    }

    /// Save when something new was learned.
    pub(crate) fn save_if_changed(&mut self, path: &Path) -> Result<()> {
        if !self.changed {
            return Ok(());
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            crate::support::fsutil::own_dir(dir, crate::support::paths::LIB_DIR_MODE)?;
        }
        let mut json = serde_json::to_string_pretty(self)
            .map_err(|e| Error::failed(format!("cannot write JSON: {e}")))?;
        json.push('\n');
        crate::support::fsutil::write_atomic(path, json.as_bytes(), 0o644).map_err(|e| {
            Error::failed(format!("cannot write {}: {e}", path.display()))
                .with_hint("run as root, or pass --state-root DIR")
        })?;
        self.changed = false;
        Ok(())
    }
}

/// Where the registry lives under the state root.
pub(crate) fn path(paths: &crate::support::paths::Paths) -> PathBuf {
    paths.lib_dir().join(FILE_NAME)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learns_saves_and_reloads() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("lib/vgpu-types.json");
        let (mut r, warning) = TypeRegistry::load(&file);
        assert!(warning.is_none());
        assert!(r.full_list("0000:41:00.0").is_none());
        let list: BTreeMap<u32, String> = [(1155, "NVIDIA L40S-12Q".to_string())].into();
        r.learn("0000:41:00.0", list.clone());
        r.save_if_changed(&file).unwrap();
        let (again, _) = TypeRegistry::load(&file);
        assert_eq!(again.full_list("0000:41:00.0"), Some(&list));
    }

    #[test]
    fn a_damaged_file_is_ignored_with_a_reason() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("vgpu-types.json");
        std::fs::write(&file, "{ not json").unwrap();
        let (r, warning) = TypeRegistry::load(&file);
        assert!(r.gpus.is_empty());
        assert!(warning.unwrap().contains("ignoring"));
    }
}
