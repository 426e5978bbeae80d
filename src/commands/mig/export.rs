//! `gpushare mig export`: the node's MIG layout as a mig-parted v1 config.

use crate::Context;
use crate::cli::MigExportArgs;
use crate::error::{Exit, Result};
use crate::mig::export::{export, unrepresentable};
use crate::output::Format;

pub(super) fn run(ctx: &mut Context, args: &MigExportArgs) -> Result<Exit> {
    let node = ctx.snapshot()?;
    for w in unrepresentable(&node) {
        ctx.out.warn(w);
    }
    let spec = export(&node, &args.label)?;
    // A config is data in any format; "table" prints it as the YAML mig-parted reads.
    if ctx.out.format == Format::Table {
        let yaml = crate::output::to_safe_yaml(&spec)?;
        ctx.out.stdout(&yaml)?;
    } else {
        ctx.out.data(&spec, |_| String::new())?;
    }
    Ok(Exit::Ok)
}
