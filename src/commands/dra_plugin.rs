//! `gpushare dra-plugin`: gpushare's DRA kubelet plugin (see `crate::dra_plugin`).

use crate::Context;
use crate::cli::DraPluginArgs;
use crate::dra_plugin::{self, Settings};
use crate::error::{Error, Exit, Result};
use crate::k8s::cdi::DeviceSource;
use std::path::PathBuf;

/// A path flag made absolute: the claims' specs name host paths.
fn absolute(flag: &str, path: &Option<PathBuf>) -> Result<Option<PathBuf>> {
    path.as_deref()
        .map(|p| {
            std::path::absolute(p).map_err(|e| Error::usage(format!("{flag} {}: {e}", p.display())))
        })
        .transpose()
}

pub(super) fn run(ctx: &mut Context, args: &DraPluginArgs) -> Result<Exit> {
    let devices = DeviceSource {
        root: absolute("--dev-root", &args.dev_root)?,
        driver_root: absolute("--driver-root", &args.driver_root)?,
        hook: absolute("--nvidia-cdi-hook-path", &args.nvidia_cdi_hook_path)?,
        before_apply: false,
    };
    dra_plugin::run(
        ctx,
        Settings {
            node: args.node_name.clone(),
            kubeconfig: args.kubeconfig.clone(),
            registry_dir: args.registry_dir.clone(),
            plugin_dir: args.plugin_dir.clone(),
            cdi_root: args.cdi_root.clone(),
            devices,
            watch_health: args.watch_health,
            sysfs_root: args.sysfs.sysfs_root.clone(),
        },
    )
}
