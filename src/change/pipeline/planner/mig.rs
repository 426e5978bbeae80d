//! The MIG planner: desired layouts + the node as it is → the smallest [`Plan`].
//!
//! Per GPU it keeps every GPU and compute instance that fits the layout (same ids, same MIG
//! UUIDs), destroys only the extras (compute instances before their GPU instance), creates the
//! missing ones at the solver's placements, and changes the MIG mode only where it differs.
//!
//! Safety rules, decided here so that `--dry-run` shows them:
//! - an instance with processes is never destroyed (the driver refuses it anyway): a layout
//!   without room for it is blocked;
//! - a mode change needs the GPU idle; if processes or holders (nvidia-persistenced, DCGM, a
//!   loaded nvidia_drm…) would keep the reset from happening, the plan is blocked, unless
//!   `--force`, which sets the mode anyway and leaves it pending until a reboot (exit 5);
//! - a mode already pending whose reset is still blocked is "reboot required" without --force:
//!   there is nothing left for gpushare to change.
//!
//! Changes come in three phases so resets happen once for all GPUs: mode changes (with the
//! destroys a disable needs), then resets of the GPUs whose mode stays pending, then layouts.

use crate::change::plan::{Blocker, Change, GpuInstanceRef, Operation, Phase, Plan, PlanOptions};
use crate::node::model::catalog::GpuInstanceProfile;
use crate::node::model::{Gpu, GpuInstance, HolderKind, MigMode, Node, Placement};
use crate::sharing::mig::layout::{GpuDesire, MigLayout};
use crate::sharing::mig::solver::{self, Existing, Slot};

#[derive(Default)]
struct Phases {
    modes: Vec<Change>,
    resets: Vec<Change>,
    layouts: Vec<Change>,
}

/// Plan the MIG changes that bring each GPU of `desires` to its layout.
pub fn plan(node: &Node, desires: &[GpuDesire], options: PlanOptions) -> Plan {
    let mut plan = Plan::default();
    let mut phases = Phases::default();
    for desire in desires {
        let Some(gpu) = node.gpu(desire.gpu) else {
            continue;
        };
        if !gpu.mig.capable {
            continue;
        }
        // Nothing is planned from an unknown layout (the desires refuse it before; this keeps
        // the planner safe on its own).
        if let Err(e) = gpu.mig_instances() {
            plan.blockers.push(Blocker {
                gpu: gpu.index,
                message: e.message,
                hint: e.hint,
            });
            continue;
        }
        let before = (
            phases.modes.len(),
            phases.resets.len(),
            phases.layouts.len(),
            plan.blockers.len(),
        );
        GpuPlanner {
            node,
            gpu,
            desire,
            options,
            plan: &mut plan,
            phases: &mut phases,
        }
        .run();
        let changed = (
            phases.modes.len(),
            phases.resets.len(),
            phases.layouts.len(),
            plan.blockers.len(),
        ) != before;
        // Whether processes block a change is not known when the driver would not list them.
        if changed && let Err(e) = gpu.known_processes() {
            phases.modes.truncate(before.0);
            phases.resets.truncate(before.1);
            phases.layouts.truncate(before.2);
            plan.blockers.truncate(before.3);
            plan.reboot_gpus.retain(|g| *g != gpu.index);
            plan.reboot_required = !plan.reboot_gpus.is_empty();
            plan.blockers.push(Blocker {
                gpu: gpu.index,
                message: e.message,
                hint: e.hint,
            });
        }
    }
    plan.changes = phases
        .modes
        .into_iter()
        .chain(phases.resets)
        .chain(phases.layouts)
        .collect();
    plan
}

struct GpuPlanner<'a> {
    node: &'a Node,
    gpu: &'a Gpu,
    desire: &'a GpuDesire,
    options: PlanOptions,
    plan: &'a mut Plan,
    phases: &'a mut Phases,
}

impl<'a> GpuPlanner<'a> {
    fn run(&mut self) {
        let mig = &self.gpu.mig;
        match &self.desire.layout {
            MigLayout::Disabled => {
                if mig.current.is_enabled() {
                    self.disable();
                } else if mig.pending.is_enabled() {
                    // Disabled now, enable pending: asking for disabled cancels it.
                    self.mode_change(
                        MigMode::Disabled,
                        "disable MIG (cancels the pending enable)",
                    );
                }
            }
            MigLayout::Enabled(_) | MigLayout::EnabledLater { .. } | MigLayout::Dynamic
                if !mig.current.is_enabled() =>
            {
                self.enable()
            }
            // The instances are the claims': only a pending disable is cancelled.
            MigLayout::Dynamic => {
                if !mig.pending.is_enabled() {
                    self.mode_change(MigMode::Enabled, "enable MIG (cancels the pending disable)");
                }
            }
            MigLayout::EnabledLater { .. } if self.options.mode_only => {}
            MigLayout::EnabledLater { why, .. } => {
                let message = format!(
                    "GPU {}: MIG is on but its profiles are not known ({why})",
                    self.gpu_index()
                );
                self.block(message, Some("run the command again".into()));
            }
            MigLayout::Enabled(_) => {
                if !mig.pending.is_enabled() {
                    self.mode_change(MigMode::Enabled, "enable MIG (cancels the pending disable)");
                }
                if !self.options.mode_only {
                    self.layout();
                }
            }
        }
    }

    fn gpu_index(&self) -> u32 {
        self.gpu.index
    }

    /// The GPU instances (known: `plan` checked).
    fn instances(&self) -> &'a [GpuInstance] {
        let gpu: &'a Gpu = self.gpu;
        gpu.mig.instances.as_deref().unwrap_or_default()
    }

    fn block(&mut self, message: String, hint: Option<String>) {
        self.plan.blockers.push(Blocker {
            gpu: self.gpu_index(),
            message,
            hint,
        });
    }

    fn mode_change(&mut self, mode: MigMode, detail: &str) {
        let detail = match &self.desire.reason {
            Some(why) => format!("{detail}: {why}"),
            None => detail.to_string(),
        };
        self.phases.modes.push(Change::new(
            self.gpu_index(),
            Operation::SetMigMode(mode),
            detail,
        ));
    }

    /// MIG on, from off: set the mode, reset if it stays pending, then create the layout.
    fn enable(&mut self) {
        let already_pending = self.gpu.mig.pending.is_enabled();
        if self.refuse_reset(already_pending) {
            return;
        }
        if !already_pending {
            self.mode_change(MigMode::Enabled, "enable MIG");
        }
        if self.reset_or_reboot(already_pending)
            && !self.options.mode_only
            && self.desire.layout != MigLayout::Dynamic
        {
            self.layout();
        }
    }

    /// MIG off, from on: destroy everything (nothing may be in use), set the mode, reset.
    fn disable(&mut self) {
        let in_use: Vec<&GpuInstance> = self
            .instances()
            .iter()
            .filter(|gi| self.gi_users(gi).is_some())
            .collect();
        if !in_use.is_empty() {
            for gi in in_use {
                let users = self.gi_users(gi).unwrap_or_default();
                self.block(
                    format!(
                        "GPU instance {} ({} at {}) is used by {users}; MIG cannot be disabled while it exists",
                        gi.gpu_instance_id, gi.profile, gi.placement
                    ),
                    Some(
                        "stop the process(es) first: the driver refuses to destroy an instance in use, even with --force"
                            .into(),
                    ),
                );
            }
            return;
        }
        let already_pending = !self.gpu.mig.pending.is_enabled();
        if self.refuse_reset(already_pending) {
            return;
        }
        // The instances go before the mode change that needs them gone.
        let destroys: Vec<Change> = self
            .instances()
            .iter()
            .flat_map(|gi| self.destroy_all(gi))
            .map(|c| c.in_phase(Phase::MigModes))
            .collect();
        self.phases.modes.extend(destroys);
        if !already_pending {
            self.mode_change(MigMode::Disabled, "disable MIG");
        }
        self.reset_or_reboot(already_pending);
    }

    /// Before a mode change: refuse it (a blocker; true) when processes or holders would keep
    /// the reset from happening, unless --force or the change is already pending.
    fn refuse_reset(&mut self, already_pending: bool) -> bool {
        let blockers = self.reset_blockers();
        if blockers.is_empty() || self.options.force || self.options.skip_reset || already_pending {
            return false;
        }
        self.block(
            format!(
                "changing the MIG mode of GPU {} needs a GPU reset, blocked by {}",
                self.gpu_index(),
                blockers.join(", ")
            ),
            Some(format!(
                "{}, or pass --force to leave the change pending until the next reboot",
                stop_hint(self.node, self.gpu)
            )),
        );
        true
    }

    /// After a mode change: a conditional reset when nothing blocks it (true: go on with the
    /// layout), or "reboot required" (false: nothing more for this GPU now). With --skip-reset
    /// there is no reset: a change pending from before waits for a reboot, and one made now may
    /// apply at once on an idle GPU, which the next pass sees (the layout is planned then).
    fn reset_or_reboot(&mut self, already_pending: bool) -> bool {
        if self.options.skip_reset {
            if already_pending {
                self.phases.modes.push(Change::new(
                    self.gpu_index(),
                    Operation::AwaitReboot,
                    "the MIG mode change waits for a reset or reboot (--skip-reset)",
                ));
                self.plan.mark_reboot(self.gpu_index());
            } else if !self.options.mode_only
                && !matches!(self.desire.layout, MigLayout::Disabled | MigLayout::Dynamic)
            {
                self.phases.layouts.push(Change::new(
                    self.gpu_index(),
                    Operation::Later("create_gpu_instance"),
                    "the layout, once the MIG mode change applies (--skip-reset: no reset)",
                ));
            }
            return false;
        }
        let blockers = self.reset_blockers();
        if blockers.is_empty() {
            self.phases.resets.push(Change::new(
                self.gpu_index(),
                Operation::ResetIfPending,
                format!(
                    "reset {} if the MIG mode change is pending",
                    self.gpu.pci_bus_id
                ),
            ));
            return true;
        }
        self.phases.modes.push(Change::new(
            self.gpu_index(),
            Operation::AwaitReboot,
            format!(
                "the MIG mode change waits for a reboot ({} block the reset); run this again after it",
                blockers.join(", ")
            ),
        ));
        self.plan.mark_reboot(self.gpu_index());
        false
    }

    /// What keeps this GPU from being reset: its processes and the node's holders.
    fn reset_blockers(&self) -> Vec<String> {
        self.gpu
            .processes_in(None)
            .map(|p| format!("pid {} ({})", p.pid, p.name))
            .chain(self.node.holders.iter().map(|h| h.describe()))
            .collect()
    }

    /// The processes inside a GPU instance, as `pid 1 (a), pid 2 (b)`; None when idle.
    fn gi_users(&self, gi: &GpuInstance) -> Option<String> {
        users(self.gpu.processes_in(Some(gi.gpu_instance_id)))
    }

    fn ci_users(&self, gi: &GpuInstance, ci: u32) -> Option<String> {
        users(
            self.gpu
                .processes_in(Some(gi.gpu_instance_id))
                .filter(|p| p.compute_instance_id.is_none_or(|c| c == ci)),
        )
    }

    /// Destroy a GPU instance: its compute instances first.
    fn destroy_all(&self, gi: &GpuInstance) -> Vec<Change> {
        let mut out: Vec<Change> = gi
            .compute_instances
            .iter()
            .map(|ci| self.destroy_ci(gi, ci.compute_instance_id, &ci.profile))
            .collect();
        out.push(Change::new(
            self.gpu_index(),
            Operation::DestroyGpuInstance {
                gpu_instance_id: gi.gpu_instance_id,
            },
            format!(
                "GPU instance {} ({} at {})",
                gi.gpu_instance_id, gi.profile, gi.placement
            ),
        ));
        out
    }

    fn destroy_ci(&self, gi: &GpuInstance, ci: u32, profile: &str) -> Change {
        Change::new(
            self.gpu_index(),
            Operation::DestroyComputeInstance {
                gpu_instance_id: gi.gpu_instance_id,
                compute_instance_id: ci,
            },
            format!(
                "compute instance {ci} ({profile}) of GPU instance {} ({} at {})",
                gi.gpu_instance_id, gi.profile, gi.placement
            ),
        )
    }

    /// With MIG on (or about to be): keep what fits, destroy the rest, create what is missing.
    fn layout(&mut self) {
        if let MigLayout::EnabledLater { wanted, why } = &self.desire.layout {
            let mut counts: std::collections::BTreeMap<&str, u32> = Default::default();
            for name in wanted {
                *counts.entry(name.as_str()).or_default() += 1;
            }
            let list: Vec<String> = counts.iter().map(|(n, c)| format!("{n} ×{c}")).collect();
            self.phases.layouts.push(Change::new(
                self.gpu_index(),
                Operation::Later("create_gpu_instance"),
                format!(
                    "once MIG is on: {} at the placements the driver then lists ({why})",
                    list.join(", ")
                ),
            ));
            return;
        }
        let MigLayout::Enabled(wanted) = &self.desire.layout else {
            return;
        };
        let profiles = &self.desire.profiles;
        // Instances that exist only matter when MIG is on now (a reset clears them otherwise).
        let instances: &[GpuInstance] = if self.gpu.mig.current.is_enabled() {
            self.instances()
        } else {
            &[]
        };
        let existing: Vec<Existing> = instances
            .iter()
            .map(|gi| Existing {
                profile: profiles.iter().position(|p| p.id == gi.profile_id),
                placement: gi.placement,
                compute_profiles: gi.compute_instances.iter().map(|c| c.profile_id).collect(),
                must_keep: self.gi_users(gi).is_some(),
            })
            .collect();
        let slots = match solver::solve(profiles, &self.desire.requests(), &existing) {
            Ok(slots) => slots,
            Err(why) => {
                // Name what holds the instances that must stay, down to the process.
                let holders: Vec<String> = instances
                    .iter()
                    .filter_map(|gi| {
                        let users = self.gi_users(gi)?;
                        Some(format!(
                            "GPU instance {} ({} at {}) is used by {users}",
                            gi.gpu_instance_id, gi.profile, gi.placement
                        ))
                    })
                    .collect();
                let (message, hint) = if holders.is_empty() {
                    (
                        why.0,
                        "choose a layout that fits (see `gpushare mig profiles`)",
                    )
                } else {
                    (
                        format!("{why}: {}", holders.join("; ")),
                        "stop the processes in those instances, or choose a layout that keeps \
                         them (the driver refuses to destroy an instance in use, even with --force)",
                    )
                };
                self.block(message, Some(hint.into()));
                return;
            }
        };
        let mut destroys: Vec<Change> = Vec::new();
        let mut creates: Vec<(Placement, Vec<Change>)> = Vec::new();
        // Instances no slot keeps go away (each one's compute instances first).
        for (e, gi) in instances.iter().enumerate() {
            if !slots.contains(&Slot::Keep(e)) {
                destroys.extend(self.destroy_all(gi));
            }
        }
        for (w, slot) in wanted.iter().zip(&slots) {
            let profile = &profiles[w.profile];
            match *slot {
                Slot::Keep(e) => {
                    let gi = &instances[e];
                    let (extra, missing) = self.compute_diff(gi, w.compute.id, &w.compute.name);
                    destroys.extend(extra);
                    if missing {
                        creates.push((
                            gi.placement,
                            vec![self.create_ci(
                                GpuInstanceRef::Id(gi.gpu_instance_id),
                                &w.compute.name,
                                profile,
                                gi.placement,
                                w.compute.id,
                            )],
                        ));
                    }
                }
                Slot::New(placement) => creates.push((
                    placement,
                    vec![
                        Change::new(
                            self.gpu_index(),
                            Operation::CreateGpuInstance {
                                profile_id: profile.id,
                                placement,
                            },
                            format!("{} at {placement}", profile.name),
                        ),
                        self.create_ci(
                            GpuInstanceRef::CreatedAt(placement),
                            &w.compute.name,
                            profile,
                            placement,
                            w.compute.id,
                        ),
                    ],
                )),
            }
        }
        creates.sort_by_key(|(p, _)| p.start);
        self.phases.layouts.extend(destroys);
        self.phases
            .layouts
            .extend(creates.into_iter().flat_map(|(_, c)| c));
    }

    /// A kept GPU instance should hold exactly one compute instance of `want`: the changes that
    /// remove the others, and whether one must be created.
    fn compute_diff(
        &mut self,
        gi: &GpuInstance,
        want: u32,
        want_name: &str,
    ) -> (Vec<Change>, bool) {
        // Keep one that matches, preferring one in use.
        let keep = gi
            .compute_instances
            .iter()
            .filter(|c| c.profile_id == want)
            .max_by_key(|c| {
                (
                    self.ci_users(gi, c.compute_instance_id).is_some(),
                    std::cmp::Reverse(c.compute_instance_id),
                )
            })
            .map(|c| c.compute_instance_id);
        let mut destroys = Vec::new();
        for ci in &gi.compute_instances {
            if Some(ci.compute_instance_id) == keep {
                continue;
            }
            if let Some(users) = self.ci_users(gi, ci.compute_instance_id) {
                self.block(
                    format!(
                        "compute instance {} ({}) of GPU instance {} is used by {users}; the layout wants {want_name} there",
                        ci.compute_instance_id, ci.profile, gi.gpu_instance_id
                    ),
                    Some("stop the process(es) first, or keep that compute instance in the layout".into()),
                );
                continue;
            }
            destroys.push(self.destroy_ci(gi, ci.compute_instance_id, &ci.profile));
        }
        (destroys, keep.is_none())
    }

    fn create_ci(
        &self,
        gpu_instance: GpuInstanceRef,
        name: &str,
        profile: &GpuInstanceProfile,
        placement: Placement,
        profile_id: u32,
    ) -> Change {
        Change::new(
            self.gpu_index(),
            Operation::CreateComputeInstance {
                gpu_instance,
                profile_id,
            },
            format!("{name} in the {} GPU instance at {placement}", profile.name),
        )
    }
}

fn users<'p>(procs: impl Iterator<Item = &'p crate::node::model::Process>) -> Option<String> {
    let list: Vec<String> = procs
        .map(|p| format!("pid {} ({})", p.pid, p.name))
        .collect();
    (!list.is_empty()).then(|| list.join(", "))
}

/// How to stop what blocks a reset: processes by pid, services with systemctl, modules with rmmod;
/// services and modules may be listed as GPU clients instead, which `apply` stops and starts.
pub(crate) fn stop_hint(node: &Node, gpu: &Gpu) -> String {
    let mut steps: Vec<String> = Vec::new();
    let pids: Vec<String> = gpu.processes_in(None).map(|p| p.pid.to_string()).collect();
    if !pids.is_empty() {
        steps.push(format!("stop pid {}", pids.join(", ")));
    }
    for h in &node.holders {
        steps.push(match h.kind {
            HolderKind::Module => format!("`rmmod {}`", h.name),
            HolderKind::Process => match h.unit.as_deref().or(service_of(&h.name)) {
                Some(unit) => format!("`systemctl stop {unit}`"),
                None => format!("stop {}", h.describe()),
            },
        });
    }
    let mut hint = format!("stop them first ({})", steps.join(", "));
    if !node.holders.is_empty() {
        hint.push_str(
            ", or list the services and modules as GPU clients (`[clients]` in gpushare.toml, \
             `--gpu-clients-file`) so that apply stops them and starts them again",
        );
    }
    hint
}

/// The systemd unit of a well-known GPU holder process.
fn service_of(process: &str) -> Option<&'static str> {
    match process {
        "nvidia-persistenced" => Some("nvidia-persistenced"),
        "nv-fabricmanager" | "nvidia-fabricmanager" => Some("nvidia-fabricmanager"),
        "nv-hostengine" => Some("nvidia-dcgm"),
        "dcgm-exporter" => Some("dcgm-exporter"),
        "nvsm" | "nvsm-core" => Some("nvsm"),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
