//! `-f FILE [-c LABEL]` of the vgpu commands: the desired layout from gpushare.toml or a
//! vgpu-device-manager config.

use super::dm_config::DmConfig;
use super::from_config::{self, VgpuLayout};
use crate::node::config::{self, AssignedConfig, Config};
use crate::node::model::Node;
use crate::support::error::{Error, Result};
use crate::support::paths::Paths;
use crate::support::source_file::SourceFile;
use std::path::{Path, PathBuf};

/// A vGPU layout file and the config of it to use.
#[derive(Debug, Clone, Default)]
pub(crate) struct LayoutFile {
    /// gpushare.toml or a vgpu-device-manager YAML; `-` reads stdin; default the system's
    /// gpushare.toml.
    pub file: Option<PathBuf>,
    /// The config (label) of a vgpu-device-manager file.
    pub config: Option<String>,
    /// The file as read and checked by [`LayoutFile::read_now`], before the node is looked at.
    pub read: Option<SourceFile>,
}

impl LayoutFile {
    /// Read and check the file now: bad input is exit 2 before the node lock is taken and
    /// before the vGPU host is looked for. What needs the node is checked later.
    pub(crate) fn read_now(mut self, paths: &Paths) -> Result<Self> {
        let path = self.path(paths);
        let source = SourceFile::read_or_stdin(&path)?;
        if is_vgpu_device_manager(&path, &source.text) {
            DmConfig::parse(&source)?;
        } else {
            Config::parse(source.clone())?;
        }
        self.read = Some(source);
        Ok(self)
    }

    fn path(&self, paths: &Paths) -> PathBuf {
        self.file
            .clone()
            .unwrap_or_else(|| paths.system(config::DEFAULT_PATH))
    }
}

/// Read the file (unless read already) and turn it into the desired layout on `node`.
pub(crate) fn desired(args: &LayoutFile, node: &Node, paths: &Paths) -> Result<VgpuLayout> {
    let path = args.path(paths);
    let source = match &args.read {
        Some(source) => source.clone(),
        None => SourceFile::read_or_stdin(&path)?,
    };
    if is_vgpu_device_manager(&path, &source.text) {
        let file = DmConfig::parse(&source)?;
        let label = match (&args.config, file.configs.as_slice()) {
            (Some(label), _) => label.clone(),
            (None, [(only, _)]) => only.clone(),
            (None, _) => {
                return Err(Error::usage(format!(
                    "{} holds several configs: choose one with -c LABEL",
                    source.path.display()
                ))
                .with_hint(format!("configs: {}", file.labels().join(", "))));
            }
        };
        return file.select(&label, node);
    }
    if args.config.is_some() {
        return Err(Error::usage(format!(
            "-c picks a config of a vgpu-device-manager file, and {} is a gpushare.toml",
            source.path.display()
        ))
        .with_hint("drop -c: gpushare.toml applies its `mode = \"vgpu\"` entries"));
    }
    let config = AssignedConfig::new(Config::parse(source)?, node)?;
    from_config::from_gpushare_toml(&config)
}

/// By extension, else by content: vgpu-device-manager files have `vgpu-configs`.
fn is_vgpu_device_manager(path: &Path, text: &str) -> bool {
    match path.extension().and_then(|e| e.to_str()) {
        Some("yaml" | "yml") => true,
        Some("toml") => false,
        _ => text
            .lines()
            .any(|l| l.trim_start().starts_with("vgpu-configs:")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_format_follows_the_extension_then_the_content() {
        assert!(is_vgpu_device_manager(Path::new("a.yaml"), ""));
        assert!(!is_vgpu_device_manager(
            Path::new("a.toml"),
            "vgpu-configs:"
        ));
        assert!(is_vgpu_device_manager(
            Path::new("-"),
            "version: v1\nvgpu-configs:\n"
        ));
        assert!(!is_vgpu_device_manager(Path::new("cfg"), "[[gpus]]\n"));
    }
}
