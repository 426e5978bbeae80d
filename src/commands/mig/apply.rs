//! `gpushare mig apply` and `gpushare mig assert`.

use super::{observe, plan_and_run};
use crate::Context;
use crate::cli::{MigApplyArgs, MigFileArgs};
use crate::error::{Error, Exit, Result};
use crate::mig::planner::{self, PlanOptions};
use crate::mig::source::DesiredFile;

pub fn apply(ctx: &mut Context, args: &MigApplyArgs) -> Result<Exit> {
    let file = DesiredFile::load(&args.file.file)?;
    let label = args.file.label.as_deref();
    let (node, book) = observe(ctx)?;
    let desires = file.desires(label, &node, &book, &ctx.out)?;
    let options = PlanOptions { force: args.force };
    let what = file.describe(label);
    let mut again =
        |ctx: &mut Context, node: &crate::node::Node, book: &crate::mig::layout::ProfileBook| {
            file.desires(label, node, book, &ctx.out)
        };
    plan_and_run(
        ctx,
        &node,
        &desires,
        options,
        args.dry_run,
        &what,
        &mut again,
    )
}

/// Exit 0 when nothing would change, 3 otherwise (with the differences).
pub fn assert(ctx: &mut Context, args: &MigFileArgs) -> Result<Exit> {
    let file = DesiredFile::load(&args.file)?;
    let label = args.label.as_deref();
    let (node, book) = observe(ctx)?;
    let desires = file.desires(label, &node, &book, &ctx.out)?;
    let plan = planner::plan(&node, &desires, PlanOptions::default());
    ctx.out.data(&plan, |out| plan.render(out))?;
    let what = file.describe(label);
    if plan.is_converged() {
        ctx.out.note(format!("the node has {what}"));
        return Ok(Exit::Ok);
    }
    Err(Error::new(
        Exit::Differs,
        format!(
            "selected configuration not currently applied: {what} needs {} change(s) on GPU(s) {}",
            plan.changes.len(),
            plan.gpus()
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    )
    .with_hint(format!(
        "apply it with `gpushare mig apply -f {}{}`",
        args.file.display(),
        label.map(|l| format!(" -c {l}")).unwrap_or_default()
    )))
}
