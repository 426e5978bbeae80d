//! What `mps start` (and `mps unit`) asks for: the daemons of the flags or of a gpushare.toml,
//! checked against the node as it is. A value the devices cannot take is bad input (exit 2),
//! found before anything changes.

use super::from_config;
use super::limits::{self, LimitProblem, MpsRequest, MpsTarget};
use super::settings::{DaemonSpec, DirChoice};
use crate::node::config::{AssignedConfig, Config};
use crate::node::model::selector::{GpuSelector, SelectorItem};
use crate::node::model::{Gpu, Node};
use crate::support::error::{Error, Result};
use crate::support::output::Output;
use crate::support::paths::Paths;
use std::path::PathBuf;
use std::time::Duration;

/// The settings of `mps start`: from flags, or from the `mps` sections of a gpushare.toml.
#[derive(Debug, Clone)]
pub(crate) struct StartRequest {
    /// `--gpu`: whole GPUs, or single MIG devices by `MIG-…` UUID.
    pub gpus: GpuSelector,
    pub limits: MpsRequest,
    pub pipe_dir: Option<PathBuf>,
    pub log_dir: Option<PathBuf>,
    pub multiuser: bool,
    /// `-c FILE`: the daemons the file asks for, instead of the flags.
    pub config: Option<PathBuf>,
    /// Per exchange with a daemon, and for a daemon to come up or go.
    pub timeout: Duration,
}

impl StartRequest {
    /// The daemons to start on `node`.
    pub(crate) fn daemons(
        &self,
        node: &Node,
        paths: &Paths,
        out: &Output,
    ) -> Result<Vec<DaemonSpec>> {
        let dirs = DirChoice {
            paths,
            pipe_dir: self.pipe_dir.as_deref(),
            log_dir: self.log_dir.as_deref(),
        };
        let specs = match &self.config {
            Some(path) => {
                let config = AssignedConfig::new(Config::load(path)?, node)?;
                let assignments = config.assignments();
                from_config::validate(&config, &assignments, node)?;
                let d = from_config::wanted(&config, &assignments, node, dirs, self.multiuser)?;
                if d.daemons.is_empty() {
                    return Err(Error::usage(format!(
                        "{} asks for no MPS daemon on this node",
                        path.display()
                    ))
                    .with_hint(
                        "MPS comes from mode = \"mps\" entries, and from mig.mps on GPUs whose \
                         MIG devices exist",
                    ));
                }
                d.daemons
            }
            None => self.daemons_of_flags(out, node, dirs)?,
        };
        if (self.pipe_dir.is_some() || self.log_dir.is_some()) && specs.len() > 1 {
            let names: Vec<&str> = specs.iter().map(|d| d.name.as_str()).collect();
            return Err(Error::usage(format!(
                "--pipe-dir/--log-dir name one directory, and this starts {} daemons ({})",
                specs.len(),
                names.join(", ")
            ))
            .with_hint(
                "leave them out (each daemon gets its own), or select one device with --gpu",
            ));
        }
        Ok(specs)
    }

    fn daemons_of_flags(
        &self,
        out: &Output,
        node: &Node,
        dirs: DirChoice,
    ) -> Result<Vec<DaemonSpec>> {
        let request = &self.limits;
        let named_mig = mig_uuids(&self.gpus);
        let mut whole: Vec<(&Gpu, MpsTarget)> = Vec::new();
        let mut specs = Vec::new();
        for index in self.gpus.resolve(node)? {
            let Some(gpu) = node.gpu(index) else { continue };
            if gpu.mig.current != gpu.mig.pending {
                out.warn(format!(
                    "GPU {index} has MIG {} pending a reset: this starts MPS for MIG {}",
                    gpu.mig.pending.as_str(),
                    gpu.mig.current.as_str()
                ));
            }
            if !gpu.mig.current.is_enabled() {
                let target = limits::gpu_target(node, gpu);
                check_flags(request, &target)?;
                whole.push((gpu, target));
                continue;
            }
            let devices: Vec<_> = gpu
                .mig_instances()?
                .iter()
                .flat_map(|gi| gi.compute_instances.iter().map(move |ci| (gi, ci)))
                .collect();
            // A MIG UUID in --gpu picks single devices of its GPU; otherwise all of them.
            let named = |uuid: &Option<String>| {
                named_mig
                    .iter()
                    .any(|u| uuid.as_deref().is_some_and(|c| c.starts_with(u)))
            };
            let picked = devices.iter().any(|(_, ci)| named(&ci.uuid));
            let mut any = false;
            for (gi, ci) in devices {
                if picked && !named(&ci.uuid) {
                    continue;
                }
                let target = limits::mig_target(node, gpu, gi, ci);
                check_flags(request, &target)?;
                specs.push(DaemonSpec::for_mig_device(
                    gpu,
                    gi,
                    ci,
                    &target,
                    request,
                    dirs,
                    self.multiuser,
                )?);
                any = true;
            }
            if !any {
                return Err(Error::usage(format!(
                    "GPU {index} has MIG enabled but no MIG devices to run MPS on"
                ))
                .with_hint("create MIG devices first, or disable MIG to share the whole GPU"));
            }
        }
        if !whole.is_empty() {
            let targets: Vec<&MpsTarget> = whole.iter().map(|(_, t)| t).collect();
            limits::check_shared(&targets, self.multiuser).map_err(|m| {
                Error::usage(m).with_hint("start them separately, one --gpu selection each")
            })?;
            specs.insert(
                0,
                DaemonSpec::for_gpus(&whole, request, dirs, self.multiuser),
            );
        }
        Ok(specs)
    }
}

/// `MIG-…` items of `--gpu`: they name single MIG devices.
pub(crate) fn mig_uuids(selector: &GpuSelector) -> Vec<&str> {
    match selector {
        GpuSelector::All => Vec::new(),
        GpuSelector::Items(items) => items
            .iter()
            .filter_map(|i| match i {
                SelectorItem::Uuid(u) if u.starts_with("MIG-") => Some(u.as_str()),
                _ => None,
            })
            .collect(),
    }
}

/// A limit a device cannot take, named by the flag that asked for it.
fn check_flags(request: &MpsRequest, target: &MpsTarget) -> Result<()> {
    limits::check(request, target).map_err(|p| {
        let flag = match p {
            LimitProblem::TooManyClients { clients } => format!("--clients {clients}"),
            LimitProblem::MemoryTooLarge { limit_mib } => format!("--memory-limit {limit_mib}M"),
        };
        Error::usage(format!("{flag}: {}", p.describe(target))).with_hint(p.hint(target))
    })
}
