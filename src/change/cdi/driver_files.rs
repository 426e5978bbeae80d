//! The driver's user-space files a container needs besides device nodes, as nvidia-ctk mounts
//! them: its libraries (every `*.so.<driver version>` in the library directories), tools, GSP
//! firmware, Vulkan ICD files and the persistenced and fabric-manager sockets, read-only
//! (`rbind,rprivate`). The libraries' SONAME links (`libcuda.so.1`) are the container's to make
//! (nvidia-cdi-hook's `create-symlinks`, see [`super::hooks`]); without a hook they are mounted
//! as the files they name, so the container still finds the libraries.

use super::spec::Mount;
use crate::support::error::{Error, Result};
use crate::support::fsutil::in_root::{InRoot, utf8_name};
use crate::support::fsutil::own::kind_of;
use std::collections::HashSet;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

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

fn refused(e: std::io::Error) -> Error {
    Error::failed(format!("the driver root: {e}")).with_hint(
        "a driver file must resolve inside the driver root to a file of its kind (--driver-root)",
    )
}

/// `inner` under the root: `None` when absent, its real path when it is of the kind `is`
/// accepts (`kind` names it), an error naming it otherwise.
fn expect(
    root: &InRoot,
    inner: &str,
    kind: &str,
    is: fn(&std::fs::FileType) -> bool,
) -> Result<Option<PathBuf>> {
    let Some(found) = root.find(inner).map_err(refused)? else {
        return Ok(None);
    };
    if !is(&found.meta.file_type()) {
        return Err(Error::failed(format!(
            "the driver root: {} is {}, not {kind}",
            root.path().join(inner.trim_start_matches('/')).display(),
            kind_of(&found.meta)
        )));
    }
    Ok(Some(found.path))
}

fn is_file(t: &std::fs::FileType) -> bool {
    t.is_file()
}

fn is_socket(t: &std::fs::FileType) -> bool {
    t.is_socket()
}

/// The files of `driver_version` under `root`; `links_made` when a hook makes the SONAME links
/// (they are then not mounted). Every path is resolved inside the root and mounted from where it
/// resolved; what resolves to nothing or to the wrong kind of file is refused, naming it.
pub(super) fn find(root: &InRoot, driver_version: &str, links_made: bool) -> Result<DriverFiles> {
    let suffix = format!(".so.{driver_version}");
    let mut out = DriverFiles::default();
    for dir in LIB_DIRS {
        let Some((host_dir, entries)) = root.list(dir).map_err(refused)? else {
            continue;
        };
        // A set, so that matching the links to the libraries stays linear in the directory.
        let mut libs: HashSet<&str> = HashSet::new();
        for name in &entries {
            if name.as_bytes().ends_with(suffix.as_bytes()) {
                libs.insert(utf8_name(&host_dir, name).map_err(refused)?);
            }
        }
        if libs.is_empty() {
            continue;
        }
        out.lib_dirs.push(dir.to_string());
        for name in &entries {
            let inner = |name: &str| format!("{dir}/{name}");
            if let Some(lib) = name.to_str().filter(|n| libs.contains(n)) {
                let host =
                    expect(root, &inner(lib), "a regular file", is_file)?.ok_or_else(|| {
                        refused(std::io::Error::other(format!("{} vanished", inner(lib))))
                    })?;
                out.mounts.push(mount(&host, &inner(lib), &READ_ONLY));
                continue;
            }
            // A SONAME link (libcuda.so.1 → libcuda.so.<version>): only its target's name is read.
            let Some(target) = std::fs::read_link(host_dir.join(name)).ok().and_then(|t| {
                let file = t.file_name()?.to_str()?;
                libs.contains(file).then(|| file.to_string())
            }) else {
                continue;
            };
            let name = utf8_name(&host_dir, name).map_err(refused)?;
            if links_made {
                out.links.push((target, inner(name)));
            } else if let Some(host) = expect(root, &inner(name), "a regular file", is_file)? {
                out.mounts.push(mount(&host, &inner(name), &READ_ONLY));
            }
        }
        // The development link CUDA applications open: libcuda.so → libcuda.so.1.
        if links_made && entries.iter().any(|n| n == "libcuda.so.1") {
            out.links
                .push(("libcuda.so.1".into(), format!("{dir}/libcuda.so")));
        }
    }
    for bin in BINARIES {
        let container = format!("/usr/bin/{bin}");
        if let Some(host) = expect(root, &container, "a regular file", is_file)? {
            out.mounts.push(mount(&host, &container, &READ_ONLY));
        }
    }
    let firmware = format!("/lib/firmware/nvidia/{driver_version}");
    if let Some((host_dir, blobs)) = root.list(&firmware).map_err(refused)? {
        for blob in &blobs {
            if !blob.as_bytes().ends_with(b".bin") {
                continue;
            }
            let container = format!(
                "{firmware}/{}",
                utf8_name(&host_dir, blob).map_err(refused)?
            );
            if let Some(host) = expect(root, &container, "a regular file", is_file)? {
                out.mounts.push(mount(&host, &container, &READ_ONLY));
            }
        }
    }
    for file in ICD_FILES {
        if let Some(host) = expect(root, file, "a regular file", is_file)? {
            out.mounts.push(mount(&host, file, &READ_ONLY));
        }
    }
    for socket in SOCKETS {
        if let Some(host) = expect(root, socket, "a socket", is_socket)? {
            out.mounts.push(mount(&host, socket, &SOCKET));
        }
    }
    Ok(out)
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
        std::os::unix::net::UnixListener::bind(root.join("run/nvidia-persistenced/socket"))
            .unwrap();
    }

    #[test]
    fn finds_libraries_tools_firmware_icd_and_sockets() {
        let root = tempfile::tempdir().unwrap();
        driver(root.path());
        let found = find(&InRoot::open(root.path()).unwrap(), "580.105.08", true).unwrap();
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
        let found = find(&InRoot::open(root.path()).unwrap(), "580.105.08", false).unwrap();
        assert!(found.links.is_empty());
        assert!(
            found
                .mounts
                .iter()
                .any(|m| m.container_path == "/usr/lib/x86_64-linux-gnu/libcuda.so.1")
        );
    }
}
