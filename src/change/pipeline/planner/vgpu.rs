//! vGPU's part of the one plan: [`steps`](crate::sharing::vgpu::steps) on the host as it is, one change per
//! step. Devices a VM holds are blockers (unless --force), like MIG instances with processes.

use crate::change::pipeline::desired::Desired;
use crate::change::pipeline::observe::Observed;
use crate::change::plan::PlanOptions;
use crate::change::plan::{Blocker, Change, Operation};
use crate::sharing::vgpu::steps::{self as vgpu_steps, Step, VgpuPlanOptions};
use crate::support::error::{Error, Result};

#[derive(Debug, Default)]
pub(crate) struct VgpuSteps {
    pub changes: Vec<Change>,
    pub blockers: Vec<Blocker>,
}

pub(crate) fn plan(desired: &Desired, seen: &Observed, options: PlanOptions) -> Result<VgpuSteps> {
    let mut out = VgpuSteps::default();
    if !desired.wants_vgpu() {
        return Ok(out);
    }
    let Some(host) = &seen.vgpu else {
        return Err(Error::failed("the vGPU host was not read"));
    };
    // Devices in use become blockers here rather than the planner's refusal, so `plan` shows
    // them with everything else.
    let all = VgpuPlanOptions {
        force: true,
        heterogeneous: desired.vgpu.heterogeneous,
    };
    let planned = vgpu_steps::plan(&desired.vgpu.layout, host, all)?;
    for g in &planned.gpus {
        let Some(gpu) = g.index else { continue };
        for step in &g.steps {
            let in_use = match step {
                Step::RemoveMdev { in_use_by, .. } | Step::ClearVf { in_use_by, .. } => {
                    in_use_by.as_slice()
                }
                _ => &[],
            };
            if !in_use.is_empty() && !options.force {
                let users: Vec<String> = in_use.iter().map(|o| o.describe()).collect();
                out.blockers.push(Blocker {
                    gpu,
                    message: format!(
                        "vGPU {} {} is used by {}",
                        step.type_name(),
                        step.place(),
                        users.join(", ")
                    ),
                    hint: Some(
                        "shut the VM down first, or pass --force (the kernel may still refuse \
                         while a VM holds the device)"
                            .into(),
                    ),
                });
            }
            out.changes.push(Change::new(
                gpu,
                Operation::host(step.clone()),
                format!("{} ({})", step.describe(false, None), g.pci_bus_id),
            ));
        }
        if g.steps
            .iter()
            .any(|s| matches!(s, Step::EnableSriov { .. }))
        {
            let types: Vec<String> = g.desired.iter().map(|(t, n)| format!("{t} ×{n}")).collect();
            // Devices on the virtual functions SR-IOV has yet to create.
            out.changes.push(Change::new(
                gpu,
                Operation::Later("create_vgpu"),
                format!(
                    "once SR-IOV is on: {} on its virtual functions",
                    types.join(", ")
                ),
            ));
        }
    }
    Ok(out)
}
