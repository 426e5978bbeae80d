//! The committed completions and man page must match what the binary generates.
//! Run with GPUSHARE_BLESS=1 to rewrite them after changing the command line.

use crate::common;
use common::*;

fn check(args: &[&str], path: &str) {
    let out = gpushare().args(args).output().unwrap();
    assert!(out.status.success());
    snapshot::check(path, &out.stdout, "generated");
}

#[test]
fn completions_are_current() {
    check(&["completions", "bash"], "completions/gpushare.bash");
    check(&["completions", "zsh"], "completions/_gpushare");
    check(&["completions", "fish"], "completions/gpushare.fish");
    check(&["completions", "elvish"], "completions/gpushare.elv");
    check(&["completions", "powershell"], "completions/_gpushare.ps1");
}

#[test]
fn man_pages_are_current() {
    check(&["man"], "man/gpushare.1");
    let page = std::fs::read_to_string(repo().join("man/gpushare.1")).unwrap();
    assert!(page.contains(".TH gpushare 1"));
    // A page per command, each with the exit codes.
    let dir = tempfile::tempdir().unwrap();
    gpushare()
        .args(["man", "--dir"])
        .arg(dir.path())
        .assert()
        .success();
    let mut written: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    for name in &written {
        let text = std::fs::read(dir.path().join(name)).unwrap();
        snapshot::check(&format!("man/{name}"), &text, "generated");
    }
    let mut committed: Vec<String> = std::fs::read_dir(repo().join("man"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    committed.sort();
    assert_eq!(committed, written, "man/ holds exactly the generated pages");
    let init = std::fs::read_to_string(repo().join("man/gpushare-init.1")).unwrap();
    assert!(init.contains(".TH gpushare-init 1"), "{init}");
    assert!(init.contains(".SH \"EXIT STATUS\""), "{init}");
    assert!(init.contains("A reboot is required to finish."), "{init}");
}

#[test]
fn each_commands_help_lists_its_own_options_before_the_global_ones() {
    let out = gpushare().args(["init", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    let own = help.find("\nOptions:").expect("its own options");
    let global = help.find("\nGlobal options:").expect("the global options");
    assert!(own < global, "{help}");
    assert!(help[own..global].contains("--mode"), "{help}");
    assert!(help[global..].contains("--sim"), "{help}");
    assert!(!help[own..global].contains("--state-root <DIR>"), "{help}");
}
