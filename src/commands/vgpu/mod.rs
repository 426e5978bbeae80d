//! `gpushare vgpu …`: vGPU types, devices and layouts on a KVM host with the NVIDIA vGPU Manager.

mod change;
mod show;

use crate::commands::cli::VgpuCommand;
use crate::node::Context;
use crate::node::model::Node;
use crate::node::model::selector::GpuSelector;
use crate::sharing::vgpu::host::Host;
use crate::support::error::{Error, Exit, Result};

pub(super) fn run(ctx: &mut Context, cmd: &VgpuCommand) -> Result<Exit> {
    match cmd {
        VgpuCommand::Types(args) => show::types(ctx, args),
        VgpuCommand::Status(args) => show::status(ctx, args),
        VgpuCommand::Apply(args) => change::apply(ctx, args),
        VgpuCommand::Assert(args) => change::assert(ctx, args),
        VgpuCommand::Clear(args) => change::clear(ctx, args),
    }
}

/// Keep the vGPU GPUs that `--gpu` selects on the node.
fn select(mut host: Host, selector: &GpuSelector, node: &Node) -> Result<Host> {
    if *selector == GpuSelector::All {
        return Ok(host);
    }
    let chosen = selector.resolve(node)?;
    host.gpus
        .retain(|g| g.index.is_some_and(|i| chosen.contains(&i)));
    if host.gpus.is_empty() {
        return Err(Error::usage("none of the selected GPUs carries vGPUs")
            .with_hint("`gpushare vgpu types` lists the GPUs that do"));
    }
    Ok(host)
}

/// A warning when a VM could hold a device unseen.
fn warn_in_use_unknown(ctx: &Context, host: &Host) {
    if !host.in_use_known {
        ctx.out.warn(
            "cannot read every process's open files: a VM may use a device that shows no user (run as root)",
        );
    }
}
