//! Hostile environments, beside the hostile files of `cases.rs`: FIFOs and links to `/dev/zero`
//! where gpushare reads host, device and sysfs files or a kubeconfig, planted output paths,
//! control characters in arguments, invalid names and references, limits. Each case must end in
//! time, never panic, print no raw control character, exit as the case says and name what it
//! refused; a case that could change the node must leave it as it was.

use super::{Outcome, gpushare, run};
use crate::common;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A FIFO at `path` (its parents made).
pub(super) fn fifo(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let done = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(done.success(), "mkfifo {}", path.display());
}

/// A link to `/dev/zero` at `path`, which never ends.
pub(super) fn zero(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink("/dev/zero", path).unwrap();
}

/// What a case must end with.
pub(super) struct Expect {
    pub codes: &'static [i32],
    /// Said on stdout or stderr.
    pub says: Vec<String>,
}

impl Expect {
    pub(super) fn exit(codes: &'static [i32], says: &[&str]) -> Expect {
        Expect {
            codes,
            says: says.iter().map(|s| s.to_string()).collect(),
        }
    }
}

/// What went wrong with one case, if anything.
pub(super) fn problems(outcome: &Outcome, expect: &Expect) -> Vec<String> {
    let mut problems = Vec::new();
    if outcome.timed_out {
        problems.push("still running at the deadline: a hang".into());
    } else if !outcome.code.is_some_and(|c| expect.codes.contains(&c)) {
        problems.push(format!("exit {:?}, not {:?}", outcome.code, expect.codes));
    }
    let both = format!("{}{}", outcome.stdout, outcome.stderr);
    if both.contains("panicked") || both.contains("internal error") {
        problems.push("a panic".into());
    }
    if both
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t')
    {
        problems.push("a raw control character in the output".into());
    }
    for want in &expect.says {
        if !both.contains(want.as_str()) {
            problems.push(format!("the output does not say `{want}`"));
        }
    }
    if !problems.is_empty() {
        let head: Vec<&str> = outcome.stderr.lines().take(4).collect();
        problems.push(format!("stderr: {}", head.join(" | ")));
    }
    problems
}

/// Run every case; fail with the list of those that went wrong.
pub(super) fn run_all(cases: Vec<(String, Command, Expect)>) {
    let total = cases.len();
    let mut failures = Vec::new();
    for (name, cmd, expect) in cases {
        let p = problems(&run(cmd), &expect);
        if !p.is_empty() {
            failures.push(format!("{name}:\n    {}", p.join("\n    ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {total} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn doctor(root: &Path) -> Command {
    let mut cmd = gpushare();
    cmd.args(["--sim", "dgx-a100", "doctor", "--host-root"])
        .arg(root);
    cmd
}

/// Every host, device and sysfs file gpushare reads goes through one bounded, non-blocking
/// reader: a FIFO there is refused at once, a link to `/dev/zero` too.
#[test]
fn fifos_and_endless_files_where_host_files_are_read_never_hang() {
    let dir = tempfile::tempdir().unwrap();
    let mut cases = Vec::new();
    for (i, file) in [
        "proc/modules",
        "proc/driver/nvidia-caps/mig-minors",
        "etc/containerd/config.toml",
        "etc/containerd/conf.d/99-x.toml",
        "etc/docker/daemon.json",
    ]
    .into_iter()
    .enumerate()
    {
        for (kind, plant) in [("FIFO", fifo as fn(&Path)), ("device", zero)] {
            let root = dir.path().join(format!("host{i}-{kind}"));
            let path = root.join(file);
            plant(&path);
            cases.push((
                format!("doctor, a {kind} at {file}"),
                doctor(&root),
                Expect::exit(&[3], &["host-files", &path.display().to_string(), kind]),
            ));
        }
    }
    // The CDI spec's device tree under --dev-root.
    let state = dir.path().join("mig.json");
    let layout = common::write(
        dir.path(),
        "l.yaml",
        "version: v1\nmig-configs:\n  c:\n    - devices: all\n      mig-enabled: true\n      mig-devices: {\"3g.20gb\": 2}\n",
    );
    let made = gpushare()
        .args(["--sim", "dgx-a100", "--sim-state"])
        .arg(&state)
        .args(["--state-root"])
        .arg(dir.path().join("state"))
        .args(["mig", "apply", "-f"])
        .arg(&layout)
        .output()
        .unwrap();
    assert!(made.status.success());
    let dev_root = |name: &str| -> PathBuf {
        let root = dir.path().join(name);
        let dev = root.join("dev");
        std::fs::create_dir_all(&dev).unwrap();
        for (n, minor) in (0..8)
            .map(|i| (format!("nvidia{i}"), i))
            .chain([("nvidiactl".into(), 255)])
        {
            common::char_device(&dev.join(n), 195, minor);
        }
        root
    };
    let cdi = |root: &Path| {
        let mut cmd = gpushare();
        cmd.args(["--sim", "dgx-a100", "--sim-state"])
            .arg(&state)
            .args(["manifests", "--target", "cdi", "--dev-root"])
            .arg(root);
        cmd
    };
    for (kind, plant) in [("FIFO", fifo as fn(&Path)), ("device", zero)] {
        let root = dev_root(&format!("dev-minors-{kind}"));
        let path = root.join("proc/driver/nvidia-caps/mig-minors");
        plant(&path);
        cases.push((
            format!("manifests --target cdi, a {kind} at mig-minors"),
            cdi(&root),
            Expect::exit(&[1], &[&path.display().to_string(), kind]),
        ));
        let root = dev_root(&format!("dev-info-{kind}"));
        for bus in ["07", "0f", "47", "4e", "87", "90", "b7", "bd"] {
            plant(&root.join(format!(
                "proc/driver/nvidia/gpus/0000:{bus}:00.0/information"
            )));
        }
        let minors = root.join("proc/driver/nvidia-caps/mig-minors");
        std::fs::create_dir_all(minors.parent().unwrap()).unwrap();
        std::fs::write(&minors, "config 1\nmonitor 2\n").unwrap();
        cases.push((
            format!("manifests --target cdi, a {kind} at every GPU's information"),
            cdi(&root),
            Expect::exit(&[1], &["information", kind]),
        ));
    }
    // A vGPU type's files and a device's vendor under --sysfs-root.
    for file in ["name", "description", "available_instances", "vendor"] {
        for (kind, plant) in [("FIFO", fifo as fn(&Path)), ("device", zero)] {
            let host = common::vgpu_host::a100_mdev_host();
            let pf = host.pf(0);
            let device = host.device_dir(&host.vfs(0)[0]);
            let path = if file == "vendor" {
                host.device_dir(&pf).join("vendor")
            } else {
                let types = device.join("mdev_supported_types");
                let first = std::fs::read_dir(&types)
                    .unwrap()
                    .flatten()
                    .map(|e| e.path())
                    .min()
                    .unwrap();
                first.join(file)
            };
            std::fs::remove_file(&path).unwrap();
            plant(&path);
            for args in [["types"], ["status"]] {
                let cmd: assert_cmd::Command = host.vgpu(&args);
                let mut std_cmd = Command::new(cmd.get_program());
                std_cmd.args(cmd.get_args());
                for (k, v) in cmd.get_envs() {
                    match v {
                        Some(v) => std_cmd.env(k, v),
                        None => std_cmd.env_remove(k),
                    };
                }
                cases.push((
                    format!("vgpu {}, a {kind} at {file}", args[0]),
                    std_cmd,
                    Expect::exit(&[1, 2, 3, 4], &[kind]),
                ));
            }
            // The host's tree lives as long as its commands: keep it.
            std::mem::forget(host);
        }
    }
    // A kubeconfig, by flag and by KUBECONFIG.
    for (kind, plant) in [("FIFO", fifo as fn(&Path)), ("device", zero)] {
        let path = dir.path().join(format!("kubeconfig-{kind}"));
        plant(&path);
        let mut by_flag = gpushare();
        by_flag
            .args([
                "agent",
                "--node",
                "n1",
                "--configmap",
                "gpushare/layouts",
                "--kubeconfig",
            ])
            .arg(&path);
        let mut by_env = gpushare();
        by_env.env("KUBECONFIG", &path).args([
            "agent",
            "--node",
            "n1",
            "--configmap",
            "gpushare/layouts",
        ]);
        for (how, cmd) in [("--kubeconfig", by_flag), ("KUBECONFIG", by_env)] {
            cases.push((
                format!("agent, {how} a {kind}"),
                cmd,
                Expect::exit(&[2], &[&path.display().to_string(), kind]),
            ));
        }
    }
    run_all(cases);
}

/// Arguments, environment values and names are quoted escaped in every message, the argument
/// parser's errors included; names and references that land in manifests are validated.
#[test]
fn control_characters_and_invalid_names_in_arguments_are_refused_escaped() {
    let mut cases = Vec::new();
    let mut case = |name: &str, args: &[&str], env: &[(&str, &str)], says: &str| {
        let mut cmd = gpushare();
        cmd.args(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let says: &[&str] = if says.is_empty() { &[] } else { &[says] };
        cases.push((name.to_string(), cmd, Expect::exit(&[2], says)));
    };
    let detect = ["--sim", "t4x4", "detect"];
    case(
        "a bidi override in --gpu",
        &[&detect[..], &["--gpu", "0\u{202e}"]].concat(),
        &[],
        "\\u{202e}",
    );
    case(
        "ESC and BEL in --gpu",
        &[&detect[..], &["--gpu", "\u{1b}]0;PWN\u{7}\u{1b}[2J0"]].concat(),
        &[],
        "\\x1b]0;PWN\\x07",
    );
    case(
        "ESC in --format",
        &["--format", "\u{1b}[2J", "detect"],
        &[],
        "\\x1b[2J",
    );
    case(
        "ESC in a subcommand",
        &["\u{1b}[2Jdetect"],
        &[],
        "\\x1b[2Jdetect",
    );
    for var in ["GPUSHARE_JOBS", "GPUSHARE_LOCK_TIMEOUT"] {
        case(
            &format!("ESC in {var}"),
            &detect,
            &[(var, "\u{1b}[2J")],
            "\\x1b[2J",
        );
    }
    let long_node = "n".repeat(300);
    for (what, value) in [
        ("ESC in", "\u{1b}[2J"),
        ("an upper-case", "Node1"),
        ("an empty", ""),
        ("a 300-character", long_node.as_str()),
    ] {
        let args = [
            "--sim",
            "t4x4",
            "manifests",
            "--target",
            "hami",
            "--node-name",
            value,
        ];
        case(&format!("{what} --node-name"), &args, &[], "DNS-1123");
    }
    let long_image = format!("gpushare=registry.example.com/{}:1", "a".repeat(5000));
    for (what, value) in [
        ("ESC in", "gpushare=\u{1b}[2Jx:1"),
        ("a 5,000-character", long_image.as_str()),
    ] {
        let args = [
            "--sim",
            "t4x4",
            "manifests",
            "--target",
            "agent",
            "--image",
            value,
        ];
        case(
            &format!("{what} --image"),
            &args,
            &[],
            "not an image reference",
        );
    }
    run_all(cases);
}

/// `init` checks every path it will write before its first change: a planted manifests
/// directory or file, gpushare.toml or an installed CDI spec is refused with exit 2 and the
/// path, and the node is not changed. The same rule holds for every directory gpushare writes
/// into: the directory reached is owned by root (or the running user) and writable by no one
/// else.
#[test]
fn planted_output_paths_are_refused_before_any_change() {
    use std::os::unix::fs::{PermissionsExt, symlink};
    let dir = tempfile::tempdir().unwrap();
    let mut cases = Vec::new();
    let mut states = Vec::new();
    let chmod = |p: &Path, mode: u32| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap()
    };
    let foreign = |p: &Path| {
        let done = Command::new("chown").arg("65534").arg(p).status().unwrap();
        assert!(done.success());
    };
    /// What a case plants under its state root.
    type Plant = Box<dyn Fn(&Path)>;
    let plants: Vec<(&str, Plant)> = vec![
        (
            "the manifests directory a link",
            Box::new(|r: &Path| {
                let target = r.join("elsewhere");
                std::fs::create_dir_all(&target).unwrap();
                symlink(&target, r.join("etc/gpushare/manifests")).unwrap();
            }),
        ),
        (
            "the manifests directory a FIFO",
            Box::new(|r: &Path| fifo(&r.join("etc/gpushare/manifests"))),
        ),
        (
            "the manifests directory world-writable",
            Box::new(move |r: &Path| {
                let d = r.join("etc/gpushare/manifests");
                std::fs::create_dir_all(&d).unwrap();
                chmod(&d, 0o777);
            }),
        ),
        (
            "the manifests directory foreign-owned",
            Box::new(move |r: &Path| {
                let d = r.join("etc/gpushare/manifests");
                std::fs::create_dir_all(&d).unwrap();
                foreign(&d);
            }),
        ),
        (
            "/etc/gpushare world-writable",
            Box::new(move |r: &Path| chmod(&r.join("etc/gpushare"), 0o777)),
        ),
        (
            "a manifest file a FIFO",
            Box::new(|r: &Path| fifo(&r.join("etc/gpushare/manifests/00-gpushare-namespace.yaml"))),
        ),
        (
            "a manifest file a link",
            Box::new(|r: &Path| {
                let d = r.join("etc/gpushare/manifests");
                std::fs::create_dir_all(&d).unwrap();
                symlink("/etc/passwd", d.join("NOTES.txt")).unwrap();
            }),
        ),
        (
            "gpushare.toml a FIFO",
            Box::new(|r: &Path| fifo(&r.join("etc/gpushare/gpushare.toml"))),
        ),
        (
            "gpushare.toml a link",
            Box::new(|r: &Path| {
                symlink("/etc/passwd", r.join("etc/gpushare/gpushare.toml")).unwrap()
            }),
        ),
        (
            "the installed CDI spec a link",
            Box::new(|r: &Path| {
                std::fs::create_dir_all(r.join("etc/cdi")).unwrap();
                symlink("/etc/passwd", r.join("etc/cdi/nvidia.yaml")).unwrap();
            }),
        ),
        (
            "the CDI directory world-writable",
            Box::new(move |r: &Path| {
                let d = r.join("etc/cdi");
                std::fs::create_dir_all(&d).unwrap();
                std::fs::write(d.join("nvidia.yaml"), "cdiVersion: 0.6.0\n").unwrap();
                chmod(&d, 0o777);
            }),
        ),
        (
            "the CDI directory a link to a world-writable one",
            Box::new(move |r: &Path| {
                let d = r.join("open");
                std::fs::create_dir_all(&d).unwrap();
                std::fs::write(d.join("nvidia.yaml"), "cdiVersion: 0.6.0\n").unwrap();
                chmod(&d, 0o777);
                symlink(&d, r.join("etc/cdi")).unwrap();
            }),
        ),
    ];
    for (i, (name, plant)) in plants.iter().enumerate() {
        let root = dir.path().join(format!("root{i}"));
        std::fs::create_dir_all(root.join("etc/gpushare")).unwrap();
        std::fs::set_permissions(
            root.join("etc/gpushare"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        plant(&root);
        let state = dir.path().join(format!("node{i}.json"));
        let mut made = gpushare();
        made.args(["--sim", "dgx-a100", "--sim-state"])
            .arg(&state)
            .arg("detect");
        assert!(made.output().unwrap().status.success());
        let mut cmd = gpushare();
        cmd.args(["--sim", "dgx-a100", "--sim-state"])
            .arg(&state)
            .arg("--state-root")
            .arg(&root)
            .args([
                "init",
                "--mode",
                "mig",
                "--profile",
                "1g.5gb",
                "--yes",
                "--no-probe",
            ]);
        cases.push((
            format!("init, {name}"),
            cmd,
            Expect::exit(&[2], &["nothing was changed"]),
        ));
        states.push((
            name.to_string(),
            state.clone(),
            std::fs::read(&state).unwrap(),
        ));
    }
    // Writes outside init follow the same directory rule.
    let open = dir.path().join("open-out");
    std::fs::create_dir_all(&open).unwrap();
    chmod(&open, 0o777);
    let mut out = gpushare();
    out.args(["--sim", "t4x4", "manifests", "--target", "hami", "--out"])
        .arg(&open);
    cases.push((
        "manifests --out a world-writable directory".into(),
        out,
        Expect::exit(&[1], &["writable by other users"]),
    ));
    let root = dir.path().join("cdi-install");
    std::fs::create_dir_all(root.join("etc")).unwrap();
    foreign(&root.join("etc"));
    std::fs::create_dir_all(root.join("etc/cdi")).unwrap();
    foreign(&root.join("etc/cdi"));
    let mut install = gpushare();
    install
        .args(["--sim", "t4x4", "--state-root"])
        .arg(&root)
        .args(["manifests", "--target", "cdi", "--install"]);
    cases.push((
        "manifests --install into a foreign-owned /etc/cdi".into(),
        install,
        Expect::exit(&[1], &["owned by uid 65534"]),
    ));
    run_all(cases);
    for (name, state, before) in states {
        assert_eq!(
            std::fs::read(&state).unwrap(),
            before,
            "{name}: the node changed"
        );
    }
}

/// Bad input is found before the environment: the file before the vGPU host is looked for, and
/// a planted lock gets a hint a root user can follow.
#[test]
fn bad_input_is_reported_before_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let mut cases = Vec::new();
    let input = dir.path().join("layout.yaml");
    fifo(&input);
    let empty = dir.path().join("sysfs");
    std::fs::create_dir_all(&empty).unwrap();
    for command in ["apply", "assert"] {
        let mut cmd = gpushare();
        cmd.args(["--sim", "t4x4", "--state-root"])
            .arg(dir.path().join("state"))
            .args(["vgpu", command, "-f"])
            .arg(&input)
            .arg("--sysfs-root")
            .arg(&empty);
        cases.push((
            format!("vgpu {command} -f FIFO on a node without vGPU"),
            cmd,
            Expect::exit(&[2], &["FIFO"]),
        ));
    }
    let root = dir.path().join("planted");
    std::fs::create_dir_all(root.join("run/gpushare")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", root.join("run/gpushare/lock")).unwrap();
    let layout = common::write(
        dir.path(),
        "none.toml",
        "[[gpus]]\nselect = \"all\"\nmode = \"none\"\n",
    );
    let mut cmd = gpushare();
    cmd.args(["--sim", "t4x4", "--state-root"])
        .arg(&root)
        .args(["apply", "-c"])
        .arg(&layout);
    cases.push((
        "a link planted at the lock".into(),
        cmd,
        Expect::exit(&[1], &["hint: remove", "symbolic link"]),
    ));
    run_all(cases);
    let err = run({
        let mut cmd = gpushare();
        cmd.args(["--sim", "t4x4", "--state-root"])
            .arg(&root)
            .args(["apply", "-c"])
            .arg(&layout);
        cmd
    })
    .stderr;
    assert!(!err.contains("run as root"), "{err}");
}

/// A valid file within the input limit is read, however many labels it has: the YAML reader's
/// limits are for files that expand without end, not for large plain ones.
#[test]
fn a_valid_ten_megabyte_mig_parted_file_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("version: v1\nmig-configs:\n");
    for i in 0..60_000 {
        text.push_str(&format!(
            "  label-{i:05}:\n    - device-filter: [\"0x20B010DE\", \"0x20B210DE\"]\n      devices: all\n      mig-enabled: true\n      mig-devices:\n        \"1g.5gb\": 7\n        \"2g.10gb\": 0\n"
        ));
    }
    assert!(text.len() > 10_000_000, "{} bytes", text.len());
    let file = common::write(dir.path(), "big.yaml", &text);
    let outcome = run({
        let mut cmd = gpushare();
        cmd.args([
            "--sim",
            "dgx-a100",
            "mig",
            "assert",
            "-c",
            "label-59999",
            "-f",
        ])
        .arg(&file);
        cmd
    });
    // The node does not have the label yet: exit 3, with what it needs.
    let p = problems(&outcome, &Expect::exit(&[3], &["label label-59999"]));
    assert!(p.is_empty(), "{}", p.join("\n"));
}

/// A hook that never returns and a GPU-clients list of thousands: the apply ends in time, with
/// the timeout or the bound named.
#[test]
fn hooks_that_never_return_and_endless_client_lists_end_in_time() {
    let dir = tempfile::tempdir().unwrap();
    let layout = common::write(
        dir.path(),
        "l.yaml",
        "version: v1\nmig-configs:\n  c:\n    - devices: all\n      mig-enabled: false\n",
    );
    let hooks = common::write(
        dir.path(),
        "hooks.yaml",
        "version: v1\nhooks:\n  apply-start:\n  - command: /bin/sh\n    args: [\"-c\", \"sleep 1000\"]\n",
    );
    let units: String = (0..5000).map(|i| format!("  - u{i}.service\n")).collect();
    let clients = common::write(
        dir.path(),
        "gpu-clients.yaml",
        &format!("version: v1\nsystemd-services:\n{units}"),
    );
    let apply = |extra: &[&std::ffi::OsStr]| {
        let mut cmd = gpushare();
        cmd.args(["--sim", "dgx-a100", "--state-root"])
            .arg(dir.path().join("state"))
            .args(["mig", "apply", "-c", "c", "-f"])
            .arg(&layout)
            .args(extra);
        cmd
    };
    run_all(vec![
        (
            "a hook that never returns".into(),
            apply(&[
                "--hooks-file".as_ref(),
                hooks.as_os_str(),
                "--hooks-timeout".as_ref(),
                "1".as_ref(),
            ]),
            Expect::exit(&[1], &["did not finish within 1s"]),
        ),
        (
            "5,000 GPU clients".into(),
            apply(&["--gpu-clients-file".as_ref(), clients.as_os_str()]),
            Expect::exit(&[2], &["gpu-clients.yaml:67:5", "more than 64"]),
        ),
    ]);
}
