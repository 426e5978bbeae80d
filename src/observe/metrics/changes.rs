//! The series of the node's changes: the agent's state and when its node last had its layout,
//! and from the journal the changes applied and failed by operation and the last run.

use super::journal_tally::Tally;
use super::sheet::{Sheet, Spec};
use crate::observe::liveness::Status;

pub(crate) static AGENT_STATE: Spec = Spec::gauge(
    "agent_state",
    "The node agent's state: 1 for the current one, 0 for the others",
);
pub(crate) static SINCE_MATCHED: Spec = Spec::gauge(
    "layout_unmatched",
    "Time since the agent last found the node as its layout says: 0 while it is; absent before it ever was",
)
.unit("seconds");
pub(crate) static APPLIED: Spec = Spec::counter(
    "changes_applied",
    "Changes made on the node, by operation, as the journal records them",
);
pub(crate) static FAILED: Spec = Spec::counter(
    "changes_failed",
    "Changes that failed on the node, by operation, as the journal records them",
);
pub(crate) static JOURNAL_SKIPPED: Spec = Spec::counter(
    "journal_lines_skipped",
    "Journal lines the metrics did not count: too long, not an entry, or beyond the bounded read of a rotated journal",
);
pub(crate) static LAST_RUN_DURATION: Spec = Spec::gauge(
    "last_apply_duration",
    "How long the last changing command (or agent run) took, by command",
)
.unit("seconds");
pub(crate) static LAST_RUN_END: Spec = Spec::gauge(
    "last_apply_end_timestamp",
    "When the last changing command (or agent run) ended",
)
.unit("seconds");
pub(crate) static LAST_RUN_OK: Spec = Spec::gauge(
    "last_apply_success",
    "Whether the last changing command (or agent run) ended as it should: 1, or 0 when it failed",
);

/// Every state the agent reports on `/healthz`.
const AGENT_STATES: [&str; 8] = [
    "starting",
    "watching",
    "idle",
    "pending",
    "applying",
    "success",
    "failed",
    "reboot-required",
];

pub(crate) fn add_agent(sheet: &mut Sheet, status: &Status, now: f64) {
    for state in AGENT_STATES {
        let on = status.state == state;
        sheet.set(
            &AGENT_STATE,
            vec![("state", state.into())],
            f64::from(u8::from(on)),
        );
    }
    if status.state == "success" {
        sheet.set(&SINCE_MATCHED, Vec::new(), 0.0);
    } else if let Some(at) = status.matched_at {
        sheet.set(&SINCE_MATCHED, Vec::new(), (now - at).max(0.0));
    }
}

pub(crate) fn add_journal(sheet: &mut Sheet, tally: &Tally) {
    for (operation, (applied, failed)) in &tally.changes {
        let l = vec![("operation", operation.clone())];
        sheet.set(&APPLIED, l.clone(), *applied as f64);
        sheet.set(&FAILED, l, *failed as f64);
    }
    sheet.set(&JOURNAL_SKIPPED, Vec::new(), tally.skipped as f64);
    if let Some(run) = &tally.last_run {
        let l = vec![("command", run.command.clone())];
        sheet.set(&LAST_RUN_DURATION, l.clone(), run.seconds);
        sheet.set(&LAST_RUN_END, l.clone(), run.ended);
        sheet.set(&LAST_RUN_OK, l, f64::from(u8::from(run.succeeded)));
    }
}
