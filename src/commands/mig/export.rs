//! `gpushare mig export`: the node's MIG layout as a mig-parted v1 config.

use crate::commands::cli::MigExportArgs;
use crate::node::Context;
use crate::sharing::mig::export::{export, unrepresentable};
use crate::support::error::{Exit, Result};
use crate::support::output::Format;

pub(super) fn run(ctx: &mut Context, args: &MigExportArgs) -> Result<Exit> {
    let node = ctx.snapshot()?;
    for w in unrepresentable(&node) {
        ctx.out.warn(w);
    }
    let spec = export(&node, &args.label)?;
    // A config is data in any format; "table" prints it as the YAML mig-parted reads.
    if ctx.out.format == Format::Table {
        let yaml = crate::support::output::to_safe_yaml(&spec)?;
        ctx.out.stdout(&yaml)?;
    } else {
        ctx.out.data(&spec, |_| String::new())?;
    }
    Ok(Exit::Ok)
}
