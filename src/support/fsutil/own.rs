//! gpushare's own files and directories (lock, journal, MPS records, …), which it writes as root.
//!
//! A link or a special file where gpushare expects its own file is refused, never followed: a
//! link planted at `/run/gpushare/lock` must not make root truncate its target. The directories
//! gpushare owns are made with explicit modes and checked before use: a real directory, owned by
//! the user gpushare runs as (root), writable by no one else.

use crate::support::error::{Error, Result};
use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// The message when a link is where gpushare keeps its own file.
const LINK: &str = "it is a symbolic link, and gpushare never follows one where it keeps its own \
                    files (remove the link; gpushare makes the file itself)";

fn refused(message: &str) -> io::Error {
    io::Error::other(message.to_string())
}

/// Open one of gpushare's own files without following a link at `path`, and without blocking or
/// taking a terminal when something else is there. Anything but a regular file is refused.
pub(crate) fn open_own_file(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
    options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC);
    let file = options.open(path).map_err(|e| {
        // O_NOFOLLOW answers ELOOP for a link at the last component.
        if e.raw_os_error() == Some(libc::ELOOP) {
            refused(LINK)
        } else {
            e
        }
    })?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(refused(&format!(
            "it is {}, not a regular file (remove it; gpushare makes the file itself)",
            kind_of(&meta)
        )));
    }
    Ok(file)
}

/// Read one of gpushare's own files as text, at most `limit` bytes; `None` when it is missing.
pub(crate) fn read_own_text(path: &Path, limit: u64) -> io::Result<Option<String>> {
    let mut file = match open_own_file(path, OpenOptions::new().read(true)) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut bytes = Vec::new();
    (&mut file).take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(refused(&format!(
            "it is larger than {limit} bytes, more than gpushare ever writes there"
        )));
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "it is not UTF-8 text"))
}

/// Fail when `path` is a link or something other than a regular file (a missing file is fine):
/// for a file gpushare is about to replace.
pub(crate) fn check_replaceable(path: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(refused(LINK)),
        Ok(m) if !m.is_file() => Err(refused(&format!(
            "it is {}, not a regular file",
            kind_of(&m)
        ))),
        Ok(_) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Fail when `path` is a symbolic link: for a file gpushare reads as input and then rewrites.
pub(crate) fn refuse_link(path: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(refused(LINK)),
        _ => Ok(()),
    }
}

/// What a file system object is, for messages.
pub(crate) fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "a regular file"
    }
}

/// The user gpushare runs as.
fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// Make a directory gpushare owns (with `mode`, whatever the umask; missing parents get 0755),
/// then check it: see [`check_own_dir`]. An existing directory keeps its mode.
pub(crate) fn own_dir(dir: &Path, mode: u32) -> Result<()> {
    let hint = "run as root, or move state paths with --state-root DIR";
    if std::fs::symlink_metadata(dir).is_err() {
        if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o755)
                .create(parent)
                .map_err(|e| {
                    Error::failed(format!("cannot create {}: {e}", parent.display()))
                        .with_hint(hint)
                })?;
        }
        match std::fs::DirBuilder::new().mode(mode).create(dir) {
            Ok(()) => std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode))
                .map_err(|e| {
                    Error::failed(format!("cannot set the mode of {}: {e}", dir.display()))
                })?,
            // Another command made it meanwhile: checked below like any existing one.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                return Err(
                    Error::failed(format!("cannot create {}: {e}", dir.display())).with_hint(hint),
                );
            }
        }
    }
    check_own_dir(dir)
}

/// A directory gpushare keeps files in must be a real directory (not a link), owned by the user
/// gpushare runs as, and writable by no one else: otherwise another user could plant a link or
/// a file there for root to follow (exit 1, naming it).
pub(crate) fn check_own_dir(dir: &Path) -> Result<()> {
    let meta = std::fs::symlink_metadata(dir)
        .map_err(|e| Error::failed(format!("cannot use {}: {e}", dir.display())))?;
    dir_problem(&meta, euid()).map_or(Ok(()), |(problem, hint)| {
        Err(Error::failed(format!("refusing to use {}: {problem}", dir.display())).with_hint(hint))
    })
}

/// The one rule for every other directory gpushare writes into (`/etc/cdi`, the systemd unit
/// directory, `--out`, `--manifests-out`, the directory of `--config-out`): the directory reached
/// — a link to one is followed — is owned by root or by the user gpushare runs as, and writable
/// by no one else. Missing is fine: gpushare makes it (0755).
pub(crate) fn write_dir_problem(dir: &Path) -> Option<String> {
    let meta = match std::fs::metadata(dir) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return None,
        Err(e) => return Some(e.to_string()),
    };
    if !meta.is_dir() {
        return Some(format!("it is {}, not a directory", kind_of(&meta)));
    }
    let uid = euid();
    if meta.uid() != uid && meta.uid() != 0 {
        return Some(format!(
            "it is owned by uid {}, neither root nor uid {uid} that gpushare runs as (chown it, or write elsewhere)",
            meta.uid()
        ));
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Some(format!(
            "it is writable by other users (mode {mode:04o}): chmod go-w it, or write elsewhere"
        ));
    }
    None
}

/// Whether gpushare may write `path`: nothing but a regular file there (no link, no FIFO), in a
/// directory that keeps [`write_dir_problem`]'s rule. For the checks made before a command's
/// first change.
pub(crate) fn write_target_problem(path: &Path) -> Option<String> {
    if let Err(e) = check_replaceable(path) {
        return Some(e.to_string());
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty())?;
    write_dir_problem(dir).map(|p| format!("its directory {}: {p}", dir.display()))
}

/// Why a directory with `meta` is unfit to hold gpushare's files when it runs as `uid`.
fn dir_problem(meta: &std::fs::Metadata, uid: u32) -> Option<(String, String)> {
    if meta.file_type().is_symlink() {
        return Some((
            "it is a symbolic link, and gpushare never follows one to a directory it owns".into(),
            "remove the link; gpushare makes the directory itself".into(),
        ));
    }
    if !meta.is_dir() {
        return Some((
            format!("it is {}, not a directory", kind_of(meta)),
            "remove it; gpushare makes the directory itself".into(),
        ));
    }
    if meta.uid() != uid {
        return Some((
            format!(
                "it is owned by uid {}, not by uid {uid} that gpushare runs as",
                meta.uid()
            ),
            format!("chown {uid} the directory, or remove it"),
        ));
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Some((
            format!("it is writable by other users (mode {mode:04o})"),
            "chmod go-w the directory".into(),
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_link_where_an_own_file_belongs_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let link = dir.path().join("lock");
        symlink(&victim, &link).unwrap();
        let e = open_own_file(
            &link,
            OpenOptions::new().read(true).write(true).create(true),
        )
        .unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert!(check_replaceable(&link).is_err());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    }

    #[test]
    fn a_fifo_where_an_own_file_belongs_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("settings.json");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: `c` is a valid NUL-terminated path for the duration of the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read_own_text(&fifo, 1024).unwrap_err();
        assert!(e.to_string().contains("FIFO"), "{e}");
        assert!(check_replaceable(&fifo).is_err());
        assert!(
            read_own_text(&dir.path().join("none"), 10)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn own_dirs_are_made_with_their_mode() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("run/gpushare");
        own_dir(&dir, 0o700).unwrap();
        let meta = std::fs::metadata(&dir).unwrap();
        assert_eq!(meta.mode() & 0o777, 0o700);
        own_dir(&dir, 0o700).unwrap();
    }

    #[test]
    fn a_world_writable_or_linked_dir_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("open");
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        let e = own_dir(&dir, 0o755).unwrap_err();
        assert_eq!(e.exit, crate::support::error::Exit::Failed);
        assert!(
            e.message.contains("writable by other users (mode 0777)"),
            "{}",
            e.message
        );
        let link = root.path().join("link");
        let target = root.path().join("target");
        std::fs::create_dir(&target).unwrap();
        symlink(&target, &link).unwrap();
        let e = own_dir(&link, 0o755).unwrap_err();
        assert!(e.message.contains("symbolic link"), "{}", e.message);
    }

    #[test]
    #[allow(clippy::print_stderr, reason = "a test that skips says so")]
    fn a_dir_owned_by_another_user_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let meta = std::fs::symlink_metadata(root.path()).unwrap();
        let (problem, _) = dir_problem(&meta, meta.uid() + 1).unwrap();
        assert!(problem.contains("owned by uid"), "{problem}");
        assert!(dir_problem(&meta, meta.uid()).is_none());
        if euid() != 0 {
            eprintln!("SKIPPED: chown to another uid needs root; the check itself ran above");
            return;
        }
        let dir = root.path().join("theirs");
        std::fs::create_dir(&dir).unwrap();
        std::os::unix::fs::chown(&dir, Some(4242), None).unwrap();
        let e = own_dir(&dir, 0o755).unwrap_err();
        assert!(e.message.contains("owned by uid 4242"), "{}", e.message);
    }
}
