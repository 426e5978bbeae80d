//! The desired vGPU layout: for each GPU of the node, how many devices of each type. It comes from
//! gpushare.toml (`mode = "vgpu"` entries) or from a vgpu-device-manager config, and remembers
//! where each value was written so that every error can name the file, line and column.

use crate::node::config::{AssignedConfig, Mode};
use crate::support::error::{Error, Result, line_col};
use std::path::{Path, PathBuf};

use super::type_name::TypeName;

/// A position in an input file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Origin {
    pub path: PathBuf,
    pub line: usize,
    pub column: usize,
}

impl Origin {
    pub(crate) fn new(path: &Path, line: usize, column: usize) -> Self {
        Origin {
            path: path.to_path_buf(),
            line,
            column,
        }
    }
}

/// A bad-input error at a position when there is one (exit 2).
pub(crate) fn error_at(at: Option<&Origin>, message: impl std::fmt::Display) -> Error {
    match at {
        Some(o) => Error::in_file(&o.path, Some((o.line, o.column)), message),
        None => Error::usage(message.to_string()),
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DesiredType {
    /// The type name as written, e.g. `A100-4C`.
    pub name: String,
    pub count: u32,
    pub name_at: Option<Origin>,
    pub count_at: Option<Origin>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DesiredGpu {
    /// The node's GPU index.
    pub index: u32,
    /// Types in file order; empty means no vGPU devices on this GPU.
    pub types: Vec<DesiredType>,
    /// The entry that selected this GPU.
    pub at: Option<Origin>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct VgpuLayout {
    pub gpus: Vec<DesiredGpu>,
}

impl VgpuLayout {
    /// Every GPU of `indexes` with no vGPU devices (`vgpu clear`).
    pub(crate) fn empty(indexes: &[u32]) -> VgpuLayout {
        VgpuLayout {
            gpus: indexes
                .iter()
                .map(|&index| DesiredGpu {
                    index,
                    types: Vec::new(),
                    at: None,
                })
                .collect(),
        }
    }

    /// Keep only the GPUs in `indexes` (`--gpu`).
    pub(crate) fn retain(&mut self, indexes: &[u32]) {
        self.gpus.retain(|g| indexes.contains(&g.index));
    }
}

/// Check what can be checked without the host: names parse, counts are at least 1, no type twice.
pub(crate) fn check_types(types: &[DesiredType]) -> Result<()> {
    for (i, t) in types.iter().enumerate() {
        TypeName::parse(&t.name).map_err(|e| error_at(t.name_at.as_ref(), e))?;
        if t.count == 0 {
            return Err(error_at(
                t.count_at.as_ref(),
                format!("\"{}\" = 0: a count is at least 1", t.name),
            )
            .with_hint("remove the type to have none of it"));
        }
        if let Some(first) = types[..i].iter().find(|o| o.name == t.name) {
            let line = first.name_at.as_ref().map_or(0, |o| o.line);
            return Err(error_at(
                t.name_at.as_ref(),
                format!("`{}` is given twice (first at line {line})", t.name),
            ));
        }
    }
    Ok(())
}

/// The `mode = "vgpu"` entries of gpushare.toml, for the GPUs of `node` they select. Other modes
/// are left to their own commands.
pub(crate) fn from_gpushare_toml(config: &AssignedConfig) -> Result<VgpuLayout> {
    let origin = |span: std::ops::Range<usize>| {
        let (line, column) = line_col(&config.source.text, span.start);
        Origin::new(&config.source.path, line, column)
    };
    let mut gpus = Vec::new();
    for a in config.assignments() {
        let entry = a.entry.get_ref();
        if *entry.mode.get_ref() != Mode::Vgpu {
            continue;
        }
        // Config::parse guarantees a vgpu section for mode = "vgpu".
        let Some(section) = &entry.vgpu else {
            continue;
        };
        let types: Vec<DesiredType> = section
            .get_ref()
            .devices
            .iter()
            .map(|(name, count)| DesiredType {
                name: name.get_ref().clone(),
                count: *count.get_ref(),
                name_at: Some(origin(name.span())),
                count_at: Some(origin(count.span())),
            })
            .collect();
        check_types(&types)?;
        gpus.push(DesiredGpu {
            index: a.gpu,
            types,
            at: Some(origin(entry.select.span())),
        });
    }
    Ok(VgpuLayout { gpus })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::backend::Backend;
    use crate::node::backend::sim::SimBackend;
    use crate::node::config::Config;
    use crate::node::model::Node;
    use crate::support::source_file::SourceFile;

    fn config(text: &str) -> AssignedConfig {
        let config = Config::parse(SourceFile::inline("gpushare.toml", text)).unwrap();
        AssignedConfig::new(config, &node()).unwrap()
    }

    fn node() -> Node {
        SimBackend::from_preset("mixed")
            .unwrap()
            .snapshot()
            .unwrap()
    }

    #[test]
    fn vgpu_entries_become_desired_gpus_with_positions() {
        let c = config(
            "[[gpus]]\nselect = [0, 1]\nmode = \"vgpu\"\nvgpu.devices = { \"A100D-8C\" = 10 }\n\n[[gpus]]\nselect = [2]\nmode = \"none\"\n",
        );
        let d = from_gpushare_toml(&c).unwrap();
        assert_eq!(d.gpus.len(), 2);
        assert_eq!(d.gpus[1].index, 1);
        let t = &d.gpus[0].types[0];
        assert_eq!((t.name.as_str(), t.count), ("A100D-8C", 10));
        let at = t.count_at.as_ref().unwrap();
        assert_eq!((at.line, at.column), (4, 31));
    }

    #[test]
    fn bad_names_and_counts_name_their_position() {
        let c =
            config("[[gpus]]\nselect = [0]\nmode = \"vgpu\"\nvgpu.devices = { \"A100 4C\" = 1 }\n");
        let e = from_gpushare_toml(&c).unwrap_err();
        assert_eq!(e.exit, crate::support::error::Exit::Usage);
        assert!(
            e.message.starts_with("gpushare.toml:4:18: `A100 4C`"),
            "{}",
            e.message
        );
        let c =
            config("[[gpus]]\nselect = [0]\nmode = \"vgpu\"\nvgpu.devices = { \"A100-4C\" = 0 }\n");
        let e = from_gpushare_toml(&c).unwrap_err();
        assert!(
            e.message.starts_with("gpushare.toml:4:30:"),
            "{}",
            e.message
        );
    }

    #[test]
    fn clear_wants_no_devices() {
        let d = VgpuLayout::empty(&[0, 3]);
        assert_eq!(d.gpus.len(), 2);
        assert!(d.gpus.iter().all(|g| g.types.is_empty()));
    }
}
