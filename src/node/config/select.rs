//! `select = …`: which GPUs a `[[gpus]]` entry covers.

use crate::node::model::{Gpu, PciId};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Select {
    /// `"all"`
    All,
    /// `[0, 2]`
    Indexes(Vec<u32>),
    /// `{ model = "NVIDIA A100*", pci_device_id = "0x20B010DE" }`: every field given must match.
    Filter {
        model: Option<String>,
        pci_device_id: Option<PciId>,
    },
}

impl Select {
    pub(crate) fn matches(&self, gpu: &Gpu) -> bool {
        match self {
            Select::All => true,
            Select::Indexes(list) => list.contains(&gpu.index),
            Select::Filter {
                model,
                pci_device_id,
            } => {
                model.as_deref().is_none_or(|m| glob(m, &gpu.name))
                    && pci_device_id.is_none_or(|id| id == gpu.pci_device_id)
            }
        }
    }
}

/// `*` matches any run of characters, `?` one character; everything else literally.
pub(super) fn glob(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

impl fmt::Display for Select {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Select::All => f.write_str("\"all\""),
            Select::Indexes(l) => write!(f, "{l:?}"),
            Select::Filter {
                model,
                pci_device_id,
            } => {
                let mut parts = Vec::new();
                if let Some(m) = model {
                    parts.push(format!("model = \"{m}\""));
                }
                if let Some(id) = pci_device_id {
                    parts.push(format!("pci_device_id = \"{id}\""));
                }
                write!(f, "{{ {} }}", parts.join(", "))
            }
        }
    }
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct FilterFields {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pci_device_id: Option<PciId>,
}

impl<'de> Deserialize<'de> for Select {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Word(String),
            List(Vec<u32>),
            Filter(FilterFields),
        }
        let raw = Raw::deserialize(d).map_err(|_| {
            serde::de::Error::custom(
                "select is \"all\", a list of GPU indexes like [0, 2], or { model = \"NVIDIA A100*\", pci_device_id = \"0x20B010DE\" }",
            )
        })?;
        match raw {
            Raw::Word(w) if w == "all" => Ok(Select::All),
            Raw::Word(w) => Err(serde::de::Error::custom(format!(
                "select = \"{w}\": use \"all\", a list of indexes, or a {{ model, pci_device_id }} table"
            ))),
            Raw::List(l) if l.is_empty() => Err(serde::de::Error::custom(
                "select = []: name at least one GPU",
            )),
            Raw::List(l) => Ok(Select::Indexes(l)),
            Raw::Filter(FilterFields {
                model: None,
                pci_device_id: None,
            }) => Err(serde::de::Error::custom(
                "select = {}: give model and/or pci_device_id",
            )),
            Raw::Filter(f) => Ok(Select::Filter {
                model: f.model,
                pci_device_id: f.pci_device_id,
            }),
        }
    }
}

impl Serialize for Select {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Select::All => s.serialize_str("all"),
            Select::Indexes(l) => l.serialize(s),
            Select::Filter {
                model,
                pci_device_id,
            } => FilterFields {
                model: model.clone(),
                pci_device_id: *pci_device_id,
            }
            .serialize(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::glob;

    #[test]
    fn globs() {
        assert!(glob("NVIDIA A100*", "NVIDIA A100-SXM4-40GB"));
        assert!(glob("*T4", "Tesla T4"));
        assert!(glob("NVIDIA ?100*", "NVIDIA H100 NVL"));
        assert!(!glob("NVIDIA A100*", "NVIDIA H100 NVL"));
        assert!(glob("*", ""));
        assert!(!glob("a", ""));
        assert!(glob("a*b*c", "aXXbYYc"));
        assert!(!glob("a*b*c", "aXXbYY"));
    }
}
