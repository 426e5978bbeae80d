//! The OCI hooks NVIDIA's specs run through `nvidia-cdi-hook`, for the same effect in the
//! container: the SONAME links made (`create-symlinks`), the CUDA forward-compatibility libraries
//! used when the container's are newer than the driver (`enable-cuda-compat`), the loader's cache
//! updated so the driver libraries are found (`update-ldcache`), and the driver kept from
//! changing device nodes in the container (`disable-device-node-modification`). Graphics hooks
//! (`update-application-profile`, the GBM links) are left out: gpushare mounts no graphics
//! libraries.

use super::driver_files::DriverFiles;
use super::spec::Hook;
use std::path::Path;

/// Where nvidia-ctk looks for the hook, and where the toolkit installs it.
pub(crate) const DEFAULT_PATH: &str = "/usr/bin/nvidia-cdi-hook";

fn hook(path: &Path, args: &[String]) -> Hook {
    Hook {
        hook_name: "createContainer".into(),
        path: path.display().to_string(),
        args: std::iter::once("nvidia-cdi-hook".to_string())
            .chain(args.iter().cloned())
            .collect(),
    }
}

/// The hooks for `files` of `driver_version`, run by the program at `path` on the host.
pub(super) fn for_files(path: &Path, files: &DriverFiles, driver_version: &str) -> Vec<Hook> {
    let mut hooks = Vec::new();
    if !files.links.is_empty() {
        let mut args = vec!["create-symlinks".to_string()];
        for (target, link) in &files.links {
            args.push("--link".into());
            args.push(format!("{target}::{link}"));
        }
        hooks.push(hook(path, &args));
    }
    hooks.push(hook(
        path,
        &[
            "enable-cuda-compat".into(),
            format!("--host-driver-version={driver_version}"),
        ],
    ));
    if !files.lib_dirs.is_empty() {
        let mut args = vec!["update-ldcache".to_string()];
        for dir in &files.lib_dirs {
            args.push("--folder".into());
            args.push(dir.clone());
        }
        hooks.push(hook(path, &args));
    }
    hooks.push(hook(path, &["disable-device-node-modification".into()]));
    hooks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hooks_nvidia_ctk_writes_for_the_same_files() {
        let files = DriverFiles {
            mounts: vec![],
            links: vec![
                (
                    "libnvidia-ml.so.580.105.08".into(),
                    "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1".into(),
                ),
                (
                    "libcuda.so.1".into(),
                    "/usr/lib/x86_64-linux-gnu/libcuda.so".into(),
                ),
            ],
            lib_dirs: vec!["/usr/lib/x86_64-linux-gnu".into()],
        };
        let hooks = for_files(Path::new("/opt/hook"), &files, "580.105.08");
        let args: Vec<String> = hooks.iter().map(|h| h.args.join(" ")).collect();
        assert_eq!(
            args,
            [
                "nvidia-cdi-hook create-symlinks --link libnvidia-ml.so.580.105.08::/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 --link libcuda.so.1::/usr/lib/x86_64-linux-gnu/libcuda.so",
                "nvidia-cdi-hook enable-cuda-compat --host-driver-version=580.105.08",
                "nvidia-cdi-hook update-ldcache --folder /usr/lib/x86_64-linux-gnu",
                "nvidia-cdi-hook disable-device-node-modification",
            ]
        );
        assert!(
            hooks
                .iter()
                .all(|h| h.hook_name == "createContainer" && h.path == "/opt/hook")
        );
    }
}
