//! `gpushare.toml`: the desired sharing layout of a node, one entry per group of GPUs.
//!
//! ```toml
//! [[gpus]]
//! select = "all"                       # "all" | [0, 2] | { model = "NVIDIA A100*", pci_device_id = "0x20B010DE" }
//! mode = "mig"                         # mig | mps | time-slicing | vgpu | none
//! mig.devices = { "3g.20gb" = 1, "2g.10gb" = 1, "1g.5gb" = 2 }
//! ```
//!
//! This module parses and checks what is common to every mode (selectors, one entry per GPU,
//! sections that fit the mode); each mode's own checks live with that mode. `crate::sharing::choose` writes a
//! file from `init`'s flags.

mod select;
pub(crate) mod shares;

use crate::node::clients::{GpuClients, module_name, unit_name};
use crate::node::model::{Gpu, Node};
use crate::support::error::{Error, Result};
use crate::support::output::parse_size_mib;
use crate::support::source_file::SourceFile;
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use toml::Spanned;

pub(crate) use select::Select;

pub(crate) const DEFAULT_PATH: &str = "/etc/gpushare/gpushare.toml";

/// The parsed file, with its text for error positions.
#[derive(Debug, Clone)]
pub struct Config {
    pub(crate) source: SourceFile,
    pub(crate) file: ConfigFile,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ConfigFile {
    /// Format version; only 1 exists.
    #[serde(default = "one")]
    pub version: Spanned<u32>,
    #[serde(default)]
    pub gpus: Vec<Spanned<GpuEntry>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kubernetes: Option<KubernetesSection>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clients: Option<ClientsSection>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health: Option<Box<HealthSection>>,
}

fn one() -> Spanned<u32> {
    Spanned::new(0..0, 1)
}

/// How a group of GPUs is shared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Mode {
    /// Hardware partitions (MIG instances).
    Mig,
    /// Concurrent processes through the MPS daemon, with per-client limits.
    Mps,
    /// Processes take turns (compute mode DEFAULT; replicas for Kubernetes).
    TimeSlicing,
    /// vGPU devices for virtual machines.
    Vgpu,
    /// No sharing: MIG disabled, no MPS, compute mode DEFAULT.
    None,
}

impl Mode {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Mode::Mig => "mig",
            Mode::Mps => "mps",
            Mode::TimeSlicing => "time-slicing",
            Mode::Vgpu => "vgpu",
            Mode::None => "none",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GpuEntry {
    pub select: Spanned<Select>,
    pub mode: Spanned<Mode>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mig: Option<Spanned<MigSection>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mps: Option<Spanned<MpsSection>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_slicing: Option<Spanned<TimeSlicingSection>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vgpu: Option<Spanned<VgpuSection>>,
}

/// `mig`: the instances each selected GPU should have.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MigSection {
    /// Profile → count, e.g. `{"3g.40gb" = 1, "1g.10gb" = 2}`; `"2c.3g.40gb"` names a
    /// compute-instance profile (one GPU instance each, with that compute instance).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub devices: BTreeMap<Spanned<String>, Spanned<u32>>,
    /// Explicit placements: `[{ profile = "3g.40gb", start = 4 }]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub instances: Vec<Spanned<MigInstance>>,
    /// MIG on, instances made for claims: gpushare's DRA driver publishes every placement and
    /// makes each instance when its claim is prepared. No layout (`devices`, `instances`), no
    /// sharing beside it but `mps.shares` (each instance shared by claims), and the agent and
    /// the controller change nothing there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dynamic: Option<Spanned<bool>>,
    /// MPS inside every MIG device of these GPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mps: Option<Spanned<MpsSection>>,
    /// Time-slicing of every MIG device of these GPUs: the device plugin advertises each as
    /// `replicas` devices (`mig.time_slicing.replicas = 4`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_slicing: Option<Spanned<TimeSlicingSection>>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MigInstance {
    pub profile: Spanned<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Spanned<u32>>,
}

/// `mps`: limits of the MPS clients on each selected GPU (or MIG device).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct MpsSection {
    /// Equal share for N clients: 100/N percent of the threads and 1/N of the memory each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clients: Option<Spanned<u32>>,
    /// Active thread percentage per client, 1..=100 (overrides the share from `clients`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_percentage: Option<Spanned<u32>>,
    /// Pinned device memory per client, `"4G"`, `"512M"` or MiB as a number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_limit: Option<Spanned<MemorySize>>,
    /// Shared by DRA claims, each an MPS client with the memory and compute it was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shares: Option<Spanned<shares::SharesSection>>,
}

impl MpsSection {
    /// The claims' policies, when the device is shared by claims (checked by [`Config::load`]).
    pub(crate) fn share_policy(&self) -> Option<shares::SharePolicy> {
        self.shares
            .as_ref()
            .and_then(|s| s.get_ref().resolve().ok())
    }
}

/// `time_slicing`: how many workloads take turns on each selected GPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TimeSlicingSection {
    pub replicas: Spanned<u32>,
}

/// `vgpu`: vGPU type → count on each selected GPU, e.g. `{"A100-4C" = 10}`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct VgpuSection {
    pub devices: BTreeMap<Spanned<String>, Spanned<u32>>,
}

/// `[kubernetes]`: what `init` and `manifests` generate for this node.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct KubernetesSection {
    /// Manifest targets, e.g. `["nvidia-device-plugin", "cdi"]`.
    #[serde(default)]
    pub targets: Vec<Spanned<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<Spanned<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<Spanned<String>>,
}

/// `[clients]`: what holds the GPUs on this host, stopped around changes that need a GPU reset
/// or a MIG mode change and started again after them (see `crate::node::clients`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ClientsSection {
    /// systemd units, e.g. `["nvsm.service", "nvidia-dcgm.service"]`, stopped in this order.
    #[serde(default)]
    pub systemd: Vec<Spanned<String>>,
    /// Kernel modules to unload, e.g. `["nvidia_drm"]` (only when nothing uses them).
    #[serde(default)]
    pub modules: Vec<Spanned<String>>,
}

/// `[health]`: what Xid errors do to a device's health (see `crate::node::gpu_health::policy`); a
/// list left out keeps its default.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct HealthSection {
    /// Xids of faults in the application: recorded, the device stays healthy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub application_xids: Option<Spanned<Vec<Spanned<u64>>>>,
    /// Xids after which the GPU needs a reset: unhealthy until gpushare resets it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fatal_xids: Option<Spanned<Vec<Spanned<u64>>>>,
    /// Other Xids: unhealthy until this many seconds pass without another.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recover_after_seconds: Option<Spanned<u64>>,
}

/// The most Xids a `[health]` list may hold (the driver's Xids are numbered below 200).
const MAX_XIDS: usize = 256;
/// The longest quiet period: a week.
const MAX_RECOVER_AFTER_SECONDS: u64 = 7 * 24 * 3600;

/// A size in MiB, written as `"4G"`, `"512M"` or a number of MiB.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct MemorySize(pub u64);

impl<'de> Deserialize<'de> for MemorySize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Mib(u64),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Mib(0) => Err(serde::de::Error::custom(
                "a memory size must be at least 1 MiB",
            )),
            Raw::Mib(n) => Ok(MemorySize(n)),
            Raw::Text(t) => parse_size_mib(&t)
                .map(MemorySize)
                .map_err(serde::de::Error::custom),
        }
    }
}

impl Serialize for MemorySize {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        if self.0.is_multiple_of(1024) {
            s.serialize_str(&format!("{}G", self.0 / 1024))
        } else {
            s.serialize_str(&format!("{}M", self.0))
        }
    }
}

/// One GPU of the node and the entry of the file that covers it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Assignment<'c> {
    pub gpu: u32,
    pub entry: &'c Spanned<GpuEntry>,
}

/// The GPUs one entry covers.
#[derive(Debug)]
pub(crate) struct EntryGpus<'c> {
    pub entry: &'c Spanned<GpuEntry>,
    pub gpus: Vec<u32>,
}

/// The GPUs of each entry of `assignments`, the entries in file order.
pub(crate) fn by_entry<'c>(assignments: &[Assignment<'c>]) -> Vec<EntryGpus<'c>> {
    let mut out: Vec<EntryGpus<'c>> = Vec::new();
    for a in assignments {
        match out.iter_mut().find(|g| std::ptr::eq(g.entry, a.entry)) {
            Some(g) => g.gpus.push(a.gpu),
            None => out.push(EntryGpus {
                entry: a.entry,
                gpus: vec![a.gpu],
            }),
        }
    }
    out.sort_by_key(|g| g.entry.span().start);
    out
}

/// A gpushare.toml with the GPUs of one node assigned to its entries, checked once per command
/// ([`AssignedConfig::new`]); every mode reads the assignment from here instead of making it
/// again. It is the [`Config`] too.
#[derive(Debug, Clone)]
pub(crate) struct AssignedConfig {
    config: Config,
    /// Each covered GPU and the index of its entry in `config.file.gpus`, by GPU.
    covered: Vec<(u32, usize)>,
}

impl AssignedConfig {
    /// Which entry covers each GPU of `node`. A GPU covered by no entry is left alone; a GPU
    /// covered twice, or a selector that matches nothing, is an error.
    pub(crate) fn new(config: Config, node: &Node) -> Result<AssignedConfig> {
        let covered = config.assign(node)?;
        Ok(AssignedConfig { config, covered })
    }

    /// The covered GPUs with their entries, by GPU.
    pub(crate) fn assignments(&self) -> Vec<Assignment<'_>> {
        self.covered
            .iter()
            .map(|&(gpu, index)| Assignment {
                gpu,
                entry: &self.config.file.gpus[index],
            })
            .collect()
    }
}

impl std::ops::Deref for AssignedConfig {
    type Target = Config;

    fn deref(&self) -> &Config {
        &self.config
    }
}

impl Config {
    pub(crate) fn load(path: &Path) -> Result<Config> {
        Self::parse(SourceFile::read(path)?)
    }

    /// [`Config::load`], or the text on stdin for `-` (a layout given to `plan`, `apply` or
    /// `manifests`).
    pub(crate) fn load_input(path: &Path) -> Result<Config> {
        Self::parse(SourceFile::read_or_stdin(path)?)
    }

    /// Parse and check what does not depend on the node: sections fit the mode, values in range.
    pub(crate) fn parse(source: SourceFile) -> Result<Config> {
        let file: ConfigFile = source.parse_toml()?;
        let config = Config { source, file };
        let version = &config.file.version;
        if *version.get_ref() != 1 {
            return Err(config.source.error_at(
                Some(version.span()),
                format!("version = {}: only version 1 exists", version.get_ref()),
            ));
        }
        for entry in &config.file.gpus {
            config.check_entry(entry)?;
        }
        config.gpu_clients()?;
        config.check_health()?;
        Ok(config)
    }

    /// `[health]`: lists of at most [`MAX_XIDS`], no Xid in both, a quiet period of a week at most.
    fn check_health(&self) -> Result<()> {
        let Some(section) = &self.file.health else {
            return Ok(());
        };
        for (list, what) in [
            (&section.application_xids, "health.application_xids"),
            (&section.fatal_xids, "health.fatal_xids"),
        ] {
            if let Some(list) = list
                && list.get_ref().len() > MAX_XIDS
            {
                return Err(self.error_at(
                    list.span(),
                    format!(
                        "{what} lists {} Xids, more than {MAX_XIDS}",
                        list.get_ref().len()
                    ),
                ));
            }
        }
        if let (Some(app), Some(fatal)) = (&section.application_xids, &section.fatal_xids)
            && let Some(x) = fatal
                .get_ref()
                .iter()
                .find(|f| app.get_ref().iter().any(|a| a.get_ref() == f.get_ref()))
        {
            return Err(self
                .error_at(
                    x.span(),
                    format!(
                        "Xid {} is in both health.application_xids and health.fatal_xids",
                        x.get_ref()
                    ),
                )
                .with_hint(
                    "an Xid is either the application's fault or the GPU's; keep it in one list",
                ));
        }
        if let Some(after) = &section.recover_after_seconds
            && *after.get_ref() > MAX_RECOVER_AFTER_SECONDS
        {
            return Err(self
                .error_at(
                    after.span(),
                    format!(
                        "health.recover_after_seconds = {}: more than a week ({MAX_RECOVER_AFTER_SECONDS})",
                        after.get_ref()
                    ),
                )
                .with_hint("list Xids that need a reset in health.fatal_xids instead"));
        }
        Ok(())
    }

    /// The GPU clients of `[clients]`, checked (none without the section).
    pub(crate) fn gpu_clients(&self) -> Result<GpuClients> {
        let mut clients = GpuClients::default();
        let Some(section) = &self.file.clients else {
            return Ok(clients);
        };
        for (list, what) in [
            (&section.systemd, "clients.systemd"),
            (&section.modules, "clients.modules"),
        ] {
            if let Some(s) = list.get(crate::node::clients::MAX_CLIENTS) {
                return Err(self
                    .error_at(s.span(), crate::node::clients::too_many(what))
                    .with_hint("list only the services and modules that hold the GPUs open"));
            }
        }
        for s in &section.systemd {
            let unit = unit_name(s.get_ref()).map_err(|why| self.error_at(s.span(), why))?;
            if !clients.services.contains(&unit) {
                clients.services.push(unit);
            }
        }
        for m in &section.modules {
            let module = module_name(m.get_ref()).map_err(|why| self.error_at(m.span(), why))?;
            if !clients.modules.contains(&module) {
                clients.modules.push(module);
            }
        }
        Ok(clients)
    }

    /// An error about a span of the file.
    pub(crate) fn error_at(
        &self,
        span: std::ops::Range<usize>,
        message: impl std::fmt::Display,
    ) -> Error {
        self.source.error_at(Some(span), message)
    }

    /// An error found in a value of the file, placed at the value (its hint kept).
    pub(crate) fn place(&self, span: std::ops::Range<usize>, e: Error) -> Error {
        let placed = self.error_at(span, &e.message);
        match e.hint {
            Some(h) => placed.with_hint(h),
            None => placed,
        }
    }

    fn check_entry(&self, entry: &Spanned<GpuEntry>) -> Result<()> {
        let e = entry.get_ref();
        let mode = *e.mode.get_ref();
        let sections: [(&str, Option<std::ops::Range<usize>>, bool); 4] = [
            ("mig", e.mig.as_ref().map(Spanned::span), mode == Mode::Mig),
            ("mps", e.mps.as_ref().map(Spanned::span), mode == Mode::Mps),
            (
                "time_slicing",
                e.time_slicing.as_ref().map(Spanned::span),
                mode == Mode::TimeSlicing,
            ),
            (
                "vgpu",
                e.vgpu.as_ref().map(Spanned::span),
                mode == Mode::Vgpu,
            ),
        ];
        for (name, span, fits) in sections {
            if let Some(span) = span
                && !fits
            {
                return Err(self
                    .error_at(
                        span,
                        format!(
                            "a `{name}` section does not go with mode = \"{}\"",
                            mode.as_str()
                        ),
                    )
                    .with_hint(format!(
                        "use mode = \"{}\" or remove the section",
                        section_mode(name)
                    )));
            }
        }
        let needs = match mode {
            Mode::Mps if e.mps.is_none() => Some("mps"),
            Mode::TimeSlicing if e.time_slicing.is_none() => Some("time_slicing"),
            Mode::Vgpu if e.vgpu.is_none() => Some("vgpu"),
            Mode::Mig if e.mig.is_none() => Some("mig"),
            _ => None,
        };
        if let Some(name) = needs {
            return Err(self
                .error_at(
                    e.mode.span(),
                    format!("mode = \"{}\" needs a `{name}` section", mode.as_str()),
                )
                .with_hint(example(name)));
        }
        if let Some(mps) = &e.mps {
            self.check_mps(mps)?;
        }
        if let Some(mig) = &e.mig {
            self.check_dynamic(mig)?;
        }
        if let Some(mig) = &e.mig
            && let Some(mps) = &mig.get_ref().mps
        {
            self.check_mps(mps)?;
        }
        if let Some(ts) = &e.time_slicing {
            self.check_replicas(ts)?;
        }
        if let Some(mig) = &e.mig
            && let Some(ts) = &mig.get_ref().time_slicing
        {
            if mig.get_ref().mps.is_some() {
                return Err(self
                    .error_at(
                        ts.span(),
                        "a MIG device is shared by MPS (mig.mps) or by time-slicing \
                         (mig.time_slicing), not both",
                    )
                    .with_hint("keep one of the two sections"));
            }
            self.check_replicas(ts)?;
        }
        Ok(())
    }

    /// `mig.dynamic = true` leaves the instances to claims: no layout and no sharing beside it.
    fn check_dynamic(&self, mig: &Spanned<MigSection>) -> Result<()> {
        let m = mig.get_ref();
        let Some(dynamic) = m.dynamic.as_ref().filter(|d| *d.get_ref()) else {
            return Ok(());
        };
        let beside = [
            ("devices", m.devices.keys().next().map(Spanned::span)),
            ("instances", m.instances.first().map(Spanned::span)),
            // Shares of each instance made for a claim go with it (mig.mps.shares).
            (
                "mps",
                m.mps
                    .as_ref()
                    .filter(|s| s.get_ref().shares.is_none())
                    .map(Spanned::span),
            ),
            ("time_slicing", m.time_slicing.as_ref().map(Spanned::span)),
        ];
        if let Some((name, Some(span))) = beside.into_iter().find(|(_, s)| s.is_some()) {
            return Err(self
                .error_at(
                    span,
                    format!(
                        "mig.{name} does not go with mig.dynamic = true: gpushare's DRA driver \
                         makes each instance for the claim that asks for it"
                    ),
                )
                .with_hint(format!(
                    "remove mig.{name}, or mig.dynamic for a fixed layout (line {})",
                    crate::support::error::line_col(&self.source.text, dynamic.span().start).0
                )));
        }
        Ok(())
    }

    fn check_replicas(&self, ts: &Spanned<TimeSlicingSection>) -> Result<()> {
        let r = &ts.get_ref().replicas;
        if !(2..=1024).contains(r.get_ref()) {
            return Err(self.error_at(
                r.span(),
                format!(
                    "replicas = {}: time-slicing needs 2 to 1024 replicas",
                    r.get_ref()
                ),
            ));
        }
        Ok(())
    }

    fn check_mps(&self, mps: &Spanned<MpsSection>) -> Result<()> {
        let m = mps.get_ref();
        if let Some(shares) = &m.shares {
            let beside = [
                ("clients", m.clients.as_ref().map(Spanned::span)),
                (
                    "thread_percentage",
                    m.thread_percentage.as_ref().map(Spanned::span),
                ),
                ("memory_limit", m.memory_limit.as_ref().map(Spanned::span)),
            ];
            if let Some((name, Some(span))) = beside.into_iter().find(|(_, s)| s.is_some()) {
                return Err(self
                    .error_at(
                        span,
                        format!(
                            "{name} does not go with shares: each claim of gpushare's DRA \
                             driver is an MPS client with the memory and compute it was given"
                        ),
                    )
                    .with_hint(format!(
                        "remove {name}; shares.memory and shares.compute say what a claim may ask for (max bounds it)"
                    )));
            }
            return shares
                .get_ref()
                .resolve()
                .map(drop)
                .map_err(|e| self.error_at(e.span, e.message));
        }
        if let Some(c) = &m.clients
            && *c.get_ref() == 0
        {
            return Err(self.error_at(c.span(), "clients = 0: MPS needs at least one client"));
        }
        if let Some(t) = &m.thread_percentage
            && !(1..=100).contains(t.get_ref())
        {
            return Err(self.error_at(
                t.span(),
                format!("thread_percentage = {}: must be 1 to 100", t.get_ref()),
            ));
        }
        if m.clients.is_none() && m.thread_percentage.is_none() && m.memory_limit.is_none() {
            return Err(self
                .error_at(
                    mps.span(),
                    "an `mps` section needs clients, thread_percentage or memory_limit",
                )
                .with_hint(example("mps")));
        }
        Ok(())
    }

    /// See [`AssignedConfig::new`], the one caller.
    /// (GPU, index of its entry) for each covered GPU, by GPU.
    fn assign(&self, node: &Node) -> Result<Vec<(u32, usize)>> {
        let mut out: Vec<(u32, usize)> = Vec::new();
        for (index, entry) in self.file.gpus.iter().enumerate() {
            let select = &entry.get_ref().select;
            let matched: Vec<&Gpu> = node
                .gpus
                .iter()
                .filter(|g| select.get_ref().matches(g))
                .collect();
            if let Select::Indexes(list) = select.get_ref()
                && let Some(missing) = list.iter().find(|i| node.gpu(**i).is_none())
            {
                return Err(self
                    .error_at(select.span(), format!("GPU {missing} does not exist"))
                    .with_hint(format!(
                        "this node has {} GPU(s), 0 to {}",
                        node.gpus.len(),
                        node.gpus.len().saturating_sub(1)
                    )));
            }
            if matched.is_empty() {
                return Err(self
                    .error_at(
                        select.span(),
                        format!("select = {} matches no GPU of this node", select.get_ref()),
                    )
                    .with_hint(format!(
                        "this node has: {}",
                        node.gpus
                            .iter()
                            .map(|g| format!("{} {} ({})", g.index, g.name, g.pci_device_id))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )));
            }
            for gpu in matched {
                if let Some(&(_, prev)) = out.iter().find(|(g, _)| *g == gpu.index) {
                    let (line, _) = crate::support::error::line_col(
                        &self.source.text,
                        self.file.gpus[prev].span().start,
                    );
                    return Err(self
                        .error_at(
                            select.span(),
                            format!(
                                "GPU {} is already configured by the entry at line {line}",
                                gpu.index
                            ),
                        )
                        .with_hint("each GPU takes one mode: narrow one of the selectors"));
                }
                out.push((gpu.index, index));
            }
        }
        out.sort_by_key(|&(gpu, _)| gpu);
        Ok(out)
    }

    /// Write the file as TOML (for `init`).
    pub(crate) fn to_toml(file: &ConfigFile) -> Result<String> {
        toml::to_string_pretty(file).map_err(|e| Error::failed(format!("cannot write TOML: {e}")))
    }
}

fn section_mode(name: &str) -> &'static str {
    match name {
        "mig" => "mig",
        "mps" => "mps",
        "time_slicing" => "time-slicing",
        _ => "vgpu",
    }
}

fn example(section: &str) -> &'static str {
    match section {
        "mig" => "e.g. mig.devices = { \"3g.20gb\" = 1, \"1g.5gb\" = 2 }",
        "mps" => "e.g. mps.clients = 4 (and optionally mps.memory_limit = \"4G\")",
        "time_slicing" => "e.g. time_slicing.replicas = 4",
        _ => "e.g. vgpu.devices = { \"A100-4C\" = 10 }",
    }
}

#[cfg(test)]
mod tests;
