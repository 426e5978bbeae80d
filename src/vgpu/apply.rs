//! Discover, plan and execute, as one call for `vgpu apply`, `vgpu clear` and the unified
//! `gpushare apply`.

use super::desired::Desired;
use super::discover::{attach_node, discover, not_a_vgpu_host};
use super::execute::{StepReport, execute, not_run};
use super::host::Host;
use super::plan::{Plan, PlanOptions, plan};
use super::registry::{self, TypeRegistry};
use super::sysfs::SysfsRoot;
use super::writer::SysfsWriter;
use crate::error::{Error, Result};
use crate::node::Node;
use crate::output::Output;
use crate::paths::Paths;

/// The host and what gpushare knows of its type ids.
pub struct Session<'a> {
    pub root: SysfsRoot,
    pub paths: &'a Paths,
    pub registry: TypeRegistry,
    pub out: &'a Output,
}

impl<'a> Session<'a> {
    pub fn new(root: SysfsRoot, paths: &'a Paths, out: &'a Output) -> Session<'a> {
        let (registry, warning) = TypeRegistry::load(&registry::path(paths));
        if let Some(w) = warning {
            out.warn(w);
        }
        Session {
            root,
            paths,
            registry,
            out,
        }
    }

    /// Read the host; "not a vGPU host" when no GPU carries vGPUs.
    pub fn discover(&mut self) -> Result<Host> {
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
    pub fn discover_on(&mut self, node: &Node) -> Result<Host> {
        let mut host = self.discover()?;
        attach_node(&mut host, node);
        Ok(host)
    }

    /// Keep what was learned about type ids (changing commands only).
    pub fn save(&mut self) -> Result<()> {
        self.registry.save_if_changed(&registry::path(self.paths))
    }
}

#[derive(Debug, Clone, Copy, Default)]
pub struct ApplyOptions {
    pub plan: PlanOptions,
    pub dry_run: bool,
}

pub struct Applied {
    /// The last plan made (after SR-IOV was enabled, when it had to be).
    pub plan: Plan,
    pub steps: Vec<StepReport>,
    /// The failure that stopped the changes; what was done is in `steps`.
    pub error: Option<Error>,
}

/// Bring the vGPU devices of the desired GPUs to the desired layout. Input errors and refusals
/// come back as `Err` before anything changes; a failure half-way comes back in `Applied::error`.
pub fn apply(
    session: &mut Session,
    node: &Node,
    desired: &Desired,
    options: ApplyOptions,
) -> Result<Applied> {
    let host = session.discover_on(node)?;
    let mut current = plan(desired, &host, options.plan)?;
    if options.dry_run {
        if current.needs_sriov() {
            session.out.note(
                "SR-IOV is off on some GPUs: their types can only be checked once it is enabled",
            );
        }
        let steps = not_run(&current);
        return Ok(Applied {
            plan: current,
            steps,
            error: None,
        });
    }
    let mut writer = SysfsWriter::new(&session.root)?;
    let mut steps = Vec::new();
    if current.needs_sriov() {
        let run = execute(&current, &mut writer, session.out);
        steps.extend(run.steps);
        if run.error.is_some() {
            return Ok(Applied {
                plan: current,
                steps,
                error: run.error,
            });
        }
        let host = session.discover_on(node)?;
        current = plan(desired, &host, options.plan)?;
        if current.needs_sriov() {
            return Err(Error::failed(
                "SR-IOV was enabled but the GPUs still show no vGPU virtual functions",
            )
            .with_hint("check `dmesg` and that the nvidia_vgpu_vfio module is loaded"));
        }
    }
    let run = execute(&current, &mut writer, session.out);
    steps.extend(run.steps);
    // A GPU this run emptied shows its full type list again: learn it. Only a cache is at
    // stake, so a failed read here is not an error of the run.
    if run.error.is_none() {
        let _ = session.discover();
    }
    Ok(Applied {
        plan: current,
        steps,
        error: run.error,
    })
}
