//! The simulated node behind the stand-in: gpushare's simulator state file, read before each call
//! (kept parsed while the file is unchanged) and written atomically after each change, so other
//! processes (`gpushare --sim-state`, the stand-in nvidia-smi, another NVML client) see the same
//! node. gpushare's simulator logs its calls beside the file (`FILE.ops`) and writes the file once
//! per command: what such a log holds is read with the file, and each write here takes the log's
//! calls in and empties it, as gpushare's own write does.

use crate::call::{DRIVER_NOT_LOADED, Fail, UNKNOWN};
use gpushare::node::backend::sim::SimBackend;
use gpushare::node::backend::sim::state::{STATE_VERSION, SimState};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The state file (`NVML_STANDIN_STATE`).
pub fn path() -> Result<PathBuf, Fail> {
    std::env::var_os(crate::STATE_ENV)
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| {
            Fail::new(
                DRIVER_NOT_LOADED,
                format!("{} names no simulated node", crate::STATE_ENV),
            )
        })
}

/// Create the state file from `NVML_STANDIN_NODE` when it does not exist yet.
pub fn ensure(path: &Path) -> Result<(), Fail> {
    if path.exists() {
        return Ok(());
    }
    let node = std::env::var(crate::NODE_ENV).map_err(|_| {
        Fail::new(
            DRIVER_NOT_LOADED,
            format!(
                "{} does not exist and {} names no node to create it from",
                path.display(),
                crate::NODE_ENV
            ),
        )
    })?;
    SimBackend::open(Some(&node), Some(path))
        .map(|_| ())
        .map_err(|e| Fail::new(DRIVER_NOT_LOADED, e.message))
}

/// What identifies one version of the file and of its log: an atomic write replaces the inode,
/// a logged call grows the log.
type FileKey = ((u64, u64, i64, i64, u64), Option<(u64, u64, i64, i64, u64)>);

fn key(path: &Path) -> Result<FileKey, Fail> {
    let version = |m: std::fs::Metadata| (m.dev(), m.ino(), m.mtime(), m.mtime_nsec(), m.size());
    let m = std::fs::metadata(path)
        .map_err(|e| Fail::new(UNKNOWN, format!("{}: {e}", path.display())))?;
    let log = std::fs::symlink_metadata(log_path(path)).ok().map(version);
    Ok((version(m), log))
}

/// gpushare's log of the calls made since the file was written.
fn log_path(path: &Path) -> PathBuf {
    let mut log = path.as_os_str().to_owned();
    log.push(".ops");
    PathBuf::from(log)
}

struct Cached {
    path: PathBuf,
    key: FileKey,
    state: SimState,
}

static CACHE: Mutex<Option<Cached>> = Mutex::new(None);

pub fn load(path: &Path) -> Result<SimState, Fail> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Fail::new(UNKNOWN, format!("{}: {e}", path.display())))?;
    let mut state: SimState = serde_json::from_str(&text)
        .map_err(|e| Fail::new(UNKNOWN, format!("{}: {e}", path.display())))?;
    if state.version != STATE_VERSION {
        return Err(Fail::new(
            UNKNOWN,
            format!("{}: state version {}", path.display(), state.version),
        ));
    }
    gpushare::node::backend::sim::catch_up(path, &mut state)
        .map_err(|e| Fail::new(UNKNOWN, e.message))?;
    Ok(state)
}

/// Write the whole node (atomically), the calls of gpushare's log with it, and empty the log.
pub fn save(path: &Path, state: &mut SimState) -> Result<(), Fail> {
    gpushare::node::backend::sim::write_state(path, state).map_err(|e| Fail::new(UNKNOWN, e.detail))
}

/// The node as it is now.
fn current(cache: &mut Option<Cached>) -> Result<&mut Cached, Fail> {
    let path = path()?;
    let key = key(&path)?;
    let fresh = cache
        .as_ref()
        .is_some_and(|c| c.path == path && c.key == key);
    if !fresh {
        let state = load(&path)?;
        *cache = Some(Cached { path, key, state });
    }
    Ok(cache.as_mut().expect("just filled"))
}

/// Answer from the node as it is.
pub fn read<T>(f: impl FnOnce(&SimState) -> Result<T, Fail>) -> Result<T, Fail> {
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    f(&current(&mut cache)?.state)
}

/// Change the node: the change applies to a copy, which is saved only when it succeeds.
pub fn change<T>(f: impl FnOnce(&mut SimState) -> Result<T, Fail>) -> Result<T, Fail> {
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    let cached = current(&mut cache)?;
    let mut next = cached.state.clone();
    let out = f(&mut next)?;
    save(&cached.path, &mut next)?;
    cached.key = key(&cached.path)?;
    cached.state = next;
    Ok(out)
}
