//! `gpushare agent`: the node agent (see `crate::cluster::agent`).

use crate::cluster::agent::{self, Options};
use crate::commands::cli::AgentArgs;
use crate::node::Context;
use crate::support::error::{Exit, Result};

pub(super) fn run(ctx: &mut Context, args: &AgentArgs) -> Result<Exit> {
    agent::run(
        ctx,
        &Options {
            node: args.node.clone(),
            configmap: args.configmap.clone(),
            kubeconfig: args.kubeconfig.clone(),
            health_addr: args.health_addr,
            pause_timeout: args.pause_timeout,
            retry: args.retry,
            host_root: args.host_root.clone(),
            kubelet_cgroup_root: args.kubelet_cgroup_root.clone(),
            publish_every: args.publish_every,
            reset_unhealthy_gpus: args.reset_unhealthy_gpus,
            sysfs_root: args.sysfs.sysfs_root.clone(),
        },
    )
}
