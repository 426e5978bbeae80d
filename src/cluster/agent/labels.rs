//! The node labels the agent reads (which layout) and writes (how far it got).
//!
//! `gpushare.io/config=<name>` chooses the layout; GPU Operator users keep their
//! `nvidia.com/mig.config=<label>`, which is honoured when the gpushare label is absent, with the
//! state mirrored into `nvidia.com/mig.config.state` in the GPU Operator's own words.

use std::collections::BTreeMap;

pub(crate) use crate::cluster::manifests::agent::{
    CONFIG_LABEL, MIG_CONFIG_LABEL, MIG_STATE_LABEL, STATE_LABEL,
};

/// Where a node stands with its layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum State {
    /// A change is decided; GPU clients are being paused.
    Pending,
    /// The changes are running.
    Applying,
    Success,
    Failed,
    /// The node has what it can have before a reboot; the rest waits for it.
    RebootRequired,
}

impl State {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            State::Pending => "pending",
            State::Applying => "applying",
            State::Success => "success",
            State::Failed => "failed",
            State::RebootRequired => "reboot-required",
        }
    }

    /// The GPU Operator's word for it (`pending`, `rebooting`, `success`, `failed`).
    pub(crate) fn mig_manager_word(self) -> &'static str {
        match self {
            State::Pending | State::Applying => "pending",
            State::Success => "success",
            State::Failed => "failed",
            State::RebootRequired => "rebooting",
        }
    }
}

/// The layout a node's labels choose, and which label chose it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Choice {
    pub label: &'static str,
    pub name: String,
}

impl Choice {
    /// `gpushare.io/config=balanced`.
    pub(crate) fn describe(&self) -> String {
        format!("{}={}", self.label, self.name)
    }
}

/// The name of the controller's layout in messages.
pub(crate) const ON_DEMAND: &str = "on-demand";

/// The layout of a node: the controller's (annotation `gpushare.io/mig.layout`) while the node
/// opts in to MIG on demand, its baseline otherwise.
pub(crate) fn choose(
    labels: &BTreeMap<String, String>,
    annotations: &BTreeMap<String, String>,
) -> Option<Choice> {
    if crate::cluster::on_demand::opted_in(labels)
        && annotations.contains_key(crate::cluster::on_demand::LAYOUT_ANNOTATION)
    {
        return Some(Choice {
            label: crate::cluster::on_demand::LAYOUT_ANNOTATION,
            name: ON_DEMAND.into(),
        });
    }
    baseline(labels)
}

/// The layout the node's labels choose: the gpushare label wins; `nvidia.com/mig.config`
/// otherwise; nothing without either (or with an empty value).
pub(crate) fn baseline(labels: &BTreeMap<String, String>) -> Option<Choice> {
    [CONFIG_LABEL, MIG_CONFIG_LABEL]
        .into_iter()
        .find_map(|label| {
            labels.get(label).filter(|v| !v.is_empty()).map(|v| Choice {
                label,
                name: v.clone(),
            })
        })
}

/// The state labels as `choice` and `state` make them: the mirror only when the GPU Operator's
/// label chose the layout.
pub(crate) fn state_labels(choice: &Choice, state: State) -> BTreeMap<&'static str, &'static str> {
    let mut out = BTreeMap::from([(STATE_LABEL, state.as_str())]);
    if choice.label == MIG_CONFIG_LABEL {
        out.insert(MIG_STATE_LABEL, state.mig_manager_word());
    }
    out
}

/// Whether the node's labels already say so.
pub(crate) fn has_state(labels: &BTreeMap<String, String>, choice: &Choice, state: State) -> bool {
    state_labels(choice, state)
        .iter()
        .all(|(k, v)| labels.get(*k).is_some_and(|have| have == v))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_gpushare_label_wins_and_the_operators_is_honoured() {
        assert_eq!(baseline(&labels(&[])), None);
        assert_eq!(baseline(&labels(&[(CONFIG_LABEL, "")])), None);
        let c = baseline(&labels(&[(MIG_CONFIG_LABEL, "all-1g.5gb")])).unwrap();
        assert_eq!((c.label, c.name.as_str()), (MIG_CONFIG_LABEL, "all-1g.5gb"));
        let c = baseline(&labels(&[
            (MIG_CONFIG_LABEL, "all-1g.5gb"),
            (CONFIG_LABEL, "balanced"),
        ]))
        .unwrap();
        assert_eq!(c.describe(), "gpushare.io/config=balanced");
        // The controller's layout wins while the node opts in.
        let layout = labels(&[(crate::cluster::on_demand::LAYOUT_ANNOTATION, "[[gpus]]")]);
        let opted = labels(&[
            (CONFIG_LABEL, "balanced"),
            (crate::cluster::on_demand::OPT_IN_LABEL, "true"),
        ]);
        assert_eq!(choose(&opted, &layout).unwrap().name, ON_DEMAND);
        assert_eq!(choose(&opted, &labels(&[])).unwrap().name, "balanced");
        let out = labels(&[(CONFIG_LABEL, "balanced")]);
        assert_eq!(choose(&out, &layout).unwrap().name, "balanced");
    }

    #[test]
    fn the_state_is_mirrored_for_the_operators_label_only() {
        let ours = Choice {
            label: CONFIG_LABEL,
            name: "a".into(),
        };
        assert_eq!(
            state_labels(&ours, State::RebootRequired),
            BTreeMap::from([(STATE_LABEL, "reboot-required")])
        );
        let theirs = Choice {
            label: MIG_CONFIG_LABEL,
            name: "a".into(),
        };
        assert_eq!(
            state_labels(&theirs, State::Applying),
            BTreeMap::from([(STATE_LABEL, "applying"), (MIG_STATE_LABEL, "pending")])
        );
        let node = labels(&[(STATE_LABEL, "success"), (MIG_STATE_LABEL, "success")]);
        assert!(has_state(&node, &theirs, State::Success));
        assert!(!has_state(
            &labels(&[(STATE_LABEL, "success")]),
            &theirs,
            State::Success
        ));
    }
}
