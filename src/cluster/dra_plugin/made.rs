//! The MIG instances a claim's prepare makes on dynamic GPUs, and its unprepare removes.
//!
//! They are changed as every change of the node is: under the node lock, each step journalled,
//! through the executor of [`crate::change::pipeline`] (so a prepare waits while `gpushare apply` or
//! the agent changes the node, and the other way round). What a claim's prepare makes is
//! recorded before it is made ([`crate::sharing::mig::claimed`]): a prepare or
//! unprepare stopped at any point and called again converges — the instance is made and
//! recorded, or recorded and not there yet (made by the next prepare, skipped by unprepare).
//! Unprepare removes only what the record names, at exactly its placement, and never an
//! instance anything runs on. An idle instance that was there before is used as it is, and
//! stays.

use super::devices::Placed;
use crate::change::journal::Journal;
use crate::change::pipeline::execute::{Runner, execute_with};
use crate::change::pipeline::guard::Guard;
use crate::change::pipeline::host_change::StepHost;
use crate::change::pipeline::runner::{journal_end, journal_start};
use crate::change::plan::{Change, GpuInstanceRef, Operation, Plan};
use crate::node::Context;
use crate::node::backend::SharedBackend;
use crate::node::model::{Gpu, Node};
use crate::sharing::mig::claimed::{self, Made};
use crate::sharing::mps::MpsOptions;
use crate::support::error::{Error, Result};
use crate::support::output::Output;
use crate::support::paths::Paths;
use std::sync::Mutex;
use std::time::Duration;

/// What changes the node for claims (instances, MPS daemons): the driver, the node lock and
/// journal, the output, and the context the steps on the host run in.
pub(crate) struct Maker {
    pub backend: SharedBackend,
    pub paths: Paths,
    pub out: Output,
    /// How long a prepare waits for another change of the node.
    pub lock_timeout: Duration,
    /// The context of the steps that are not driver calls (MPS daemons); one change at a time.
    pub host: Mutex<Context>,
}

/// Journals each step, as a changing command's runner does.
struct ClaimRunner<'a> {
    backend: SharedBackend,
    journal: &'a mut Journal,
    host: StepHost<'a>,
}

impl Runner for ClaimRunner<'_> {
    fn backend(&mut self) -> Result<SharedBackend> {
        Ok(self.backend.clone())
    }

    fn run_other(&mut self, change: &Change) -> Result<()> {
        match &change.operation {
            Operation::Host(step) => step.run(&mut self.host, change.gpu),
            _ => Err(Error::failed(format!(
                "the DRA plugin cannot {}",
                change.operation.action()
            ))),
        }
    }

    fn before(&mut self, change: &Change) -> Result<()> {
        journal_start(self.journal, change)
    }

    fn settle(&mut self) -> Result<()> {
        self.journal.sync()
    }

    fn after(&mut self, change: &Change) {
        // The step is made; a journal that cannot say so is the next run's warning.
        let _ = journal_end(self.journal, change);
    }
}

impl Maker {
    /// What was made for claim `uid` (none when nothing was).
    pub(crate) fn recorded(&self, uid: &str) -> Result<Vec<Made>> {
        claimed::recorded(&self.paths, uid)
    }

    /// Every instance made for a claim and not removed yet (none when the records cannot be
    /// read: the instances are then offered as any other).
    pub(crate) fn all_recorded(&self) -> Vec<Made> {
        claimed::all(&self.paths)
            .map(|all| all.into_iter().map(|(_, m)| m).collect())
            .unwrap_or_default()
    }

    /// Run `changes` under the node lock, journalled as `dra-plugin <what>`.
    pub(crate) fn change(&self, what: &str, changes: Vec<Change>) -> Result<()> {
        if changes.is_empty() {
            return Ok(());
        }
        let mut guard = Guard::take_at(
            &self.paths,
            &self.out,
            &format!("dra-plugin {what}"),
            self.lock_timeout,
        )?;
        let mut plan = Plan {
            changes,
            ..Plan::default()
        };
        let mut ctx = self.host.lock().unwrap_or_else(|e| e.into_inner());
        let result = execute_with(
            &mut plan,
            &mut ClaimRunner {
                backend: self.backend.clone(),
                journal: &mut guard.journal,
                host: StepHost::new(&mut ctx, MpsOptions::default(), None, "/".into()),
            },
            &self.out,
        );
        guard.finish(result.as_ref().map(drop).map_err(|e| e.message.as_str()))?;
        result.map(drop)
    }

    /// Make the placements `wanted` (on `node` as it is) for claim `uid` (`claim` in messages):
    /// those not made yet are recorded, then made, each a GPU instance with its full-size
    /// compute instance.
    pub(crate) fn make(
        &self,
        node: &Node,
        uid: &str,
        claim: &str,
        wanted: &[(u32, Placed)],
    ) -> Result<()> {
        let mut record = self.recorded(uid)?;
        let mut changes = Vec::new();
        for (index, placed) in wanted {
            let gpu = node
                .gpu(*index)
                .ok_or_else(|| Error::failed(format!("GPU {index} is gone")))?;
            let existing = gpu
                .mig_instances()?
                .iter()
                .find(|gi| gi.profile == placed.profile && gi.placement == placed.placement);
            // One there whole is used as it is.
            if existing.is_some_and(|gi| !gi.compute_instances.is_empty()) {
                continue;
            }
            let profiles = self
                .backend
                .gpu_instance_profiles(gpu.index)
                .map_err(|e| Error::failed(format!("GPU {index}: {e}")))?
                .listed()
                .unwrap_or_default();
            let profiles: Vec<_> = profiles.into_iter().map(|c| c.profile).collect();
            let (gi_profile, ci) =
                crate::sharing::mig::layout::resolve(gpu, &profiles, &placed.profile)
                    .map_err(|p| Error::failed(p.message))?;
            let at = placed.placement;
            let gpu_instance = match existing {
                // Its compute instance is missing: a prepare stopped between the two.
                Some(gi) => GpuInstanceRef::Id(gi.gpu_instance_id),
                None => {
                    let made = Made {
                        gpu_uuid: gpu.uuid.clone(),
                        profile: placed.profile.clone(),
                        start: at.start,
                        size: at.size,
                    };
                    if !record.contains(&made) {
                        record.push(made);
                    }
                    changes.push(Change::new(
                        gpu.index,
                        Operation::CreateGpuInstance {
                            profile_id: profiles[gi_profile].id,
                            placement: at,
                        },
                        format!("{} at {at} for claim {claim}", placed.profile),
                    ));
                    GpuInstanceRef::CreatedAt(at)
                }
            };
            changes.push(Change::new(
                gpu.index,
                Operation::CreateComputeInstance {
                    gpu_instance,
                    profile_id: ci.id,
                },
                format!("{} in the GPU instance at {at} for claim {claim}", ci.name),
            ));
        }
        // Recorded before it is made: a crash in between leaves a record of what may exist.
        claimed::record(&self.paths, uid, &record)?;
        self.change(&format!("prepare {claim}"), changes)
    }

    /// Remove what prepare made for claim `uid`, then its record. An instance `heir` names
    /// another claim for (one that still holds a share of it) stays, recorded for that claim.
    pub(crate) fn unmake(
        &self,
        node: &Node,
        uid: &str,
        claim: &str,
        heir: &dyn Fn(&Gpu, &Made) -> Option<String>,
    ) -> Result<()> {
        let record = self.recorded(uid)?;
        let mut changes = Vec::new();
        for made in &record {
            let Some(gpu) = node.gpus.iter().find(|g| g.uuid == made.gpu_uuid) else {
                continue;
            };
            if let Some(next) = heir(gpu, made) {
                let mut theirs = self.recorded(&next)?;
                if !theirs.contains(made) {
                    theirs.push(made.clone());
                    claimed::record(&self.paths, &next, &theirs)?;
                }
                continue;
            }
            let Some(gi) = gpu.mig_instances()?.iter().find(|gi| made.is(gpu, gi)) else {
                continue;
            };
            let users: Vec<u32> = gpu
                .known_processes()?
                .iter()
                .filter(|p| p.gpu_instance_id == Some(gi.gpu_instance_id))
                .map(|p| p.pid)
                .collect();
            if !users.is_empty() {
                return Err(Error::failed(format!(
                    "the {} instance at {} of GPU {} made for claim {claim} still runs process(es) {users:?}",
                    gi.profile, gi.placement, gpu.index
                )));
            }
            for ci in &gi.compute_instances {
                changes.push(Change::new(
                    gpu.index,
                    Operation::DestroyComputeInstance {
                        gpu_instance_id: gi.gpu_instance_id,
                        compute_instance_id: ci.compute_instance_id,
                    },
                    format!("{} made for claim {claim}", ci.profile),
                ));
            }
            changes.push(Change::new(
                gpu.index,
                Operation::DestroyGpuInstance {
                    gpu_instance_id: gi.gpu_instance_id,
                },
                format!("{} at {} made for claim {claim}", gi.profile, gi.placement),
            ));
        }
        self.change(&format!("unprepare {claim}"), changes)?;
        claimed::record(&self.paths, uid, &[])
    }
}
