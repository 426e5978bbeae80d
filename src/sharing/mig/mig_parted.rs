//! NVIDIA mig-parted's config format (v1), read unchanged, with mig-parted's semantics:
//!
//! ```yaml
//! version: v1
//! mig-configs:
//!   all-balanced:
//!     - device-filter: ["0x20B010DE", "0x20B210DE:0x147F10DE"]   # optional; :subsystem optional
//!       devices: all              # or [0, 1, 4]
//!       mig-enabled: true
//!       mig-devices: { "1g.5gb": 2, "2g.10gb": 1, "3g.20gb": 1 }
//! ```
//!
//! An entry applies to GPU *i* when its device filter matches (no filter: every GPU) and
//! `devices` is `all` or lists *i*. Entries apply in order, so when several match a GPU the last
//! one wins, as in mig-parted. GPUs no entry matches are left untouched. A GPU without MIG that
//! an entry with `mig-enabled: true` covers is an error, as in mig-parted's `assert` (`unable to
//! assert MIG mode enabled on non MIG-capable GPU`): the file demands what the GPU cannot do.
//! mig-parted's `apply` skips such a GPU under `devices: all` and then fails its own `assert`;
//! gpushare never reports a label the node cannot have as applied.
//! Each `mig-devices` entry is a MIG device: one GPU instance with one compute instance (`2c.`
//! prefixes pick a smaller compute instance). The messages for invalid files are mig-parted's.

use super::layout::{
    GpuDesire, MigLayout, Problem, ProfileBook, Profiles, WantedInstance, check_feasible, resolve,
};
use crate::node::model::Node;
use crate::node::model::catalog::GpuInstanceProfile;
use crate::support::error::{Error, Result};
use crate::support::output::Output;
use crate::support::source_file::SourceFile;
pub(crate) use entry::{Devices, MigConfigEntry, Position};
use raw::{RawSpec, check_entry};

mod entry;
mod raw;

/// A parsed and checked mig-parted config file.
#[derive(Debug, Clone)]
pub struct MigPartedConfig {
    pub(crate) source: SourceFile,
    pub(crate) configs: Vec<LabelConfig>,
    /// Where the labels are (`mig-configs`), for errors about a label that is not there.
    pub(crate) configs_at: Position,
}

/// One label of `mig-configs`.
#[derive(Debug, Clone)]
pub(crate) struct LabelConfig {
    pub label: String,
    pub at: Position,
    pub entries: Vec<MigConfigEntry>,
}

impl MigPartedConfig {
    /// Parse and check a config file; errors name the file, line and column.
    pub(crate) fn parse(source: SourceFile) -> Result<Self> {
        let raw: RawSpec = source.parse_yaml().map_err(|e| {
            e.with_hint("the file should be a mig-parted v1 config (version: v1, mig-configs: …)")
        })?;
        // A field that is missing has no place of its own: such errors point at the start.
        let err = |at: Option<Position>, msg: String| {
            let at = at.unwrap_or(Position { line: 1, column: 1 });
            Error::in_file(&source.path, Some((at.line, at.column)), msg)
        };
        let Some(version) = &raw.version else {
            return Err(
                err(None, "unable to parse with missing 'version' field".into())
                    .with_hint("add `version: v1` at the top"),
            );
        };
        if version.value != "v1" {
            return Err(err(
                Some(Position::of(version)),
                format!("unknown version: {}", version.value),
            )
            .with_hint("mig-parted configs are `version: v1`"));
        }
        let Some(configs) = &raw.mig_configs else {
            return Err(err(
                None,
                "at least one entry in 'mig-configs' is required".into(),
            ));
        };
        if configs.value.0.is_empty() {
            return Err(err(
                Some(Position::of(configs)),
                "at least one entry in 'mig-configs' is required".into(),
            ));
        }
        let mut out = Vec::new();
        for (label, entries) in &configs.value.0 {
            if entries.value.is_empty() {
                return Err(err(
                    Some(Position::of(label)),
                    format!("at least one entry in '{}' is required", label.value),
                ));
            }
            let mut checked = Vec::new();
            for entry in &entries.value {
                checked.push(check_entry(entry, &err)?);
            }
            out.push(LabelConfig {
                label: label.value.clone(),
                at: Position::of(label),
                entries: checked,
            });
        }
        Ok(MigPartedConfig {
            source,
            configs: out,
            configs_at: Position::of(configs),
        })
    }

    pub(crate) fn labels(&self) -> Vec<&str> {
        self.configs.iter().map(|c| c.label.as_str()).collect()
    }

    /// The label `-c` names; without `-c`, the only one there is (as mig-parted does).
    pub(crate) fn select(&self, label: Option<&str>) -> Result<&LabelConfig> {
        let hint = || {
            format!(
                "labels in {}: {}",
                self.source.path.display(),
                self.labels().join(", ")
            )
        };
        match label {
            Some(l) => self.configs.iter().find(|c| c.label == l).ok_or_else(|| {
                let at = self.configs_at;
                Error::in_file(
                    &self.source.path,
                    Some((at.line, at.column)),
                    format!("selected mig-config not present: {l}"),
                )
                .with_hint(hint())
            }),
            None if self.configs.len() == 1 => Ok(&self.configs[0]),
            None => Err(Error::usage(
                "missing required flag 'selected-config' when more than one config available",
            )
            .with_hint(format!("pick one with -c LABEL; {}", hint()))),
        }
    }

    fn error(&self, at: Position, p: Problem) -> Error {
        let e = Error::in_file(&self.source.path, Some((at.line, at.column)), p.message);
        match p.hint {
            Some(h) => e.with_hint(h),
            None => e,
        }
    }

    /// The MIG wish of every GPU a label covers.
    pub(crate) fn desires(
        &self,
        config: &LabelConfig,
        node: &Node,
        book: &ProfileBook,
        out: &Output,
    ) -> Result<Vec<GpuDesire>> {
        // Explicit indexes must exist (a filter that matches nothing is normal in a file made for
        // many kinds of GPUs; an index that does not exist is a mistake).
        for entry in &config.entries {
            if let Devices::Indexes(list) = &entry.devices
                && let Some(missing) = list.iter().find(|i| node.gpu(**i).is_none())
            {
                return Err(self.error(
                    entry.devices_at,
                    Problem {
                        message: format!("GPU {missing} does not exist"),
                        hint: Some(format!(
                            "this node has {} GPU(s), 0 to {}",
                            node.gpus.len(),
                            node.gpus.len().saturating_sub(1)
                        )),
                    },
                ));
            }
        }
        let mut desires: Vec<GpuDesire> = Vec::new();
        let mut matched_any = false;
        for gpu in &node.gpus {
            let matching: Vec<&MigConfigEntry> = config
                .entries
                .iter()
                .filter(|e| e.applies_to(gpu))
                .collect();
            let Some(entry) = matching.last() else {
                continue;
            };
            matched_any = true;
            if matching.len() > 1 {
                let lines: Vec<String> = matching.iter().map(|e| e.at.line.to_string()).collect();
                out.warn(format!(
                    "GPU {}: entries at lines {} of label {} all match it; the last one applies, as in mig-parted",
                    gpu.index,
                    lines.join(", "),
                    config.label
                ));
            }
            if !gpu.mig.capable {
                if entry.mig_enabled {
                    return Err(self.error(entry.devices_at, super::layout::not_capable(gpu)));
                }
                continue;
            }
            // Everything is planned from the instances as they are: with MIG on they must be
            // known (an unknown layout is an error, never "no instances").
            gpu.mig_instances()?;
            let mut profiles: &[GpuInstanceProfile] = &[];
            let layout = if !entry.mig_enabled {
                MigLayout::Disabled
            } else {
                match book.of(gpu)? {
                    Profiles::UntilEnabled(why) => {
                        let wanted: Vec<String> = entry
                            .mig_devices
                            .iter()
                            .flat_map(|(name, count, _)| (0..*count).map(move |_| name.clone()))
                            .collect();
                        if wanted.is_empty() {
                            MigLayout::Enabled(Vec::new())
                        } else {
                            MigLayout::EnabledLater {
                                wanted,
                                why: why.to_string(),
                            }
                        }
                    }
                    Profiles::Known(list) => {
                        profiles = list;
                        let mut wanted = Vec::new();
                        for (name, count, at) in &entry.mig_devices {
                            let (profile, compute) =
                                resolve(gpu, profiles, name).map_err(|p| self.error(*at, p))?;
                            let max = profiles[profile].max_instances;
                            if *count > max {
                                return Err(self.error(
                                    *at,
                                    Problem {
                                        message: format!(
                                            "\"{name}\": {count}: GPU {} ({}) holds at most {max}",
                                            gpu.index, gpu.name
                                        ),
                                        hint: Some(format!("use a count from 0 to {max}")),
                                    },
                                ));
                            }
                            wanted.extend((0..*count).map(|_| WantedInstance {
                                profile,
                                compute: compute.clone(),
                                start: None,
                            }));
                        }
                        check_feasible(gpu, profiles, &wanted)
                            .map_err(|p| self.error(entry.at, p))?;
                        MigLayout::Enabled(wanted)
                    }
                }
            };
            desires.push(GpuDesire {
                gpu: gpu.index,
                layout,
                profiles: profiles.to_vec(),
                origin: format!(
                    "{}:{} (label {})",
                    self.source.path.display(),
                    entry.at.line,
                    config.label
                ),
                reason: None,
            });
        }
        if !matched_any {
            let ids: Vec<String> = node
                .gpus
                .iter()
                .map(|g| format!("{} {} ({})", g.index, g.name, g.pci_device_id))
                .collect();
            return Err(Error::in_file(
                &self.source.path,
                Some((config.at.line, config.at.column)),
                format!("label {} matches no GPU of this node", config.label),
            )
            .with_hint(format!("this node has: {}", ids.join(", "))));
        }
        Ok(desires)
    }
}

#[cfg(test)]
mod tests;
