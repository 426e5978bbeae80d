//! The driver's user-space files a container needs besides device nodes: its libraries (every
//! `*.so.<driver version>` in the library directories, with their SONAME links) and tools, as
//! read-only bind mounts, as nvidia-ctk mounts them.

use super::spec::Mount;
use std::path::Path;

const LIB_DIRS: [&str; 6] = [
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/lib/x86_64-linux-gnu",
    "/lib64",
    "/usr/lib",
];

const BINARIES: [&str; 5] = [
    "nvidia-smi",
    "nvidia-debugdump",
    "nvidia-persistenced",
    "nvidia-cuda-mps-control",
    "nvidia-cuda-mps-server",
];

fn bind(host: &Path, container: &str) -> Mount {
    Mount {
        host_path: host.display().to_string(),
        container_path: container.to_string(),
        options: ["ro", "nosuid", "nodev", "bind"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
    }
}

/// Mounts of the driver files of `driver_version` found under `root`.
pub(super) fn mounts(root: &Path, driver_version: &str) -> Vec<Mount> {
    let suffix = format!(".so.{driver_version}");
    let mut out = Vec::new();
    for dir in LIB_DIRS {
        let host_dir = root.join(dir.trim_start_matches('/'));
        let Ok(entries) = std::fs::read_dir(&host_dir) else {
            continue;
        };
        let mut names: Vec<String> = entries
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        let libs: Vec<&String> = names.iter().filter(|n| n.ends_with(&suffix)).collect();
        for name in &names {
            let path = host_dir.join(name);
            let is_lib = libs.contains(&name);
            // A SONAME link (libcuda.so.1 → libcuda.so.<version>) is mounted as the file it
            // names, so the container finds the library without running ldconfig.
            let is_link_to_lib = !is_lib
                && std::fs::read_link(&path).is_ok_and(|t| {
                    t.file_name()
                        .is_some_and(|f| libs.iter().any(|l| f.to_string_lossy() == l.as_str()))
                });
            if is_lib || is_link_to_lib {
                out.push(bind(&path, &format!("{dir}/{name}")));
            }
        }
    }
    for bin in BINARIES {
        let container = format!("/usr/bin/{bin}");
        let host = root.join(container.trim_start_matches('/'));
        if host.is_file() {
            out.push(bind(&host, &container));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_versioned_libraries_their_links_and_tools() {
        let root = tempfile::tempdir().unwrap();
        let lib = root.path().join("usr/lib/x86_64-linux-gnu");
        std::fs::create_dir_all(&lib).unwrap();
        std::fs::create_dir_all(root.path().join("usr/bin")).unwrap();
        std::fs::write(lib.join("libcuda.so.580.105.08"), "").unwrap();
        std::fs::write(lib.join("libnvidia-ml.so.580.105.08"), "").unwrap();
        std::fs::write(lib.join("libc.so.6"), "").unwrap();
        std::fs::write(lib.join("libcuda.so.570.1"), "").unwrap();
        std::os::unix::fs::symlink("libcuda.so.580.105.08", lib.join("libcuda.so.1")).unwrap();
        std::fs::write(root.path().join("usr/bin/nvidia-smi"), "").unwrap();
        let m = mounts(root.path(), "580.105.08");
        let paths: Vec<&str> = m.iter().map(|m| m.container_path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
                "/usr/lib/x86_64-linux-gnu/libcuda.so.580.105.08",
                "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.105.08",
                "/usr/bin/nvidia-smi"
            ]
        );
        assert!(
            m[0].host_path
                .starts_with(&root.path().display().to_string())
        );
        assert_eq!(m[0].options, ["ro", "nosuid", "nodev", "bind"]);
    }
}
