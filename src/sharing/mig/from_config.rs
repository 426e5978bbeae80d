//! MIG layouts from `gpushare.toml`.
//!
//! - `mode = "mig"`: MIG on, with `mig.devices` (profile → count) and `mig.instances` (explicit
//!   placements) on every selected GPU;
//! - `mode = "none"`: MIG off;
//! - `mode = "mps"` and `mode = "time-slicing"` share the whole GPU, which needs MIG off (with MIG
//!   on, CUDA and the device plugin only see MIG devices): MIG is turned off there too, so that
//!   `mig apply` and the full `apply` agree on the MIG mode of every GPU;
//! - `mode = "vgpu"`: left alone: MIG-backed vGPU types need MIG on, time-sliced ones need it off,
//!   and the vGPU configuration decides.
//!
//! A GPU matched by no entry is left untouched.

use super::layout::{
    GpuDesire, MigLayout, Problem, ProfileBook, Profiles, WantedInstance, check_feasible, resolve,
};
use crate::node::config::AssignedConfig;
use crate::node::config::{Assignment, Config, GpuEntry, Mode};
use crate::node::model::{Gpu, Node};
use crate::support::error::{Error, Result};
use std::ops::Range;
use toml::Spanned;

/// The MIG wish of every GPU the file covers.
pub(crate) fn desires(
    config: &AssignedConfig,
    node: &Node,
    book: &ProfileBook,
) -> Result<Vec<GpuDesire>> {
    let assignments = config.assignments();
    check_entries_reach_mig(config, node, &assignments)?;
    let mut desires = Vec::new();
    for a in &assignments {
        let Some(gpu) = node.gpu(a.gpu) else { continue };
        let entry = a.entry.get_ref();
        let mode = *entry.mode.get_ref();
        let origin = origin(config, a.entry.span());
        if mode != Mode::Vgpu && gpu.mig.capable {
            // Everything is planned from the instances as they are: with MIG on they must be
            // known (an unknown layout is an error, never "no instances").
            gpu.mig_instances()?;
        }
        let (layout, reason) = match mode {
            Mode::Vgpu => continue,
            Mode::None => (MigLayout::Disabled, None),
            Mode::Mps | Mode::TimeSlicing => (
                MigLayout::Disabled,
                Some(format!(
                    "mode = \"{}\" shares the whole GPU ({origin})",
                    mode.as_str()
                )),
            ),
            // Every GPU a MIG entry selects can do MIG (checked above).
            Mode::Mig => (wanted(config, gpu, book, entry)?, None),
        };
        if !gpu.mig.capable {
            // MIG off on a GPU without MIG: nothing to do.
            continue;
        }
        let profiles = match &layout {
            MigLayout::Enabled(_) | MigLayout::Dynamic => {
                book.known(gpu)?.unwrap_or_default().to_vec()
            }
            MigLayout::Disabled | MigLayout::EnabledLater { .. } => Vec::new(),
        };
        desires.push(GpuDesire {
            gpu: gpu.index,
            layout,
            profiles,
            origin,
            reason,
        });
    }
    Ok(desires)
}

fn origin(config: &Config, span: Range<usize>) -> String {
    let (line, _) = crate::support::error::line_col(&config.source.text, span.start);
    format!("{}:{line}", config.source.path.display())
}

fn problem(config: &Config, span: Range<usize>, p: Problem) -> Error {
    let e = config.error_at(span, p.message);
    match p.hint {
        Some(h) => e.with_hint(h),
        None => e,
    }
}

/// A `mode = "mig"` entry may select only MIG-capable GPUs: one without MIG is a demand the node
/// cannot meet (as mig-parted's `assert` says of `mig-enabled: true` there), also under `"all"`.
fn check_entries_reach_mig(
    config: &Config,
    node: &Node,
    assignments: &[Assignment<'_>],
) -> Result<()> {
    for a in assignments {
        let e = a.entry.get_ref();
        if *e.mode.get_ref() != Mode::Mig {
            continue;
        }
        if let Some(gpu) = node.gpu(a.gpu).filter(|g| !g.mig.capable) {
            return Err(problem(
                config,
                e.select.span(),
                super::layout::not_capable(gpu),
            ));
        }
    }
    Ok(())
}

/// The layout an entry asks for on one GPU: `mig.devices` counts, then `mig.instances`.
fn wanted(config: &Config, gpu: &Gpu, book: &ProfileBook, entry: &GpuEntry) -> Result<MigLayout> {
    let Some(mig) = &entry.mig else {
        return Ok(MigLayout::Enabled(Vec::new()));
    };
    if mig.get_ref().dynamic.as_ref().is_some_and(|d| *d.get_ref()) {
        return Ok(MigLayout::Dynamic);
    }
    let section_span = mig.span();
    let mig = mig.get_ref();
    let profiles = match book.of(gpu)? {
        Profiles::Known(list) => list,
        Profiles::UntilEnabled(why) => {
            let mut names = Vec::new();
            for (name, count) in &mig.devices {
                names.extend((0..*count.get_ref()).map(|_| name.get_ref().clone()));
            }
            names.extend(
                mig.instances
                    .iter()
                    .map(|i| i.get_ref().profile.get_ref().clone()),
            );
            if names.is_empty() {
                return Ok(MigLayout::Enabled(Vec::new()));
            }
            return Ok(MigLayout::EnabledLater {
                wanted: names,
                why: why.to_string(),
            });
        }
    };
    let mut out = Vec::new();
    for (name, count) in &mig.devices {
        let (profile, compute) =
            resolve(gpu, profiles, name.get_ref()).map_err(|p| problem(config, name.span(), p))?;
        check_count(
            config,
            count,
            &profiles[profile].name,
            profiles[profile].max_instances,
        )?;
        for _ in 0..*count.get_ref() {
            out.push(WantedInstance {
                profile,
                compute: compute.clone(),
                start: None,
            });
        }
    }
    for inst in &mig.instances {
        let i = inst.get_ref();
        let (profile, compute) = resolve(gpu, profiles, i.profile.get_ref())
            .map_err(|p| problem(config, i.profile.span(), p))?;
        let p = &profiles[profile];
        if let Some(start) = &i.start
            && !p.starts.contains(start.get_ref())
        {
            return Err(config
                .error_at(
                    start.span(),
                    format!(
                        "start = {}: GPU {} ({}) places {} only at memory slice {}",
                        start.get_ref(),
                        gpu.index,
                        gpu.name,
                        p.name,
                        join_or(&p.starts)
                    ),
                )
                .with_hint(format!(
                    "placements of {}: {}",
                    p.name,
                    super::solver::placements_text(p)
                )));
        }
        out.push(WantedInstance {
            profile,
            compute,
            start: i.start.as_ref().map(|s| *s.get_ref()),
        });
    }
    check_feasible(gpu, profiles, &out).map_err(|p| problem(config, section_span, p))?;
    Ok(MigLayout::Enabled(out))
}

fn check_count(config: &Config, count: &Spanned<u32>, name: &str, max: u32) -> Result<()> {
    if *count.get_ref() > max {
        return Err(config
            .error_at(
                count.span(),
                format!("{name} = {}: a GPU holds at most {max}", count.get_ref()),
            )
            .with_hint(format!("use a count from 0 to {max}")));
    }
    Ok(())
}

/// `0, 2 or 4`.
fn join_or(list: &[u32]) -> String {
    let items: Vec<String> = list.iter().map(u32::to_string).collect();
    match items.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => items.join(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::backend::Backend;
    use crate::node::backend::sim::SimBackend;
    use crate::node::model::Node;
    use crate::support::source_file::SourceFile;

    fn desires_for(preset: &str, text: &str) -> Result<Vec<GpuDesire>> {
        let sim = SimBackend::from_preset(preset).unwrap();
        let node = sim.snapshot().unwrap();
        let book = ProfileBook::load(&sim, &node);
        let config = Config::parse(SourceFile::inline("gpushare.toml", text))?;
        desires(&AssignedConfig::new(config, &node)?, &node, &book)
    }

    fn err(preset: &str, text: &str) -> Error {
        desires_for(preset, text).expect_err("should fail")
    }

    #[test]
    fn mig_none_and_whole_gpu_modes() {
        let d = desires_for(
            "mixed",
            "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"3g.40gb\" = 1, \"2c.3g.40gb\" = 1 }\n\
             [[gpus]]\nselect = [1]\nmode = \"mps\"\nmps.clients = 2\n\
             [[gpus]]\nselect = [2, 3]\nmode = \"time-slicing\"\ntime_slicing.replicas = 4\n",
        )
        .unwrap();
        // T4s have no MIG: nothing to do for them.
        assert_eq!(d.len(), 2);
        let MigLayout::Enabled(list) = &d[0].layout else {
            panic!()
        };
        assert_eq!(list.len(), 2);
        assert_eq!(d[0].origin, "gpushare.toml:1");
        assert_eq!(d[1].layout, MigLayout::Disabled);
        assert!(
            d[1].reason
                .as_deref()
                .unwrap()
                .contains("mode = \"mps\" shares the whole GPU")
        );
    }

    /// The desires of `text` on dgx-a100 where the driver answered `answer` for GPU 0's profiles
    /// and `node` was changed by `edit`.
    fn desires_with(
        answer: crate::node::backend::DriverResult<crate::node::backend::MigProfiles>,
        edit: impl FnOnce(&mut Node),
        text: &str,
    ) -> Result<Vec<GpuDesire>> {
        let sim = SimBackend::from_preset("dgx-a100").unwrap();
        let mut node = sim.snapshot().unwrap();
        let mut book = ProfileBook::load(&sim, &node);
        book.set(0, answer);
        edit(&mut node);
        let config = Config::parse(SourceFile::inline("gpushare.toml", text))?;
        desires(&AssignedConfig::new(config, &node)?, &node, &book)
    }

    fn refused() -> crate::node::backend::DriverResult<crate::node::backend::MigProfiles> {
        Err(crate::node::backend::DriverError::new(
            crate::node::backend::DriverErrorKind::NoPermission,
            "GPU 0: nvmlDeviceGetGpuInstanceProfileInfo (profile 0)",
        ))
    }

    #[test]
    fn whole_gpu_modes_need_no_mig_profiles() {
        // The driver refuses the profiles (or lists them only once MIG is on): time-slicing, MPS,
        // none and MIG with no devices still plan.
        for text in [
            "[[gpus]]\nselect = \"all\"\nmode = \"time-slicing\"\ntime_slicing.replicas = 2\n",
            "[[gpus]]\nselect = \"all\"\nmode = \"none\"\n",
            "[[gpus]]\nselect = \"all\"\nmode = \"mps\"\nmps.clients = 2\n",
        ] {
            let d = desires_with(refused(), |_| {}, text).unwrap();
            assert_eq!(d.len(), 8, "{text}");
            assert!(
                d.iter()
                    .all(|d| d.layout == MigLayout::Disabled && d.profiles.is_empty())
            );
        }
        let until = crate::node::backend::MigProfiles::UntilEnabled {
            why: "the catalog does not know it".into(),
        };
        let d = desires_with(
            Ok(until.clone()),
            |_| {},
            "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = {}\n",
        )
        .unwrap();
        assert_eq!(d[0].layout, MigLayout::Enabled(Vec::new()));
        // Devices on a GPU whose profiles are known only once MIG is on wait for it.
        let d = desires_with(
            Ok(until),
            |_| {},
            "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 2 }\nmig.instances = [{ profile = \"3g.20gb\" }]\n",
        )
        .unwrap();
        let MigLayout::EnabledLater { wanted, why } = &d[0].layout else {
            panic!("{:?}", d[0].layout)
        };
        assert_eq!(wanted, &["1g.5gb", "1g.5gb", "3g.20gb"]);
        assert!(why.contains("catalog does not know"), "{why}");
        // Refused profiles where devices need them: exit 1, naming the call and the GPU.
        let e = desires_with(
            refused(),
            |_| {},
            "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 2 }\n",
        )
        .unwrap_err();
        assert_eq!(e.exit, crate::support::error::Exit::Failed);
        assert!(
            e.message.contains("GPU 0")
                && e.message.contains("nvmlDeviceGetGpuInstanceProfileInfo"),
            "{}",
            e.message
        );
        assert_eq!(e.hint.as_deref(), Some("run the command as root"));
    }

    #[test]
    fn an_unknown_mig_layout_is_an_error_for_every_mode_that_touches_the_gpu() {
        let unknown = |node: &mut Node| {
            let gpu = &mut node.gpus[1];
            gpu.mig.current = crate::node::model::MigMode::Enabled;
            gpu.mig.instances = None;
            gpu.notes.push(crate::node::model::GpuNote {
                field: "mig.instances".into(),
                message: "nvmlDeviceGetGpuInstances (Insufficient Permissions)".into(),
                needs_root: true,
            });
        };
        for mode in [
            "mode = \"time-slicing\"\ntime_slicing.replicas = 2",
            "mode = \"none\"",
            "mode = \"mig\"\nmig.devices = {}",
        ] {
            let text = format!("[[gpus]]\nselect = \"all\"\n{mode}\n");
            let e = desires_with(Ok(listed_a100()), unknown, &text).unwrap_err();
            assert_eq!(e.exit, crate::support::error::Exit::Failed, "{mode}");
            assert_eq!(
                e.message,
                "GPU 1 (NVIDIA A100-SXM4-40GB): its MIG layout is unknown: nvmlDeviceGetGpuInstances (Insufficient Permissions)"
            );
        }
        // A file that leaves that GPU alone plans the others.
        let d = desires_with(
            Ok(listed_a100()),
            unknown,
            "[[gpus]]\nselect = [0, 2]\nmode = \"none\"\n",
        )
        .unwrap();
        assert_eq!(d.len(), 2);
    }

    fn listed_a100() -> crate::node::backend::MigProfiles {
        let sim = SimBackend::from_preset("dgx-a100").unwrap();
        sim.gpu_instance_profiles(0).unwrap()
    }

    #[test]
    fn explicit_placements_are_pinned() {
        let d = desires_for(
            "dgx-a100",
            "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.instances = [{ profile = \"3g.20gb\", start = 4 }, { profile = \"1g.5gb\" }]\n",
        )
        .unwrap();
        assert_eq!(d.len(), 8);
        let MigLayout::Enabled(list) = &d[3].layout else {
            panic!()
        };
        assert_eq!(list[0].start, Some(4));
        assert_eq!(list[1].start, None);
    }

    #[test]
    fn bad_layouts_name_the_place_in_the_file() {
        let e = err(
            "dgx-a100",
            "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"1g.10gb+me\" = 1 }\n",
        );
        assert_eq!(e.exit, crate::support::error::Exit::Usage);
        assert!(
            e.message.starts_with(
                "gpushare.toml:4:17: GPU 0 (NVIDIA A100-SXM4-40GB) has no MIG profile `1g.10gb+me`"
            ),
            "{}",
            e.message
        );
        assert!(e.hint.unwrap().contains("1g.5gb+me"));
        let e = err(
            "dgx-a100",
            "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 8 }\n",
        );
        assert!(
            e.message
                .contains("gpushare.toml:4:28: 1g.5gb = 8: a GPU holds at most 7"),
            "{}",
            e.message
        );
        let e = err(
            "dgx-a100",
            "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"3g.20gb\" = 2, \"1g.5gb\" = 1 }\n",
        );
        assert!(
            e.message.contains(
                "no MIG layout fits: 3g.20gb ×2 fills all 8 memory slices; 1g.5gb needs one more"
            ),
            "{}",
            e.message
        );
        assert!(e.message.starts_with("gpushare.toml:4:1:"), "{}", e.message);
        let e = err(
            "dgx-a100",
            "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.instances = [{ profile = \"3g.20gb\", start = 2 }]\n",
        );
        assert!(e.message.contains("start = 2: GPU 0 (NVIDIA A100-SXM4-40GB) places 3g.20gb only at memory slice 0 or 4"), "{}", e.message);
        let e = err(
            "mixed",
            "[[gpus]]\nselect = [2]\nmode = \"mig\"\nmig.devices = {}\n",
        );
        assert!(
            e.message
                .contains("cannot set MIG mode on non MIG-capable GPU"),
            "{}",
            e.message
        );
        let e = err(
            "t4x4",
            "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = {}\n",
        );
        assert!(e.message.contains("non MIG-capable"), "{}", e.message);
        // "all" on a mixed node selects its T4s too: the file asks what they cannot do.
        let e = err(
            "mixed",
            "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"7g.80gb\" = 1 }\n",
        );
        assert!(
            e.message
                .starts_with("gpushare.toml:2:10: GPU 2 (Tesla T4): cannot set MIG mode"),
            "{}",
            e.message
        );
        // A filter that selects the MIG GPUs alone is the way to say it.
        let d = desires_for(
            "mixed",
            "[[gpus]]\nselect = { model = \"*A100*\" }\nmode = \"mig\"\nmig.devices = { \"7g.80gb\" = 1 }\n",
        )
        .unwrap();
        assert_eq!(d.len(), 2);
    }
}
