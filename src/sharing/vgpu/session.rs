//! Reading a vGPU host: discovery under a sysfs root with what gpushare knows of its type ids,
//! for the vgpu commands and the pipeline's view of the node.

use super::discover::{attach_node, discover, not_a_vgpu_host};
use super::host::Host;
use super::registry::{self, TypeRegistry};
use super::sysfs::SysfsRoot;
use crate::node::model::Node;
use crate::support::error::Result;
use crate::support::output::Output;
use crate::support::paths::Paths;

/// The host and what gpushare knows of its type ids.
pub(crate) struct Session<'a> {
    pub root: SysfsRoot,
    pub paths: &'a Paths,
    pub registry: TypeRegistry,
}

impl<'a> Session<'a> {
    pub(crate) fn new(root: SysfsRoot, paths: &'a Paths, out: &'a Output) -> Session<'a> {
        let (registry, warning) = TypeRegistry::load(&registry::path(paths));
        if let Some(w) = warning {
            out.warn(w);
        }
        Session {
            root,
            paths,
            registry,
        }
    }

    /// Read the host; "not a vGPU host" when no GPU carries vGPUs.
    pub(crate) fn discover(&mut self) -> Result<Host> {
        let host = discover(&self.root, &self.registry)?;
        if host.gpus.is_empty() {
            return Err(not_a_vgpu_host(&host));
        }
        for gpu in &host.gpus {
            if let Some(list) = &gpu.full_type_list {
                self.registry.learn(&gpu.pci_bus_id, list.clone());
            }
        }
        Ok(host)
    }

    /// The host with the node's GPU indexes and names.
    pub(crate) fn discover_on(&mut self, node: &Node) -> Result<Host> {
        let mut host = self.discover()?;
        attach_node(&mut host, node);
        Ok(host)
    }

    /// Keep what was learned about type ids (changing commands only).
    pub(crate) fn save(&mut self) -> Result<()> {
        self.registry.save_if_changed(&registry::path(self.paths))
    }
}
