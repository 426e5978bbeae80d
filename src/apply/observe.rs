//! The node as `apply` plans from it: the driver's snapshot, the MPS daemons gpushare recorded
//! (and which of them answer), and the vGPU host when the file asks for vGPUs. Nothing here
//! changes the node.

use super::desired::Desired;
use crate::Context;
use crate::error::Result;
use crate::mps::control::MpsControl;
use crate::mps::query::{self, Client};
use crate::mps::settings::{self, DaemonSpec};
use crate::node::Node;
use crate::vgpu::apply::Session;
use crate::vgpu::host::Host;
use crate::vgpu::sysfs::SysfsRoot;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What the planner reads.
#[derive(Debug, Clone)]
pub struct Observed {
    pub node: Node,
    /// The daemons gpushare recorded (`<run_dir>/mps/*/settings.json`).
    pub mps_records: Vec<DaemonSpec>,
    /// The names of those that answer.
    pub mps_answering: BTreeSet<String>,
    /// The vGPU host, read when the file has vGPU entries.
    pub vgpu: Option<Host>,
}

/// How to look: the MPS control program (when the file asks for MPS or daemons are recorded)
/// and the sysfs root of the vGPU host.
pub struct Looker {
    pub control: Option<MpsControl>,
    pub sysfs_root: PathBuf,
    /// Keep what discovery learns about vGPU type ids (changing commands).
    pub learn: bool,
}

impl Looker {
    /// Find what looking needs before anything changes. `learn`: a run that changes the node
    /// (apply, init): an MPS file without `nvidia-cuda-mps-control` on PATH fails here, before
    /// the first change. Planning changes nothing and works without it (with a warning: no
    /// daemon can be asked whether it runs).
    pub fn new(ctx: &Context, desired: &Desired, sysfs_root: &Path, learn: bool) -> Result<Self> {
        let recorded = !settings::load_all(&ctx.paths)?.is_empty();
        let control = if desired.wants_mps || recorded {
            match MpsControl::find(crate::mps::DEFAULT_TIMEOUT) {
                Ok(control) => Some(control),
                Err(e) if learn => return Err(e),
                Err(e) => {
                    ctx.out.warn(format!(
                        "{}: the plan takes every MPS daemon as not running; `apply` needs it",
                        e.message
                    ));
                    None
                }
            }
        } else {
            None
        };
        Ok(Looker {
            control,
            sysfs_root: sysfs_root.to_path_buf(),
            learn,
        })
    }

    pub fn observe(&self, ctx: &mut Context, desired: &Desired) -> Result<Observed> {
        let node = ctx.snapshot()?;
        let mps_records = settings::load_all(&ctx.paths)?;
        let mps_answering = match &self.control {
            Some(control) => crate::mps::desired::answering(control, &mps_records),
            None => BTreeSet::new(),
        };
        let vgpu = if desired.vgpu.gpus.is_empty() {
            None
        } else {
            let (paths, out) = (ctx.paths.clone(), ctx.out.clone());
            let mut session = Session::new(SysfsRoot::new(&self.sysfs_root), &paths, &out);
            let host = session.discover_on(&node)?;
            if self.learn {
                session.save()?;
            }
            Some(host)
        };
        Ok(Observed {
            node,
            mps_records,
            mps_answering,
            vgpu,
        })
    }

    /// The clients connected to a recorded daemon (none when it does not answer).
    pub fn clients(&self, record: &DaemonSpec) -> Vec<Client> {
        match &self.control {
            Some(control) => query::query(control, record).clients().cloned().collect(),
            None => Vec::new(),
        }
    }
}
