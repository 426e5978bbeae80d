//! NVIDIA vgpu-device-manager's config file (v1), read unchanged (`api/spec/v1/spec.go`):
//!
//! ```yaml
//! version: v1
//! vgpu-configs:
//!   A100-4C:                          # a label, chosen with -c
//!     - device-filter: "0x20B010DE"   # optional: a PCI id or a list of them
//!       devices: all                  # "all" or GPU indexes [0, 1]
//!       vgpu-devices: {"A100-4C": 10} # type → count; {} means no vGPUs
//! ```
//!
//! GPUs no entry matches are left alone. An index this node does not have is an error (exit 2), as
//! in gpushare.toml and mig-parted files: naming a GPU that is not there is a mistake, not a
//! filter (`device-filter` is the way to write one file for several kinds of nodes).

use super::from_config::{DesiredGpu, DesiredType, Origin, VgpuLayout, check_types, error_at};
use crate::node::model::{Node, PciId};
use crate::support::error::Result;
use crate::support::source_file::SourceFile;
use serde::Deserialize;
use serde_saphyr::{Location, Spanned};
use std::collections::HashMap;
use std::path::Path;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    version: Option<Spanned<String>>,
    #[serde(rename = "vgpu-configs")]
    vgpu_configs: Option<Spanned<RawConfigs>>,
}

/// Label → entries, each with its position.
type RawConfigs = HashMap<Spanned<String>, Spanned<Vec<Spanned<RawEntry>>>>;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    #[serde(rename = "device-filter", default)]
    device_filter: Option<Spanned<OneOrMany>>,
    devices: Spanned<Devices>,
    #[serde(rename = "vgpu-devices")]
    vgpu_devices: Spanned<HashMap<Spanned<String>, Spanned<i64>>>,
}

/// `device-filter`: one PCI id or a list of them.
#[derive(Debug)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

/// `devices`: `all` or a list of GPU indexes.
#[derive(Debug)]
enum Devices {
    Word(String),
    Indexes(Vec<u32>),
}

/// A visitor for "a string or a list", with a message that says what the field takes.
struct StringOrSeq<T> {
    expecting: &'static str,
    marker: std::marker::PhantomData<T>,
}

impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for StringOrSeq<T> {
    type Value = Result<String, Vec<T>>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<Self::Value, E> {
        Ok(Ok(v.to_string()))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Err(items))
    }
}

fn string_or_seq<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
    expecting: &'static str,
) -> std::result::Result<Result<String, Vec<T>>, D::Error> {
    d.deserialize_any(StringOrSeq {
        expecting,
        marker: std::marker::PhantomData,
    })
}

impl<'de> Deserialize<'de> for OneOrMany {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        Ok(
            match string_or_seq(d, "a PCI id like \"0x20B010DE\" or a list of them")? {
                Ok(s) => OneOrMany::One(s),
                Err(v) => OneOrMany::Many(v),
            },
        )
    }
}

impl<'de> Deserialize<'de> for Devices {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        Ok(
            match string_or_seq(d, "`all` or a list of GPU indexes like [0, 1]")? {
                Ok(s) => Devices::Word(s),
                Err(v) => Devices::Indexes(v),
            },
        )
    }
}

/// A parsed config file: its labels, each a list of entries.
#[derive(Debug, Clone)]
pub(crate) struct DmConfig {
    /// Labels in file order.
    pub configs: Vec<(String, Vec<DmEntry>)>,
    /// Where the labels are (`vgpu-configs`), for errors about a label that is not there.
    pub configs_at: Origin,
}

#[derive(Debug, Clone)]
pub(crate) struct DmEntry {
    /// PCI ids, each with an optional subsystem id (`0x20B010DE:0x134F10DE`); empty = any GPU.
    pub device_filter: Vec<(PciId, Option<PciId>)>,
    /// `None` = all GPUs.
    pub devices: Option<Vec<u32>>,
    pub devices_at: Origin,
    pub types: Vec<DesiredType>,
    pub at: Origin,
}

fn origin(path: &Path, loc: &Location) -> Origin {
    Origin::new(path, loc.line() as usize, loc.column() as usize)
}

impl DmConfig {
    pub(crate) fn parse(source: &SourceFile) -> Result<DmConfig> {
        let path = source.path.as_path();
        let raw: RawFile = source.parse_yaml()?;
        match &raw.version {
            Some(v) if v.value == "v1" => {}
            Some(v) => {
                return Err(error_at(
                    Some(&origin(path, &v.referenced)),
                    format!("version: {}: only v1 exists", v.value),
                ));
            }
            None => {
                return Err(source
                    .error_at_start("`version: v1` is missing")
                    .with_hint("a vgpu-device-manager file starts with `version: v1`"));
            }
        }
        let Some(configs) = raw.vgpu_configs else {
            return Err(source.error_at_start("`vgpu-configs` is missing"));
        };
        if configs.value.is_empty() {
            return Err(error_at(
                Some(&origin(path, &configs.referenced)),
                "vgpu-configs: at least one config is required",
            ));
        }
        let configs_at = origin(path, &configs.referenced);
        let mut labels: Vec<_> = configs.value.into_iter().collect();
        labels.sort_by_key(|(k, _)| (k.referenced.line(), k.referenced.column()));
        let mut out = Vec::new();
        for (label, entries) in labels {
            if entries.value.is_empty() {
                return Err(error_at(
                    Some(&origin(path, &label.referenced)),
                    format!("{}: at least one entry is required", label.value),
                ));
            }
            let entries = entries
                .value
                .into_iter()
                .map(|e| entry(path, e))
                .collect::<Result<Vec<_>>>()?;
            out.push((label.value, entries));
        }
        Ok(DmConfig {
            configs: out,
            configs_at,
        })
    }

    pub(crate) fn labels(&self) -> Vec<&str> {
        self.configs.iter().map(|(l, _)| l.as_str()).collect()
    }

    /// The desired layout of config `label` on `node`.
    pub(crate) fn select(&self, label: &str, node: &Node) -> Result<VgpuLayout> {
        let Some((_, entries)) = self.configs.iter().find(|(l, _)| l == label) else {
            return Err(
                error_at(Some(&self.configs_at), format!("no config `{label}`"))
                    .with_hint(format!("configs in the file: {}", self.labels().join(", "))),
            );
        };
        let mut gpus: Vec<DesiredGpu> = Vec::new();
        for e in entries {
            let indexes: Vec<u32> = match &e.devices {
                None => node.gpus.iter().map(|g| g.index).collect(),
                Some(list) => {
                    if let Some(missing) = list.iter().find(|i| node.gpu(**i).is_none()) {
                        return Err(error_at(
                            Some(&e.devices_at),
                            format!("GPU {missing} does not exist"),
                        )
                        .with_hint(format!(
                            "this node has {} GPU(s), 0 to {}; use device-filter for a file that serves several kinds of nodes",
                            node.gpus.len(),
                            node.gpus.len().saturating_sub(1)
                        )));
                    }
                    list.clone()
                }
            };
            for index in indexes {
                let Some(gpu) = node.gpu(index) else { continue };
                let matches = e.device_filter.is_empty()
                    || e.device_filter.iter().any(|(id, sub)| {
                        *id == gpu.pci_device_id
                            && sub.is_none_or(|s| gpu.pci_subsystem_id.is_none_or(|g| g == s))
                    });
                if !matches {
                    continue;
                }
                if let Some(prev) = gpus.iter().find(|g| g.index == index) {
                    let line = prev.at.as_ref().map_or(0, |o| o.line);
                    return Err(error_at(
                        Some(&e.at),
                        format!("GPU {index} is already configured by the entry at line {line}"),
                    )
                    .with_hint("each GPU takes one entry: narrow `devices` or `device-filter`"));
                }
                gpus.push(DesiredGpu {
                    index,
                    types: e.types.clone(),
                    at: Some(e.at.clone()),
                });
            }
        }
        gpus.sort_by_key(|g| g.index);
        Ok(VgpuLayout { gpus })
    }
}

fn entry(path: &Path, raw: Spanned<RawEntry>) -> Result<DmEntry> {
    let at = origin(path, &raw.referenced);
    let raw = raw.value;
    let mut device_filter = Vec::new();
    if let Some(f) = raw.device_filter {
        let filter_at = origin(path, &f.referenced);
        let items = match f.value {
            OneOrMany::One(s) if s.is_empty() => Vec::new(),
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        };
        for item in items {
            let (id, sub) = match item.split_once(':') {
                Some((id, sub)) => (id, Some(sub)),
                None => (item.as_str(), None),
            };
            let parse = |s: &str| {
                s.parse::<PciId>()
                    .map_err(|e| error_at(Some(&filter_at), format!("device-filter: {e}")))
            };
            device_filter.push((parse(id)?, sub.map(parse).transpose()?));
        }
    }
    let devices_at = origin(path, &raw.devices.referenced);
    let devices = match raw.devices.value {
        Devices::Word(w) if w == "all" => None,
        Devices::Word(w) => {
            return Err(error_at(
                Some(&origin(path, &raw.devices.referenced)),
                format!("devices: {w}: use `all` or a list of GPU indexes like [0, 1]"),
            ));
        }
        Devices::Indexes(list) => Some(list),
    };
    let mut types: Vec<DesiredType> = Vec::new();
    let mut pairs: Vec<_> = raw.vgpu_devices.value.into_iter().collect();
    pairs.sort_by_key(|(k, _)| (k.referenced.line(), k.referenced.column()));
    for (name, count) in pairs {
        let count_at = origin(path, &count.referenced);
        let count = u32::try_from(count.value).map_err(|_| {
            let why = if count.value < 0 {
                "a count is at least 1"
            } else {
                "more than any GPU holds"
            };
            error_at(
                Some(&count_at),
                format!("\"{}\": {}: {why}", name.value, count.value),
            )
        })?;
        types.push(DesiredType {
            name: name.value,
            count,
            name_at: Some(origin(path, &name.referenced)),
            count_at: Some(count_at),
        });
    }
    check_types(&types)?;
    Ok(DmEntry {
        device_filter,
        devices,
        devices_at,
        types,
        at,
    })
}

#[cfg(test)]
mod tests;
