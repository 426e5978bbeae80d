//! `--target dra`: DeviceClasses and ResourceClaimTemplates for the NVIDIA DRA driver
//! (`gpu.nvidia.com`): one class and template for a whole GPU, one per MIG profile the layout
//! has, and templates that share a device (MPS with the layout's limits, time-slicing), in the
//! `resource.k8s.io` version of the cluster: v1 from 1.34, v1beta2 in 1.33, v1beta1 in 1.32.

use super::device_plugin::mig_resource;
use super::node_offer::{MpsShare, Sharing};
use super::objects::{is_builtin_namespace, meta, namespace};
use super::version::DraApi;
use super::{Bundle, Document, Request};
use crate::sharing::mode::offer::profile_order;
use crate::support::error::{Error, Result};
use serde_json::json;

pub(crate) const DRIVER: &str = "gpu.nvidia.com";
pub(crate) const GPU_CLASS: &str = "gpu.gpushare.io";

/// The class of a MIG profile: `mig-1g.5gb.gpushare.io` (`+me` → `.me`).
pub(crate) fn mig_class(profile: &str) -> String {
    format!("mig-{}.gpushare.io", profile.replace('+', "."))
}

/// The claim template of a MIG profile: `mig-1g.5gb`.
pub(crate) fn mig_template(profile: &str) -> String {
    format!("mig-{}", profile.replace('+', "."))
}

/// gpushare's driver and NVIDIA's publish the same attributes (`type`, `profile`): a class
/// selects by them on one driver.
fn gpu_selector(driver: &str) -> String {
    format!("device.driver == '{driver}' && device.attributes['{driver}'].type == 'gpu'")
}

fn mig_selector(driver: &str, profile: &str) -> String {
    format!(
        "device.driver == '{driver}' && device.attributes['{driver}'].type == 'mig' && device.attributes['{driver}'].profile == '{profile}'"
    )
}

/// The driver's opaque config (`resource.nvidia.com/v1beta1`) for a sharing strategy.
fn sharing_config(kind: &str, sharing: &SharedAs) -> serde_json::Value {
    let sharing = match sharing {
        // A MIG device has no time-slice interval to set (the driver's MigDeviceSharing has
        // no timeSlicingConfig).
        SharedAs::TimeSlicing if kind == "MigDeviceConfig" => json!({"strategy": "TimeSlicing"}),
        SharedAs::TimeSlicing => json!({
            "strategy": "TimeSlicing",
            "timeSlicingConfig": {"interval": "Default"}
        }),
        SharedAs::Mps(m) => json!({
            "strategy": "MPS",
            "mpsConfig": {
                "defaultActiveThreadPercentage": m.thread_percentage,
                "defaultPinnedDeviceMemoryLimit": format!("{}Mi", m.memory_limit_mib)
            }
        }),
    };
    json!({"apiVersion": "resource.nvidia.com/v1beta1", "kind": kind, "sharing": sharing})
}

enum SharedAs {
    TimeSlicing,
    Mps(MpsShare),
}

/// One ResourceClaimTemplate: a single device of `class`, optionally with a sharing config.
struct Template {
    name: String,
    class: String,
    config: Option<serde_json::Value>,
}

// The objects per API version: the same shape, except that v1beta1 names the device class on
// the request itself where v1beta2 and v1 wrap it in `exactly`.
macro_rules! dra_objects {
    ($module:ident, $api:ident, |$name:ident, $class:ident| $request:expr) => {
        mod $module {
            use super::*;
            use k8s_openapi::api::resource::$api as r;
            use k8s_openapi::apimachinery::pkg::runtime::RawExtension;

            pub(super) fn device_class(
                name: &str,
                cel: String,
                extended_resource_name: Option<String>,
            ) -> Result<Document> {
                Document::object(&r::DeviceClass {
                    metadata: meta(name, None),
                    spec: r::DeviceClassSpec {
                        extended_resource_name,
                        selectors: Some(vec![r::DeviceSelector {
                            cel: Some(r::CELDeviceSelector { expression: cel }),
                        }]),
                        ..Default::default()
                    },
                })
            }

            pub(super) fn claim_template(t: &Template, ns: &str) -> Result<Document> {
                let request_name = "gpu";
                let request = {
                    let $name = request_name.to_string();
                    let $class = t.class.clone();
                    $request
                };
                Document::object(&r::ResourceClaimTemplate {
                    metadata: meta(&t.name, Some(ns)),
                    spec: r::ResourceClaimTemplateSpec {
                        spec: r::ResourceClaimSpec {
                            devices: Some(r::DeviceClaim {
                                requests: Some(vec![request]),
                                config: t.config.clone().map(|parameters| {
                                    vec![r::DeviceClaimConfiguration {
                                        requests: Some(vec![request_name.to_string()]),
                                        opaque: Some(r::OpaqueDeviceConfiguration {
                                            driver: DRIVER.into(),
                                            parameters: RawExtension(parameters),
                                        }),
                                    }]
                                }),
                                ..Default::default()
                            }),
                        },
                        ..Default::default()
                    },
                })
            }
        }
    };
}

dra_objects!(v1, v1, |name, class| r::DeviceRequest {
    name,
    exactly: Some(r::ExactDeviceRequest {
        device_class_name: class,
        ..Default::default()
    }),
    ..Default::default()
});
dra_objects!(v1beta2, v1beta2, |name, class| r::DeviceRequest {
    name,
    exactly: Some(r::ExactDeviceRequest {
        device_class_name: class,
        ..Default::default()
    }),
    ..Default::default()
});
dra_objects!(v1beta1, v1beta1, |name, class| r::DeviceRequest {
    name,
    device_class_name: Some(class),
    ..Default::default()
});

fn device_class(
    api: DraApi,
    name: &str,
    cel: String,
    extended: Option<String>,
) -> Result<Document> {
    match api {
        DraApi::V1 => v1::device_class(name, cel, extended),
        DraApi::V1beta2 => v1beta2::device_class(name, cel, extended),
        DraApi::V1beta1 => v1beta1::device_class(name, cel, extended),
    }
}

fn claim_template(api: DraApi, t: &Template, ns: &str) -> Result<Document> {
    match api {
        DraApi::V1 => v1::claim_template(t, ns),
        DraApi::V1beta2 => v1beta2::claim_template(t, ns),
        DraApi::V1beta1 => v1beta1::claim_template(t, ns),
    }
}

/// The MIG profiles that get a class and a template: the layout's, and every other its MIG GPUs
/// offer (MIG on demand makes them for claims that wait).
fn mig_profiles(req: &Request) -> Vec<String> {
    let mut out = req.layout.mig_profiles();
    out.extend(req.mig_profiles.iter().cloned());
    out.sort_by(|a, b| profile_order(a).cmp(&profile_order(b)).then(a.cmp(b)));
    out.dedup();
    out
}

/// The claim templates of a layout (names are what example pods reference).
fn templates(req: &Request) -> Vec<Template> {
    let l = &req.layout;
    let mut out = Vec::new();
    let whole: Vec<_> = l
        .whole_gpus()
        .filter(|g| g.sharing != Sharing::Vgpu)
        .collect();
    if !whole.is_empty() {
        out.push(Template {
            name: "gpu".into(),
            class: GPU_CLASS.into(),
            config: None,
        });
    }
    if whole
        .iter()
        .any(|g| matches!(g.sharing, Sharing::TimeSlicing { .. }))
    {
        out.push(Template {
            name: "gpu-time-slicing".into(),
            class: GPU_CLASS.into(),
            config: Some(sharing_config("GpuConfig", &SharedAs::TimeSlicing)),
        });
    }
    let mut mps: Vec<MpsShare> = whole
        .iter()
        .filter_map(|g| match g.sharing {
            Sharing::Mps(m) => Some(m),
            _ => None,
        })
        .collect();
    mps.dedup();
    for (i, m) in mps.iter().enumerate() {
        out.push(Template {
            name: if i == 0 {
                "gpu-mps".into()
            } else {
                format!("gpu-mps-{}", i + 1)
            },
            class: GPU_CLASS.into(),
            config: Some(sharing_config("GpuConfig", &SharedAs::Mps(*m))),
        });
    }
    for profile in mig_profiles(req) {
        out.push(Template {
            name: mig_template(&profile),
            class: mig_class(&profile),
            config: None,
        });
        let sharing = l.gpus.iter().find_map(|g| {
            g.mig
                .iter()
                .flatten()
                .any(|s| s.profile == profile)
                .then_some(g.mig_sharing)
                .filter(|s| *s != Sharing::Exclusive)
        });
        let shared = match sharing {
            Some(Sharing::Mps(m)) => Some(("mps", SharedAs::Mps(m))),
            Some(Sharing::TimeSlicing { .. }) => Some(("time-slicing", SharedAs::TimeSlicing)),
            _ => None,
        };
        if let Some((suffix, how)) = shared {
            out.push(Template {
                name: format!("{}-{suffix}", mig_template(&profile)),
                class: mig_class(&profile),
                config: Some(sharing_config("MigDeviceConfig", &how)),
            });
        }
    }
    out
}

/// The claim template an example pod uses: the last of a device the layout has.
pub(crate) fn example_template(req: &Request) -> Option<String> {
    let present = req.layout.mig_profiles();
    templates(req)
        .into_iter()
        .filter(|t| t.class == GPU_CLASS || present.iter().any(|p| mig_class(p) == t.class))
        .map(|t| t.name)
        .next_back()
}

pub(crate) fn generate(req: &Request) -> Result<Bundle> {
    generate_for(req, DRIVER)
}

/// The classes and templates on `driver`: NVIDIA's, or gpushare's own (which takes no sharing
/// configuration yet: its templates are the exclusive ones).
pub(crate) fn generate_for(req: &Request, driver: &str) -> Result<Bundle> {
    let nvidia = driver == DRIVER;
    let Some(api) = req.version.dra_api() else {
        return Err(Error::usage(format!(
            "DRA with structured parameters needs Kubernetes 1.32 or newer; --k8s-version is {}",
            req.version
        ))
        .with_hint("pass --k8s-version 1.32 or newer (resource.k8s.io/v1 from 1.34), or use --target nvidia-device-plugin"));
    };
    let mut bundle = Bundle::default();
    for g in req
        .layout
        .gpus
        .iter()
        .filter(|g| g.sharing == Sharing::Vgpu)
    {
        bundle.warn(format!(
            "GPU {} is set up for vGPU ({}); the DRA GPU driver does not hand it to pods",
            g.index, g.origin
        ));
    }
    let templates: Vec<Template> = templates(req)
        .into_iter()
        .filter(|t| nvidia || t.config.is_none())
        .collect();
    if templates.is_empty() {
        return Err(Error::usage(
            "the layout has no device the DRA driver can hand out (no whole GPU, no MIG device)",
        ));
    }
    // The drop-in move: the classes serve the device plugin's resource names.
    let drop_in = req.version.dra_extended_resources();
    let extended = |name: String| drop_in.then_some(name);
    if req.layout.whole_gpus().any(|g| g.sharing != Sharing::Vgpu) {
        bundle.push(device_class(
            api,
            GPU_CLASS,
            gpu_selector(driver),
            extended("nvidia.com/gpu".into()),
        )?);
    }
    for profile in mig_profiles(req) {
        bundle.push(device_class(
            api,
            &mig_class(&profile),
            mig_selector(driver, &profile),
            extended(mig_resource(&profile)),
        )?);
    }
    let ns = req.namespace_or("default");
    if !is_builtin_namespace(&ns) {
        bundle
            .documents
            .insert(0, Document::object(&namespace(&ns))?);
    }
    for t in &templates {
        bundle.push(claim_template(api, t, &ns)?);
    }
    let names: Vec<&str> = templates.iter().map(|t| t.name.as_str()).collect();
    if !nvidia {
        bundle.note(format!(
            "DRA ({}) for gpushare's DRA driver {driver}: claim templates {} in namespace {ns}.",
            api.as_str(),
            names.join(", ")
        ));
        return Ok(bundle);
    }
    bundle.note(format!(
        "DRA ({}) for the NVIDIA DRA driver {DRIVER}: claim templates {} in namespace {ns}.",
        api.as_str(),
        names.join(", ")
    ));
    bundle.note(
        "Needs the driver's GPU support: helm install nvidia-dra-driver-gpu (v25.12.0) with resources.gpus.enabled=true and gpuResourcesEnabledOverride=true; sharing templates need its feature gates MPSSupport and TimeSlicingSettings. Pods share one device by referencing one ResourceClaim (resourceClaimName) instead of a template.",
    );
    let mut sliced: Vec<(String, u32)> = Vec::new();
    for g in &req.layout.gpus {
        if let Sharing::TimeSlicing { replicas } = g.mig_sharing {
            for s in g.mig.iter().flatten() {
                let t = (mig_template(&s.profile), replicas);
                if !sliced.contains(&t) {
                    sliced.push(t);
                }
            }
        }
    }
    for (template, replicas) in sliced {
        bundle.note(format!(
            "{template}-time-slicing: gpushare.toml time-slices these MIG devices {replicas} ways; up to {replicas} pods share one through one ResourceClaim."
        ));
    }
    if drop_in {
        bundle.note(
            "The classes name the device plugin's resources (extendedResourceName): unchanged pods asking for nvidia.com/gpu or nvidia.com/mig-<profile> are served by DRA on nodes whose device plugin does not advertise them. Move a node by stopping its device plugin (label nvidia.com/gpu.deploy.device-plugin=false) once NVIDIA's DRA driver runs there.",
        );
    } else if api == DraApi::V1 {
        bundle.note(format!(
            "Kubernetes {}: pods ask through the claim templates; from 1.36 the classes also serve nvidia.com/gpu and nvidia.com/mig-<profile> requests (DRAExtendedResource).",
            req.version
        ));
    }
    if api != DraApi::V1 {
        bundle.note(format!(
            "Kubernetes {}: DRA is beta and off by default; enable the DynamicResourceAllocation feature gate and --runtime-config={}=true.",
            req.version,
            api.as_str()
        ));
    }
    Ok(bundle)
}
