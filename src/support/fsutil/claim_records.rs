//! Records gpushare's DRA plugin keeps per claim, one JSON file per claim UID in a directory of
//! its own (`<lib>/dra-plugin/made/`, `<lib>/dra-plugin/shares/`): written atomically, read back
//! bounded, and named only by UIDs, so a claim's UID never names a path outside.

use crate::support::error::{Error, Result};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};

/// The largest record read back (a claim has at most 32 devices).
const MAX_RECORD: u64 = 64 * 1024;

/// A claim UID as the kubelet gives it: what names a record file.
pub(crate) fn is_uid(uid: &str) -> bool {
    (1..=64).contains(&uid.len()) && uid.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
}

fn path(dir: &Path, uid: &str) -> Result<PathBuf> {
    if !is_uid(uid) {
        return Err(Error::failed(format!("claim UID {uid:?} is not a UID")));
    }
    Ok(dir.join(format!("{uid}.json")))
}

/// What claim `uid`'s record in `dir` holds (nothing when there is none).
pub(crate) fn read<T: DeserializeOwned>(dir: &Path, uid: &str) -> Result<Vec<T>> {
    let path = path(dir, uid)?;
    let cannot = |e: String| Error::failed(format!("{}: {e}", path.display()));
    match super::read_host_text(&path, MAX_RECORD).map_err(|e| cannot(e.to_string()))? {
        None => Ok(Vec::new()),
        Some(text) => serde_json::from_str(&text).map_err(|e| cannot(e.to_string())),
    }
}

/// Every record in `dir`, each item with its claim's UID. A record that cannot be read is an
/// error: what it names cannot be told apart from what no claim holds.
pub(crate) fn all<T: DeserializeOwned>(dir: &Path) -> Result<Vec<(String, T)>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::failed(format!("{}: {e}", dir.display()))),
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(uid) = name.to_str().and_then(|n| n.strip_suffix(".json")) else {
            continue;
        };
        if !is_uid(uid) {
            continue;
        }
        out.extend(
            read::<T>(dir, uid)?
                .into_iter()
                .map(|m| (uid.to_string(), m)),
        );
    }
    Ok(out)
}

/// Record `items` for claim `uid` in `dir`; none: the record goes.
pub(crate) fn write<T: Serialize>(dir: &Path, uid: &str, items: &[T]) -> Result<()> {
    let path = path(dir, uid)?;
    if items.is_empty() {
        return match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::failed(format!(
                "cannot remove {}: {e}",
                path.display()
            ))),
            _ => Ok(()),
        };
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::failed(format!("cannot create {}: {e}", dir.display())))?;
    let text = serde_json::to_string(items)
        .map_err(|e| Error::failed(format!("a claim's record: {e}")))?;
    super::write_atomic(&path, text.as_bytes(), 0o600)
        .map_err(|e| Error::failed(format!("cannot write {}: {e}", path.display())))
}
