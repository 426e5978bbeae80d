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
fn man_page_is_current() {
    check(&["man"], "man/gpushare.1");
    let page = std::fs::read_to_string(repo().join("man/gpushare.1")).unwrap();
    assert!(page.contains(".TH gpushare 1"));
}
