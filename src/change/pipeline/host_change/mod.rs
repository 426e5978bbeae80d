//! The changes a sharing mode makes on the host outside the driver (MPS daemons, vGPU devices):
//! each is the mode's own type behind [`HostChange`] ([`mps_daemon`], [`vgpu_device`]), planned
//! by the mode's planner. The plan holds them as [`HostStep`]s and the executor runs them
//! through [`StepHost`], knowing neither their types nor how they are made.

pub(crate) mod mps_daemon;
pub(crate) mod vgpu_device;

use crate::change::plan::phase::Phase;
use crate::node::Context;
use crate::node::backend::SharedBackend;
use crate::node::backend::host_events::HostEvents;
use crate::sharing::mps::MpsOptions;
use crate::sharing::mps::control::MpsControl;
use crate::sharing::vgpu::sysfs::SysfsRoot;
use crate::sharing::vgpu::sysfs_writer::SysfsWriter;
use crate::support::error::Result;
use crate::support::output::Output;
use crate::support::paths::Paths;
use std::any::Any;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

/// What a mode's change on the host answers.
pub(crate) trait HostChange: ChangeValue + fmt::Debug + Send + Sync {
    /// The `action` of the plan's JSON form.
    fn action(&self) -> &'static str;

    /// The phase it runs in.
    fn phase(&self) -> Phase;

    /// Make it, on `gpu` (the plan's GPU index of the change).
    fn run(&self, host: &mut StepHost<'_>, gpu: u32) -> Result<()>;
}

/// A change as a value, to copy and compare: every `Clone + PartialEq` change is one.
pub(crate) trait ChangeValue: Any {
    fn boxed(&self) -> Box<dyn HostChange>;
    fn same(&self, other: &dyn HostChange) -> bool;
}

impl<T: HostChange + Clone + PartialEq> ChangeValue for T {
    fn boxed(&self) -> Box<dyn HostChange> {
        Box::new(self.clone())
    }

    fn same(&self, other: &dyn HostChange) -> bool {
        (other as &dyn Any).downcast_ref::<T>() == Some(self)
    }
}

/// A mode's change on the host, as a plan holds it.
pub(crate) struct HostStep(Box<dyn HostChange>);

impl HostStep {
    pub(crate) fn new(change: impl HostChange) -> Self {
        HostStep(Box::new(change))
    }

    /// The change, when it is a `T` (its mode's planner and tests look inside their own).
    pub(crate) fn get<T: HostChange>(&self) -> Option<&T> {
        (&*self.0 as &dyn Any).downcast_ref()
    }
}

impl std::ops::Deref for HostStep {
    type Target = dyn HostChange;

    fn deref(&self) -> &Self::Target {
        &*self.0
    }
}

impl Clone for HostStep {
    fn clone(&self) -> Self {
        HostStep(self.0.boxed())
    }
}

impl PartialEq for HostStep {
    fn eq(&self, other: &Self) -> bool {
        self.0.same(&*other.0)
    }
}

impl fmt::Debug for HostStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// What a change on the host gets of the command that runs it: the driver, what hears of the
/// steps (the simulator), gpushare's paths, the output, and the host's tools, found once for the
/// whole run. The command's context stays the pipeline's.
pub(crate) struct StepHost<'a> {
    pub(super) ctx: &'a mut Context,
    mps: MpsOptions,
    /// The MPS control program the command found before its first change, if it looked.
    mps_control: Option<MpsControl>,
    /// The root of the vGPU host's sysfs.
    sysfs_root: PathBuf,
    sysfs_writer: Option<SysfsWriter>,
}

impl<'a> StepHost<'a> {
    pub(crate) fn new(
        ctx: &'a mut Context,
        mps: MpsOptions,
        mps_control: Option<MpsControl>,
        sysfs_root: PathBuf,
    ) -> Self {
        StepHost {
            ctx,
            mps,
            mps_control,
            sysfs_root,
            sysfs_writer: None,
        }
    }

    pub(crate) fn backend(&mut self) -> Result<SharedBackend> {
        self.ctx.shared_backend()
    }

    pub(crate) fn events(&mut self) -> Result<Arc<dyn HostEvents>> {
        self.ctx.host_events()
    }

    pub(crate) fn paths(&self) -> &Paths {
        &self.ctx.paths
    }

    pub(crate) fn out(&self) -> &Output {
        &self.ctx.out
    }

    pub(crate) fn mps_options(&self) -> MpsOptions {
        self.mps
    }

    /// The MPS control program (found now, when the command did not look for it before).
    pub(crate) fn mps_control(&self) -> Result<MpsControl> {
        match &self.mps_control {
            Some(c) => Ok(c.clone()),
            None => MpsControl::find(self.mps.timeout),
        }
    }

    /// The writer of the host's sysfs, made at the first vGPU step and kept for the run.
    pub(crate) fn sysfs_writer(&mut self) -> Result<&mut SysfsWriter> {
        let writer = match self.sysfs_writer.take() {
            Some(w) => w,
            None => SysfsWriter::new(&SysfsRoot::new(&self.sysfs_root))?,
        };
        Ok(self.sysfs_writer.insert(writer))
    }
}
