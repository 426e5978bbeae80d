//! GPU clients on Kubernetes, as the GPU Operator's MIG manager handles them: before a change that
//! needs GPUs free or makes MIG devices, the device plugin, GPU feature discovery, DCGM,
//! dcgm-exporter and NVIDIA's DRA kubelet plugin leave the node (their DaemonSets select on `nvidia.com/gpu.deploy.<component>`, which is set to
//! `paused-for-mig-change`), and come back once the change is made. The labels' values before the
//! pause are kept in a node annotation, so a restarted agent can put them back.
//!
//! User pods that hold what the change takes away block it.

use crate::change::plan::{Operation, Plan};
use crate::node::model::Node;
use crate::observe::pod_resources::PodDevice;
use k8s_openapi::api::core::v1::{Container, Pod};
use std::collections::{BTreeMap, BTreeSet};

pub(crate) const COMPONENTS: [&str; 5] = [
    "device-plugin",
    "gpu-feature-discovery",
    "dcgm-exporter",
    "dcgm",
    // NVIDIA's DRA kubelet plugin publishes static MIG devices as it starts.
    "dra-kubelet-plugin",
];
/// The components that offer devices to the kubelet, restarted when a device is healthy again.
pub(crate) const DEVICE_PLUGINS: [&str; 2] = ["device-plugin", "dra-kubelet-plugin"];
pub(crate) use crate::cluster::manifests::objects::{
    PAUSED_FOR_MIG_CHANGE as PAUSED, deploy_label,
};
/// The labels' values before the pause (JSON: label → value, null when it was absent).
pub(crate) const PAUSED_ANNOTATION: &str = "gpushare.io/paused-gpu-clients";

/// Label → its value before the pause (`None`: it was absent).
pub(crate) type Originals = BTreeMap<String, Option<String>>;

/// The labels to pause and their values now. A component set to `false` is not deployed and
/// stays so; one already paused is left as it is (its original is in the annotation).
pub(crate) fn to_pause(labels: &BTreeMap<String, String>) -> Originals {
    COMPONENTS
        .iter()
        .map(|c| deploy_label(c))
        .filter(|l| !matches!(labels.get(l).map(String::as_str), Some("false" | PAUSED)))
        .map(|l| {
            let now = labels.get(&l).cloned();
            (l, now)
        })
        .collect()
}

/// The originals a pause recorded on the node, if one did.
pub(crate) fn recorded(annotations: &BTreeMap<String, String>) -> Option<Originals> {
    let text = annotations.get(PAUSED_ANNOTATION)?;
    serde_json::from_str(text).ok().or_else(|| {
        // An annotation we cannot read: bring every component back.
        Some(
            COMPONENTS
                .iter()
                .map(|c| (deploy_label(c), Some("true".to_string())))
                .collect(),
        )
    })
}

/// Labels and annotations that pause the components.
pub(crate) fn pause(originals: &Originals) -> (Originals, Originals) {
    let labels = originals
        .keys()
        .map(|l| (l.clone(), Some(PAUSED.to_string())))
        .collect();
    let text = serde_json::to_string(originals).unwrap_or_else(|_| "{}".into());
    let annotations = BTreeMap::from([(PAUSED_ANNOTATION.to_string(), Some(text))]);
    (labels, annotations)
}

/// Labels and annotations that undo [`pause`]: a label that was absent is removed again.
pub(crate) fn restore(originals: &Originals) -> (Originals, Originals) {
    let annotations = BTreeMap::from([(PAUSED_ANNOTATION.to_string(), None)]);
    (originals.clone(), annotations)
}

/// Whether the plan needs the GPUs free of clients: MIG modes change, instances go, or something
/// in the way (a process, a holder) might be a client that leaves.
pub(crate) fn needs_gpus_free(plan: &Plan) -> bool {
    !plan.blockers.is_empty() || plan.changes.iter().any(|c| takes_devices(&c.operation))
}

/// Whether the GPU clients leave for the plan and come back after it: it needs the GPUs free,
/// or it makes MIG devices, which the plugins (NVIDIA's device plugin, its DRA kubelet plugin)
/// see only as they start.
pub(crate) fn restarts_clients(plan: &Plan) -> bool {
    needs_gpus_free(plan)
        || plan.changes.iter().any(|c| {
            matches!(
                c.operation,
                Operation::CreateGpuInstance { .. } | Operation::CreateComputeInstance { .. }
            )
        })
}

fn takes_devices(op: &Operation) -> bool {
    matches!(
        op,
        Operation::SetMigMode(_)
            | Operation::ResetIfPending
            | Operation::ResetUnhealthy
            | Operation::DestroyGpuInstance { .. }
            | Operation::DestroyComputeInstance { .. }
    )
}

/// What a plan takes away, in the device plugin's resource names.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Taken {
    /// Some device goes (whole GPUs and MIG devices under the `single` strategy are all
    /// `nvidia.com/gpu`, so any pod holding one may lose it).
    pub any: bool,
    /// MIG profiles of which an instance goes (`nvidia.com/mig-<profile>`).
    pub profiles: BTreeSet<String>,
}

pub(crate) fn taken(plan: &Plan, node: &Node) -> Taken {
    let mut out = Taken::default();
    let mut whole_gpus = BTreeSet::new();
    for change in &plan.changes {
        let gpu = node.gpu(change.gpu);
        match &change.operation {
            Operation::SetMigMode(_) | Operation::ResetIfPending | Operation::ResetUnhealthy => {
                whole_gpus.insert(change.gpu);
            }
            Operation::DestroyGpuInstance { gpu_instance_id }
            | Operation::DestroyComputeInstance {
                gpu_instance_id, ..
            } => {
                let gi = gpu.and_then(|g| {
                    g.mig
                        .instances
                        .iter()
                        .flatten()
                        .find(|i| i.gpu_instance_id == *gpu_instance_id)
                });
                match gi {
                    Some(gi) => {
                        out.profiles.insert(gi.profile.clone());
                        out.profiles
                            .extend(gi.compute_instances.iter().map(|c| c.profile.clone()));
                    }
                    None => {
                        whole_gpus.insert(change.gpu);
                    }
                }
            }
            _ => continue,
        }
        out.any = true;
    }
    for g in whole_gpus.iter().filter_map(|i| node.gpu(*i)) {
        // A plan is never made from an unknown layout, so `None` does not occur here.
        for gi in g.mig.instances.iter().flatten() {
            out.profiles.insert(gi.profile.clone());
            out.profiles
                .extend(gi.compute_instances.iter().map(|c| c.profile.clone()));
        }
    }
    out
}

/// The pods still on the node that the paused labels send away: those whose node selector or
/// required node affinity names one of them. Finished pods hold nothing.
pub(crate) fn paused_pods<'a>(pods: &'a [Pod], labels: &BTreeSet<String>) -> Vec<&'a Pod> {
    pods.iter()
        .filter(|p| !finished(p) && !selected_by(p).is_disjoint(labels))
        .collect()
}

/// User pods (not GPU-client components) that hold a resource the plan takes away, as
/// `namespace/name (resource)`. Without the kubelet's word, a pod's DRA claims may hold any
/// device, so a pod with claims blocks any plan that takes a device.
pub(crate) fn blocking_pods(pods: &[Pod], taken: &Taken) -> Vec<String> {
    if !taken.any {
        return Vec::new();
    }
    let components: BTreeSet<String> = COMPONENTS.iter().map(|c| deploy_label(c)).collect();
    let mut out = Vec::new();
    for pod in pods {
        if finished(pod) || !selected_by(pod).is_disjoint(&components) {
            continue;
        }
        let mut held: Vec<String> = resources(pod)
            .into_iter()
            .filter(|r| loses(r, taken))
            .collect();
        let claims = pod
            .spec
            .as_ref()
            .and_then(|s| s.resource_claims.as_ref())
            .map_or(0, Vec::len);
        if claims > 0 {
            held.push(format!("{claims} DRA claim(s)"));
        }
        if !held.is_empty() {
            out.push(format!(
                "{}/{} ({})",
                pod.metadata.namespace.as_deref().unwrap_or("default"),
                pod.metadata.name.as_deref().unwrap_or("?"),
                held.join(", ")
            ));
        }
    }
    out
}

/// The pods whose devices, as the kubelet allocated them, the plan destroys, as
/// `namespace/name (device, …)`: a MIG device whose compute or GPU instance goes or whose GPU
/// changes MIG mode, a whole GPU (or a replica of one) that changes mode or loses instances. A
/// held NVIDIA device that is not on this node's devices counts as lost: it is not known to stay.
pub(crate) fn blocking_holders(held: &[PodDevice], plan: &Plan, node: &Node) -> Vec<String> {
    let mut whole = BTreeSet::new();
    let mut gpu_instances = BTreeSet::new();
    let mut compute_instances = BTreeSet::new();
    for c in &plan.changes {
        match &c.operation {
            Operation::SetMigMode(_) | Operation::ResetIfPending | Operation::ResetUnhealthy => {
                whole.insert(c.gpu);
            }
            Operation::DestroyGpuInstance { gpu_instance_id } => {
                gpu_instances.insert((c.gpu, *gpu_instance_id));
            }
            Operation::DestroyComputeInstance {
                gpu_instance_id,
                compute_instance_id,
            } => {
                compute_instances.insert((c.gpu, *gpu_instance_id, *compute_instance_id));
            }
            _ => {}
        }
    }
    let touched = |gpu: u32| {
        whole.contains(&gpu)
            || gpu_instances.iter().any(|(g, _)| *g == gpu)
            || compute_instances.iter().any(|(g, _, _)| *g == gpu)
    };
    let mut lost: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for d in held {
        let what = match (d.gpu, &d.mig_device) {
            (None, _) => Some(format!("{} (not a device of this node)", d.device_id)),
            (Some(gpu), None) => touched(gpu).then(|| format!("GPU {gpu}")),
            (Some(gpu), Some(uuid)) => {
                let place = node
                    .gpu(gpu)
                    .and_then(|g| g.mig_device(uuid))
                    .map(|(gi, ci)| (gi.gpu_instance_id, ci.compute_instance_id));
                match place {
                    Some((gi, ci))
                        if !whole.contains(&gpu)
                            && !gpu_instances.contains(&(gpu, gi))
                            && !compute_instances.contains(&(gpu, gi, ci)) =>
                    {
                        None
                    }
                    Some((gi, ci)) => Some(format!("{uuid} on GPU {gpu} GI {gi} CI {ci}")),
                    None => Some(format!("{uuid} (not a device of this node)")),
                }
            }
        };
        if let Some(what) = what {
            lost.entry(format!("{}/{}", d.namespace, d.pod))
                .or_default()
                .push(what);
        }
    }
    lost.into_iter()
        .map(|(pod, devices)| format!("{pod} ({})", devices.join(", ")))
        .collect()
}

/// `pod/name` of a pod, for messages.
pub(crate) fn name_of(pod: &Pod) -> String {
    format!(
        "{}/{}",
        pod.metadata.namespace.as_deref().unwrap_or("default"),
        pod.metadata.name.as_deref().unwrap_or("?")
    )
}

/// Whether a pod holding `resource` loses it: a MIG resource when an instance of its profile
/// goes; any other GPU resource when any device goes.
fn loses(resource: &str, taken: &Taken) -> bool {
    match resource.strip_prefix("nvidia.com/mig-") {
        Some(profile) => {
            let profile = profile.strip_suffix(".shared").unwrap_or(profile);
            taken.profiles.contains(profile)
        }
        None => true,
    }
}

fn finished(pod: &Pod) -> bool {
    matches!(
        pod.status.as_ref().and_then(|s| s.phase.as_deref()),
        Some("Succeeded" | "Failed")
    )
}

/// The GPU resources a pod's containers ask for (NVIDIA's and the gpushare extender's).
fn resources(pod: &Pod) -> BTreeSet<String> {
    let Some(spec) = &pod.spec else {
        return BTreeSet::new();
    };
    let containers = spec
        .containers
        .iter()
        .chain(spec.init_containers.iter().flatten());
    containers
        .flat_map(|c: &Container| {
            let r = c.resources.as_ref();
            let limits = r.and_then(|r| r.limits.as_ref()).into_iter().flatten();
            let requests = r.and_then(|r| r.requests.as_ref()).into_iter().flatten();
            limits
                .chain(requests)
                .filter(|(_, q)| q.0.trim() != "0")
                .map(|(k, _)| k.clone())
                .collect::<Vec<_>>()
        })
        .filter(|k| k.starts_with("nvidia.com/") || k.starts_with("aliyun.com/gpu"))
        .collect()
}

/// The node labels a pod's placement depends on.
fn selected_by(pod: &Pod) -> BTreeSet<String> {
    let Some(spec) = &pod.spec else {
        return BTreeSet::new();
    };
    let mut out: BTreeSet<String> = spec
        .node_selector
        .iter()
        .flat_map(|m| m.keys().cloned())
        .collect();
    let terms = spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|n| {
            n.required_during_scheduling_ignored_during_execution
                .as_ref()
        })
        .map(|r| r.node_selector_terms.as_slice())
        .unwrap_or_default();
    for term in terms {
        out.extend(
            term.match_expressions
                .iter()
                .flatten()
                .map(|e| e.key.clone()),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::change::plan::Change;
    use crate::node::backend::Backend;
    use crate::node::backend::sim::SimBackend;
    use k8s_openapi::api::core::v1::{PodSpec, PodStatus, ResourceRequirements};
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    fn pod(name: &str, selector: &[&str], resources: &[&str], phase: &str) -> Pod {
        Pod {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some("ns".into()),
                ..Default::default()
            },
            spec: Some(PodSpec {
                node_selector: Some(
                    selector
                        .iter()
                        .map(|k| (k.to_string(), "true".to_string()))
                        .collect(),
                ),
                containers: vec![Container {
                    name: "c".into(),
                    resources: Some(ResourceRequirements {
                        limits: Some(
                            resources
                                .iter()
                                .map(|r| (r.to_string(), Quantity("1".into())))
                                .collect(),
                        ),
                        ..Default::default()
                    }),
                    ..Default::default()
                }],
                ..Default::default()
            }),
            status: Some(PodStatus {
                phase: Some(phase.into()),
                ..Default::default()
            }),
        }
    }

    #[test]
    fn false_stays_false_and_absent_is_paused_then_removed() {
        let labels: BTreeMap<String, String> = [
            (deploy_label("device-plugin"), "true".to_string()),
            (deploy_label("dcgm"), "false".to_string()),
        ]
        .into_iter()
        .collect();
        let originals = to_pause(&labels);
        assert_eq!(originals.len(), 4, "{originals:?}");
        assert_eq!(
            originals[&deploy_label("device-plugin")].as_deref(),
            Some("true")
        );
        assert_eq!(originals[&deploy_label("dcgm-exporter")], None);
        let (paused, note) = pause(&originals);
        assert!(paused.values().all(|v| v.as_deref() == Some(PAUSED)));
        let annotations: BTreeMap<String, String> =
            note.into_iter().map(|(k, v)| (k, v.unwrap())).collect();
        assert_eq!(recorded(&annotations), Some(originals.clone()));
        let (back, note) = restore(&originals);
        assert_eq!(back, originals);
        assert_eq!(note[PAUSED_ANNOTATION], None);
    }

    #[test]
    fn pods_that_select_on_a_paused_label_must_go() {
        let dp = deploy_label("device-plugin");
        let pods = vec![
            pod("plugin", &[&dp], &[], "Running"),
            pod("done", &[&dp], &[], "Succeeded"),
            pod("user", &[], &["nvidia.com/gpu"], "Running"),
        ];
        let paused: BTreeSet<String> = [dp].into();
        let names: Vec<String> = paused_pods(&pods, &paused)
            .iter()
            .map(|p| name_of(p))
            .collect();
        assert_eq!(names, ["ns/plugin"]);
    }

    #[test]
    fn user_pods_block_only_what_the_plan_takes() {
        let sim = SimBackend::from_preset("dgx-a100").unwrap();
        let node = sim.snapshot().unwrap();
        let pods = vec![
            pod("small", &[], &["nvidia.com/mig-1g.5gb"], "Running"),
            pod("big", &[], &["nvidia.com/mig-3g.20gb"], "Running"),
            pod(
                "plugin",
                &[&deploy_label("device-plugin")],
                &["nvidia.com/gpu"],
                "Running",
            ),
        ];
        // Creating instances takes nothing.
        let create = Plan {
            changes: vec![Change::new(
                0,
                Operation::CreateGpuInstance {
                    profile_id: 19,
                    placement: crate::node::model::Placement { start: 0, size: 1 },
                },
                "1g.5gb",
            )],
            ..Plan::default()
        };
        assert!(!needs_gpus_free(&create));
        assert!(
            restarts_clients(&create),
            "the plugins see the new instance"
        );
        assert_eq!(taken(&create, &node), Taken::default());
        assert!(blocking_pods(&pods, &taken(&create, &node)).is_empty());
        // A MIG mode change takes every device of the GPU: whole GPUs, and its instances.
        let mode = Plan {
            changes: vec![Change::new(
                0,
                Operation::SetMigMode(crate::node::model::MigMode::Enabled),
                "enable",
            )],
            ..Plan::default()
        };
        assert!(needs_gpus_free(&mode));
        let t = taken(&mode, &node);
        assert!(t.any);
        let user = pod("whole", &[], &["nvidia.com/gpu"], "Running");
        assert_eq!(blocking_pods(&[user], &t), ["ns/whole (nvidia.com/gpu)"]);
        // The plugin is a GPU client, paused rather than blocking.
        assert!(
            blocking_pods(&pods, &t)
                .iter()
                .all(|p| !p.starts_with("ns/plugin"))
        );
        // A MIG pod blocks when an instance of its profile goes.
        let t = Taken {
            any: true,
            profiles: ["1g.5gb".to_string()].into(),
        };
        assert_eq!(
            blocking_pods(&pods, &t),
            ["ns/small (nvidia.com/mig-1g.5gb)"]
        );
        // A pod's DRA claims may hold any device: it blocks whatever goes, never nothing.
        let mut claiming = pod("claiming", &[], &[], "Running");
        claiming.spec.as_mut().unwrap().resource_claims =
            Some(vec![k8s_openapi::api::core::v1::PodResourceClaim {
                name: "gpu".into(),
                resource_claim_name: Some("c".into()),
                ..Default::default()
            }]);
        assert_eq!(
            blocking_pods(std::slice::from_ref(&claiming), &t),
            ["ns/claiming (1 DRA claim(s))"]
        );
        assert!(blocking_pods(&[claiming], &Taken::default()).is_empty());
    }

    #[test]
    fn held_devices_block_only_when_the_plan_destroys_them() {
        // GPU 0 with two 3g.20gb instances, each with its compute instance; GPU 1 whole.
        let sim = SimBackend::from_preset("dgx-a100").unwrap();
        sim.set_mig_mode(0, crate::node::model::MigMode::Enabled)
            .unwrap();
        let mut gis = Vec::new();
        for start in [0, 4] {
            let at = crate::node::model::Placement { start, size: 4 };
            let gi = sim.create_gpu_instance(0, 9, at).unwrap();
            sim.create_compute_instance(0, gi, 2).unwrap();
            gis.push(gi);
        }
        let node = sim.snapshot().unwrap();
        let mig = |gi: u32| {
            node.gpus[0]
                .mig
                .instances
                .as_ref()
                .unwrap()
                .iter()
                .find(|i| i.gpu_instance_id == gi)
                .unwrap()
                .compute_instances[0]
                .uuid
                .clone()
                .unwrap()
        };
        let held = |pod: &str, gpu: Option<u32>, mig_device: Option<String>, id: &str| PodDevice {
            namespace: "ns".into(),
            pod: pod.into(),
            container: Some("c".into()),
            resource: "nvidia.com/mig-3g.20gb".into(),
            device_id: id.into(),
            gpu,
            mig_device,
            claim: None,
        };
        let (kept, lost) = (mig(gis[0]), mig(gis[1]));
        let holders = vec![
            held("keeps", Some(0), Some(kept.clone()), &kept),
            held("loses", Some(0), Some(lost.clone()), &lost),
            held("whole", Some(1), None, "GPU-1"),
        ];
        let destroy = |gi: u32| Plan {
            changes: vec![
                Change::new(
                    0,
                    Operation::DestroyComputeInstance {
                        gpu_instance_id: gi,
                        compute_instance_id: 0,
                    },
                    "ci",
                ),
                Change::new(
                    0,
                    Operation::DestroyGpuInstance {
                        gpu_instance_id: gi,
                    },
                    "gi",
                ),
            ],
            ..Plan::default()
        };
        // The instance that goes names its pod and itself; the kept one and GPU 1 do not block.
        assert_eq!(
            blocking_holders(&holders, &destroy(gis[1]), &node),
            [format!("ns/loses ({lost} on GPU 0 GI {} CI 0)", gis[1])]
        );
        // A MIG mode change on GPU 1 takes its whole-GPU holder only.
        let mode = Plan {
            changes: vec![Change::new(
                1,
                Operation::SetMigMode(crate::node::model::MigMode::Enabled),
                "mode",
            )],
            ..Plan::default()
        };
        assert_eq!(
            blocking_holders(&holders, &mode, &node),
            ["ns/whole (GPU 1)"]
        );
        // A device the node does not have is not known to stay.
        let stray = [held("stray", None, None, "GPU-gone")];
        assert_eq!(
            blocking_holders(&stray, &mode, &node),
            ["ns/stray (GPU-gone (not a device of this node))"]
        );
    }
}
