//! File helpers: atomic replace with explicit modes, gpushare's own files and directories
//! ([`own`]), and the bounded reader of the host's files ([`host_file`]).

pub(crate) mod claim_records;
pub(crate) mod host_file;
pub(crate) mod in_root;
pub(crate) mod own;
pub(crate) mod random;

use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

pub(crate) use host_file::{read_host, read_host_text};
pub(crate) use own::{check_own_dir, open_own_file, own_dir, read_own_text};

/// Write `bytes` to `path` atomically: a temporary file in the same directory, fsync, rename.
/// A reader sees the old content or the new one, never a half-written file. A link or a special
/// file at `path` is refused, never replaced or followed.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    replace(path, bytes, mode, true)
}

/// Like [`write_atomic`] without the fsyncs: readers still see the old or the new content, but
/// a power loss may lose the change. For files that are rewritten often and cheap to lose (the
/// simulator's state, saved after every operation).
pub(crate) fn write_atomic_unsynced(path: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    replace(path, bytes, mode, false)
}

/// Create a new temporary file beside `path`: `.NAME.tmp.<random>`, made with
/// O_CREAT|O_EXCL|O_NOFOLLOW, so nothing planted in the directory (a link, a file named after a
/// guessed pid) can be opened in its place.
fn create_temp(dir: &Path, name: &str, mode: u32) -> io::Result<(fs::File, PathBuf)> {
    let mut last = None;
    for _ in 0..8 {
        let tmp = dir.join(format!(".{name}.tmp.{}", random::hex64()?));
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&tmp)
        {
            Ok(f) => return Ok((f, tmp)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no free temporary name")))
}

fn replace(path: &Path, bytes: &[u8], mode: u32, durable: bool) -> io::Result<()> {
    own::check_replaceable(path)?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if let Some(problem) = own::write_dir_problem(dir) {
        return Err(io::Error::other(format!(
            "refusing to write into {}: {problem}",
            dir.display()
        )));
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    let (mut f, tmp) = create_temp(dir, &name, mode)?;
    let result = (|| {
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
    fn a_planted_link_is_neither_followed_nor_replaced() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("shadow");
        fs::write(&victim, "root:x:0:0").unwrap();
        fs::set_permissions(&victim, fs::Permissions::from_mode(0o600)).unwrap();
        // Links planted under every name the old writer would have used, and at the target.
        for pid in [std::process::id(), std::process::id() + 1] {
            symlink(&victim, dir.path().join(format!(".x.yaml.tmp.{pid}"))).unwrap();
        }
        let target = dir.path().join("x.yaml");
        write_atomic(&target, b"new", 0o644).unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "root:x:0:0");
        assert_eq!(
            fs::metadata(&victim).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert!(
            !fs::symlink_metadata(&target)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        // A link at the target itself is an error naming it; the link and its target stay.
        let linked = dir.path().join("cdi.yaml");
        symlink(&victim, &linked).unwrap();
        let e = write_atomic(&linked, b"new", 0o644).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert!(
            fs::symlink_metadata(&linked)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&victim).unwrap(), "root:x:0:0");
    }

    #[test]
    fn temp_names_are_unpredictable() {
        let dir = tempfile::tempdir().unwrap();
        let (_a, a) = create_temp(dir.path(), "x", 0o600).unwrap();
        let (_b, b) = create_temp(dir.path(), "x", 0o600).unwrap();
        assert_ne!(a, b);
        let suffix = a
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .strip_prefix(".x.tmp.")
            .unwrap();
        assert!(suffix.len() == 16 && suffix.chars().all(|c| c.is_ascii_hexdigit()));
    }

    #[test]
    fn fails_cleanly_when_the_directory_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        assert!(write_atomic(&dir.path().join("no/such/x"), b"x", 0o644).is_err());
    }
}
