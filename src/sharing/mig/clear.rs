//! The layout `mig clear` asks for: on the selected GPUs that have MIG on, no GPU or compute
//! instances, MIG left on.

use super::layout::{GpuDesire, MigLayout, ProfileBook};
use crate::node::model::Node;
use crate::support::error::Result;

/// An empty layout for each of `selected` with MIG on. An unknown layout is an error, never
/// "already clear".
pub(crate) fn desires(node: &Node, book: &ProfileBook, selected: &[u32]) -> Result<Vec<GpuDesire>> {
    let mut desires = Vec::new();
    for gpu in node.gpus.iter().filter(|g| selected.contains(&g.index)) {
        if !gpu.mig.capable || !gpu.mig.current.is_enabled() {
            continue;
        }
        gpu.mig_instances()?;
        let profiles = book.known(gpu)?.unwrap_or_default().to_vec();
        desires.push(GpuDesire {
            gpu: gpu.index,
            layout: MigLayout::Enabled(Vec::new()),
            profiles,
            origin: "mig clear".into(),
            reason: None,
        });
    }
    Ok(desires)
}
