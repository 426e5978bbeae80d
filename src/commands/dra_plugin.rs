//! `gpushare dra-plugin`: gpushare's DRA kubelet plugin (see `crate::cluster::dra_plugin`).

use crate::cluster::dra_plugin::{self, Settings};
use crate::commands::cli::DraPluginArgs;
use crate::node::Context;
use crate::support::error::{Exit, Result};

pub(super) fn run(ctx: &mut Context, args: &DraPluginArgs) -> Result<Exit> {
    let devices = super::manifests::device_source(&args.cdi_source)?;
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
            evict_on_fatal: args.evict_on_fatal,
            sysfs_root: args.sysfs.sysfs_root.clone(),
            config: args.config.clone(),
        },
    )
}
