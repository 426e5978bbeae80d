//! What a changing command asks for, limited to its scope, checked against the node before
//! anything changes. Errors name the file, line and column (exit 2).
//!
//! | source | MIG | MPS and compute modes | vGPU |
//! |---|---|---|---|
//! | gpushare.toml (`apply`, `init`, the agent) | its layouts | its entries | its entries |
//! | mig-parted label, `mig apply` | its layouts | daemons MIG takes away stop | — |
//! | `mig clear` | no instances | daemons MIG takes away stop | — |
//! | `mps start` | — | these daemons run | — |
//! | `mps stop` | — | no daemon on these GPUs | — |
//! | `vgpu apply`, `vgpu clear` | — | — | this layout, or none |
//! | `recover`, the agent's `--reset-unhealthy-gpus` | no fatal fault left unreset on these GPUs | — | — |
//!
//! A GPU a source does not cover is left alone.

use crate::change::hooks::Hooks;
use crate::cluster::manifests::Target;
use crate::node::Context;
use crate::node::clients::GpuClients;
use crate::node::config::{AssignedConfig, Assignment, Config, Mode};
use crate::node::gpu_health::policy::Policy;
use crate::node::model::Node;
use crate::node::model::selector::GpuSelector;
use crate::sharing::mig::layout::{GpuDesire, MigLayout, ProfileBook};
use crate::sharing::mig::mig_parted::MigPartedConfig;
use crate::sharing::mig::{clear, from_config};
use crate::sharing::mps::settings::DaemonSpec;
use crate::sharing::mps::start::StartRequest;
use crate::sharing::vgpu;
use crate::sharing::vgpu::input::LayoutFile;
use crate::sharing::vgpu::session::Session;
use crate::sharing::vgpu::sysfs::SysfsRoot;
use crate::support::error::{Error, Result};
use std::path::Path;
use std::time::Duration;

/// Where a desired state comes from, and so what it covers (see the module doc).
#[derive(Debug, Clone)]
pub(crate) enum DesiredSource {
    /// A gpushare.toml: every mode.
    Gpushare(Config),
    /// One label of a mig-parted v1 config: MIG only.
    MigParted {
        file: MigPartedConfig,
        label: String,
    },
    /// The MIG layouts of a gpushare.toml (`mig apply -f gpushare.toml`): MIG only.
    MigOf(Config),
    /// No GPU or compute instance on the selected GPUs that have MIG on (`mig clear`).
    MigClear(GpuSelector),
    /// These MPS daemons run (`mps start`); other daemons are left alone.
    MpsStart(StartRequest),
    /// No MPS daemon gpushare started serves the selected GPUs (`mps stop`).
    MpsStop {
        gpus: GpuSelector,
        /// Per exchange with a daemon, and for it to exit.
        timeout: Duration,
    },
    /// The vGPU devices of a layout file on the selected GPUs (`vgpu apply`), or none of them
    /// (`vgpu clear`, no file).
    Vgpu {
        layout: Option<LayoutFile>,
        gpus: GpuSelector,
        /// The GPUs run in heterogeneous vGPU mode (several time-sliced types on one GPU).
        heterogeneous: bool,
    },
    /// No fatal fault left unreset on the selected GPUs (`recover`): those the health record
    /// says a fatal Xid or a double-bit ECC error left unhealthy are reset.
    Recover { gpus: GpuSelector, policy: Policy },
}

impl DesiredSource {
    /// What the layout is called in messages: the file, or `label L of FILE`.
    pub(crate) fn describe(&self) -> String {
        match self {
            DesiredSource::Gpushare(c) => c.source.path.display().to_string(),
            DesiredSource::MigOf(c) => format!("the MIG part of {}", c.source.path.display()),
            DesiredSource::MigParted { file, label } => {
                format!("label {label} of {}", file.source.path.display())
            }
            DesiredSource::MigClear(_) => "no MIG instances".into(),
            DesiredSource::MpsStart(_) => "the MPS daemons asked for".into(),
            DesiredSource::MpsStop { .. } => "no MPS daemon started by gpushare there".into(),
            DesiredSource::Vgpu { layout: None, .. } => "no vGPU devices".into(),
            DesiredSource::Recover { .. } => "no GPU left unhealthy by a fatal fault".into(),
            DesiredSource::Vgpu {
                layout: Some(l), ..
            } => {
                let file = l
                    .file
                    .as_ref()
                    .map_or_else(|| "gpushare.toml".into(), |f| f.display().to_string());
                match &l.config {
                    Some(c) => format!("config {c} of {file}"),
                    None => file,
                }
            }
        }
    }
}

/// What MPS and compute modes a command asks for.
#[derive(Debug, Clone)]
pub(crate) enum MpsDesire {
    /// Left alone, but for daemons whose devices the MIG changes take away: they are stopped.
    Untouched,
    /// What the gpushare.toml says of the GPUs it covers: `mps` and `mig.mps` daemons, compute
    /// mode DEFAULT for time-slicing and unshared GPUs.
    File(Box<AssignedConfig>),
    /// These daemons run; a running one with other settings, or one serving the same devices,
    /// is a blocker (`mps stop` it first).
    Start(Vec<DaemonSpec>),
    /// No gpushare daemon serves these GPUs.
    Stop(Vec<u32>),
}

impl MpsDesire {
    /// Whether MPS is this command's business (its daemons are observed and changed).
    pub(crate) fn touched(&self) -> bool {
        !matches!(self, MpsDesire::Untouched)
    }
}

/// The vGPU devices a command asks for; no GPUs: vGPU is left alone.
#[derive(Debug, Clone, Default)]
pub(crate) struct VgpuDesire {
    pub layout: vgpu::from_config::VgpuLayout,
    pub heterogeneous: bool,
}

/// Where the MIG layouts come from, to resolve them again once MIG is on.
#[derive(Debug, Clone)]
enum MigFile {
    None,
    Gpushare(AssignedConfig),
    MigParted(MigPartedConfig, String),
}

/// What runs around the changes of the GPUs: GPU clients stopped and started again, and
/// mig-parted's hooks.
#[derive(Debug, Clone, Default)]
pub(crate) struct ClientsAndHooks {
    pub clients: GpuClients,
    pub hooks: Option<Hooks>,
}

impl ClientsAndHooks {
    /// Add what a command's options give (`--gpu-clients-file`, `--hooks-file`).
    pub(crate) fn merge(&mut self, other: ClientsAndHooks) {
        self.clients.merge(other.clients);
        if other.hooks.is_some() {
            self.hooks = other.hooks;
        }
    }
}

/// A checked desired state: what each mode is asked for.
#[derive(Debug, Clone)]
pub(crate) struct Desired {
    /// What it is called in messages (`gpushare.toml`, `label all-1g.5gb of config.yaml`).
    pub what: String,
    /// The MIG layout of every GPU the source covers; empty: MIG is left alone.
    pub mig: Vec<GpuDesire>,
    pub mps: MpsDesire,
    pub vgpu: VgpuDesire,
    /// Per exchange with an MPS daemon.
    pub mps_timeout: Duration,
    pub clients_and_hooks: ClientsAndHooks,
    /// GPUs to reset when a fatal fault left them unhealthy, and the policy that says which.
    pub recover: Option<(Vec<u32>, Policy)>,
    mig_file: MigFile,
}

impl Desired {
    fn new(what: String) -> Self {
        Desired {
            what,
            mig: Vec::new(),
            mps: MpsDesire::Untouched,
            vgpu: VgpuDesire::default(),
            mps_timeout: crate::sharing::mps::DEFAULT_TIMEOUT,
            clients_and_hooks: ClientsAndHooks::default(),
            recover: None,
            mig_file: MigFile::None,
        }
    }

    /// Check a gpushare.toml against `node`, every mode at once. `book`: the MIG profiles the
    /// driver offers on each GPU.
    pub(crate) fn check(config: Config, node: &Node, book: &ProfileBook) -> Result<Desired> {
        let config = AssignedConfig::new(config, node)?;
        let assignments = config.assignments();
        check_kubernetes(&config)?;
        let mig = from_config::desires(&config, node, book)?;
        crate::sharing::mps::from_config::validate(&config, &assignments, node)?;
        let layout = vgpu::from_config::from_gpushare_toml(&config)?;
        drop(assignments);
        Ok(Desired {
            mig,
            mps: MpsDesire::File(Box::new(config.clone())),
            vgpu: VgpuDesire {
                layout,
                heterogeneous: false,
            },
            clients_and_hooks: ClientsAndHooks {
                clients: config.gpu_clients()?,
                hooks: None,
            },
            mig_file: MigFile::Gpushare(config.clone()),
            ..Desired::new(config.source.path.display().to_string())
        })
    }

    /// Check what `source` asks for against `node`. `sysfs_root`: where the vGPU host is read.
    pub(crate) fn check_source(
        ctx: &mut Context,
        source: DesiredSource,
        node: &Node,
        book: &ProfileBook,
        sysfs_root: &Path,
    ) -> Result<Desired> {
        let what = source.describe();
        match source {
            DesiredSource::Gpushare(config) => Self::check(config, node, book),
            DesiredSource::MigParted { file, label } => {
                let mig = file.desires(file.select(Some(&label))?, node, book, &ctx.out)?;
                Ok(Desired {
                    mig,
                    mig_file: MigFile::MigParted(file, label),
                    ..Desired::new(what)
                })
            }
            DesiredSource::MigOf(config) => {
                // The whole file is checked with the rules of `plan`: a command that reads it
                // never calls the node's state that of a file it did not look at in full.
                let whole = Self::check(config, node, book)?;
                Ok(Desired {
                    mig: whole.mig,
                    clients_and_hooks: whole.clients_and_hooks,
                    mig_file: whole.mig_file,
                    ..Desired::new(what)
                })
            }
            DesiredSource::MigClear(selector) => {
                let mig = clear::desires(node, book, &selector.resolve(node)?)?;
                if mig.is_empty() {
                    ctx.out
                        .note("no selected GPU has MIG enabled: there are no instances to clear");
                }
                Ok(Desired {
                    mig,
                    ..Desired::new(what)
                })
            }
            DesiredSource::MpsStart(request) => {
                let daemons = request.daemons(node, &ctx.paths, &ctx.out)?;
                let names: Vec<String> = daemons.iter().map(|d| format!("`{}`", d.name)).collect();
                Ok(Desired {
                    mps: MpsDesire::Start(daemons),
                    mps_timeout: request.timeout,
                    ..Desired::new(format!("the MPS daemon(s) {}", names.join(", ")))
                })
            }
            DesiredSource::MpsStop { gpus, timeout } => {
                let what = match gpus {
                    GpuSelector::All => "no MPS daemon started by gpushare".to_string(),
                    _ => format!(
                        "no MPS daemon started by gpushare on GPU(s) {}",
                        crate::change::plan::join(&gpus.resolve(node)?)
                    ),
                };
                Ok(Desired {
                    mps: MpsDesire::Stop(gpus.resolve(node)?),
                    mps_timeout: timeout,
                    ..Desired::new(what)
                })
            }
            DesiredSource::Vgpu {
                layout,
                gpus,
                heterogeneous,
            } => {
                let layout = vgpu_layout(ctx, layout.as_ref(), &gpus, node, sysfs_root)?;
                Ok(Desired {
                    vgpu: VgpuDesire {
                        layout,
                        heterogeneous,
                    },
                    ..Desired::new(what)
                })
            }
            DesiredSource::Recover { gpus, policy } => Ok(Desired {
                recover: Some((gpus.resolve(node)?, policy)),
                ..Desired::new(what)
            }),
        }
    }

    /// Once MIG is on where instances waited for it ([`MigLayout::EnabledLater`]), the same
    /// source checked again with the profiles the driver now lists; `None` when nothing waits
    /// or MIG is not on yet there.
    pub(crate) fn resolve_later(&self, ctx: &mut Context, node: &Node) -> Result<Option<Desired>> {
        let ready = self.mig.iter().any(|d| {
            matches!(d.layout, MigLayout::EnabledLater { .. })
                && node.gpu(d.gpu).is_some_and(|g| g.mig.current.is_enabled())
        });
        if !ready {
            return Ok(None);
        }
        let book = ProfileBook::load(ctx.backend()?, node);
        let mig = match &self.mig_file {
            MigFile::MigParted(file, label) => {
                file.desires(file.select(Some(label))?, node, &book, &ctx.out)?
            }
            MigFile::Gpushare(config) => from_config::desires(config, node, &book)?,
            MigFile::None => return Ok(None),
        };
        Ok(Some(Desired {
            mig,
            ..self.clone()
        }))
    }

    /// Whether the vGPU host must be read.
    pub(crate) fn wants_vgpu(&self) -> bool {
        !self.vgpu.layout.gpus.is_empty()
    }

    /// Whether the file asks for MPS daemons somewhere (`mode = "mps"`, or `mig.mps`; not
    /// `shares`, whose daemons gpushare's DRA driver starts), or the command starts daemons.
    pub(crate) fn wants_mps(&self) -> bool {
        match &self.mps {
            MpsDesire::Untouched | MpsDesire::Stop(_) => false,
            MpsDesire::Start(_) => true,
            MpsDesire::File(config) => config.assignments().iter().any(asks_for_mps),
        }
    }
}

fn asks_for_mps(a: &Assignment) -> bool {
    let e = a.entry.get_ref();
    match *e.mode.get_ref() {
        Mode::Mps => e.mps.as_ref().is_some_and(|m| m.get_ref().shares.is_none()),
        Mode::Mig => e
            .mig
            .as_ref()
            .and_then(|m| m.get_ref().mps.as_ref())
            .is_some_and(|m| m.get_ref().shares.is_none()),
        _ => false,
    }
}

/// The vGPU layout of `vgpu apply` (from a file) or `vgpu clear` (none), on the selected GPUs
/// that carry vGPUs.
fn vgpu_layout(
    ctx: &Context,
    layout: Option<&LayoutFile>,
    gpus: &GpuSelector,
    node: &Node,
    sysfs_root: &Path,
) -> Result<vgpu::from_config::VgpuLayout> {
    let (paths, out) = (ctx.paths.clone(), ctx.out.clone());
    let mut session = Session::new(SysfsRoot::new(sysfs_root), &paths, &out);
    let host = session.discover_on(node)?;
    if !host.in_use_known {
        out.warn(
            "cannot read every process's open files: a VM may use a device that shows no user (run as root)",
        );
    }
    let selected = match gpus {
        GpuSelector::All => None,
        _ => Some(gpus.resolve(node)?),
    };
    let Some(layout) = layout else {
        // Clear: every vGPU GPU of the selection.
        for g in host.gpus.iter().filter(|g| g.index.is_none()) {
            out.warn(format!(
                "{} is not one of the node's GPUs; left alone",
                g.pci_bus_id
            ));
        }
        let indexes: Vec<u32> = host
            .gpus
            .iter()
            .filter_map(|g| g.index)
            .filter(|i| selected.as_ref().is_none_or(|s| s.contains(i)))
            .collect();
        if indexes.is_empty() && selected.is_some() {
            return Err(Error::usage("none of the selected GPUs carries vGPUs")
                .with_hint("`gpushare vgpu types` lists the GPUs that do"));
        }
        return Ok(vgpu::from_config::VgpuLayout::empty(&indexes));
    };
    let mut desired = vgpu::input::desired(layout, node, &paths)?;
    if let Some(selected) = &selected {
        desired.retain(selected);
    }
    if desired.gpus.is_empty() {
        out.note("nothing to do: the file gives no vGPU layout for the selected GPUs of this node");
    }
    Ok(desired)
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
        crate::cluster::manifests::check_namespace(ns.get_ref())
            .map_err(|e| config.place(ns.span(), e))?;
    }
    if let Some(v) = &k.version {
        crate::cluster::manifests::K8sVersion::parse(v.get_ref())
            .map_err(|e| config.place(v.span(), e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
