//! The node's MIG state for `gpushare controller` (annotation `gpushare.io/mig.state`), on a
//! node that opts in to MIG on demand: its instances, which pods hold them (pod-resources), and
//! what its baseline layout (the one its label chooses) asks of each GPU. Only a change is
//! written; a node that opts out has the annotation removed.

use super::cluster::Cluster;
use super::{labels, layouts};
use crate::Context;
use crate::clock::unix_now;
use crate::error::Result;
use crate::gpu_health::NodeHealth;
use crate::gpu_health::policy::Policy;
use crate::gpu_health::verdict::Reason;
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
    policy: &Policy,
) -> Result<()> {
    let node = cluster.get_node()?;
    let have = node.annotations().get(on_demand::STATE_ANNOTATION);
    let text = if on_demand::opted_in(node.labels()) {
        Some(mig_state(ctx, cluster, &node, pod_resources_root, sysfs_root, policy)?.to_json())
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
    policy: &Policy,
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
    let mut state = MigState::of(
        &snapshot,
        |g| book.known(g).ok().flatten(),
        held.as_deref(),
        &baseline,
    );
    let health = NodeHealth::read(&ctx.paths, &snapshot, policy, unix_now())?;
    mark_unhealthy(&mut state, &snapshot, &health);
    Ok(state)
}

/// Why a GPU or an instance is unhealthy, in the state: the controller makes nothing on such a
/// GPU and offers no such instance.
fn mark_unhealthy(state: &mut MigState, node: &crate::node::Node, health: &NodeHealth) {
    let why = |reasons: &[Reason], device: Option<(u32, u32)>| {
        let text: Vec<String> = reasons
            .iter()
            .filter(|r| r.mig_device.is_none() || r.mig_device == device)
            .map(Reason::describe)
            .collect();
        crate::kube_api::clip(&text.join(", "), 200)
    };
    for published in &mut state.gpus {
        let (Some(Ok(h)), Some(gpu)) =
            (health.gpus.get(&published.index), node.gpu(published.index))
        else {
            continue;
        };
        if !h.healthy {
            published.unhealthy = Some(why(&h.reasons, None));
        }
        for gi in gpu.mig.instances.iter().flatten() {
            let sick = gi.compute_instances.iter().find_map(|ci| {
                let d = (gi.gpu_instance_id, ci.compute_instance_id);
                h.unhealthy_mig_devices.contains(&d).then_some(d)
            });
            let (Some(d), Some(instance)) = (
                sick,
                published
                    .instances
                    .iter_mut()
                    .find(|i| i.start == gi.placement.start),
            ) else {
                continue;
            };
            instance.unhealthy = Some(why(&h.reasons, Some(d)));
        }
    }
}
