//! The node as the planner reads it: the driver's snapshot, the MPS daemons gpushare recorded
//! (which of them answer, and daemons whose record was lost), the vGPU host when the command
//! asks for vGPUs, and the GPU clients (which of those listed run, and what an earlier run
//! stopped). Nothing here changes the node.

use super::desired::Desired;
use crate::node::Context;
use crate::node::clients::modules;
use crate::node::clients::record::Stopped;
use crate::node::clients::systemd::Systemctl;
use crate::node::model::Node;
use crate::sharing::mps::control::MpsControl;
use crate::sharing::mps::query::{self, Client, PING};
use crate::sharing::mps::settings::{self, DaemonSpec};
use crate::sharing::vgpu::host::Host;
use crate::sharing::vgpu::session::Session;
use crate::sharing::vgpu::sysfs::SysfsRoot;
use crate::support::error::Result;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What the planner reads.
#[derive(Debug, Clone)]
pub(crate) struct Observed {
    pub node: Node,
    /// The daemons gpushare recorded (`<run_dir>/mps/*/settings.json`).
    pub mps_records: Vec<DaemonSpec>,
    /// Daemon directories of gpushare's own with no record: a start that did not finish (the
    /// process died between making them and writing the record). Their devices are not known;
    /// `answering` says whether a daemon still listens there.
    pub mps_orphans: Vec<DaemonSpec>,
    /// The names of the recorded and orphaned daemons that answer.
    pub mps_answering: BTreeSet<String>,
    /// The vGPU host, read when the command asks for vGPUs.
    pub vgpu: Option<Host>,
    pub clients: ClientsSeen,
    /// The GPUs a fatal fault left unhealthy since their last reset, with why (read from the
    /// health record when the command recovers GPUs).
    pub needs_reset: std::collections::BTreeMap<u32, String>,
    /// The MIG instances made for DRA claims, with their claims' UIDs.
    pub claimed: Vec<(String, crate::sharing::mig::claimed::Made)>,
    /// The shares DRA claims hold of MPS daemons, with their claims' UIDs.
    pub shares: Vec<(String, crate::sharing::mps::shared::Share)>,
}

/// The GPU clients as they are.
#[derive(Debug, Clone, Default)]
pub(crate) struct ClientsSeen {
    /// The listed services that are active.
    pub active: BTreeSet<String>,
    /// The listed kernel modules that are loaded.
    pub loaded: BTreeSet<String>,
    /// What a run stopped and did not start again (the record beside the journal).
    pub stopped: Stopped,
}

/// How to look: the MPS control program (when the command touches MPS or daemons are recorded)
/// and the sysfs root of the vGPU host.
pub(crate) struct HostTools {
    pub control: Option<MpsControl>,
    /// systemctl, when services are listed or recorded as stopped.
    pub systemctl: Option<Systemctl>,
    pub sysfs_root: PathBuf,
    /// Keep what discovery learns about vGPU type ids (changing commands).
    pub learn: bool,
}

impl HostTools {
    /// Find what looking needs before anything changes. `learn`: a run that changes the node: a
    /// command that changes MPS without `nvidia-cuda-mps-control` on PATH fails here, before the
    /// first change. Planning changes nothing and works without it (with a warning: no daemon can
    /// be asked whether it runs).
    pub(crate) fn new(
        ctx: &Context,
        desired: &Desired,
        sysfs_root: &Path,
        learn: bool,
    ) -> Result<Self> {
        let recorded = !settings::load_all(&ctx.paths)?.is_empty();
        let orphans = !settings::orphans(&ctx.paths)?.is_empty();
        let needed = desired.wants_mps() || (desired.mps.touched() && (recorded || orphans));
        let control = match MpsControl::find(desired.mps_timeout) {
            Ok(control) => Some(control),
            Err(e) if needed && learn => return Err(e),
            Err(e) if needed => {
                ctx.out.warn(format!(
                    "{}: the plan takes every MPS daemon as not running; `apply` needs it",
                    e.message
                ));
                None
            }
            // Only a daemon whose devices MIG takes away would need it, found when it is
            // stopped.
            Err(_) => None,
        };
        let services = !desired.clients_and_hooks.clients.services.is_empty()
            || !Stopped::load(&ctx.paths)?.services.is_empty();
        let systemctl = match Systemctl::find() {
            Ok(s) => Some(s),
            Err(e) if services && learn => return Err(e),
            Err(e) if services => {
                ctx.out.warn(format!(
                    "{}: the plan takes every listed GPU client as stopped; `apply` needs it",
                    e.message
                ));
                None
            }
            Err(_) => None,
        };
        Ok(HostTools {
            control,
            systemctl,
            sysfs_root: sysfs_root.to_path_buf(),
            learn,
        })
    }

    pub(crate) fn observe(&self, ctx: &mut Context, desired: &Desired) -> Result<Observed> {
        let node = ctx.snapshot()?;
        let mps_records = settings::load_all(&ctx.paths)?;
        let mps_orphans = settings::orphans(&ctx.paths)?;
        let mps_answering = match &self.control {
            Some(control) => mps_records
                .iter()
                .chain(&mps_orphans)
                .filter(|r| control.send(&r.pipe_dir, PING).is_ok())
                .map(|r| r.name.clone())
                .collect(),
            None => BTreeSet::new(),
        };
        let vgpu = if desired.wants_vgpu() {
            let (paths, out) = (ctx.paths.clone(), ctx.out.clone());
            let mut session = Session::new(SysfsRoot::new(&self.sysfs_root), &paths, &out);
            let host = session.discover_on(&node)?;
            if self.learn {
                session.save()?;
            }
            Some(host)
        } else {
            None
        };
        let clients = self.gpu_clients(ctx, desired)?;
        let needs_reset = match &desired.recover {
            Some((_, policy)) => needs_reset(&ctx.paths, &node, policy)?,
            None => Default::default(),
        };
        Ok(Observed {
            claimed: crate::sharing::mig::claimed::all(&ctx.paths)?,
            shares: crate::sharing::mps::shared::all(&ctx.paths)?,
            needs_reset,
            node,
            mps_records,
            mps_orphans,
            mps_answering,
            vgpu,
            clients,
        })
    }

    /// Which listed GPU clients run, and what an earlier run stopped.
    fn gpu_clients(&self, ctx: &Context, desired: &Desired) -> Result<ClientsSeen> {
        let listed = &desired.clients_and_hooks.clients;
        let mut active = BTreeSet::new();
        if let Some(systemctl) = &self.systemctl {
            for unit in &listed.services {
                if systemctl.is_active(unit)? {
                    active.insert(unit.clone());
                }
            }
        }
        let loaded = if listed.modules.is_empty() {
            BTreeSet::new()
        } else {
            let now = modules::loaded(&self.sysfs_root);
            listed
                .modules
                .iter()
                .filter(|m| now.contains(*m))
                .cloned()
                .collect()
        };
        Ok(ClientsSeen {
            active,
            loaded,
            stopped: Stopped::load(&ctx.paths)?,
        })
    }

    /// The clients connected to a daemon (none when it does not answer).
    pub(crate) fn clients(&self, record: &DaemonSpec) -> Vec<Client> {
        match &self.control {
            Some(control) => query::query(control, record).clients().cloned().collect(),
            None => Vec::new(),
        }
    }
}

/// The GPUs known to hold a fatal cause since their last reset, with the causes. Only a GPU
/// whose health is known counts: without a live watch, or for a GPU the driver delivers no
/// events for, the record may be out of date, and unknown health plans nothing.
fn needs_reset(
    paths: &crate::support::paths::Paths,
    node: &Node,
    policy: &crate::node::gpu_health::policy::Policy,
) -> Result<std::collections::BTreeMap<u32, String>> {
    let health = crate::node::gpu_health::NodeHealth::read(
        paths,
        node,
        policy,
        crate::support::clock::unix_now(),
    )?;
    Ok(health
        .gpus
        .iter()
        .filter_map(|(&index, health)| {
            let fatal: Vec<String> = health
                .as_ref()
                .ok()?
                .reasons
                .iter()
                .filter(|r| r.class == crate::node::gpu_health::policy::Class::Fatal.as_str())
                .map(|r| r.describe())
                .collect();
            (!fatal.is_empty()).then(|| (index, fatal.join(", ")))
        })
        .collect())
}
