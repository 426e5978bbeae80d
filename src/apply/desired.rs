//! The whole `gpushare.toml`, checked against the node before anything changes: the GPUs it
//! selects exist and are covered once, every MIG layout resolves and fits, MPS limits fit the
//! devices (also MIG devices not created yet), vGPU types exist on the host, Kubernetes targets
//! are known. Errors name the file, line and column (exit 2).
//!
//! A label of a mig-parted config is a layout too ([`Source::MigParted`]): MIG only, on the GPUs
//! the label covers, with mig-parted's semantics; MPS, time-slicing and vGPU are left alone.

use crate::Context;
use crate::config::{Assignment, Config, Mode};
use crate::error::Result;
use crate::k8s::Target;
use crate::mig::from_config;
use crate::mig::layout::{GpuDesire, MigLayout, ProfileBook};
use crate::mig::mig_parted::MigPartedConfig;
use crate::node::Node;
use crate::output::Output;
use crate::source_file::SourceFile;
use crate::vgpu;

/// Where a layout comes from.
#[derive(Debug, Clone)]
pub enum Source {
    /// A gpushare.toml: every mode.
    Gpushare(Config),
    /// One label of a mig-parted v1 config: MIG only.
    MigParted {
        file: MigPartedConfig,
        label: String,
    },
}

impl Source {
    /// What the layout is called in messages: the file, or `label L of FILE`.
    pub fn describe(&self) -> String {
        match self {
            Source::Gpushare(c) => c.source.path.display().to_string(),
            Source::MigParted { file, label } => {
                format!("label {label} of {}", file.source.path.display())
            }
        }
    }
}

/// A checked file and what it asks of each mode.
#[derive(Debug, Clone)]
pub struct Desired {
    pub config: Config,
    /// The MIG layout of every MIG-capable GPU the file covers (vGPU entries excepted).
    pub mig: Vec<GpuDesire>,
    /// The vGPU layout; no GPUs when the file has no `mode = "vgpu"` entry.
    pub vgpu: vgpu::desired::Desired,
    /// The file asks for MPS somewhere (`mode = "mps"`, or `mig.mps`).
    pub wants_mps: bool,
    /// The mig-parted config and label the MIG layouts come from, when the layout is one.
    pub mig_parted: Option<(MigPartedConfig, String)>,
}

impl Desired {
    /// Check `config` against `node` (see the module doc). `book`: the MIG profiles the driver
    /// offers on each GPU.
    pub fn check(config: Config, node: &Node, book: &ProfileBook, out: &Output) -> Result<Desired> {
        let assignments = config.assign(node)?;
        check_kubernetes(&config)?;
        let mig = from_config::desires(&config, node, book, out)?;
        crate::mps::desired::validate(&config, &assignments, node)?;
        let vgpu = vgpu::desired::from_gpushare_toml(&config, node)?;
        let wants_mps = assignments.iter().any(|a| asks_for_mps(a));
        drop(assignments);
        Ok(Desired {
            config,
            mig,
            vgpu,
            wants_mps,
            mig_parted: None,
        })
    }

    /// Once MIG is on where the file's instances waited for it ([`MigLayout::EnabledLater`]),
    /// the same file checked again with the profiles the driver now lists; `None` when nothing
    /// waits or MIG is not on yet there.
    pub fn resolve_later(&self, ctx: &mut Context, node: &Node) -> Result<Option<Desired>> {
        let ready = self.mig.iter().any(|d| {
            matches!(d.layout, MigLayout::EnabledLater { .. })
                && node.gpu(d.gpu).is_some_and(|g| g.mig.current.is_enabled())
        });
        if !ready {
            return Ok(None);
        }
        let book = ProfileBook::load(ctx.backend()?, node);
        let mig = match &self.mig_parted {
            Some((file, label)) => {
                file.desires(file.select(Some(label))?, node, &book, &ctx.out)?
            }
            None => from_config::desires(&self.config, node, &book, &ctx.out)?,
        };
        Ok(Some(Desired {
            mig,
            ..self.clone()
        }))
    }

    /// Check a layout from either kind of file against `node`.
    pub fn check_source(
        source: Source,
        node: &Node,
        book: &ProfileBook,
        out: &Output,
    ) -> Result<Desired> {
        match source {
            Source::Gpushare(config) => Self::check(config, node, book, out),
            Source::MigParted { file, label } => {
                let selected = file.select(Some(&label))?;
                let mig = file.desires(selected, node, book, out)?;
                // No gpushare.toml entries: nothing but MIG is asked of any GPU.
                let config = Config::parse(SourceFile::inline(
                    &file.source.path.display().to_string(),
                    "",
                ))?;
                Ok(Desired {
                    config,
                    mig,
                    vgpu: vgpu::desired::Desired::default(),
                    wants_mps: false,
                    mig_parted: Some((file, label)),
                })
            }
        }
    }

    /// Which entry covers each GPU (checked by [`Desired::check`] on the same node).
    pub fn assignments(&self, node: &Node) -> Result<Vec<Assignment<'_>>> {
        self.config.assign(node)
    }
}

fn asks_for_mps(a: &Assignment) -> bool {
    let e = a.entry.get_ref();
    match *e.mode.get_ref() {
        Mode::Mps => true,
        Mode::Mig => e.mig.as_ref().is_some_and(|m| m.get_ref().mps.is_some()),
        _ => false,
    }
}

/// `[kubernetes]` must name targets `manifests` knows, a valid namespace and a Kubernetes release
/// gpushare writes for: checked with the rest of the file, before anything changes.
fn check_kubernetes(config: &Config) -> Result<()> {
    let Some(k) = &config.file.kubernetes else {
        return Ok(());
    };
    for t in &k.targets {
        Target::parse(t.get_ref()).map_err(|e| config.error_at(t.span(), e))?;
    }
    if let Some(ns) = &k.namespace {
        crate::k8s::check_namespace(ns.get_ref()).map_err(|e| config.place(ns.span(), e))?;
    }
    if let Some(v) = &k.version {
        crate::k8s::K8sVersion::parse(v.get_ref()).map_err(|e| config.place(v.span(), e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Backend;
    use crate::backend::sim::SimBackend;
    use crate::error::Exit;
    use crate::source_file::SourceFile;

    fn check(preset: &str, text: &str) -> Result<Desired> {
        let sim = SimBackend::from_preset(preset).unwrap();
        let node = sim.snapshot().unwrap();
        let book = ProfileBook::load(&sim, &node);
        let config = Config::parse(SourceFile::inline("gpushare.toml", text))?;
        Desired::check(
            config,
            &node,
            &book,
            &Output::new(Default::default(), true, Default::default()),
        )
    }

    fn error(preset: &str, text: &str) -> String {
        let e = check(preset, text).expect_err("should fail");
        assert_eq!(e.exit, Exit::Usage, "{}", e.message);
        e.message
    }

    #[test]
    fn every_mode_is_checked_before_anything_changes() {
        let d = check(
            "mixed",
            "[[gpus]]\nselect = [0, 1]\nmode = \"mig\"\nmig.devices = { \"3g.40gb\" = 2 }\nmig.mps = { clients = 2 }\n\
             [[gpus]]\nselect = [2]\nmode = \"mps\"\nmps.clients = 4\n\
             [[gpus]]\nselect = [3]\nmode = \"time-slicing\"\ntime_slicing.replicas = 4\n\
             [kubernetes]\ntargets = [\"nvidia-device-plugin\"]\n",
        )
        .unwrap();
        assert_eq!(d.mig.len(), 2);
        assert!(d.wants_mps);
        assert!(d.vgpu.gpus.is_empty());
        let d = check(
            "t4x4",
            "[[gpus]]\nselect = \"all\"\nmode = \"time-slicing\"\ntime_slicing.replicas = 2\n",
        )
        .unwrap();
        assert!(!d.wants_mps);
    }

    #[test]
    fn the_kubernetes_section_is_checked_in_place() {
        let file = |body: &str| {
            format!("[[gpus]]\nselect = [0]\nmode = \"none\"\n\n[kubernetes]\n{body}\n")
        };
        let e = error("t4x4", &file("namespace = \"Bad_NS\""));
        assert!(
            e.starts_with("gpushare.toml:6:13: namespace \"Bad_NS\" is not a valid"),
            "{e}"
        );
        let e = error("t4x4", &file("version = \"1.99\""));
        assert!(e.starts_with("gpushare.toml:6:11: Kubernetes 1.99"), "{e}");
        let e = error("t4x4", &file("targets = [\"bogus\"]"));
        assert!(e.starts_with("gpushare.toml:6:12:"), "{e}");
    }

    #[test]
    fn bad_files_name_the_place_and_the_value() {
        // A GPU that does not exist.
        assert!(
            error(
                "t4x4",
                "[[gpus]]\nselect = [7]\nmode = \"mps\"\nmps.clients = 2\n"
            )
            .starts_with("gpushare.toml:2:10: GPU 7 does not exist")
        );
        // MIG on a T4.
        assert!(
            error(
                "t4x4",
                "[[gpus]]\nselect = [1]\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 1 }\n"
            )
            .contains("cannot set MIG mode on non MIG-capable GPU")
        );
        // MPS and time-slicing on the same GPU.
        let m = error(
            "t4x4",
            "[[gpus]]\nselect = [0, 1]\nmode = \"mps\"\nmps.clients = 2\n\
             [[gpus]]\nselect = [1]\nmode = \"time-slicing\"\ntime_slicing.replicas = 2\n",
        );
        assert!(
            m.starts_with("gpushare.toml:6:10: GPU 1 is already configured by the entry at line 1"),
            "{m}"
        );
        // MPS on MIG devices that do not exist yet is checked against the profile.
        let m = error(
            "dgx-a100",
            "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 7 }\nmig.mps = { clients = 40 }\n",
        );
        assert!(
            m.starts_with("gpushare.toml:5:23: mig.mps.clients = 40"),
            "{m}"
        );
        // An unknown Kubernetes target.
        let m = error(
            "t4x4",
            "[[gpus]]\nselect = \"all\"\nmode = \"none\"\n[kubernetes]\ntargets = [\"helm\"]\n",
        );
        assert!(
            m.starts_with("gpushare.toml:5:12: unknown target `helm`"),
            "{m}"
        );
    }
}
