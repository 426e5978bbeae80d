//! The controller's view of each node that opts in, from what its agent published and what the
//! controller wrote: where it stands (ready, reshaping, cooling down) and its GPUs as they are
//! or as the layout under way makes them, with the instances pods already bound there will be
//! given set aside.

use crate::cluster::manifests::agent::STATE_LABEL;
use crate::cluster::manifests::device_plugin::mig_resource_suffix;
use crate::cluster::on_demand::claims::Claims;
use crate::cluster::on_demand::decide::{NodeView, Status};
use crate::cluster::on_demand::demand;
use crate::cluster::on_demand::layout::{self, NodeOffer};
use crate::cluster::on_demand::published::MigState;
use crate::cluster::on_demand::reshape::GpuShape;
use crate::cluster::on_demand::{LAYOUT_ANNOTATION, STATE_ANNOTATION, WRITTEN_ANNOTATION};
use k8s_openapi::api::core::v1::{Node, Pod};
use std::collections::BTreeMap;

pub(crate) struct Timing {
    /// Unix seconds now.
    pub now: u64,
    pub cooldown: u64,
}

/// The view of `node`, or why it cannot be planned for.
pub(crate) fn view<'n>(
    node: &'n Node,
    pods: &[Pod],
    claims: &Claims,
    timing: &Timing,
    give_back_due: bool,
) -> Result<NodeView<'n>, String> {
    let name = node.metadata.name.clone().unwrap_or_default();
    let annotations = node.metadata.annotations.clone().unwrap_or_default();
    let labels = node.metadata.labels.clone().unwrap_or_default();
    let text = annotations
        .get(STATE_ANNOTATION)
        .ok_or("its agent has not published its MIG state (gpushare.io/mig.state)")?;
    let state = MigState::parse(text).map_err(|e| format!("its MIG state cannot be read: {e}"))?;
    let current = GpuShape::all(&state)
        .map_err(|gpu| format!("GPU {gpu} has an instance of a profile its model does not list"))?;
    let agent_state = labels.get(STATE_LABEL).map(String::as_str);
    let target = annotations
        .get(LAYOUT_ANNOTATION)
        .and_then(|t| layout::parse(t).ok());
    let heading = target.as_ref().filter(|t| {
        *t != &crate::cluster::on_demand::decide::layout_of(&current)
            && agent_state != Some("failed")
    });
    let changing = matches!(agent_state, Some("pending" | "applying"));
    let mut gpus = match heading {
        Some(t) => towards(&current, t),
        None => current,
    };
    set_aside_for_bound_pods(&mut gpus, &state, &demand::bound_to(pods, &name, claims));
    let written: Option<u64> = annotations
        .get(WRITTEN_ANNOTATION)
        .and_then(|t| t.parse().ok());
    let cooling = written
        .map(|w| (w + timing.cooldown).saturating_sub(timing.now))
        .filter(|left| *left > 0);
    let status = if heading.is_some() || changing {
        Status::Reshaping
    } else if let Some(left) = cooling {
        Status::Cooling(left)
    } else {
        Status::Ready
    };
    Ok(NodeView {
        name,
        node,
        gpus,
        status,
        has_layout: annotations.contains_key(LAYOUT_ANNOTATION),
        give_back_due,
    })
}

/// The GPUs as `target` makes them: what stays keeps its pin, what is new is idle (it is
/// coming for the pods waiting for it).
fn towards(current: &[GpuShape], target: &NodeOffer) -> Vec<GpuShape> {
    current
        .iter()
        .map(|g| {
            let Some(wanted) = target.get(&g.index) else {
                return g.clone();
            };
            let mut next = g.clone();
            next.slots = wanted
                .iter()
                .filter_map(|(profile, start)| {
                    let p = g.profile_index(profile)?;
                    let kept = g
                        .slots
                        .iter()
                        .find(|s| s.profile == p && s.placement.start == *start);
                    Some(
                        kept.cloned()
                            .unwrap_or(crate::cluster::on_demand::reshape::Slot {
                                profile: p,
                                placement: crate::node::model::Placement {
                                    start: *start,
                                    size: g.profiles[p].size,
                                },
                                pinned: None,
                            }),
                    )
                })
                .collect();
            next
        })
        .collect()
}

/// Pods bound to the node that the kubelet has not given their devices yet take idle
/// instances of their profiles: those are not free, and not to be destroyed.
fn set_aside_for_bound_pods(
    gpus: &mut [GpuShape],
    state: &MigState,
    bound: &BTreeMap<String, u64>,
) {
    for (profile, wanted) in bound {
        let held = state
            .gpus
            .iter()
            .flat_map(|g| &g.instances)
            .filter(|i| mig_resource_suffix(&i.profile) == *profile && !i.held_by.is_empty())
            .count() as u64;
        // Each round promises an idle instance or stops: bounded by the node's instances,
        // whatever the pods wrote.
        for _ in held..*wanted {
            let promised = gpus.iter_mut().any(|g| {
                g.profile_for_resource(profile)
                    .is_some_and(|p| g.promise_idle(p, "a pod bound to the node"))
            });
            if !promised {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::on_demand::bench::{a100_sevens, a100_state};
    use crate::cluster::on_demand::published::Instance;
    use serde_json::json;

    fn state(held: &[u32]) -> MigState {
        a100_state(vec![a100_sevens(0, |s| held.contains(&s))])
    }

    fn node(annotations: serde_json::Value, labels: serde_json::Value) -> Node {
        serde_json::from_value(json!({ "metadata": { "name": "gpu-1", "annotations": annotations, "labels": labels } }))
            .unwrap()
    }

    const T: Timing = Timing {
        now: 1000,
        cooldown: 60,
    };

    #[test]
    fn a_layout_under_way_is_the_view_and_its_new_instances_are_idle() {
        let target = NodeOffer::from([(
            0,
            vec![
                ("1g.5gb".to_string(), 0),
                ("1g.5gb".to_string(), 1),
                ("1g.5gb".to_string(), 2),
                ("1g.5gb".to_string(), 3),
                ("3g.20gb".to_string(), 4),
            ],
        )]);
        let n = node(
            json!({ STATE_ANNOTATION: state(&[0]).to_json(), LAYOUT_ANNOTATION: layout::render(&target).unwrap(), WRITTEN_ANNOTATION: "990" }),
            json!({ STATE_LABEL: "applying" }),
        );
        let v = view(&n, &[], &Claims::default(), &T, false).unwrap();
        assert_eq!(v.status, Status::Reshaping);
        assert_eq!(v.gpus[0].layout(), target[&0]);
        assert!(
            v.gpus[0].slots[0].pinned.is_some(),
            "the held 1g.5gb stays held"
        );
        assert!(
            v.gpus[0].slots[4].pinned.is_none(),
            "the coming 3g.20gb is free"
        );
        assert!(v.has_layout);

        // Reached: cooling down for the rest of the minute, then ready.
        let reached = state(&[]);
        let mut s = reached.clone();
        s.gpus[0].instances.truncate(4);
        s.gpus[0].instances.push(Instance {
            profile: "3g.20gb".into(),
            start: 4,
            size: 4,
            held_by: vec![],
            busy: false,
            unhealthy: None,
        });
        let n = node(
            json!({ STATE_ANNOTATION: s.to_json(), LAYOUT_ANNOTATION: layout::render(&target).unwrap(), WRITTEN_ANNOTATION: "990" }),
            json!({ STATE_LABEL: "success" }),
        );
        assert_eq!(
            view(&n, &[], &Claims::default(), &T, false).unwrap().status,
            Status::Cooling(50)
        );
        let later = Timing {
            now: 2000,
            cooldown: 60,
        };
        assert_eq!(
            view(&n, &[], &Claims::default(), &later, false)
                .unwrap()
                .status,
            Status::Ready
        );
    }

    #[test]
    fn pods_bound_but_not_given_devices_take_idle_instances() {
        let pod: Pod = serde_json::from_value(json!({
            "metadata": { "name": "p", "namespace": "ns" },
            "spec": { "nodeName": "gpu-1", "containers": [{ "name": "c", "resources": { "limits": { "nvidia.com/mig-1g.5gb": "3" } } }] },
            "status": { "phase": "Pending" },
        }))
        .unwrap();
        // One of its three is held already: two more idle ones are set aside.
        let n = node(
            json!({ STATE_ANNOTATION: state(&[6]).to_json() }),
            json!({}),
        );
        let v = view(&n, &[pod], &Claims::default(), &T, false).unwrap();
        let pinned = v.gpus[0]
            .slots
            .iter()
            .filter(|s| s.pinned.is_some())
            .count();
        assert_eq!(pinned, 3);
        assert_eq!(v.status, Status::Ready);
        let e = view(
            &node(json!({}), json!({})),
            &[],
            &Claims::default(),
            &T,
            false,
        )
        .unwrap_err();
        assert!(e.contains("not published"), "{e}");
    }
}
