//! `gpushare mig profiles`: what each MIG-capable GPU can be partitioned into.

use crate::commands::cli::MigProfilesArgs;
use crate::node::Context;
use crate::node::backend::{MigProfiles, ProfileOrigin};
use crate::node::model::Placement;
use crate::sharing::mig::solver::format_placements;
use crate::support::error::{Exit, Result};
use crate::support::output::{Output, Style, table};
use serde::Serialize;

#[derive(Serialize)]
struct GpuProfiles {
    gpu: u32,
    name: String,
    mig_enabled: bool,
    /// `driver`, or `catalog` while MIG is off and the driver does not list them; `null` when
    /// nothing lists them until MIG is on (`profiles` is then `null` too).
    source: Option<&'static str>,
    /// `null`: known only once MIG is on (see `unknown_until_enabled`).
    profiles: Option<Vec<ProfileRow>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    unknown_until_enabled: Option<String>,
}

#[derive(Serialize)]
struct ProfileRow {
    name: String,
    profile_id: u32,
    slices: u32,
    memory_mib: u64,
    max_instances: u32,
    /// How many more fit now (0 while MIG is disabled).
    free_instances: u32,
    placements: Vec<Placement>,
}

pub(super) fn run(ctx: &mut Context, args: &MigProfilesArgs) -> Result<Exit> {
    let node = ctx.snapshot()?;
    let selected = args.gpu.resolve(&node)?;
    let mut rows = Vec::new();
    for gpu in node.gpus.iter().filter(|g| selected.contains(&g.index)) {
        if !gpu.mig.capable {
            ctx.out
                .note(format!("GPU {} ({}) has no MIG", gpu.index, gpu.name));
            continue;
        }
        // A query the driver refuses is an error, never a list with nothing free.
        let listed = ctx.backend()?.gpu_instance_profiles(gpu.index)?;
        let (source, profiles, unknown_until_enabled) = match listed {
            MigProfiles::Listed { profiles, source } => (
                Some(match source {
                    ProfileOrigin::Driver => "driver",
                    ProfileOrigin::Catalog => "catalog",
                }),
                Some(profiles),
                None,
            ),
            MigProfiles::UntilEnabled { why } => (None, None, Some(why)),
        };
        rows.push(GpuProfiles {
            gpu: gpu.index,
            name: gpu.name.clone(),
            mig_enabled: gpu.mig.current.is_enabled(),
            source,
            profiles: profiles.map(|list| {
                list.into_iter()
                    .map(|c| ProfileRow {
                        placements: c.profile.placements().collect(),
                        name: c.profile.name,
                        profile_id: c.profile.id,
                        slices: c.profile.slices,
                        memory_mib: c.profile.memory_mib,
                        max_instances: c.profile.max_instances,
                        free_instances: c.free_instances,
                    })
                    .collect()
            }),
            unknown_until_enabled,
        });
    }
    ctx.out.data(&rows, |out| render(out, &rows))?;
    Ok(Exit::Ok)
}

fn render(out: &Output, gpus: &[GpuProfiles]) -> String {
    let mut s = String::new();
    for g in gpus {
        if !s.is_empty() {
            s.push('\n');
        }
        let state = if g.mig_enabled {
            "MIG enabled"
        } else {
            "MIG disabled: nothing is free until it is enabled"
        };
        let from = match g.source {
            Some("catalog") => "; profiles from the catalog: the driver lists them once MIG is on",
            _ => "",
        };
        s.push_str(&format!(
            "GPU {}  {}  ({state}{from})\n",
            g.gpu,
            out.paint(Style::Bold, &g.name)
        ));
        let Some(profiles) = &g.profiles else {
            s.push_str(&format!(
                "profiles unknown until MIG is enabled: {}\n",
                g.unknown_until_enabled.as_deref().unwrap_or_default()
            ));
            continue;
        };
        let rows = profiles
            .iter()
            .map(|p| {
                let starts: Vec<u32> = p.placements.iter().map(|pl| pl.start).collect();
                let size = p.placements.first().map_or(0, |pl| pl.size);
                vec![
                    p.name.clone(),
                    p.profile_id.to_string(),
                    p.slices.to_string(),
                    format!("{} MiB", p.memory_mib),
                    p.max_instances.to_string(),
                    p.free_instances.to_string(),
                    format_placements(&starts, size),
                ]
            })
            .collect();
        s.push_str(&table(
            &[
                "PROFILE",
                "ID",
                "SLICES",
                "MEMORY",
                "MAX",
                "FREE",
                "PLACEMENTS",
            ],
            rows,
        ));
    }
    s
}
