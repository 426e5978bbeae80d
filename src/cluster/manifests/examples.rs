//! `--examples`: a pod per target that asks for one slice of this node the way that target
//! hands them out, running `nvidia-smi -L` to show what it got.

use super::device_plugin::{self, MigStrategy};
use super::node_offer::Sharing;
use super::objects::{meta, toleration};
use super::{Bundle, Document, Request, Target, dra, gpushare_extender};
use crate::support::error::Result;
use k8s_openapi::api::core::v1::{
    Container, Pod, PodResourceClaim, PodSpec, ResourceClaim as ContainerClaim,
    ResourceRequirements,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use std::collections::BTreeMap;

fn pod(req: &Request, name: &str, limits: &[(String, String)]) -> Pod {
    Pod {
        metadata: meta(name, Some(&req.namespace_or("default"))),
        spec: Some(PodSpec {
            restart_policy: Some("Never".into()),
            tolerations: Some(vec![toleration("nvidia.com/gpu", "NoSchedule")]),
            containers: vec![Container {
                name: "cuda".into(),
                image: Some(req.images.get("cuda")),
                command: Some(vec!["nvidia-smi".into(), "-L".into()]),
                resources: (!limits.is_empty()).then(|| ResourceRequirements {
                    limits: Some(
                        limits
                            .iter()
                            .map(|(k, v)| (k.clone(), Quantity(v.clone())))
                            .collect::<BTreeMap<_, _>>(),
                    ),
                    ..Default::default()
                }),
                ..Default::default()
            }],
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// The smallest slice the device plugin advertises: a MIG device, or a (shared) GPU.
fn device_plugin_resource(req: &Request) -> String {
    match MigStrategy::of(&req.layout) {
        MigStrategy::Mixed => req
            .layout
            .mig_profiles()
            .first()
            .map(|p| device_plugin::mig_resource(p))
            .unwrap_or_else(|| "nvidia.com/gpu".into()),
        _ => "nvidia.com/gpu".into(),
    }
}

pub(crate) fn generate(target: Target, req: &Request) -> Result<Bundle> {
    let mut b = Bundle::default();
    match target {
        Target::NvidiaDevicePlugin => {
            let resource = device_plugin_resource(req);
            let slug = resource
                .trim_start_matches("nvidia.com/")
                .replace(['.', '+'], "-");
            b.push(Document::object(&pod(
                req,
                &format!("example-{slug}"),
                &[(resource.clone(), "1".into())],
            ))?);
        }
        Target::GpushareExtender => {
            let mut p = pod(
                req,
                "example-gpu-mem",
                &[(gpushare_extender::RESOURCE.into(), "2".into())],
            );
            if let Some(spec) = p.spec.as_mut() {
                spec.scheduler_name = Some(gpushare_extender::SCHEDULER_NAME.into());
            }
            b.push(Document::object(&p)?);
        }
        Target::Hami => {
            // One GPU, a share of its memory (MiB) and of its SMs, as HAMi splits it.
            let split = req.layout.whole_gpus().find_map(|g| match g.sharing {
                Sharing::TimeSlicing { replicas } => Some((g.memory_mib, replicas)),
                Sharing::Exclusive => Some((g.memory_mib, 1)),
                _ => None,
            });
            let limits: Vec<(String, String)> = match split {
                Some((mib, n)) => vec![
                    ("nvidia.com/gpu".into(), "1".into()),
                    (
                        "nvidia.com/gpumem".into(),
                        (mib / u64::from(n.max(1))).to_string(),
                    ),
                    ("nvidia.com/gpucores".into(), (100 / n.max(1)).to_string()),
                ],
                None => vec![(device_plugin_resource(req), "1".into())],
            };
            b.push(Document::object(&pod(req, "example-hami", &limits))?);
        }
        Target::Dra | Target::DraPlugin => {
            if let Some(template) = dra::example_template(req) {
                let mut p = pod(req, &format!("example-{}", template.replace('.', "-")), &[]);
                if let Some(spec) = p.spec.as_mut() {
                    spec.resource_claims = Some(vec![PodResourceClaim {
                        name: "gpu".into(),
                        resource_claim_template_name: Some(template),
                        ..Default::default()
                    }]);
                    spec.containers[0].resources = Some(ResourceRequirements {
                        claims: Some(vec![ContainerClaim {
                            name: "gpu".into(),
                            ..Default::default()
                        }]),
                        ..Default::default()
                    });
                }
                b.push(Document::object(&p)?);
            }
        }
        Target::Cdi => {
            b.note("Example: docker run --rm --device nvidia.com/gpu=all ubuntu nvidia-smi -L (or =0, =0:1, =GPU-…, =MIG-…)");
        }
        Target::Controller => {
            b.note("Example: a pod with limits nvidia.com/mig-3g.20gb: 1 on a cluster of 1g.5gb nodes that opt in; kubectl describe pod shows MigReshaping, then it runs.");
        }
        Target::Agent => {
            b.note(format!(
                "Example: kubectl describe node <node> shows the agent's events; kubectl -n {} logs daemonset/{} each run.",
                req.namespace_or("kube-system"),
                super::agent::NAME
            ));
        }
        Target::PrometheusRules => {
            b.note("Example: in Prometheus, gpushare_mig_device_held == 1 lists the pod on every MIG device; ALERTS{alertname=~\"Gpushare.*\"} shows what fires.");
        }
        Target::GrafanaDashboard => {
            b.note("Example: open the dashboard `gpushare` (uid gpushare) and pick the Prometheus that scrapes the agents.");
        }
    }
    Ok(b)
}
