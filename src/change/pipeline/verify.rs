//! After each pass the node is observed and planned again: a plan that changes nothing means the
//! node is as desired (or waits only for a reboot). A plan that cannot make progress, or more
//! passes than there are phases, means something else changes the node: exit 3.

use super::planner;
use super::runner::describe;
use crate::change::plan::{Operation, Plan};
use crate::support::error::{Error, Exit};

/// More passes than the phases that wait for earlier ones (MIG instances once MIG is on, MPS on
/// new MIG devices, vGPUs on new virtual functions), and some slack, means the node does not
/// settle.
const MAX_PASSES: usize = 6;

/// What the plan of the node as it is now says about the run.
#[derive(Debug)]
pub(crate) enum Verdict {
    /// Nothing is left to change: the node is as desired, or waits only for a reboot.
    Done,
    /// There are changes to run.
    Continue,
    /// The node does not settle.
    Differs(Error),
}

/// Judge the plan made before pass `pass` (0: the first plan).
pub(crate) fn check(plan: &Plan, pass: usize) -> Verdict {
    if !planner::changes_anything(plan) {
        return Verdict::Done;
    }
    let runnable = planner::runnable(plan);
    let progress = runnable
        .changes
        .iter()
        .any(|c| c.operation.changes_the_node());
    if pass < MAX_PASSES && progress {
        return Verdict::Continue;
    }
    let what = plan
        .changes
        .iter()
        .find(|c| c.operation != Operation::AwaitReboot)
        .map(describe)
        .unwrap_or_default();
    Verdict::Differs(
        Error::new(
            Exit::Differs,
            format!("the node does not settle: after {pass} pass(es) it still needs {what}"),
        )
        .with_hint("something else changes the GPUs meanwhile; run the command again"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::change::plan::Change;
    use crate::node::model::MigMode;

    #[test]
    fn done_when_only_a_reboot_is_left_and_differs_when_nothing_can_run() {
        let mut plan = Plan::default();
        plan.changes
            .push(Change::new(1, Operation::AwaitReboot, "waits for a reboot"));
        plan.mark_reboot(1);
        assert!(matches!(check(&plan, 0), Verdict::Done));

        let enable = Change::new(0, Operation::SetMigMode(MigMode::Enabled), "enable MIG");
        plan.changes.push(enable);
        assert!(matches!(check(&plan, 0), Verdict::Continue));
        let Verdict::Differs(e) = check(&plan, MAX_PASSES) else {
            panic!("too many passes")
        };
        assert_eq!(e.exit, Exit::Differs);
        assert!(
            e.message.contains("GPU 0: set_mig_mode (enable MIG)"),
            "{}",
            e.message
        );

        // Only changes that wait for others, and nothing before them: no progress possible.
        let only_later = Plan {
            changes: vec![Change::new(
                0,
                Operation::Later("start_mps_daemon"),
                "once the MIG devices exist",
            )],
            ..Plan::default()
        };
        assert!(matches!(check(&only_later, 1), Verdict::Differs(_)));
    }
}
