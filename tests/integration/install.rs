//! install.sh into a temporary prefix, the installed binary runs, re-running is safe, and
//! --uninstall removes everything it installed.

use crate::common;
use common::repo;
use std::os::unix::fs::PermissionsExt;
use std::process::Command;

fn install(args: &[&str], prefix: &std::path::Path) -> std::process::Output {
    Command::new("bash")
        .arg(repo().join("install.sh"))
        .arg("--prefix")
        .arg(prefix)
        .arg("--binary")
        .arg(env!("CARGO_BIN_EXE_gpushare"))
        .args(args)
        .output()
        .unwrap()
}

const FILES: [&str; 7] = [
    "bin/gpushare",
    "share/bash-completion/completions/gpushare",
    "share/zsh/site-functions/_gpushare",
    "share/fish/vendor_completions.d/gpushare.fish",
    "share/man/man1/gpushare.1",
    "share/man/man1/gpushare-init.1",
    "share/man/man1/gpushare-mig-apply.1",
];

#[test]
fn installs_runs_reinstalls_and_uninstalls() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("prefix");
    for _ in 0..2 {
        let out = install(&[], &prefix);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for f in FILES {
            assert!(prefix.join(f).is_file(), "{f} not installed");
        }
    }
    let mode = std::fs::metadata(prefix.join("bin/gpushare"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o755);
    let version = Command::new(prefix.join("bin/gpushare"))
        .arg("--version")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&version.stdout).starts_with("gpushare "));
    let page = std::fs::read_to_string(prefix.join("share/man/man1/gpushare.1")).unwrap();
    assert!(page.contains(".TH gpushare 1"));

    let out = install(&["--uninstall"], &prefix);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for f in FILES {
        assert!(!prefix.join(f).exists(), "{f} left behind");
    }
}

#[test]
fn bad_options_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = install(&["--frobnicate"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let out = Command::new("bash")
        .arg(repo().join("install.sh"))
        .args(["--prefix"])
        .arg(dir.path())
        .args(["--binary", "/no/such/gpushare"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
