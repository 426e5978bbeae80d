//! The driver's user-space files a container needs besides device nodes, as nvidia-ctk mounts
//! them: its libraries (every `*.so.<driver version>` in the library directories), tools, GSP
//! firmware, Vulkan ICD files and the persistenced and fabric-manager sockets, read-only
//! (`rbind,rprivate`). The libraries' SONAME links (`libcuda.so.1`) are the container's to make
//! (nvidia-cdi-hook's `create-symlinks`, see [`super::hooks`]); without a hook they are mounted
//! as the files they name, so the container still finds the libraries.

use super::spec::Mount;
use std::path::Path;

/// Where libraries are looked for, as nvidia-ctk looks (the first that has them is used).
const LIB_DIRS: [&str; 6] = [
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/lib/x86_64-linux-gnu",
    "/lib64",
    "/usr/lib",
];

const BINARIES: [&str; 7] = [
    "nvidia-smi",
    "nvidia-debugdump",
    "nvidia-persistenced",
    "nvidia-cuda-mps-control",
    "nvidia-cuda-mps-server",
    "nvidia-imex",
    "nvidia-imex-ctl",
];

/// Vulkan's installable client driver descriptions.
const ICD_FILES: [&str; 2] = [
    "/etc/vulkan/icd.d/nvidia_icd.json",
    "/usr/share/vulkan/icd.d/nvidia_icd.json",
];

/// The daemons' sockets a container talks to (never executed from).
const SOCKETS: [&str; 2] = [
    "/run/nvidia-persistenced/socket",
    "/run/nvidia-fabricmanager/socket",
];

const READ_ONLY: [&str; 5] = ["ro", "nosuid", "nodev", "rbind", "rprivate"];
const SOCKET: [&str; 5] = ["nosuid", "nodev", "rbind", "rprivate", "noexec"];

/// The driver's files under a root.
#[derive(Debug, Default)]
pub(super) struct DriverFiles {
    pub mounts: Vec<Mount>,
    /// SONAME links to make in the container: (what the link names, the link's path).
    pub links: Vec<(String, String)>,
    /// The library directories that hold the driver's libraries (container paths).
    pub lib_dirs: Vec<String>,
}

fn mount(host: &Path, container: &str, options: &[&str]) -> Mount {
    Mount {
        host_path: host.display().to_string(),
        container_path: container.to_string(),
        options: options.iter().map(|s| s.to_string()).collect(),
    }
}

/// The files of `driver_version` under `root`; `links_made` when a hook makes the SONAME links
/// (they are then not mounted).
pub(super) fn find(root: &Path, driver_version: &str, links_made: bool) -> DriverFiles {
    let suffix = format!(".so.{driver_version}");
    let mut out = DriverFiles::default();
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
        if libs.is_empty() {
            continue;
        }
        out.lib_dirs.push(dir.to_string());
        for name in &names {
            let path = host_dir.join(name);
            if libs.contains(&name) {
                out.mounts
                    .push(mount(&path, &format!("{dir}/{name}"), &READ_ONLY));
                continue;
            }
            // A SONAME link (libcuda.so.1 → libcuda.so.<version>).
            let Some(target) = std::fs::read_link(&path).ok().and_then(|t| {
                let file = t.file_name()?.to_string_lossy().into_owned();
                libs.iter().any(|l| **l == file).then_some(file)
            }) else {
                continue;
            };
            if links_made {
                out.links.push((target, format!("{dir}/{name}")));
            } else {
                out.mounts
                    .push(mount(&path, &format!("{dir}/{name}"), &READ_ONLY));
            }
        }
        // The development link CUDA applications open: libcuda.so → libcuda.so.1.
        if links_made && names.iter().any(|n| n == "libcuda.so.1") {
            out.links
                .push(("libcuda.so.1".into(), format!("{dir}/libcuda.so")));
        }
    }
    for bin in BINARIES {
        let container = format!("/usr/bin/{bin}");
        let host = root.join(container.trim_start_matches('/'));
        if host.is_file() {
            out.mounts.push(mount(&host, &container, &READ_ONLY));
        }
    }
    let firmware = format!("/lib/firmware/nvidia/{driver_version}");
    if let Ok(entries) = std::fs::read_dir(root.join(firmware.trim_start_matches('/'))) {
        let mut blobs: Vec<String> = entries
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".bin"))
            .collect();
        blobs.sort();
        for blob in blobs {
            let container = format!("{firmware}/{blob}");
            out.mounts.push(mount(
                &root.join(container.trim_start_matches('/')),
                &container,
                &READ_ONLY,
            ));
        }
    }
    for file in ICD_FILES {
        let host = root.join(file.trim_start_matches('/'));
        if host.is_file() {
            out.mounts.push(mount(&host, file, &READ_ONLY));
        }
    }
    for socket in SOCKETS {
        let host = root.join(socket.trim_start_matches('/'));
        if host.exists() {
            out.mounts.push(mount(&host, socket, &SOCKET));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn driver(root: &Path) {
        let lib = root.join("usr/lib/x86_64-linux-gnu");
        std::fs::create_dir_all(&lib).unwrap();
        std::fs::create_dir_all(root.join("usr/bin")).unwrap();
        std::fs::create_dir_all(root.join("lib/firmware/nvidia/580.105.08")).unwrap();
        std::fs::create_dir_all(root.join("etc/vulkan/icd.d")).unwrap();
        std::fs::create_dir_all(root.join("run/nvidia-persistenced")).unwrap();
        std::fs::write(lib.join("libcuda.so.580.105.08"), "").unwrap();
        std::fs::write(lib.join("libnvidia-ml.so.580.105.08"), "").unwrap();
        std::fs::write(lib.join("libc.so.6"), "").unwrap();
        std::fs::write(lib.join("libcuda.so.570.1"), "").unwrap();
        std::os::unix::fs::symlink("libcuda.so.580.105.08", lib.join("libcuda.so.1")).unwrap();
        std::fs::write(root.join("usr/bin/nvidia-smi"), "").unwrap();
        std::fs::write(
            root.join("lib/firmware/nvidia/580.105.08/gsp_ga10x.bin"),
            "",
        )
        .unwrap();
        std::fs::write(root.join("etc/vulkan/icd.d/nvidia_icd.json"), "{}").unwrap();
        std::fs::write(root.join("run/nvidia-persistenced/socket"), "").unwrap();
    }

    #[test]
    fn finds_libraries_tools_firmware_icd_and_sockets() {
        let root = tempfile::tempdir().unwrap();
        driver(root.path());
        let found = find(root.path(), "580.105.08", true);
        let paths: Vec<&str> = found
            .mounts
            .iter()
            .map(|m| m.container_path.as_str())
            .collect();
        assert_eq!(
            paths,
            [
                "/usr/lib/x86_64-linux-gnu/libcuda.so.580.105.08",
                "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.105.08",
                "/usr/bin/nvidia-smi",
                "/lib/firmware/nvidia/580.105.08/gsp_ga10x.bin",
                "/etc/vulkan/icd.d/nvidia_icd.json",
                "/run/nvidia-persistenced/socket",
            ]
        );
        assert!(
            found.mounts[0]
                .host_path
                .starts_with(&root.path().display().to_string())
        );
        assert_eq!(found.mounts[0].options, READ_ONLY);
        assert_eq!(found.mounts[5].options, SOCKET);
        assert_eq!(
            found.links,
            [
                (
                    "libcuda.so.580.105.08".to_string(),
                    "/usr/lib/x86_64-linux-gnu/libcuda.so.1".to_string()
                ),
                (
                    "libcuda.so.1".to_string(),
                    "/usr/lib/x86_64-linux-gnu/libcuda.so".to_string()
                ),
            ]
        );
        assert_eq!(found.lib_dirs, ["/usr/lib/x86_64-linux-gnu"]);
    }

    #[test]
    fn without_a_hook_the_links_are_mounted() {
        let root = tempfile::tempdir().unwrap();
        driver(root.path());
        let found = find(root.path(), "580.105.08", false);
        assert!(found.links.is_empty());
        assert!(
            found
                .mounts
                .iter()
                .any(|m| m.container_path == "/usr/lib/x86_64-linux-gnu/libcuda.so.1")
        );
    }
}
