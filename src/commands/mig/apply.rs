//! `gpushare mig apply` and `gpushare mig assert`.

use super::super::changing::{self, Changing};
use crate::change::hooks::FlagValues;
use crate::change::pipeline::converge::plan_only;
use crate::change::pipeline::desired::DesiredSource;
use crate::change::plan::PlanOptions;
use crate::commands::cli::{MigApplyArgs, MigFileArgs};
use crate::node::Context;
use crate::sharing::mig::config_file::MigConfigFile;
use crate::support::error::{Error, Exit, Result};
use std::path::Path;

/// The MIG-only desired state of `-f FILE [-c LABEL]`.
fn source(args: &MigFileArgs) -> Result<DesiredSource> {
    let file = MigConfigFile::load(&args.file)?;
    let label = args.label.as_deref();
    Ok(match file {
        MigConfigFile::MigParted(file) => {
            let label = file.select(label)?.label.clone();
            DesiredSource::MigParted { file, label }
        }
        MigConfigFile::Gpushare(config) => {
            if let Some(l) = label {
                return Err(Error::usage(format!(
                    "-c {l} selects a mig-parted label, but {} is a gpushare.toml",
                    config.source.path.display()
                ))
                .with_hint("drop -c: a gpushare.toml has no labels"));
            }
            DesiredSource::MigOf(config)
        }
    })
}

pub(super) fn apply(ctx: &mut Context, args: &MigApplyArgs) -> Result<Exit> {
    let source = source(&args.file)?;
    let flags = FlagValues {
        config_file: args.file.file.display().to_string(),
        selected_config: match &source {
            DesiredSource::MigParted { label, .. } => label.clone(),
            _ => String::new(),
        },
        hooks_file: String::new(),
        skip_reset: args.skip_reset,
        mode_only: args.mode_only,
    };
    let clients_and_hooks = changing::clients_and_hooks(&ctx.out, &args.clients_and_hooks, flags)?;
    changing::run(
        ctx,
        source,
        &Changing {
            command: "mig apply",
            sysfs_root: Path::new("/"),
            options: PlanOptions {
                force: args.force,
                mode_only: args.mode_only,
                skip_reset: args.skip_reset,
            },
            dry_run: args.dry_run,
            clients_and_hooks,
        },
    )
}

/// Exit 0 when nothing would change, 3 otherwise (with the differences).
pub(super) fn assert(ctx: &mut Context, args: &MigFileArgs) -> Result<Exit> {
    let (desired, plan) = plan_only(ctx, source(args)?, Path::new("/"), PlanOptions::default())?;
    ctx.out.data(&plan, |out| plan.render(out))?;
    if plan.is_converged() {
        ctx.out.note(format!("the node has {}", desired.what));
        return Ok(Exit::Ok);
    }
    Err(Error::new(
        Exit::Differs,
        format!(
            "selected configuration not currently applied: {} needs {} change(s) on {}",
            desired.what,
            plan.changes.len(),
            plan.scope()
        ),
    )
    .with_hint(format!(
        "apply it with `gpushare mig apply -f {}{}`",
        args.file.display(),
        args.label
            .as_deref()
            .map(|l| format!(" -c {l}"))
            .unwrap_or_default()
    )))
}
