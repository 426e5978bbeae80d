//! MIG on demand: the cluster asks, the nodes reshape.
//!
//! The node agent publishes its node's MIG state ([`published`]) in a node annotation; the
//! controller (`gpushare controller`) reads those and the pods the scheduler could not place
//! ([`demand`], [`eligible`]), sees each node as it is or is heading to ([`view`]), decides which GPUs to reshape ([`decide`], one GPU at a time in
//! [`reshape`]) and writes each chosen node's new layout as a gpushare.toml in another annotation
//! ([`layout`]); the node's agent applies it through the pipeline as any layout. Only nodes that
//! opt in with the label [`OPT_IN_LABEL`] are reshaped; the layout the node's own label chooses
//! is its baseline, which idle capacity returns to.

#[doc(hidden)]
pub mod bench;
pub(crate) mod ceiling;
pub(crate) mod claims;
pub(crate) mod decide;
pub(crate) mod demand;
pub(crate) mod eligible;
pub(crate) mod layout;
pub(crate) mod published;
pub(crate) mod quantity;
pub(crate) mod reshape;
pub(crate) mod view;

/// `gpushare.io/mig.on-demand=true`: the controller may reshape this node.
pub(crate) const OPT_IN_LABEL: &str = "gpushare.io/mig.on-demand";
/// The agent's published MIG state (JSON, [`published::MigState`]).
pub(crate) const STATE_ANNOTATION: &str = "gpushare.io/mig.state";
/// The controller's layout for the node (a gpushare.toml); the agent applies it instead of its
/// label's layout while the node opts in.
pub(crate) const LAYOUT_ANNOTATION: &str = "gpushare.io/mig.layout";
/// When the controller last wrote the layout (Unix seconds): the node's cooldown runs from it.
pub(crate) const WRITTEN_ANNOTATION: &str = "gpushare.io/mig.layout.written";
/// Extended resources of MIG devices under the mixed strategy.
pub(crate) const MIG_RESOURCE_PREFIX: &str = "nvidia.com/mig-";

/// MIG devices per resource suffix (`1g.5gb`, `1g.10gb.me`), as the scheduler counts them.
pub(crate) type MigAsk = std::collections::BTreeMap<String, u64>;

/// Whether the node's labels opt it in.
pub(crate) fn opted_in(labels: &std::collections::BTreeMap<String, String>) -> bool {
    labels.get(OPT_IN_LABEL).map(String::as_str) == Some("true")
}
