//! Exports every NVML entry point go-nvml binds (`go-nvml-entry-points.txt`) that the sources do
//! not implement, as a stub (`src/unimplemented.rs`): NVIDIA's programs resolve each symbol when
//! they first call it, so a missing one would end them with a loader error that names nothing
//! the tests can act on.

use std::collections::BTreeSet;
use std::path::Path;

fn implemented(dir: &Path, names: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable").flatten() {
        let path = entry.path();
        if path.is_dir() {
            implemented(&path, names);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("a source file is readable");
            for rest in text.split("extern \"C\" fn ").skip(1) {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if name.starts_with("nvml") {
                    names.insert(name);
                }
            }
        }
    }
}

fn main() {
    println!("cargo::rerun-if-changed=go-nvml-entry-points.txt");
    println!("cargo::rerun-if-changed=src");
    let list = std::fs::read_to_string("go-nvml-entry-points.txt").expect("the entry-point list");
    let mut done = BTreeSet::new();
    implemented(Path::new("src"), &mut done);
    let stubs: Vec<&str> = list
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter(|name| !done.contains(*name))
        .collect();
    let out = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("stubs.rs");
    std::fs::write(out, format!("stubs! {{ {} }}\n", stubs.join(", ")))
        .expect("OUT_DIR is writable");
}
