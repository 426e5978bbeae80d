//! The executor: make a plan's steps in order, check each one took, and stop at the first that
//! fails. What was done stays done and is reported; since the planner works from the state it
//! finds, running the same command again continues from there.

use super::discover::virtual_functions;
use super::plan::{Plan, Step};
use super::sysfs::MDEV_DEVICES;
use super::write::Write;
use super::writer::SysfsWriter;
use super::{mdev, sriov, vfio};
use crate::error::{Error, Result};
use crate::output::Output;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    Done,
    Failed,
    /// Not attempted: an earlier step failed, or this is a dry run.
    NotRun,
}

/// A step and what became of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepReport {
    pub index: Option<u32>,
    pub pci_bus_id: String,
    #[serde(flatten)]
    pub step: Step,
    pub status: StepStatus,
    /// The UUID of a created mdev device.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

pub struct Executed {
    pub steps: Vec<StepReport>,
    /// The failure that stopped the run.
    pub error: Option<Error>,
}

/// The steps of a plan, all `not_run` (a dry run).
pub fn not_run(plan: &Plan) -> Vec<StepReport> {
    plan.gpus
        .iter()
        .flat_map(|g| {
            g.steps.iter().map(|s| StepReport {
                index: g.index,
                pci_bus_id: g.pci_bus_id.clone(),
                step: s.clone(),
                status: StepStatus::NotRun,
                uuid: None,
                error: None,
            })
        })
        .collect()
}

pub fn execute(plan: &Plan, writer: &mut SysfsWriter, out: &Output) -> Executed {
    let mut steps = not_run(plan);
    let total = steps.len();
    for i in 0..total {
        let label = match steps[i].index {
            Some(n) => format!("GPU {n} ({})", steps[i].pci_bus_id),
            None => format!("GPU {}", steps[i].pci_bus_id),
        };
        let step = steps[i].step.clone();
        match run_step(&step, writer) {
            Ok(uuid) => {
                out.note(format!("{label}: {}", step.describe(true, uuid.as_deref())));
                steps[i].status = StepStatus::Done;
                steps[i].uuid = uuid;
            }
            Err(e) => {
                steps[i].status = StepStatus::Failed;
                steps[i].error = Some(e.message.clone());
                let error = Error::failed(format!(
                    "{label}: cannot {}: {}",
                    step.describe(false, None),
                    e.message
                ))
                .with_hint(format!(
                    "{i} of {total} change(s) were made and are listed on stdout; {}once the cause \
                     is fixed, run the same command again: it continues from the current state",
                    e.hint.map(|h| format!("{h}; ")).unwrap_or_default()
                ));
                return Executed {
                    steps,
                    error: Some(error),
                };
            }
        }
    }
    Executed { steps, error: None }
}

fn io(e: std::io::Error) -> Error {
    Error::failed(format!("the kernel said: {e}"))
}

/// Make one step and check that it took; returns the UUID of a created mdev device. (The unified
/// `gpushare apply` runs the steps one at a time through this.)
pub fn run_step(step: &Step, writer: &mut SysfsWriter) -> Result<Option<String>> {
    let root = writer.root().clone();
    match step {
        Step::EnableSriov { gpu } => {
            sriov::enable(gpu)?;
            let vfs = virtual_functions(&root.pci_device(gpu)).unwrap_or_default();
            if vfs.is_empty() {
                return Err(Error::failed(format!(
                    "sriov-manage -e {gpu} succeeded, but the GPU has no virtual functions"
                ))
                .with_hint("check `dmesg` and that SR-IOV is enabled in the BIOS"));
            }
            Ok(None)
        }
        Step::RemoveMdev { uuid, .. } => {
            writer
                .write(&Write::MdevRemove { uuid: uuid.clone() })
                .map_err(io)?;
            if root.path(MDEV_DEVICES).join(uuid).exists() {
                return Err(Error::failed("the device is still there after `remove`"));
            }
            Ok(None)
        }
        Step::ClearVf { vf, .. } => {
            writer
                .write(&Write::VfSetType {
                    vf: vf.clone(),
                    type_id: 0,
                })
                .map_err(io)?;
            expect_type(&root, vf, 0)?;
            Ok(None)
        }
        Step::CreateMdev {
            type_id, parent, ..
        } => {
            let uuid = mdev::new_uuid()
                .map_err(|e| Error::failed(format!("cannot get a UUID from the kernel: {e}")))?;
            writer
                .write(&Write::MdevCreate {
                    parent: parent.clone(),
                    type_id: *type_id,
                    uuid: uuid.clone(),
                })
                .map_err(io)?;
            if !root.path(MDEV_DEVICES).join(&uuid).exists() {
                return Err(Error::failed(format!(
                    "the kernel took the write, but no device {uuid} appeared"
                )));
            }
            Ok(Some(uuid))
        }
        Step::SetVfType { type_id, vf, .. } => {
            // The lists narrow as siblings fill up: ask the VF again right before writing.
            let dir = root.pci_device(vf);
            let creatable = vfio::creatable_types(&dir)
                .map_err(|e| Error::failed(format!("cannot read creatable_vgpu_types: {e}")))?;
            if !creatable.iter().any(|(id, _)| id == type_id) {
                let names: Vec<&str> = creatable.iter().map(|(_, n)| n.as_str()).collect();
                return Err(Error::failed(format!(
                    "the VF does not offer type {type_id} now (it offers: {})",
                    if names.is_empty() {
                        "nothing".to_string()
                    } else {
                        names.join(", ")
                    }
                )));
            }
            writer
                .write(&Write::VfSetType {
                    vf: vf.clone(),
                    type_id: *type_id,
                })
                .map_err(io)?;
            expect_type(&root, vf, *type_id)?;
            Ok(None)
        }
    }
}

fn expect_type(root: &super::sysfs::SysfsRoot, vf: &str, want: u32) -> Result<()> {
    let now = vfio::current_type(&root.pci_device(vf))
        .map_err(|e| Error::failed(format!("cannot read current_vgpu_type: {e}")))?;
    if now != Some(want) {
        return Err(Error::failed(format!(
            "current_vgpu_type reads {} after writing {want}",
            now.map_or_else(|| "nothing".into(), |n| n.to_string())
        )));
    }
    Ok(())
}
