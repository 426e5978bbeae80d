//! The one reader of the host's files: procfs, sysfs and device trees (`--host-root`,
//! `--dev-root`, `--sysfs-root`), and the files named by flags or the environment that are not
//! layouts (kubeconfigs). A link is followed (sysfs is made of them), but what it reaches must be
//! a regular file: a FIFO would block and a device such as `/dev/zero` never ends. procfs and
//! sysfs files report a size of 0 or 4096 whatever they hold, so a file is read up to a bound,
//! never by its reported size.

use super::own::kind_of;
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Far beyond any procfs or sysfs file, a driver's information file or a kubeconfig.
pub(crate) const HOST_FILE_LIMIT: u64 = 4 * 1024 * 1024;

fn refused(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

fn regular(meta: &std::fs::Metadata) -> io::Result<()> {
    if meta.is_file() {
        Ok(())
    } else {
        Err(refused(format!(
            "it is {}, not a regular file",
            kind_of(meta)
        )))
    }
}

/// A host file's bytes, at most `limit`; `None` when it does not exist. Anything but a regular
/// file, and a file longer than `limit`, is an error saying so.
pub(crate) fn read_host_bytes(path: &Path, limit: u64) -> io::Result<Option<Vec<u8>>> {
    // Look before opening: opening a device can have effects of its own.
    match std::fs::metadata(path) {
        Ok(meta) => regular(&meta)?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path)?;
    // It may have been swapped since it was looked at: check what was opened.
    regular(&file.metadata()?)?;
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(refused(format!(
            "it is longer than {limit} bytes, more than such a file ever holds"
        )));
    }
    Ok(Some(bytes))
}

/// [`read_host_bytes`] as text (bytes that are not UTF-8 replaced: host files are read for
/// what they say, never rewritten).
pub(crate) fn read_host_text(path: &Path, limit: u64) -> io::Result<Option<String>> {
    Ok(read_host_bytes(path, limit)?.map(|b| String::from_utf8_lossy(&b).into_owned()))
}

/// [`read_host_text`] with the usual bound.
pub(crate) fn read_host(path: &Path) -> io::Result<Option<String>> {
    read_host_text(path, HOST_FILE_LIMIT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn fifos_devices_and_oversize_files_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("modules");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read_host(&fifo).unwrap_err();
        assert!(e.to_string().contains("FIFO"), "{e}");
        let zero = dir.path().join("zero");
        symlink("/dev/zero", &zero).unwrap();
        assert!(read_host(&zero).unwrap_err().to_string().contains("device"));
        let big = dir.path().join("big");
        std::fs::write(&big, vec![b'x'; 11]).unwrap();
        assert!(read_host_text(&big, 10).is_err());
        assert_eq!(read_host_text(&big, 11).unwrap().unwrap().len(), 11);
        // A link to a regular file is followed; a missing file is None.
        let link = dir.path().join("link");
        symlink(&big, &link).unwrap();
        assert!(read_host(&link).unwrap().is_some());
        assert!(read_host(&dir.path().join("none")).unwrap().is_none());
    }

    #[test]
    fn procfs_files_are_read_whole_despite_their_size_of_zero() {
        let text = read_host(Path::new("/proc/self/status")).unwrap().unwrap();
        assert!(text.contains("Name:"), "{text}");
    }
}
