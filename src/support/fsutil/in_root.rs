//! Paths under a directory that stands for another system's `/` (`--dev-root`, `--driver-root`):
//! every link is followed as that system would follow it and never out of the directory (an
//! absolute target or `..` stops at the root, as openat2(RESOLVE_IN_ROOT) does, through pathrs),
//! and what is found is named by its real path, with no link left in it for a later reader (a
//! container runtime mounting it) to follow elsewhere.

use std::ffi::OsStr;
use std::fs::{File, Metadata};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// A root directory, open.
pub(crate) struct InRoot {
    root: pathrs::Root,
    path: PathBuf,
}

/// What a path under the root is: its real path on this machine (inside the root) and its kind.
#[derive(Debug)]
pub(crate) struct Found {
    pub path: PathBuf,
    pub meta: Metadata,
}

fn refused(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

fn os_error(e: pathrs::error::Error) -> io::Error {
    match e.kind() {
        pathrs::error::ErrorKind::OsError(Some(errno)) => io::Error::from_raw_os_error(errno),
        _ => io::Error::other(e.to_string()),
    }
}

/// A name as text: a name that is not UTF-8 cannot be written into a spec or a YAML file as the
/// path it is, so it is refused rather than replaced by one that does not exist.
pub(crate) fn utf8_name<'a>(dir: &Path, name: &'a OsStr) -> io::Result<&'a str> {
    name.to_str().ok_or_else(|| {
        refused(format!(
            "{}/{}: the name is not UTF-8, and no spec can name it",
            dir.display(),
            name.as_bytes().escape_ascii()
        ))
    })
}

impl std::fmt::Debug for InRoot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "InRoot({})", self.path.display())
    }
}

impl InRoot {
    /// Open `root`, made absolute (a relative root would give paths relative to whoever reads
    /// them later). It must be a directory.
    pub(crate) fn open(root: &Path) -> io::Result<InRoot> {
        let path = std::fs::canonicalize(root)?;
        if !path.is_dir() {
            return Err(refused(format!("{}: not a directory", root.display())));
        }
        let root = pathrs::Root::open(&path).map_err(os_error)?;
        Ok(InRoot { root, path })
    }

    /// The root's real, absolute path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// `inner` (as the root's system names it, `/dev/nvidia0`) resolved inside the root.
    /// `None` when nothing is there; a link that leads to nothing inside the root, or round a
    /// loop, is an error naming it, as is anything that could not be looked at.
    pub(crate) fn find(&self, inner: &str) -> io::Result<Option<Found>> {
        let relative = inner.trim_start_matches('/');
        let shown = self.path.join(relative);
        match self.root.resolve_nofollow(relative) {
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    pathrs::error::ErrorKind::OsError(Some(libc::ENOENT))
                ) =>
            {
                return Ok(None);
            }
            Err(e) => {
                return Err(refused(format!(
                    "{}: cannot be looked up inside {}: {}",
                    shown.display(),
                    self.path.display(),
                    os_error(e)
                )));
            }
        }
        let handle = self.root.resolve(relative).map_err(|e| {
            let target = std::fs::read_link(&shown)
                .map(|t| format!(" (to {})", t.display()))
                .unwrap_or_default();
            refused(format!(
                "{} is a link{target} that leads to nothing inside {}: {}",
                shown.display(),
                self.path.display(),
                os_error(e)
            ))
        })?;
        let fd: OwnedFd = handle.into();
        let path = std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd()))?;
        if !path.starts_with(&self.path) {
            return Err(refused(format!(
                "{} resolves to {}, outside {}",
                shown.display(),
                path.display(),
                self.path.display()
            )));
        }
        // fstat(2) on the O_PATH descriptor: what was resolved, not what the name says now.
        let meta = File::from(fd).metadata()?;
        Ok(Some(Found { path, meta }))
    }

    /// The names in directory `inner` (resolved inside the root), sorted; `None` when it does not
    /// exist or is not a directory.
    pub(crate) fn list(
        &self,
        inner: &str,
    ) -> io::Result<Option<(PathBuf, Vec<std::ffi::OsString>)>> {
        let Some(found) = self.find(inner)? else {
            return Ok(None);
        };
        if !found.meta.is_dir() {
            return Ok(None);
        }
        let mut names: Vec<std::ffi::OsString> = std::fs::read_dir(&found.path)?
            .map(|e| e.map(|e| e.file_name()))
            .collect::<io::Result<_>>()?;
        names.sort();
        Ok(Some((found.path, names)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn root() -> (tempfile::TempDir, InRoot) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("usr/lib")).unwrap();
        std::fs::write(dir.path().join("usr/lib/libcuda.so.1.2"), "").unwrap();
        let r = InRoot::open(dir.path()).unwrap();
        (dir, r)
    }

    #[test]
    fn links_stay_inside_the_root() {
        let (dir, r) = root();
        let real = r.path().join("usr/lib/libcuda.so.1.2");
        for (name, target) in [
            ("abs", "/usr/lib/libcuda.so.1.2"),
            ("up", "../../../../../../usr/lib/libcuda.so.1.2"),
            ("rel", "libcuda.so.1.2"),
        ] {
            symlink(target, dir.path().join("usr/lib").join(name)).unwrap();
            let found = r.find(&format!("/usr/lib/{name}")).unwrap().unwrap();
            assert_eq!(found.path, real, "{name}");
            assert!(found.meta.is_file());
        }
        // A link to a host file the root does not have leads to nothing.
        symlink("/etc/hostname", dir.path().join("usr/lib/out")).unwrap();
        let e = r.find("/usr/lib/out").unwrap_err();
        assert!(e.to_string().contains("leads to nothing inside"), "{e}");
        assert!(e.to_string().contains("/etc/hostname"), "{e}");
        // A loop is an error, a missing name is nothing.
        symlink("loop", dir.path().join("usr/lib/loop")).unwrap();
        assert!(r.find("/usr/lib/loop").is_err());
        assert!(r.find("/usr/lib/none").unwrap().is_none());
        assert!(r.find("/none/at/all").unwrap().is_none());
    }

    #[test]
    fn a_directory_linked_out_of_the_root_is_listed_inside_it() {
        let (dir, r) = root();
        std::fs::create_dir_all(dir.path().join("lib")).unwrap();
        symlink("/usr/lib", dir.path().join("lib/x86_64-linux-gnu")).unwrap();
        let (path, names) = r.list("/lib/x86_64-linux-gnu").unwrap().unwrap();
        assert_eq!(path, r.path().join("usr/lib"));
        assert_eq!(names, ["libcuda.so.1.2"]);
    }

    #[test]
    fn a_relative_root_is_made_absolute() {
        let (dir, _) = root();
        let cwd = std::env::current_dir().unwrap();
        let rel = pathdiff(dir.path(), &cwd);
        let r = InRoot::open(&rel).unwrap();
        assert!(r.path().is_absolute());
        assert!(InRoot::open(&dir.path().join("usr/lib/libcuda.so.1.2")).is_err());
    }

    /// `to` relative to `from` (both absolute).
    fn pathdiff(to: &Path, from: &Path) -> PathBuf {
        let mut rel = PathBuf::new();
        for _ in from.components().skip(1) {
            rel.push("..");
        }
        rel.join(to.strip_prefix("/").unwrap())
    }

    #[test]
    fn a_name_that_is_not_utf8_is_refused_by_name() {
        let name = OsStr::from_bytes(b"libcuda\xff.so");
        let e = utf8_name(Path::new("/r"), name).unwrap_err();
        assert!(e.to_string().contains("/r/libcuda\\xff.so"), "{e}");
    }
}
