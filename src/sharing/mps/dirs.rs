//! A daemon's directories: made with explicit modes, checked (gpushare's own user owns them and
//! no one else may write there) and writable, and removed on stop only when gpushare made them.
//!
//! | path | mode | `--multiuser` |
//! |---|---|---|
//! | `<run_dir>/mps` | 0755 | 0755 |
//! | `<run_dir>/mps/<name>` (`settings.json`, `start.out`) | 0700 | 0755 |
//! | pipe directory | 0700 | 0755: clients of every user connect there |
//! | log directory | 0700 | 0700 |
//! | `settings.json` | 0600 | 0644: clients may read their limits |
//!
//! Without `--multiuser` the daemon serves root's clients: its server runs with the UID of its
//! first client, and a non-root server could not reach a root-only pipe directory anyway.

use std::io;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// `<run_dir>/mps`: traversed by the clients of `--multiuser` daemons.
pub(crate) const MPS_DIR_MODE: u32 = 0o755;

/// The modes of one daemon's directories and record (see the table above).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Modes {
    pub home: u32,
    pub pipe: u32,
    pub log: u32,
    pub settings: u32,
}

impl Modes {
    pub(crate) fn of(multiuser: bool) -> Modes {
        if multiuser {
            Modes {
                home: 0o755,
                pipe: 0o755,
                log: 0o700,
                settings: 0o644,
            }
        } else {
            Modes {
                home: 0o700,
                pipe: 0o700,
                log: 0o700,
                settings: 0o600,
            }
        }
    }
}

/// Create `dir` and its missing parents with `mode` (umask aside); return the ones created,
/// outermost first.
pub(crate) fn make_dirs(dir: &Path, mode: u32) -> io::Result<Vec<PathBuf>> {
    let mut missing = Vec::new();
    let mut cur = Some(dir);
    while let Some(d) = cur {
        if d.as_os_str().is_empty() || d.exists() {
            break;
        }
        missing.push(d.to_path_buf());
        cur = d.parent();
    }
    missing.reverse();
    let mut created = Vec::new();
    for d in missing {
        match std::fs::DirBuilder::new().mode(mode).create(&d) {
            Ok(()) => {
                // The umask may have narrowed the mode: set what was asked.
                std::fs::set_permissions(&d, std::fs::Permissions::from_mode(mode))?;
                created.push(d);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && d.is_dir() => {}
            Err(e) => return Err(e),
        }
    }
    if !dir.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::NotADirectory,
            "exists and is not a directory",
        ));
    }
    Ok(created)
}

/// Fail unless files can be created in `dir` (the daemon makes its sockets and logs there).
pub(crate) fn check_writable(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let probe = dir.join(format!(".gpushare-write-test.{}", std::process::id()));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .mode(0o600)
        .open(&probe)?;
    std::fs::remove_file(&probe)
}

/// Remove what gpushare made for a daemon: `owned` entirely (its own directory under the run
/// dir), each of `leaves` entirely when gpushare created it, and the other created directories
/// only when empty. Returns what could not be removed.
pub(crate) fn remove(owned: &Path, leaves: &[&Path], created: &[PathBuf]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut remove_all = |p: &Path| match std::fs::remove_dir_all(p) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => problems.push(format!("cannot remove {}: {e}", p.display())),
    };
    for leaf in leaves {
        if created.iter().any(|c| c == leaf) {
            remove_all(leaf);
        }
    }
    remove_all(owned);
    // Parents gpushare created, innermost first; a non-empty one holds something else: keep it.
    for dir in created.iter().rev() {
        if !dir.starts_with(owned) && !leaves.contains(&dir.as_path()) {
            let _ = std::fs::remove_dir(dir);
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn makes_only_what_is_missing_with_the_mode() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("a/b/c");
        let created = make_dirs(&dir, 0o755).unwrap();
        assert_eq!(
            created,
            vec![root.path().join("a"), root.path().join("a/b"), dir.clone()]
        );
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o755);
        assert!(make_dirs(&dir, 0o755).unwrap().is_empty());
        check_writable(&dir).unwrap();
    }

    #[test]
    fn a_file_in_the_way_is_an_error() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("f"), "").unwrap();
        assert!(make_dirs(&root.path().join("f/pipe"), 0o755).is_err());
        assert!(make_dirs(&root.path().join("f"), 0o755).is_err());
    }

    #[test]
    fn removes_only_what_was_created() {
        let root = tempfile::tempdir().unwrap();
        let owned = root.path().join("run/mps/gpu0");
        let mut created = make_dirs(&owned, 0o755).unwrap();
        let given = root.path().join("given");
        std::fs::create_dir(&given).unwrap();
        let pipe = given.join("pipe");
        created.extend(make_dirs(&pipe, 0o755).unwrap());
        std::fs::write(pipe.join("control"), "").unwrap();
        std::fs::write(owned.join("settings.json"), "").unwrap();
        let problems = remove(&owned, &[&pipe, &given], &created);
        assert!(problems.is_empty(), "{problems:?}");
        assert!(!owned.exists() && !pipe.exists());
        assert!(given.exists(), "a directory gpushare did not make stays");
        assert!(
            !root.path().join("run").exists(),
            "empty parents it made go"
        );
    }
}
