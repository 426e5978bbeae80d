//! The node's MIG state for `gpushare controller` (annotation `gpushare.io/mig.state`), on a
//! node that opts in to MIG on demand: its instances, which pods hold them (pod-resources), and
//! what its baseline layout (the one its label chooses) asks of each GPU. Only a change is
//! written; a node that opts out has the annotation removed.

use super::cluster::Cluster;
use super::{labels, layouts};
use crate::change::pipeline::desired::Desired;
use crate::cluster::on_demand::{self, published::MigState};
use crate::node::Context;
use crate::node::gpu_health::NodeHealth;
use crate::node::gpu_health::policy::Policy;
use crate::node::gpu_health::verdict::Reason;
use crate::observe::pod_resources::{self, Holders};
use crate::sharing::mig::layout::ProfileBook;
use crate::support::clock::unix_now;
use crate::support::error::Result;
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
    cluster.patch_node(&crate::cluster::api_client::merge_patch(
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
fn mark_unhealthy(state: &mut MigState, node: &crate::node::model::Node, health: &NodeHealth) {
    let why = |reasons: &[Reason], device: Option<(u32, u32)>| {
        let text: Vec<String> = reasons
            .iter()
            .filter(|r| r.mig_device.is_none() || r.mig_device == device)
            .map(Reason::describe)
            .collect();
        crate::cluster::api_client::clip(&text.join(", "), 200)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::backend::Backend;
    use crate::node::backend::sim::SimBackend;
    use crate::node::gpu_health::verdict::GpuHealth;

    #[test]
    fn unhealthy_gpus_and_mig_devices_are_published_with_why() {
        let sim = SimBackend::from_preset("dgx-a100").unwrap();
        for gpu in [0, 1] {
            sim.set_mig_mode(gpu, crate::node::model::MigMode::Enabled)
                .unwrap();
            for start in [0, 4] {
                let at = crate::node::model::Placement { start, size: 4 };
                let gi = sim.create_gpu_instance(gpu, 9, at).unwrap();
                sim.create_compute_instance(gpu, gi, 2).unwrap();
            }
        }
        let node = sim.snapshot().unwrap();
        let book = ProfileBook::load(&sim, &node);
        let mut state = MigState::of(&node, |g| book.known(g).ok().flatten(), Some(&[]), &[]);
        let second = node.gpus[1].mig.instances.as_ref().unwrap()[1].gpu_instance_id;
        let mut sick_gpu = GpuHealth::clear();
        sick_gpu.healthy = false;
        sick_gpu.reasons = vec![Reason {
            cause: crate::node::backend::events::Cause::Xid(79),
            class: "fatal",
            mig_device: None,
            count: 1,
            last_at: 1.0,
            until: None,
        }];
        let mut sick_mig = GpuHealth::clear();
        sick_mig.unhealthy_mig_devices = vec![(second, 0)];
        sick_mig.reasons = vec![Reason {
            cause: crate::node::backend::events::Cause::Xid(62),
            class: "recoverable",
            mig_device: Some((second, 0)),
            count: 1,
            last_at: 1.0,
            until: Some(2.0),
        }];
        let health = NodeHealth {
            gpus: [(0, Ok(sick_gpu)), (1, Ok(sick_mig))].into(),
        };
        mark_unhealthy(&mut state, &node, &health);
        assert_eq!(state.gpus[0].unhealthy.as_deref(), Some("Xid 79 (fatal)"));
        assert_eq!(state.gpus[1].unhealthy, None);
        let why: Vec<Option<&str>> = state.gpus[1]
            .instances
            .iter()
            .map(|i| i.unhealthy.as_deref())
            .collect();
        assert_eq!(
            why,
            [
                None,
                Some(format!("Xid 62 on MIG device {second}:0 (recoverable)").as_str())
            ]
        );
    }
}
