//! `gpushare controller`: MIG on demand for the cluster (see `crate::cluster::controller`).

use crate::cluster::controller::{self, Options};
use crate::commands::cli::ControllerArgs;
use crate::node::Context;
use crate::support::error::{Exit, Result};

pub(super) fn run(ctx: &mut Context, args: &ControllerArgs) -> Result<Exit> {
    controller::run(
        ctx,
        &Options {
            kubeconfig: args.kubeconfig.clone(),
            namespace: args.namespace.clone(),
            lease: args.lease.clone(),
            id: args.id.clone(),
            lease_seconds: args.lease_seconds,
            interval_ms: args.interval_ms,
            max_reshaping: args.max_reshaping,
            cooldown: args.cooldown,
            give_back_after: args.give_back_after,
            health_addr: args.health_addr,
        },
    )
}
