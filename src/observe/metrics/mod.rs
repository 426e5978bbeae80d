//! The node's metrics for Prometheus: what every GPU and MIG device holds and who holds it, the
//! sharing set up on them, the changes made and the probe's last verdict. Served on
//! `GET /metrics` by `gpushare agent` (on its health address) and `gpushare metrics --listen`.
//!
//! A scrape reads the driver once (one snapshot), the kubelet's pod-resources once, the MPS
//! records, what the journal gained since the last scrape, the probe's kept report and the
//! layout in force; a source that cannot be read leaves its series out and says so in
//! `gpushare_scrape_source_up{source}`, so unknown is absent, never 0.
//!
//! - [`sheet`]: the series of one scrape, encoded by `prometheus-client`;
//! - [`devices`]: GPUs and MIG devices; [`owners`]: who uses them (pods, containers, the host);
//!   [`health`]: their health and the Xid and ECC errors; [`sharing`]: MPS and time-slicing;
//!   [`changes`]: the agent's state and the journal ([`journal_tally`]); [`probe`]: the probe's
//!   report;
//! - [`systemd_unit`]: the systemd unit of `gpushare metrics --listen`.

#[doc(hidden)]
pub mod bench;
pub(crate) mod changes;
pub(crate) mod devices;
pub(crate) mod health;
pub(crate) mod journal_tally;
pub(crate) mod owners;
pub(crate) mod probe;
pub(crate) mod sharing;
pub(crate) mod sheet;
pub(crate) mod systemd_unit;

use crate::node::backend::{BackendOptions, SharedBackend};
use crate::node::config::AssignedConfig;
use crate::node::config::Config;
use crate::node::gpu_health::NodeHealth;
use crate::node::gpu_health::policy::Policy;
use crate::node::gpu_health::record::HealthRecord;
use crate::node::model::PodContainer;
use crate::observe::liveness::Liveness;
use crate::observe::owners::OwnerReader;
use crate::observe::owners::names::PodNames;
use crate::observe::pod_resources::{self, Holders};
use crate::support::http_endpoint::{Request, Response, Route};
use crate::support::paths::Paths;
use journal_tally::Tally;
use sheet::{Sheet, Spec};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

pub(crate) static SOURCE_UP: Spec = Spec::gauge(
    "scrape_source_up",
    "Whether this scrape could read a source (driver, pod_resources, mps, journal, probe, layout, health: a live health watch, owners: every GPU process's cgroup): 1 or 0; its series are absent when 0 (owners: the processes not read are owner=\"unknown\")",
);

/// What a scrape reads.
pub(crate) struct Sources {
    pub backend: BackendOptions,
    pub paths: Paths,
    /// The host root of the kubelet to ask who holds which device; None: not asked.
    pub pod_resources_root: Option<PathBuf>,
    /// The layout in force: gpushare.toml (`gpushare metrics`); the agent's comes from `agent`.
    pub config: Option<PathBuf>,
    /// The agent's state, when the agent serves the metrics.
    pub agent: Option<Arc<Liveness>>,
    /// The names of the node's pods, as the agent last read them from the API; None: from the
    /// kubelet's log directories under the host's root.
    pub pod_names: Option<SharedPodNames>,
    /// The pod and container gpushare runs in (the agent's).
    pub own_container: Option<PodContainer>,
    /// Where the kubelet puts pods (`--kubelet-cgroup-root`).
    pub pod_cgroups: crate::observe::owners::cgroup::PodCgroups,
}

/// Pod and container names that another thread keeps up to date; None until first read.
pub(crate) type SharedPodNames = Arc<Mutex<Option<PodNames>>>;

pub(crate) struct Collector {
    sources: Sources,
    /// The backend stays open between scrapes (NVML's init is slow); a failed read opens it
    /// again at the next.
    backend: Mutex<Option<SharedBackend>>,
    /// Held for the whole of a scrape, so scrapes do not overlap.
    tally: Mutex<Tally>,
}

/// The exposition format a scraper asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// The Prometheus text format 0.0.4.
    Prometheus,
    /// OpenMetrics 1.0 text, when the `Accept` header names it.
    OpenMetrics,
}

impl Format {
    /// What the `Accept` header prefers: OpenMetrics when it is acceptable (q above 0) and
    /// weighed at least as high as plain text; the Prometheus text format otherwise.
    pub(crate) fn from_accept(accept: Option<&str>) -> Format {
        let (mut open_metrics, mut text) = (0.0f32, 0.0f32);
        for range in accept.unwrap_or("").split(',') {
            let mut parts = range.split(';').map(str::trim);
            let media = parts.next().unwrap_or("").to_ascii_lowercase();
            let mut q = Some(1.0f32);
            for param in parts {
                if let Some((key, value)) = param.split_once('=')
                    && key.trim().eq_ignore_ascii_case("q")
                {
                    q = value
                        .trim()
                        .parse()
                        .ok()
                        .filter(|q: &f32| (0.0..=1.0).contains(q));
                }
            }
            // A malformed weight makes the range not count.
            let Some(q) = q else { continue };
            match media.as_str() {
                "application/openmetrics-text" => open_metrics = open_metrics.max(q),
                "text/plain" | "text/*" | "*/*" => text = text.max(q),
                _ => {}
            }
        }
        if open_metrics > 0.0 && open_metrics >= text {
            Format::OpenMetrics
        } else {
            Format::Prometheus
        }
    }

    fn content_type(self) -> &'static str {
        match self {
            Format::Prometheus => prometheus_client::encoding::prometheus_text::CONTENT_TYPE,
            Format::OpenMetrics => "application/openmetrics-text; version=1.0.0; charset=utf-8",
        }
    }
}

impl Collector {
    pub(crate) fn new(sources: Sources) -> Self {
        let journal = crate::change::journal::path(&sources.paths);
        Collector {
            sources,
            backend: Mutex::new(None),
            tally: Mutex::new(Tally::new(journal)),
        }
    }

    /// Scrape through `backend`, already open (the command's own), instead of opening one.
    pub(crate) fn with_backend(self, backend: SharedBackend) -> Self {
        *self.backend.lock().unwrap_or_else(|p| p.into_inner()) = Some(backend);
        self
    }

    /// One scrape's series.
    pub(crate) fn collect(&self) -> Sheet {
        let mut tally = self.tally.lock().unwrap_or_else(|p| p.into_inner());
        let mut sheet = Sheet::default();
        let up = |sheet: &mut Sheet, source: &str, ok: bool| {
            sheet.set(
                &SOURCE_UP,
                vec![("source", source.into())],
                f64::from(u8::from(ok)),
            );
        };
        let mut node = self.snapshot();
        up(&mut sheet, "driver", node.is_some());
        if let Some(node) = &mut node {
            if let Some(root) = self.sources.pod_resources_root.as_deref() {
                self.owner_reader(root).attribute(node);
                let notes = node.gpus.iter().flat_map(|g| &g.notes);
                let unread = notes
                    .into_iter()
                    .any(|n| n.field == crate::observe::owners::NOTE_FIELD);
                up(&mut sheet, "owners", !unread);
            }
            owners::add(&mut sheet, node);
            let node = &*node;
            let holders = match self.sources.pod_resources_root.as_deref() {
                None => None,
                Some(root) => match pod_resources::read(node, root) {
                    Holders::Known(held) => {
                        up(&mut sheet, "pod_resources", true);
                        Some(held)
                    }
                    // Not a Kubernetes node (or its kubelet is down): nothing to say.
                    Holders::NoSocket(_) => None,
                    Holders::Refused(..) => {
                        up(&mut sheet, "pod_resources", false);
                        None
                    }
                },
            };
            devices::add(&mut sheet, node, holders.as_deref());
            match crate::sharing::mps::shared::all(&self.sources.paths) {
                Ok(held) => {
                    let shares: Vec<_> = held.into_iter().map(|(_, s)| s).collect();
                    sharing::add_shares(&mut sheet, &shares, node);
                }
                Err(_) => up(&mut sheet, "shares", false),
            }
            let layout = self.layout();
            let policy = match &layout {
                Ok(Some(config)) => Policy::of(config.file.health.as_deref()),
                _ => Policy::default(),
            };
            match HealthRecord::load(&self.sources.paths) {
                Ok(record) => {
                    let now = crate::support::clock::unix_now();
                    let health = NodeHealth::of(record.as_ref(), node, &policy, now);
                    health::add(&mut sheet, node, record.as_ref(), &health);
                    let watched = health.gpus.values().any(|h| h.is_ok());
                    up(&mut sheet, "health", watched);
                }
                Err(_) => up(&mut sheet, "health", false),
            }
            match layout {
                Ok(Some(config)) => match AssignedConfig::new(Config::clone(&config), node) {
                    Ok(config) => {
                        sharing::add_time_slicing(&mut sheet, &config, node);
                        up(&mut sheet, "layout", true);
                    }
                    Err(_) => up(&mut sheet, "layout", false),
                },
                Ok(None) => {}
                Err(()) => up(&mut sheet, "layout", false),
            }
        }
        match crate::sharing::mps::settings::load_all(&self.sources.paths) {
            Ok(daemons) => {
                sharing::add_mps(&mut sheet, &daemons);
                up(&mut sheet, "mps", true);
            }
            Err(_) => up(&mut sheet, "mps", false),
        }
        let journal_ok = tally.update().is_ok();
        changes::add_journal(&mut sheet, &tally);
        up(&mut sheet, "journal", journal_ok);
        if let Some(agent) = &self.sources.agent {
            changes::add_agent(
                &mut sheet,
                &agent.snapshot().0,
                crate::support::clock::unix_now(),
            );
        }
        match crate::observe::probe::kept::read(&self.sources.paths) {
            Ok(Some(report)) => {
                probe::add(&mut sheet, &report);
                up(&mut sheet, "probe", true);
            }
            Ok(None) => {}
            Err(_) => up(&mut sheet, "probe", false),
        }
        sheet
    }

    /// One scrape, encoded.
    pub(crate) fn scrape(&self, format: Format) -> String {
        let registry = self.collect().into_registry();
        let mut out = String::new();
        let written = match format {
            Format::Prometheus => {
                prometheus_client::encoding::prometheus_text::encode(&mut out, &registry)
            }
            Format::OpenMetrics => prometheus_client::encoding::text::encode(&mut out, &registry),
        };
        // Writing to a String does not fail.
        debug_assert!(written.is_ok());
        out
    }

    /// The `/metrics` route of an endpoint.
    pub(crate) fn route(self: Arc<Self>) -> Route {
        Route::slow("/metrics", move |request: &Request| {
            let format = Format::from_accept(request.accept.as_deref());
            Response {
                code: 200,
                content_type: format.content_type(),
                body: self.scrape(format),
            }
        })
    }

    /// Who owns the processes on the host under `root`, with the agent's names when it has any.
    fn owner_reader(&self, root: &std::path::Path) -> OwnerReader {
        let reader = match &self.sources.pod_names {
            None => OwnerReader::with_kubelet_logs(root),
            Some(shared) => {
                let names = shared.lock().unwrap_or_else(|p| p.into_inner()).clone();
                OwnerReader::with_names(root, names.unwrap_or_default())
            }
        };
        reader
            .with_own_container(self.sources.own_container.clone())
            .with_pod_cgroups(self.sources.pod_cgroups.clone())
    }

    /// The node as the driver says now; None when it does not answer.
    fn snapshot(&self) -> Option<crate::node::model::Node> {
        let mut kept = self.backend.lock().unwrap_or_else(|p| p.into_inner());
        if kept.is_none() {
            *kept = crate::node::backend::open(&self.sources.backend)
                .ok()
                .map(|o| o.backend);
        }
        let node = kept.as_ref()?.snapshot().ok();
        if node.is_none() {
            *kept = None;
        }
        node
    }

    /// The layout in force: the agent's, or the gpushare.toml given; Err when it does not load.
    fn layout(&self) -> Result<Option<Arc<Config>>, ()> {
        if let Some(agent) = &self.sources.agent {
            return Ok(agent.snapshot().0.config);
        }
        match &self.sources.config {
            Some(path) if path.exists() => Config::load(path)
                .map(|c| Some(Arc::new(c)))
                .map_err(|_| ()),
            _ => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests;
