//! The one snapshot check of the tests: committed output that must match what the binary makes.
//! `GPUSHARE_BLESS=1` rewrites the snapshots instead of comparing (then review and commit them).

use std::path::Path;

/// The variable that rewrites snapshots.
pub const BLESS: &str = "GPUSHARE_BLESS";

/// Compare `actual` with the committed file `path` (relative to the repository), or rewrite it
/// under `GPUSHARE_BLESS=1`. `test` names the test module for the hint.
pub fn check(path: &str, actual: &[u8], test: &str) {
    let file = super::repo().join(path);
    if std::env::var_os(BLESS).is_some() {
        write(&file, actual);
        return;
    }
    let committed = std::fs::read(&file).unwrap_or_default();
    assert!(
        committed == actual,
        "{path} differs from the output:\n{}\nrun `{BLESS}=1 cargo test --test integration {test}::` if the change is right, and commit it",
        String::from_utf8_lossy(actual)
    );
}

fn write(file: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(file.parent().expect("a file in a directory")).unwrap();
    std::fs::write(file, bytes).unwrap();
}
