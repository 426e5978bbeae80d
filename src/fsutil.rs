//! File helpers shared by every command that writes: atomic replace with explicit modes.

use std::fs;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Write `bytes` to `path` atomically: a temporary file in the same directory, fsync, rename.
/// A reader sees the old content or the new one, never a half-written file.
pub fn write_atomic(path: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    replace(path, bytes, mode, true)
}

/// Like [`write_atomic`] without the fsyncs: readers still see the old or the new content, but
/// a power loss may lose the change. For files that are rewritten often and cheap to lose (the
/// simulator's state, saved after every operation).
pub fn write_atomic_unsynced(path: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    replace(path, bytes, mode, false)
}

fn replace(path: &Path, bytes: &[u8], mode: u32, durable: bool) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    let tmp = dir.join(format!(".{name}.tmp.{}", std::process::id()));
    let result = (|| {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(mode)
            .open(&tmp)?;
        f.write_all(bytes)?;
        // The umask may have narrowed the mode; set exactly what was asked.
        f.set_permissions(fs::Permissions::from_mode(mode))?;
        if durable {
            f.sync_all()?;
        }
        fs::rename(&tmp, path)?;
        if durable && let Ok(d) = fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_content_with_the_given_mode() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.yaml");
        write_atomic(&p, b"one", 0o600).unwrap();
        write_atomic(&p, b"two", 0o644).unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "two");
        assert_eq!(
            fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o644
        );
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temp file left"
        );
    }

    #[test]
    fn the_unsynced_variant_replaces_too() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("state.json");
        write_atomic_unsynced(&p, b"one", 0o600).unwrap();
        write_atomic_unsynced(&p, b"two", 0o644).unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "two");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn fails_cleanly_when_the_directory_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        assert!(write_atomic(&dir.path().join("no/such/x"), b"x", 0o644).is_err());
    }
}
