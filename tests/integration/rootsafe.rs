//! gpushare runs as root: each attack of a local user on its files and its output is refused by
//! the real binary. Links planted where gpushare keeps its files (lock, journal, the atomic
//! writer's temp file and target), directories another user owns or may write, FIFOs and
//! endless devices as input, oversize input, a GPU range past the node, escape sequences in names
//! from the driver, and a simulator switched on by the environment.

use crate::common;
use common::*;

use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const GOOD_TOML: &str = "[[gpus]]\nselect = [0]\nmode = \"none\"\n";

/// A simulated DGX A100 with its state file and a state root, in one temporary directory.
struct Host {
    dir: tempfile::TempDir,
}

impl Host {
    fn new() -> Host {
        Host {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn root(&self) -> PathBuf {
        self.path("root")
    }

    /// gpushare on this host's simulated node and state root.
    fn gpushare(&self) -> assert_cmd::Command {
        let mut cmd = gpushare();
        cmd.args(["--sim", "dgx-a100", "--sim-state"])
            .arg(self.path("state.json"))
            .arg("--state-root")
            .arg(self.root());
        cmd
    }

    /// A file outside gpushare's reach that an attacker wants root to overwrite.
    fn victim(&self) -> PathBuf {
        let p = self.path("victim");
        std::fs::write(&p, "root:x:0:0:root:/root:/bin/bash\n").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
        p
    }

    fn mkdir(&self, rel: &str) -> PathBuf {
        let p = self.path(rel);
        std::fs::create_dir_all(&p).unwrap();
        p
    }
}

fn victim_untouched(victim: &Path) {
    assert_eq!(
        std::fs::read_to_string(victim).unwrap(),
        "root:x:0:0:root:/root:/bin/bash\n"
    );
    let mode = std::fs::metadata(victim).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the victim's mode is kept");
}

fn is_link(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
}

#[test]
fn a_linked_node_lock_is_refused_and_its_target_kept() {
    let host = Host::new();
    let victim = host.victim();
    let lock = host.mkdir("root/run/gpushare").join("lock");
    symlink(&victim, &lock).unwrap();
    let config = write(host.dir.path(), "gpushare.toml", GOOD_TOML);
    let err = fails_with(host.gpushare().arg("apply").arg("-c").arg(&config), 1);
    assert!(
        err.contains(&format!("cannot open the lock {}", lock.display())),
        "{err}"
    );
    assert!(err.contains("symbolic link"), "{err}");
    victim_untouched(&victim);
    assert!(is_link(&lock));
}

#[test]
fn a_linked_journal_is_refused_neither_appended_to_nor_moved() {
    let host = Host::new();
    let victim = host.victim();
    let journal = host.mkdir("root/var/lib/gpushare").join("journal.jsonl");
    symlink(&victim, &journal).unwrap();
    let config = write(host.dir.path(), "gpushare.toml", GOOD_TOML);
    let err = fails_with(host.gpushare().arg("apply").arg("-c").arg(&config), 1);
    assert!(err.contains(&journal.display().to_string()), "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    victim_untouched(&victim);
    assert!(is_link(&journal));
    assert!(!host.path("root/var/lib/gpushare/journal.jsonl.1").exists());
}

#[test]
fn links_planted_for_the_atomic_writer_are_never_followed() {
    let host = Host::new();
    let victim = host.victim();
    let cdi = host.mkdir("root/etc/cdi");
    // The old writer's temp name was `.NAME.tmp.<pid>`: plant a link under every pid the next
    // command may get. The writer's names are random now, and made with O_EXCL|O_NOFOLLOW.
    let next = std::process::id();
    for pid in next..next + 300 {
        symlink(&victim, cdi.join(format!(".nvidia.yaml.tmp.{pid}"))).unwrap();
    }
    host.gpushare()
        .args(["manifests", "--target", "cdi", "--install"])
        .assert()
        .success();
    victim_untouched(&victim);
    let spec = cdi.join("nvidia.yaml");
    assert!(!is_link(&spec));
    let mode = std::fs::metadata(&spec).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o644);
    // A link at the target itself is an error naming it; neither it nor its target changes.
    std::fs::remove_file(&spec).unwrap();
    symlink(&victim, &spec).unwrap();
    let err = fails_with(
        host.gpushare()
            .args(["manifests", "--target", "cdi", "--install"]),
        1,
    );
    assert!(err.contains(&spec.display().to_string()), "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    victim_untouched(&victim);
    assert!(is_link(&spec));
}

#[test]
fn a_state_directory_others_may_write_or_own_is_refused() {
    let host = Host::new();
    let config = write(host.dir.path(), "gpushare.toml", GOOD_TOML);
    let run = host.mkdir("root/run/gpushare");
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o777)).unwrap();
    let err = fails_with(host.gpushare().arg("apply").arg("-c").arg(&config), 1);
    assert!(
        err.contains(&format!("refusing to use {}", run.display())),
        "{err}"
    );
    assert!(err.contains("writable by other users (mode 0777)"), "{err}");
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o755)).unwrap();
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("SKIPPED: a directory owned by another user needs root to make");
        return;
    }
    std::os::unix::fs::chown(&run, Some(4242), None).unwrap();
    let err = fails_with(host.gpushare().arg("apply").arg("-c").arg(&config), 1);
    assert!(err.contains("owned by uid 4242"), "{err}");
    std::os::unix::fs::chown(&run, Some(0), None).unwrap();
    host.gpushare()
        .arg("apply")
        .arg("-c")
        .arg(&config)
        .assert()
        .success();
}

/// Run with a deadline: a FIFO must never make gpushare wait.
fn run_briefly(mut cmd: Command) -> (Option<i32>, String) {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("gpushare blocked on its input");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn plain(host: &Host) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin!("gpushare"));
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("GPUSHARE_") {
            cmd.env_remove(key);
        }
    }
    cmd.env("NO_COLOR", "1")
        .arg("--state-root")
        .arg(host.root());
    cmd
}

#[test]
fn a_fifo_or_a_device_as_input_is_bad_input_and_never_read() {
    let host = Host::new();
    let fifo = host.path("gpushare.toml");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: `c` is a valid NUL-terminated path for the duration of the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let state = host.path("state.json");
    for args in [
        vec!["--sim", "dgx-a100", "apply", "-c", fifo.to_str().unwrap()],
        vec!["--sim", fifo.to_str().unwrap(), "detect"],
        vec!["--sim-state", fifo.to_str().unwrap(), "detect"],
        vec![
            "--sim",
            "dgx-a100",
            "mig",
            "apply",
            "-f",
            fifo.to_str().unwrap(),
        ],
        vec!["--sim", "dgx-a100", "apply", "-c", "/dev/zero"],
        vec!["--sim", "dgx-a100", "mig", "apply", "-f", "/dev/urandom"],
        vec!["--sim", "dgx-a100", "apply", "-c", "/tmp"],
    ] {
        let mut cmd = plain(&host);
        cmd.args(&args);
        let (code, err) = run_briefly(cmd);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains("not a regular file"), "{args:?}: {err}");
        assert!(!state.exists());
    }
}

#[test]
fn input_over_16_mib_is_refused_from_a_file_and_from_stdin() {
    let host = Host::new();
    let big = host.path("big.toml");
    let mut text = GOOD_TOML.as_bytes().to_vec();
    text.resize(16 * 1024 * 1024 + 1, b'\n');
    std::fs::write(&big, &text).unwrap();
    let err = fails_with(host.gpushare().arg("apply").arg("-c").arg(&big), 2);
    assert!(err.contains("is larger than 16 MiB"), "{err}");
    let err = fails_with(
        host.gpushare()
            .args(["mig", "apply", "-f", "-"])
            .write_stdin(text),
        2,
    );
    assert!(err.contains("stdin is larger than 16 MiB"), "{err}");
}

#[test]
fn a_gpu_range_past_the_node_changes_nothing() {
    let host = Host::new();
    let layout = write(
        host.dir.path(),
        "l.yaml",
        "version: v1\nmig-configs:\n  l:\n    - devices: all\n      mig-enabled: true\n      mig-devices: {\"3g.20gb\": 2}\n",
    );
    host.gpushare()
        .args(["mig", "apply", "-f"])
        .arg(&layout)
        .assert()
        .success();
    let before = std::fs::read(host.path("state.json")).unwrap();
    for sel in ["0-99", "7-8", "99"] {
        let err = fails_with(host.gpushare().args(["mig", "clear", "--gpu", sel]), 2);
        assert!(err.contains("GPU"), "{err}");
        assert_eq!(std::fs::read(host.path("state.json")).unwrap(), before);
    }
    let err = fails_with(host.gpushare().args(["mig", "clear", "--gpu", "0-99"]), 2);
    assert!(
        err.contains("GPU range `0-99` goes beyond this node: there is no GPU 8"),
        "{err}"
    );
}

#[test]
fn escape_sequences_in_names_are_shown_escaped_and_kept_as_data_in_json() {
    let host = Host::new();
    let node = write(
        host.dir.path(),
        "evil.toml",
        "[[gpus]]\nmodel = \"Tesla T4\"\nprocesses = [{ pid = 4242, name = \"py\\u001b]0;owned\\u0007\\u001b[2J\\rthon\\u009b\", used_memory_mib = 1024 }]\n",
    );
    for color in ["never", "always"] {
        let out = gpushare()
            .args(["--sim"])
            .arg(&node)
            .args(["--color", color, "detect"])
            .output()
            .unwrap();
        assert!(out.status.success());
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(
            stdout.contains("py\\x1b]0;owned\\x07\\x1b[2J\\rthon\\u{9b}"),
            "{stdout}"
        );
        let raw: Vec<char> = stdout
            .chars()
            .filter(|c| c.is_control() && *c != '\n' && *c != '\x1b')
            .collect();
        assert!(raw.is_empty(), "{raw:?}");
        // With colour on, the only escape sequences are gpushare's own colours.
        let foreign = stdout
            .split('\x1b')
            .skip(1)
            .filter(|s| {
                !["[0m", "[1m", "[2m", "[32m", "[33m", "[1;31m"]
                    .iter()
                    .any(|c| s.starts_with(c))
            })
            .count();
        assert_eq!(foreign, 0, "{stdout:?}");
        assert_eq!(color == "never", !stdout.contains('\x1b'));
    }
    let v = json(gpushare().arg("--sim").arg(&node).arg("detect"));
    assert_eq!(
        v["gpus"][0]["processes"][0]["name"],
        "py\u{1b}]0;owned\u{7}\u{1b}[2J\rthon\u{9b}"
    );
    // The same name in an error message.
    let err = fails_with(
        gpushare()
            .arg("--sim")
            .arg(&node)
            .args(["mig", "clear", "--gpu", "GPU-\u{1b}[2J"]),
        2,
    );
    assert!(err.contains("GPU-\\x1b[2J"), "{err}");
    assert!(!err.contains('\x1b'), "{err:?}");
}

/// A stand-in libnvidia-ml.so.1 whose nvmlInit succeeds: a host where a driver answers.
fn answering_nvml(dir: &Path) -> PathBuf {
    let src = write(
        dir,
        "nvml.c",
        "int nvmlInit_v2(void) { return 0; }\nint nvmlInitWithFlags(unsigned f) { (void)f; return 0; }\nint nvmlShutdown(void) { return 0; }\n",
    );
    let lib = dir.join("libnvidia-ml.so.1");
    let status = Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&lib)
        .arg(&src)
        .status()
        .expect("a C compiler (cc) is needed to build the stand-in NVML");
    assert!(status.success());
    lib
}

#[test]
fn a_simulator_from_the_environment_warns_where_a_driver_answers() {
    let host = Host::new();
    let lib = answering_nvml(host.dir.path());
    let warning =
        "GPUSHARE_SIM in the environment selects the simulator, but an NVIDIA driver answers";
    let out = gpushare()
        .env("GPUSHARE_SIM", "dgx-a100")
        .env("GPUSHARE_NVML_LIB", &lib)
        .args(["--quiet", "detect"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(warning), "{err}");
    // Every run on the simulator says so (not with --quiet, which keeps only warnings).
    let out = gpushare()
        .env("GPUSHARE_SIM", "dgx-a100")
        .env("GPUSHARE_NVML_LIB", &lib)
        .arg("detect")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "simulated node (sim:dgx-a100): this host's GPUs are neither read nor changed"
        ),
        "{err}"
    );
    // Asked for with the flag, the simulator is the user's choice: no warning.
    let out = gpushare()
        .env("GPUSHARE_NVML_LIB", &lib)
        .args(["--sim", "dgx-a100", "detect"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("simulated node (sim:dgx-a100)"), "{err}");
    assert!(!err.contains("warning"), "{err}");
    if Path::new("/dev/nvidiactl").exists() {
        eprintln!("SKIPPED: this host has a driver, so no run here is without one");
        return;
    }
    // Where no driver answers, the environment's simulator is what the user has: no warning.
    let out = gpushare()
        .env("GPUSHARE_SIM", "dgx-a100")
        .env("GPUSHARE_NVML_LIB", host.path("no-such-lib.so"))
        .arg("detect")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("simulated node (sim:dgx-a100)"), "{err}");
    assert!(!err.contains("warning"), "{err}");
}
