//! Helpers shared by the integration tests: run the real binary in a clean environment.

pub mod api_server;
pub mod cluster;
pub mod cuda_standin;
pub mod deployed;
pub mod device_plugin;
pub mod dra_plugin;
pub mod image;
pub mod nvidia_tools;
pub mod nvml_standin;
pub mod prometheus;
pub mod real_node;
pub mod snapshot;
pub mod unpacked;
pub mod vgpu_host;

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// The gpushare binary with no GPUSHARE_* variables from the caller's environment, and its state
/// paths (lock, journal, run dirs) in a temporary directory of this test binary, never the host's
/// `/run` and `/var/lib` (a test that needs its own passes `--state-root`).
pub fn gpushare() -> Command {
    static ROOT: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    let root = ROOT.get_or_init(|| tempfile::tempdir().expect("a temporary directory"));
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin!("gpushare"));
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("GPUSHARE_") {
            cmd.env_remove(key);
        }
    }
    cmd.env("GPUSHARE_ROOT", root.path());
    cmd.env("NO_COLOR", "1");
    cmd
}

/// gpushare on a simulated preset.
pub fn sim(preset: &str) -> Command {
    let mut cmd = gpushare();
    cmd.args(["--sim", preset]);
    cmd
}

/// Run and parse stdout as JSON, asserting success.
pub fn json(cmd: &mut Command) -> serde_json::Value {
    let out = cmd.arg("--format").arg("json").output().unwrap();
    assert!(
        out.status.success(),
        "exit {:?}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}):\n{}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// stderr of a run, asserting its exit code.
pub fn fails_with(cmd: &mut Command, code: i32) -> String {
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        out.status.code(),
        Some(code),
        "stderr: {stderr}\nstdout: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    stderr
}

/// The repository root (for committed files and reference data).
/// Whether device nodes can be made here (root); without, `test` says loudly it is skipped.
pub fn as_root(test: &str) -> bool {
    // SAFETY: geteuid(2) has no preconditions and cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    if !root {
        // Straight to stderr, past the test harness's capture: a skip must be seen.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: {test}: making device nodes (mknod) needs root"
        );
    }
    root
}

/// A character device node at `path` (the suite runs as root, as its real nodes need).
pub fn char_device(path: &Path, major: u32, minor: u32) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mknod(2) with a NUL-terminated path this function owns; no memory is shared.
    let rc = unsafe {
        libc::mknod(
            c.as_ptr(),
            libc::S_IFCHR | 0o666,
            libc::makedev(major, minor),
        )
    };
    assert_eq!(
        rc,
        0,
        "mknod {}: {} (this test makes device nodes: run it as root)",
        path.display(),
        std::io::Error::last_os_error()
    );
}

/// Seconds since the epoch, as the health record counts them.
pub fn unix_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// The health record a watch writes under the state root `root`: a fatal Xid 79 heard just now
/// on GPU `gpu` (`uuid`), the watch last alive at `alive_at`, hearing nothing of `unwatched`.
pub fn fatal_xid_record(root: &Path, uuid: &str, gpu: usize, alive_at: f64, unwatched: &[u32]) {
    let now = unix_now();
    let unwatched: Vec<serde_json::Value> = unwatched
        .iter()
        .map(|g| serde_json::json!([g, "not supported"]))
        .collect();
    let lib = root.join("var/lib/gpushare");
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::write(
        lib.join("health.json"),
        serde_json::json!({
            "version": 1,
            "watch": { "pid": 1, "since": alive_at, "alive_at": alive_at, "unwatched": unwatched },
            "gpus": { uuid: { "index": gpu, "causes": [
                { "cause": { "xid": 79 }, "count": 1, "first_at": now, "last_at": now }
            ]}},
        })
        .to_string(),
    )
    .unwrap();
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}
