//! The file a MIG command reads: a `gpushare.toml` or a mig-parted v1 config, told apart by the
//! extension (`.toml`; `.yaml`, `.yml`, `.json`) or, for other names and stdin (`-`), by content.

use super::layout::{GpuDesire, ProfileBook};
use super::mig_parted::MigPartedConfig;
use crate::node::config::{AssignedConfig, Config};
use crate::node::model::Node;
use crate::support::error::{Error, Result};
use crate::support::output::Output;
use crate::support::source_file::SourceFile;
use std::path::Path;

#[derive(Debug, Clone)]
pub enum MigConfigFile {
    Gpushare(Config),
    MigParted(MigPartedConfig),
}

impl MigConfigFile {
    /// Read and check a file (`-` reads stdin).
    pub(crate) fn load(path: &Path) -> Result<Self> {
        let source = SourceFile::read_or_stdin(path)?;
        Self::parse(source)
    }

    pub fn parse(source: SourceFile) -> Result<Self> {
        let ext = source
            .path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        let yaml = match ext.as_deref() {
            Some("toml") => false,
            Some("yaml" | "yml" | "json") => true,
            _ => looks_like_mig_parted(&source.text),
        };
        if yaml {
            Ok(MigConfigFile::MigParted(MigPartedConfig::parse(source)?))
        } else {
            Ok(MigConfigFile::Gpushare(Config::parse(source)?))
        }
    }

    /// The MIG wish of every GPU the file covers; `label` selects a mig-parted config.
    pub fn desires(
        &self,
        label: Option<&str>,
        node: &Node,
        book: &ProfileBook,
        out: &Output,
    ) -> Result<Vec<GpuDesire>> {
        match self {
            MigConfigFile::MigParted(c) => {
                let selected = c.select(label)?;
                c.desires(selected, node, book, out)
            }
            MigConfigFile::Gpushare(c) => {
                if let Some(l) = label {
                    return Err(Error::usage(format!(
                        "-c {l} selects a mig-parted label, but {} is a gpushare.toml",
                        c.source.path.display()
                    ))
                    .with_hint("drop -c: a gpushare.toml has no labels"));
                }
                super::from_config::desires(&AssignedConfig::new(c.clone(), node)?, node, book)
            }
        }
    }
}

/// A mig-parted config has a top-level `mig-configs:` key (and usually `version: v1`).
fn looks_like_mig_parted(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim_end();
        l.starts_with("mig-configs:") || l.starts_with("\"mig-configs\"") || l == "version: v1"
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tells_the_formats_apart() {
        let yaml =
            "version: v1\nmig-configs:\n  a:\n    - devices: all\n      mig-enabled: false\n";
        let toml = "[[gpus]]\nselect = \"all\"\nmode = \"none\"\n";
        for (name, text, is_yaml) in [
            ("c.yaml", yaml, true),
            ("c.yml", yaml, true),
            ("config", yaml, true),
            ("<stdin>", yaml, true),
            ("gpushare.toml", toml, false),
            ("gpushare", toml, false),
        ] {
            let f = MigConfigFile::parse(SourceFile::inline(name, text)).unwrap();
            assert_eq!(matches!(f, MigConfigFile::MigParted(_)), is_yaml, "{name}");
        }
        // The extension wins: a TOML file with YAML inside is a TOML error.
        let e = MigConfigFile::parse(SourceFile::inline("x.toml", yaml)).unwrap_err();
        assert!(e.message.starts_with("x.toml:1:"), "{}", e.message);
    }
}
