//! Hostile input: a corpus of broken, oversized and malicious files of every kind gpushare reads
//! (gpushare.toml, mig-parted and vgpu-device-manager configs, node files, simulator state), each
//! handed to the command that would act on it. Every case must exit 2 naming the file (and the
//! line and column where the input has lines), print no raw control character, never panic or
//! hang, and leave the node as it was. The cases are built in `cases.rs`.

mod cases;
mod environment;
use crate::common;

use cases::{Case, Kind, Place};
use common::vgpu_host::{FakeHost, GpuSpec, Layout, t};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A case that runs longer than this hangs (a debug build on a busy 2-core machine answers in
/// well under a second).
const TIMEOUT: Duration = Duration::from_secs(20);
const WORKERS: usize = 4;

/// A MIG layout the base node is given before the cases run, so that a case that changed the node
/// would have something to destroy.
const BASE_LAYOUT: &str = "version: v1\nmig-configs:\n  base:\n    - devices: [0, 1]\n      mig-enabled: true\n      mig-devices: {\"3g.20gb\": 1, \"1g.5gb\": 2}\n";

/// What gpushare.toml cases of simulator state files are applied with.
const GOOD_TOML: &str = "[[gpus]]\nselect = [0]\nmode = \"none\"\n";

/// The gpushare binary with a clean environment (no GPUSHARE_* or MIG_PARTED_* variables).
fn gpushare() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gpushare"));
    for (key, _) in std::env::vars_os() {
        let k = key.to_string_lossy();
        if k.starts_with("GPUSHARE_") || k.starts_with("MIG_PARTED_") {
            cmd.env_remove(&key);
        }
    }
    // The stand-in MPS control daemon, should a case ever get as far as starting one.
    let path = format!(
        "{}:{}",
        common::repo().join("tests/support/bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    cmd.env("NO_COLOR", "1")
        .env("PATH", path)
        .stdin(Stdio::null());
    cmd
}

struct Outcome {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    timed_out: bool,
}

/// Run with a deadline; a command still running then is killed and reported as a hang.
fn run(mut cmd: Command) -> Outcome {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the gpushare binary runs");
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            buf
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    let (status, timed_out) = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break (Some(status), false);
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            break (None, true);
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let stdout = String::from_utf8_lossy(&out.join().unwrap_or_default()).into_owned();
    let stderr = String::from_utf8_lossy(&err.join().unwrap_or_default()).into_owned();
    Outcome {
        code: status.and_then(|s| s.code()),
        stdout,
        stderr,
        timed_out,
    }
}

/// Two A100s with mdev on 4 SR-IOV VFs each: a small tree, so that comparing it before and
/// after each case is quick.
fn vgpu_host() -> FakeHost {
    let gpu = GpuSpec {
        model: "NVIDIA A100-SXM4-40GB",
        device_id: 0x20b0,
        layout: Layout::MdevOnVfs,
        vfs: 4,
        vfs_enabled: true,
        heterogeneous: false,
        types: vec![
            t(698, "A100-1-5C", 5, 7),
            t(472, "A100-4C", 4, 10),
            t(477, "A100-40C", 40, 1),
        ],
    };
    FakeHost::new(vec![gpu.clone(), gpu])
}

/// One worker's node: a simulated DGX A100 with MIG instances (its state file), and a fake vGPU
/// host; each worker has its own so that the cases never share a node.
struct Fixture {
    dir: tempfile::TempDir,
    base_state: Vec<u8>,
    host: FakeHost,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let layout = common::write(dir.path(), "base.yaml", BASE_LAYOUT);
        let state = dir.path().join("state.json");
        let done = gpushare()
            .arg("--sim")
            .arg("dgx-a100")
            .arg("--sim-state")
            .arg(&state)
            .arg("--state-root")
            .arg(dir.path().join("root"))
            .args(["--quiet", "mig", "apply", "-f"])
            .arg(&layout)
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(done.success(), "the base node is set up");
        common::write(dir.path(), "good.toml", GOOD_TOML);
        Fixture {
            base_state: std::fs::read(&state).unwrap(),
            dir,
            host: vgpu_host(),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The command a case's file is given to, and the files that hold the node.
    fn command(&self, case: &Case, file: &Path) -> Command {
        let state = self.path("state.json");
        let root = self.path("root");
        let mut cmd = gpushare();
        match case.kind {
            Kind::Toml => {
                cmd.arg("--sim-state")
                    .arg(&state)
                    .arg("--state-root")
                    .arg(&root);
                cmd.args(["apply", "-c"]).arg(file);
            }
            Kind::MigParted => {
                cmd.arg("--sim-state")
                    .arg(&state)
                    .arg("--state-root")
                    .arg(&root);
                cmd.args(["mig", "apply", "-c", "c", "-f"]).arg(file);
            }
            Kind::VgpuDm => {
                let host = &self.host;
                let path = format!(
                    "{}:{}",
                    host.dir.path().join("bin").display(),
                    std::env::var("PATH").unwrap_or_default()
                );
                cmd.env("PATH", path)
                    .arg("--sim")
                    .arg(host.dir.path().join("node.toml"))
                    .arg("--state-root")
                    .arg(&root)
                    .args(["vgpu", "apply", "-c", "c", "-f"])
                    .arg(file)
                    .arg("--sysfs-root")
                    .arg(host.root());
            }
            Kind::NodeFile => {
                cmd.arg("--sim")
                    .arg(file)
                    .arg("--sim-state")
                    .arg(self.path("never.json"))
                    .arg("--state-root")
                    .arg(&root)
                    .arg("detect");
            }
            Kind::SimState => {
                cmd.arg("--sim-state")
                    .arg(file)
                    .arg("--state-root")
                    .arg(&root);
                cmd.args(["apply", "-c"]).arg(self.path("good.toml"));
            }
        }
        cmd
    }

    /// Run one case; what went wrong, if anything.
    fn check(&self, case: &Case) -> Vec<String> {
        let file = self.path(&format!("case.{}", case.kind.extension()));
        std::fs::write(&file, &case.bytes).unwrap();
        std::fs::write(self.path("state.json"), &self.base_state).unwrap();
        let _ = std::fs::remove_file(self.path("never.json"));
        let sysfs_before = (case.kind == Kind::VgpuDm).then(|| self.host.digest());
        let outcome = run(self.command(case, &file));
        let mut problems = Vec::new();
        if outcome.timed_out {
            problems.push(format!("still running after {TIMEOUT:?}: a hang"));
        }
        if outcome.code != Some(2) {
            problems.push(format!("exit {:?}, not 2", outcome.code));
        }
        let err = &outcome.stderr;
        if err.contains("internal error") || err.contains("panicked") {
            problems.push("a panic".into());
        }
        if err
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t')
        {
            problems.push("a raw control character on stderr".into());
        }
        if let Some(p) = place_problem(err, &file.display().to_string(), &case.place) {
            problems.push(p);
        }
        if let Some(want) = case.says
            && !err.contains(want)
        {
            problems.push(format!("the message does not say `{want}`"));
        }
        // The node is as it was.
        let state_file = match case.kind {
            Kind::SimState => file.clone(),
            _ => self.path("state.json"),
        };
        let expected = match case.kind {
            Kind::SimState => case.bytes.clone(),
            _ => self.base_state.clone(),
        };
        if std::fs::read(&state_file).ok() != Some(expected) {
            problems.push("the simulator state changed".into());
        }
        if self.path("never.json").exists() {
            problems.push("a node was saved from a bad node file".into());
        }
        if let Some(before) = sysfs_before
            && before != self.host.digest()
        {
            problems.push("the vGPU host's sysfs tree changed".into());
        }
        if !problems.is_empty() {
            let head: Vec<&str> = err.lines().take(4).collect();
            problems.push(format!("stderr: {}", head.join(" | ")));
        }
        problems
    }
}

/// The error line `error: FILE:LINE:COLUMN: …` (or `error: FILE…` for whole-file errors).
fn place_problem(stderr: &str, file: &str, place: &Place) -> Option<String> {
    let Some(line) = stderr
        .lines()
        .find_map(|l| l.strip_prefix("error: "))
        .filter(|l| l.contains(file))
    else {
        return Some(format!("no `error:` line names {file}"));
    };
    let after = line.split_once(file).map_or("", |(_, rest)| rest);
    let position = after.strip_prefix(':').and_then(|rest| {
        let mut parts = rest.splitn(3, ':');
        let l = parts.next()?.parse::<usize>().ok()?;
        let c = parts.next()?.parse::<usize>().ok()?;
        Some((l, c))
    });
    match (place, position) {
        (Place::Whole, _) => None,
        (Place::Somewhere, Some(_)) => None,
        (Place::Line(want), Some((l, _))) if l == *want => None,
        (Place::At(wl, wc), Some((l, c))) if (l, c) == (*wl, *wc) => None,
        (_, got) => Some(format!(
            "the error is placed at {got:?}, expected {place:?}: `{line}`"
        )),
    }
}

/// The files the cases break are valid: each case is one fault, not several.
#[test]
fn the_templates_are_accepted() {
    let fixture = Fixture::new();
    for (kind, text) in cases::templates() {
        let file = fixture.path(&format!("template.{}", kind.extension()));
        std::fs::write(&file, text).unwrap();
        std::fs::write(fixture.path("state.json"), &fixture.base_state).unwrap();
        let mut cmd = gpushare();
        let state = fixture.path("state.json");
        let root = fixture.path("root");
        let host = &fixture.host;
        let allowed: &[i32] = match kind {
            Kind::Toml => {
                cmd.arg("--sim-state")
                    .arg(&state)
                    .arg("--state-root")
                    .arg(&root);
                cmd.args(["plan", "-c"]).arg(&file);
                &[0]
            }
            Kind::MigParted => {
                cmd.arg("--sim-state")
                    .arg(&state)
                    .arg("--state-root")
                    .arg(&root);
                cmd.args(["mig", "assert", "-c", "c", "-f"]).arg(&file);
                &[0, 3]
            }
            Kind::VgpuDm => {
                cmd.arg("--sim")
                    .arg(host.dir.path().join("node.toml"))
                    .arg("--state-root")
                    .arg(&root)
                    .args(["vgpu", "assert", "-c", "c", "-f"])
                    .arg(&file)
                    .arg("--sysfs-root")
                    .arg(host.root());
                &[0, 3]
            }
            Kind::NodeFile => {
                cmd.arg("--sim").arg(&file).arg("detect");
                &[0]
            }
            Kind::SimState => {
                cmd.arg("--sim-state")
                    .arg(&file)
                    .arg("--state-root")
                    .arg(&root);
                cmd.args(["plan", "-c"]).arg(fixture.path("good.toml"));
                &[0]
            }
        };
        let outcome = run(cmd);
        assert!(
            outcome.code.is_some_and(|c| allowed.contains(&c)),
            "{kind:?} template: exit {:?}\n{}",
            outcome.code,
            outcome.stderr
        );
    }
}

#[test]
fn every_hostile_input_is_refused_with_exit_2_and_changes_nothing() {
    let cases = cases::all();
    let count = |k: Kind| cases.iter().filter(|c| c.kind == k).count();
    eprintln!(
        "{} cases: {} gpushare.toml, {} mig-parted, {} vgpu-device-manager, {} node files, {} simulator state",
        cases.len(),
        count(Kind::Toml),
        count(Kind::MigParted),
        count(Kind::VgpuDm),
        count(Kind::NodeFile),
        count(Kind::SimState)
    );
    assert!(cases.len() >= 200);
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..WORKERS {
            s.spawn(|| {
                let fixture = Fixture::new();
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(case) = cases.get(i) else { break };
                    let problems = fixture.check(case);
                    if !problems.is_empty() {
                        failures.lock().unwrap().push(format!(
                            "{:?} `{}`:\n    {}",
                            case.kind,
                            case.name,
                            problems.join("\n    ")
                        ));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
