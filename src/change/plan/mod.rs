//! A plan: the ordered changes that bring the node to a desired state, and what stands in the way.
//! Pure data: no I/O here.
//!
//! Planners are pure (desired state + observed [`Node`](crate::node::model::Node) → [`Plan`]); the
//! pipeline's executor ([`pipeline::execute`](mod@crate::change::pipeline::execute)) runs a plan through the
//! [`Backend`](crate::node::backend::Backend), and the steps that are not driver calls (MPS daemons,
//! vGPU devices, GPU clients, hooks) through its runner. The JSON form is a contract:
//! `{"changes": [{"gpu", "action", "detail"}], "reboot_required", "reboot_gpus", "blockers":
//! [{"gpu", "message", "hint"}]}`; `gpu` is `null` for the steps that act on the whole node (GPU
//! clients, hooks: the begin, stop-clients, before-layouts and end phases). Every sharing mode and every changing command plans
//! into this one type, so `plan` and `--dry-run` show exactly what runs.

use crate::change::hooks::{Hook, HookPoint};
use crate::change::pipeline::host_change::{HostChange, HostStep};
use crate::node::backend::DeviceRef;
use crate::node::clients::Client;
use crate::node::model::{ComputeMode, MigMode, Placement};
use crate::support::output::{Output, Style, table};
use serde::Serialize;

pub(crate) mod phase;
pub(crate) use phase::Phase;

/// What the user allowed a changing command to do; every planner reads the same.
#[derive(Debug, Clone, Copy, Default)]
pub struct PlanOptions {
    /// MIG: change the mode of busy GPUs anyway, leaving the change pending until a reboot; MPS:
    /// stop daemons with clients connected (they are ended); vGPU: remove devices that VMs hold.
    pub force: bool,
    /// MIG: only the mode; instances are neither created nor destroyed (mig-parted's
    /// `--mode-only`).
    pub mode_only: bool,
    /// MIG: set the mode and never reset: a change the GPU leaves pending waits for a reset or
    /// reboot (mig-parted's `--skip-reset`); a busy GPU is then no reason to refuse it.
    pub skip_reset: bool,
}

/// What a change does, for the executor: the driver's changes, the node-wide steps, and the
/// modes' own changes on the host ([`HostStep`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Operation {
    /// Ask for a MIG mode; it may stay pending until a reset.
    SetMigMode(MigMode),
    /// Reset the GPU if its MIG mode is pending (consecutive resets run as one call).
    ResetIfPending,
    /// Reset the GPU: a fatal fault (an Xid the health policy calls fatal, a double-bit ECC
    /// error) left it unhealthy, and nothing runs on it.
    ResetUnhealthy,
    DestroyComputeInstance {
        gpu_instance_id: u32,
        compute_instance_id: u32,
    },
    DestroyGpuInstance {
        gpu_instance_id: u32,
    },
    CreateGpuInstance {
        profile_id: u32,
        placement: Placement,
    },
    CreateComputeInstance {
        gpu_instance: GpuInstanceRef,
        profile_id: u32,
    },
    SetComputeMode {
        device: DeviceRef,
        mode: ComputeMode,
    },
    /// Nothing more can happen on this GPU until the machine reboots.
    AwaitReboot,
    /// A change a sharing mode makes on the host outside the driver (an MPS daemon started or
    /// stopped, a vGPU device created or removed): the mode's own type, run by its module.
    Host(HostStep),
    /// Stop a GPU client (a systemd unit; a kernel module is unloaded) before changes that need
    /// the GPUs free.
    StopClient(Client),
    /// Start a GPU client gpushare stopped (a kernel module is loaded again).
    StartClient(Client),
    /// Run a hook of mig-parted's hooks file.
    Hook(Box<Hook>),
    /// A change that can only be planned exactly once the changes before it are made (MPS
    /// daemons on MIG devices that do not exist yet, vGPUs on virtual functions SR-IOV will
    /// create). It shows what will happen; `apply` plans it again when it gets there. The
    /// `action` it will have.
    Later(&'static str),
}

/// The `gpu` of a node-wide change: no GPU (`null` in JSON, `-` in tables).
pub(crate) const NODE: u32 = u32::MAX;

/// A GPU instance a change acts on: one that exists, or the one an earlier change of the same
/// plan creates at a placement (its id is known only once the driver made it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GpuInstanceRef {
    Id(u32),
    CreatedAt(Placement),
}

impl Operation {
    /// A mode's change on the host.
    pub(crate) fn host(change: impl HostChange) -> Self {
        Operation::Host(HostStep::new(change))
    }

    /// The mode's change on the host it is, when that is a `T`.
    pub(crate) fn host_change<T: HostChange>(&self) -> Option<&T> {
        match self {
            Operation::Host(step) => step.get(),
            _ => None,
        }
    }

    /// The `action` of the JSON form; the MIG ones match the fault-injection operation names.
    pub(crate) fn action(&self) -> &'static str {
        match self {
            Operation::SetMigMode(_) => "set_mig_mode",
            Operation::ResetIfPending => "reset",
            Operation::ResetUnhealthy => "reset_unhealthy",
            Operation::DestroyComputeInstance { .. } => "destroy_compute_instance",
            Operation::DestroyGpuInstance { .. } => "destroy_gpu_instance",
            Operation::CreateGpuInstance { .. } => "create_gpu_instance",
            Operation::CreateComputeInstance { .. } => "create_compute_instance",
            Operation::SetComputeMode { .. } => "set_compute_mode",
            Operation::AwaitReboot => "reboot",
            Operation::Host(step) => step.action(),
            Operation::StopClient(Client::Service(_)) => "stop_service",
            Operation::StopClient(Client::Module(_)) => "unload_module",
            Operation::StartClient(Client::Service(_)) => "start_service",
            Operation::StartClient(Client::Module(_)) => "load_module",
            Operation::Hook(_) => "hook",
            Operation::Later(action) => action,
        }
    }

    /// The phase it usually runs in.
    pub(crate) fn phase(&self) -> Phase {
        match self {
            Operation::SetMigMode(_) | Operation::AwaitReboot => Phase::MigModes,
            Operation::ResetIfPending | Operation::ResetUnhealthy => Phase::Resets,
            Operation::DestroyComputeInstance { .. }
            | Operation::DestroyGpuInstance { .. }
            | Operation::CreateGpuInstance { .. }
            | Operation::CreateComputeInstance { .. } => Phase::MigLayouts,
            Operation::SetComputeMode { .. } => Phase::Daemons,
            Operation::Host(step) => step.phase(),
            Operation::Later(_) => Phase::Later,
            Operation::StopClient(_) => Phase::StopClients,
            Operation::StartClient(_) => Phase::End,
            Operation::Hook(hook) => match hook.point {
                HookPoint::ApplyStart => Phase::Begin,
                HookPoint::PreApplyMode => Phase::StopClients,
                HookPoint::PreApplyConfig => Phase::BeforeLayouts,
                HookPoint::ApplyExit => Phase::End,
            },
        }
    }

    /// Whether it is a GPU reset (consecutive ones go to the driver as one call).
    pub(crate) fn is_reset(&self) -> bool {
        matches!(self, Operation::ResetIfPending | Operation::ResetUnhealthy)
    }

    /// Whether it acts on the whole node rather than on one GPU.
    pub(crate) fn is_node_wide(&self) -> bool {
        matches!(
            self,
            Operation::StopClient(_) | Operation::StartClient(_) | Operation::Hook(_)
        )
    }

    /// Whether the driver makes it (the other operations go to the runner's own steps).
    pub(crate) fn is_driver_call(&self) -> bool {
        !matches!(self, Operation::Host(_) | Operation::Later(_)) && !self.is_node_wide()
    }

    /// Whether running it changes the node (not a note about a reboot, not a change planned for
    /// later, not a hook: hooks run around changes, whatever they do is the hook's business).
    pub(crate) fn changes_the_node(&self) -> bool {
        !matches!(
            self,
            Operation::AwaitReboot | Operation::Later(_) | Operation::Hook(_)
        )
    }
}

/// One change of a plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// The GPU it acts on; [`NODE`] for a node-wide step (JSON `null`).
    #[serde(serialize_with = "gpu_or_null")]
    pub gpu: u32,
    pub action: &'static str,
    /// What it does, in words.
    pub detail: String,
    /// Set by the executor: what became of the change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) status: Option<Status>,
    /// Planned exactly only once the changes before it are made (`"later": true`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub later: bool,
    #[serde(skip)]
    pub(crate) operation: Operation,
    #[serde(skip)]
    pub(crate) phase: Phase,
}

impl Change {
    /// A change in the phase its operation usually runs in.
    pub(crate) fn new(gpu: u32, operation: Operation, detail: impl Into<String>) -> Self {
        Change {
            gpu,
            action: operation.action(),
            detail: detail.into(),
            status: None,
            later: matches!(operation, Operation::Later(_)),
            phase: operation.phase(),
            operation,
        }
    }

    /// A step that acts on the whole node (GPU clients, hooks).
    pub(crate) fn node_wide(operation: Operation, detail: impl Into<String>) -> Self {
        Change::new(NODE, operation, detail)
    }

    /// The same change in another phase (a destroy that a MIG disable needs first).
    pub(crate) fn in_phase(self, phase: Phase) -> Self {
        Change { phase, ..self }
    }

    pub(crate) fn is_node_wide(&self) -> bool {
        self.gpu == NODE
    }

    /// `GPU 3`, or `node` for a node-wide step: what it acts on, for messages.
    pub(crate) fn target(&self) -> String {
        if self.is_node_wide() {
            "node".to_string()
        } else {
            format!("GPU {}", self.gpu)
        }
    }
}

fn gpu_or_null<S: serde::Serializer>(gpu: &u32, s: S) -> std::result::Result<S::Ok, S::Error> {
    if *gpu == NODE {
        s.serialize_none()
    } else {
        s.serialize_u32(*gpu)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Status {
    Done,
    /// A conditional change that turned out not to be needed (a reset after a mode change that
    /// applied at once).
    NotNeeded,
    Failed,
    /// Not attempted: an earlier change failed.
    NotRun,
    /// Waits for a reboot of the machine.
    AwaitingReboot,
}

impl Status {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Status::Done => "done",
            Status::NotNeeded => "not needed",
            Status::Failed => "FAILED",
            Status::NotRun => "not run",
            Status::AwaitingReboot => "after reboot",
        }
    }
}

/// Why a plan must not run as it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Blocker {
    pub gpu: u32,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Plan {
    pub changes: Vec<Change>,
    /// True when some GPU cannot reach its desired state without a reboot.
    pub reboot_required: bool,
    /// The GPUs that wait for the reboot.
    pub reboot_gpus: Vec<u32>,
    pub(crate) blockers: Vec<Blocker>,
}

impl Plan {
    /// Nothing to change and nothing in the way: the node is as desired.
    pub fn is_converged(&self) -> bool {
        self.changes.is_empty() && self.blockers.is_empty() && !self.reboot_required
    }

    /// Record that `gpu` needs a reboot.
    pub(crate) fn mark_reboot(&mut self, gpu: u32) {
        self.reboot_required = true;
        if !self.reboot_gpus.contains(&gpu) {
            self.reboot_gpus.push(gpu);
            self.reboot_gpus.sort_unstable();
        }
    }

    /// The GPUs the plan changes.
    pub(crate) fn gpus(&self) -> Vec<u32> {
        let mut gpus: Vec<u32> = self
            .changes
            .iter()
            .filter(|c| !c.is_node_wide())
            .map(|c| c.gpu)
            .collect();
        gpus.sort_unstable();
        gpus.dedup();
        gpus
    }

    /// What the plan changes, for messages: `GPU(s) 0, 2`, `the node` (only node-wide steps), or
    /// `GPU(s) 0 and the node`.
    pub(crate) fn scope(&self) -> String {
        let gpus = self.gpus();
        let node = self.changes.iter().any(Change::is_node_wide);
        match (gpus.is_empty(), node) {
            (false, false) => format!("GPU(s) {}", join(&gpus)),
            (false, true) => format!("GPU(s) {} and the node", join(&gpus)),
            (true, true) => "the node".to_string(),
            (true, false) => "no GPU".to_string(),
        }
    }

    /// The table form: one row per change, then blockers and the reboot note.
    pub(crate) fn render(&self, out: &Output) -> String {
        let mut s = String::new();
        if self.changes.is_empty() {
            s.push_str("no changes\n");
        } else {
            let with_status = self.changes.iter().any(|c| c.status.is_some());
            let mut headers = vec!["GPU", "ACTION", "DETAIL"];
            if with_status {
                headers.push("STATUS");
            }
            let rows = self
                .changes
                .iter()
                .map(|c| {
                    let gpu = if c.is_node_wide() {
                        "-".to_string()
                    } else {
                        c.gpu.to_string()
                    };
                    let mut row = vec![gpu, c.action.to_string(), c.detail.clone()];
                    if with_status {
                        row.push(c.status.map_or("", Status::as_str).to_string());
                    }
                    row
                })
                .collect();
            s.push_str(&table(&headers, rows));
        }
        for b in &self.blockers {
            s.push_str(&format!(
                "{} GPU {}: {}\n",
                out.paint(Style::Bad, "blocked:"),
                b.gpu,
                b.message
            ));
        }
        if self.reboot_required {
            let gpus: Vec<String> = self.reboot_gpus.iter().map(u32::to_string).collect();
            s.push_str(&format!(
                "{} GPU(s) {}\n",
                out.paint(Style::Warn, "reboot required:"),
                gpus.join(", ")
            ));
        }
        s
    }
}

/// `0, 2, 5`: GPU indexes for messages.
pub(crate) fn join(gpus: &[u32]) -> String {
    gpus.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_json_form_is_the_contract() {
        let mut plan = Plan::default();
        plan.changes.push(Change::new(
            0,
            Operation::CreateGpuInstance {
                profile_id: 9,
                placement: Placement { start: 4, size: 4 },
            },
            "3g.20gb at 4:4",
        ));
        plan.blockers.push(Blocker {
            gpu: 1,
            message: "busy".into(),
            hint: None,
        });
        plan.mark_reboot(2);
        let v = serde_json::to_value(&plan).unwrap();
        assert_eq!(
            v,
            serde_json::json!({
                "changes": [{"gpu": 0, "action": "create_gpu_instance", "detail": "3g.20gb at 4:4"}],
                "reboot_required": true,
                "reboot_gpus": [2],
                "blockers": [{"gpu": 1, "message": "busy"}],
            })
        );
        assert!(!plan.is_converged());
        assert!(Plan::default().is_converged());
    }

    #[test]
    fn a_node_wide_step_is_on_no_gpu() {
        let stop = Change::node_wide(
            Operation::StopClient(Client::Service("nvsm.service".into())),
            "nvsm.service",
        );
        assert_eq!(stop.phase, Phase::StopClients);
        assert!(stop.phase.node_wide() && stop.is_node_wide());
        assert_eq!(stop.target(), "node");
        let plan = Plan {
            changes: vec![stop],
            ..Plan::default()
        };
        assert!(plan.gpus().is_empty());
        assert_eq!(plan.scope(), "the node");
        assert_eq!(
            serde_json::to_value(&plan).unwrap()["changes"][0],
            serde_json::json!({"gpu": null, "action": "stop_service", "detail": "nvsm.service"})
        );
        assert!(!Phase::MigModes.node_wide());
    }
}
