//! The changing commands' [`Runner`]: driver calls go to the backend, MPS daemons to
//! `mps::daemon`/`mps::stop`, vGPU devices to `vgpu::make`, GPU clients to systemctl and
//! modprobe (with the record of what is stopped), hooks to `hooks`. Every step is journalled
//! before and after it runs (on disk before it runs), and a SIGINT/SIGTERM stops the run before
//! the next one (but for the steps that finish a run that stopped early).

use super::observe::HostTools;
use super::signals::Trap;
use crate::Context;
use crate::backend::SharedBackend;
use crate::clients::record::Stopped;
use crate::clients::systemd::Systemctl;
use crate::clients::{Client, modules};
use crate::error::{Error, Result};
use crate::journal::{Event, Journal};
use crate::mps::control::MpsControl;
use crate::mps::daemon::start_daemon;
use crate::mps::stop::stop_daemon;
use crate::mps::{DaemonHost, MpsOptions};
use crate::pipeline::execute::Runner;
use crate::plan::{Change, Operation};
use crate::vgpu::mdevctl;
use crate::vgpu::sysfs::SysfsRoot;
use crate::vgpu::sysfs_writer::SysfsWriter;

/// `GPU 0: create_gpu_instance (1g.5gb at 0:1)`, as the journal records a step.
pub(crate) fn describe(change: &Change) -> String {
    format!("{}: {} ({})", change.target(), change.action, change.detail)
}

/// The runner of a changing command: the driver, MPS daemons, vGPU sysfs, the journal, the trap.
pub(crate) struct StepRunner<'a> {
    pub ctx: &'a mut Context,
    pub tools: &'a HostTools,
    pub mps: MpsOptions,
    pub journal: &'a mut Journal,
    pub trap: &'a Trap,
    /// Finishing a run that stopped early: a signal received does not stop these steps.
    pub finishing: bool,
    writer: Option<SysfsWriter>,
}

impl<'a> StepRunner<'a> {
    pub(crate) fn new(
        ctx: &'a mut Context,
        tools: &'a HostTools,
        mps: MpsOptions,
        journal: &'a mut Journal,
        trap: &'a Trap,
    ) -> Self {
        StepRunner {
            ctx,
            tools,
            mps,
            journal,
            trap,
            finishing: false,
            writer: None,
        }
    }

    fn systemctl(&self) -> Result<Systemctl> {
        match &self.tools.systemctl {
            Some(s) => Ok(s.clone()),
            None => Systemctl::find(),
        }
    }

    /// Stop (`running: false`) or start a GPU client: the record first when stopping (a crash
    /// after the stop must leave it recorded), last when starting.
    fn client(&mut self, change: &Change, client: &Client, running: bool) -> Result<()> {
        let action = change.operation.action();
        self.ctx.host_events()?.before_step(action)?;
        if !running {
            Stopped::set(&self.ctx.paths, client, true)?;
        }
        match (client, running) {
            (Client::Service(unit), false) => self.systemctl()?.stop(unit)?,
            (Client::Service(unit), true) => self.systemctl()?.start(unit)?,
            (Client::Module(name), false) => modules::unload(name)?,
            (Client::Module(name), true) => modules::load(name)?,
        }
        self.ctx.host_events()?.client_changed(client, running)?;
        if running {
            Stopped::set(&self.ctx.paths, client, false)?;
        }
        self.ctx.host_events()?.after_step(action);
        Ok(())
    }

    fn mps_control(&self) -> Result<MpsControl> {
        match &self.tools.control {
            Some(c) => Ok(c.clone()),
            None => MpsControl::find(self.mps.timeout),
        }
    }

    fn vgpu(&mut self, change: &Change, step: &crate::vgpu::plan::Step) -> Result<()> {
        if self.writer.is_none() {
            let root = SysfsRoot::new(&self.tools.sysfs_root);
            self.writer = Some(SysfsWriter::new(&root)?);
        }
        let Some(writer) = self.writer.as_mut() else {
            return Err(Error::failed("no sysfs writer"));
        };
        let uuid = crate::vgpu::make::run_step(step, writer)?;
        if let Some(uuid) = &uuid {
            self.ctx.out.note(format!(
                "GPU {}: {}",
                change.gpu,
                step.describe(true, Some(uuid))
            ));
        }
        // Kept across reboots by mdevctl, when it is installed.
        let persisted = match (step, &uuid) {
            (crate::vgpu::plan::Step::CreateMdev { .. }, Some(uuid)) => mdevctl::define(uuid)
                .map(|r| r.map_err(|e| format!("{e}: {uuid} is not kept across reboots"))),
            (crate::vgpu::plan::Step::RemoveMdev { uuid, .. }, _) => {
                mdevctl::undefine(uuid).map(|r| {
                    r.map_err(|e| format!("{e}: its definition may bring {uuid} back at boot"))
                })
            }
            _ => None,
        };
        if let Some(Err(why)) = persisted {
            self.ctx.out.warn(why);
        }
        Ok(())
    }
}

impl Runner for StepRunner<'_> {
    fn backend(&mut self) -> Result<SharedBackend> {
        self.ctx.shared_backend()
    }

    fn jobs(&self) -> Option<std::num::NonZeroUsize> {
        self.ctx.jobs
    }

    fn run_other(&mut self, change: &Change) -> Result<()> {
        match &change.operation {
            Operation::StopMpsDaemon(spec) => {
                let control = self.mps_control()?;
                let backend = self.ctx.shared_backend()?;
                let events = self.ctx.host_events()?;
                let host = DaemonHost {
                    backend: &*backend,
                    events: &*events,
                    paths: &self.ctx.paths,
                    out: &self.ctx.out,
                };
                let stopped = stop_daemon(&host, &control, spec, self.mps)?;
                if !stopped.terminated_clients.is_empty() {
                    let ended: Vec<String> = stopped
                        .terminated_clients
                        .iter()
                        .map(|c| c.describe())
                        .collect();
                    self.ctx.out.note(format!(
                        "`{}`: ended its clients {}",
                        spec.name,
                        ended.join(", ")
                    ));
                }
                Ok(())
            }
            Operation::StartMpsDaemon(spec) => {
                let control = self.mps_control()?;
                let backend = self.ctx.shared_backend()?;
                let events = self.ctx.host_events()?;
                let host = DaemonHost {
                    backend: &*backend,
                    events: &*events,
                    paths: &self.ctx.paths,
                    out: &self.ctx.out,
                };
                let started = start_daemon(&host, &control, (**spec).clone(), self.mps)?;
                self.ctx.out.note(format!(
                    "`{}`: clients connect with CUDA_MPS_PIPE_DIRECTORY={} (and the host's /dev/shm)",
                    started.name,
                    started.pipe_dir.display()
                ));
                Ok(())
            }
            Operation::StopClient(client) => self.client(change, client, false),
            Operation::StartClient(client) => self.client(change, client, true),
            Operation::Hook(hook) => hook.run(&self.ctx.out),
            Operation::Vgpu(step) => {
                // The simulator's fault injection reaches these steps too (tests).
                let action = change.operation.action();
                self.ctx.host_events()?.before_step(action)?;
                self.vgpu(change, step)?;
                self.ctx.host_events()?.after_step(action);
                Ok(())
            }
            _ => Err(Error::failed(format!(
                "{} cannot run yet: plan again once the changes before it are made",
                describe(change)
            ))),
        }
    }

    fn before(&mut self, change: &Change) -> Result<()> {
        if let Some(signal) = self.trap.received().filter(|_| !self.finishing) {
            return Err(Error::failed(format!(
                "stopped by {signal} before {}",
                describe(change)
            ))
            .with_hint(
                "the node is consistent; run the same command again: it continues from the node \
                 as it is",
            ));
        }
        self.journal.append(Event::Step, Some(&describe(change)))
    }

    fn settle(&mut self) -> Result<()> {
        self.journal.sync()
    }

    fn after(&mut self, change: &Change) {
        let status = change.status.map_or("", |s| s.as_str());
        let line = format!("{}: {status}", describe(change));
        if let Err(e) = self.journal.step_done(&line, change.action, status) {
            self.ctx.out.warn(e.message);
        }
    }
}
