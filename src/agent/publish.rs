//! The node's MIG state for `gpushare controller` (annotation `gpushare.io/mig.state`), on a
//! node that opts in to MIG on demand: its instances, which pods hold them (pod-resources), and
//! what its baseline layout (the one its label chooses) asks of each GPU. Only a change is
//! written; a node that opts out has the annotation removed.

use super::cluster::Cluster;
use super::{labels, layouts};
use crate::Context;
use crate::error::Result;
use crate::mig::layout::ProfileBook;
use crate::on_demand::{self, published::MigState};
use crate::pipeline::desired::Desired;
use crate::pod_resources::{self, Holders};
use k8s_openapi::api::core::v1::Node;
use kube::ResourceExt;
use std::collections::BTreeMap;
use std::path::Path;

pub(crate) fn publish(
    ctx: &mut Context,
    cluster: &Cluster,
    pod_resources_root: Option<&Path>,
    sysfs_root: &Path,
) -> Result<()> {
    let node = cluster.get_node()?;
    let have = node.annotations().get(on_demand::STATE_ANNOTATION);
    let text = if on_demand::opted_in(node.labels()) {
        Some(mig_state(ctx, cluster, &node, pod_resources_root, sysfs_root)?.to_json())
    } else {
        None
    };
    if have == text.as_ref() {
        return Ok(());
    }
    let annotations = BTreeMap::from([(on_demand::STATE_ANNOTATION.to_string(), text)]);
    cluster.patch_node(&crate::kube_api::merge_patch(
        &BTreeMap::new(),
        &annotations,
    ))?;
    Ok(())
}

fn mig_state(
    ctx: &mut Context,
    cluster: &Cluster,
    node: &Node,
    pod_resources_root: Option<&Path>,
    sysfs_root: &Path,
) -> Result<MigState> {
    let snapshot = ctx.snapshot()?;
    let book = ProfileBook::load(ctx.backend()?, &snapshot);
    let held = match pod_resources_root.map(|root| pod_resources::read(&snapshot, root)) {
        Some(Holders::Known(held)) => Some(held),
        _ => None,
    };
    // The baseline as a pass would check it; one that cannot be read has no wishes.
    let baseline = match labels::baseline(node.labels()) {
        Some(choice) => {
            let data = cluster.layouts_data()?;
            layouts::find(&cluster.layouts, data.as_ref(), &choice.name)
                .and_then(|found| {
                    Desired::check_source(ctx, found.source, &snapshot, &book, sysfs_root)
                })
                .map(|d| d.mig)
                .unwrap_or_default()
        }
        None => Vec::new(),
    };
    Ok(MigState::of(
        &snapshot,
        |g| book.known(g).ok().flatten(),
        held.as_deref(),
        &baseline,
    ))
}
