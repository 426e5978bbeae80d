//! What every command gets: how to print, where gpushare keeps its files, and the node (a
//! backend opened on first use, so commands that do not need a GPU never load NVML).

use super::backend::{self, Backend, BackendOptions, SharedBackend};
use super::model::Node;
use crate::support::error::Result;
use crate::support::output::Output;
use crate::support::paths::Paths;

/// What every command gets: how to print, and the node (opened on first use, so commands that do
/// not need a GPU never load NVML).
pub struct Context {
    pub out: Output,
    pub paths: Paths,
    pub backend_options: BackendOptions,
    /// How long a changing command waits for the node lock (`--lock-timeout`).
    pub lock_timeout: std::time::Duration,
    /// How many GPUs a changing command changes at once (`--jobs`); `None`: every GPU it changes.
    pub jobs: Option<std::num::NonZeroUsize>,
    backend: Option<backend::Opened>,
    /// The catalog's disagreements with the driver were printed (once a run).
    catalog_warned: bool,
    simulation_announced: bool,
}

impl Context {
    pub fn new(out: Output, paths: Paths, backend_options: BackendOptions) -> Self {
        Context {
            out,
            paths,
            backend_options,
            lock_timeout: std::time::Duration::from_secs(60),
            jobs: None,
            backend: None,
            catalog_warned: false,
            simulation_announced: false,
        }
    }

    /// Whether the node is simulated (its GPUs are not this host's).
    pub(crate) fn simulated(&self) -> bool {
        self.backend_options.simulated()
    }

    pub fn backend(&mut self) -> Result<&dyn Backend> {
        Ok(self.open_backend()?.as_ref())
    }

    /// The backend, for threads that change GPUs at the same time (the executor's workers).
    pub fn shared_backend(&mut self) -> Result<SharedBackend> {
        self.open_backend().cloned()
    }

    /// A context for another thread of this command: the same settings, output and opened node.
    pub(crate) fn sibling(&mut self) -> Result<Context> {
        self.open_backend()?;
        let opened = self.backend.as_ref().map(|o| backend::Opened {
            backend: o.backend.clone(),
            events: o.events.clone(),
        });
        Ok(Context {
            out: self.out.clone(),
            paths: self.paths.clone(),
            backend_options: self.backend_options.clone(),
            lock_timeout: self.lock_timeout,
            jobs: self.jobs,
            backend: opened,
            catalog_warned: self.catalog_warned,
            simulation_announced: true,
        })
    }

    /// What hears of the steps taken on the host outside the driver (the simulator).
    pub(crate) fn host_events(
        &mut self,
    ) -> Result<std::sync::Arc<dyn backend::host_events::HostEvents>> {
        self.open_backend()?;
        Ok(self.backend.as_ref().expect("opened above").events.clone())
    }

    fn open_backend(&mut self) -> Result<&SharedBackend> {
        if self.backend.is_none() {
            let opened = backend::open(&self.backend_options)?;
            // Said once: the agent opens the backend afresh before every pass.
            if self.backend_options.simulated() && !self.simulation_announced {
                self.simulation_announced = true;
                self.announce_simulation(&opened.backend.source());
            }
            self.backend = Some(opened);
        }
        Ok(&self.backend.as_ref().expect("opened above").backend)
    }

    /// Say that the node is simulated, so that no one takes its answers for the host's GPUs; and
    /// warn when the simulator was switched on by the environment on a host where a driver
    /// answers (a `GPUSHARE_SIM` left in root's environment).
    fn announce_simulation(&self, source: &str) {
        self.out.note(format!(
            "simulated node ({source}): this host's GPUs are neither read nor changed"
        ));
        if let Some(var) = self.backend_options.sim_from_env
            && backend::driver_answers(self.backend_options.nvml_lib.as_deref())
        {
            self.out.warn(format!(
                "{var} in the environment selects the simulator, but an NVIDIA driver answers on \
                 this host: nothing this command reports or changes is on its GPUs (unset {var} to \
                 use them)"
            ));
        }
    }

    /// Close the backend: the next use opens it again and sees the node afresh, as a new command
    /// would (the agent does this before every pass).
    pub fn reopen_backend(&mut self) {
        self.backend = None;
    }

    /// The node as it is now. Where the catalog disagrees with the driver about a GPU, a
    /// warning says so (once a run): the catalog is then not used for it.
    pub fn snapshot(&mut self) -> Result<Node> {
        let node = self.snapshot_quiet()?;
        if !self.catalog_warned {
            self.catalog_warned = true;
            for line in node.note_lines(|n| n.field == "catalog") {
                self.out.warn(line);
            }
        }
        Ok(node)
    }

    /// The node as it is now, without warnings (`detect` prints every note itself).
    pub fn snapshot_quiet(&mut self) -> Result<Node> {
        Ok(self.backend()?.snapshot()?)
    }
}
