//! The changing commands' [`Runner`]: driver calls go to the backend, the sharing modes' changes
//! on the host (MPS daemons, vGPU devices) to their own modules through
//! [`HostChange`](super::host_change::HostChange), GPU clients to systemctl and modprobe (with
//! the record of what is stopped), hooks to `hooks`. Every step is journalled before and after it
//! runs (on disk before it runs), and a SIGINT/SIGTERM stops the run before the next one (but
//! for the steps that finish a run that stopped early).

use super::host_change::StepHost;
use super::observe::HostTools;
use super::signals::Trap;
use crate::change::journal::{Event, Journal};
use crate::change::pipeline::execute::Runner;
use crate::change::plan::{Change, Operation};
use crate::node::Context;
use crate::node::backend::SharedBackend;
use crate::node::clients::record::Stopped;
use crate::node::clients::systemd::Systemctl;
use crate::node::clients::{Client, modules};
use crate::sharing::mps::MpsOptions;
use crate::support::error::{Error, Result};

/// `GPU 0: create_gpu_instance (1g.5gb at 0:1)`, as the journal records a step.
pub(crate) fn describe(change: &Change) -> String {
    format!("{}: {} ({})", change.target(), change.action, change.detail)
}

/// Journal that `change` starts (on disk once the runner settles).
pub(crate) fn journal_start(journal: &mut Journal, change: &Change) -> Result<()> {
    journal.append(Event::Step, Some(&describe(change)))
}

/// Journal how `change` ended.
pub(crate) fn journal_end(journal: &mut Journal, change: &Change) -> Result<()> {
    let status = change.status.map_or("", |s| s.as_str());
    let line = format!("{}: {status}", describe(change));
    journal.step_done(&line, change.action, status)
}

/// The runner of a changing command: the driver, the modes' changes on the host, GPU clients,
/// hooks, the journal, the trap.
pub(crate) struct StepRunner<'a> {
    pub host: StepHost<'a>,
    systemctl: Option<Systemctl>,
    pub journal: &'a mut Journal,
    pub trap: &'a Trap,
    /// Finishing a run that stopped early: a signal received does not stop these steps.
    pub finishing: bool,
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
            host: StepHost::new(ctx, mps, tools.control.clone(), tools.sysfs_root.clone()),
            systemctl: tools.systemctl.clone(),
            journal,
            trap,
            finishing: false,
        }
    }

    fn systemctl(&self) -> Result<Systemctl> {
        match &self.systemctl {
            Some(s) => Ok(s.clone()),
            None => Systemctl::find(),
        }
    }

    /// Stop (`running: false`) or start a GPU client: the record first when stopping (a crash
    /// after the stop must leave it recorded), last when starting.
    fn client(&mut self, change: &Change, client: &Client, running: bool) -> Result<()> {
        let action = change.operation.action();
        let events = self.host.events()?;
        events.before_step(action)?;
        if !running {
            Stopped::set(self.host.paths(), client, true)?;
        }
        match (client, running) {
            (Client::Service(unit), false) => self.systemctl()?.stop(unit)?,
            (Client::Service(unit), true) => self.systemctl()?.start(unit)?,
            (Client::Module(name), false) => modules::unload(name)?,
            (Client::Module(name), true) => modules::load(name)?,
        }
        events.client_changed(client, running)?;
        if running {
            Stopped::set(self.host.paths(), client, false)?;
        }
        events.after_step(action);
        Ok(())
    }
}

impl Runner for StepRunner<'_> {
    fn backend(&mut self) -> Result<SharedBackend> {
        self.host.backend()
    }

    fn gpus_reset(&mut self, uuids: &[String]) {
        let at = crate::support::clock::unix_now();
        let paths = self.host.paths();
        if !crate::node::gpu_health::record::HealthRecord::path(paths).exists() {
            return;
        }
        if let Err(e) =
            crate::node::gpu_health::record::HealthRecord::update(paths, |r| r.reset(uuids, at))
        {
            self.host.out().warn(format!(
                "the GPU health record keeps its faults: {}",
                e.message
            ));
        }
    }

    fn jobs(&self) -> Option<std::num::NonZeroUsize> {
        self.host.ctx.jobs
    }

    fn run_other(&mut self, change: &Change) -> Result<()> {
        match &change.operation {
            Operation::Host(step) => step.run(&mut self.host, change.gpu),
            Operation::StopClient(client) => self.client(change, client, false),
            Operation::StartClient(client) => self.client(change, client, true),
            Operation::Hook(hook) => hook.run(self.host.out()),
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
        journal_start(self.journal, change)
    }

    fn settle(&mut self) -> Result<()> {
        self.journal.sync()
    }

    fn after(&mut self, change: &Change) {
        if let Err(e) = journal_end(self.journal, change) {
            self.host.out().warn(e.message);
        }
    }
}
