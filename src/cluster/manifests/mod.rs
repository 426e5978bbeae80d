//! Cluster wiring generated from the node and its layout: one file per target.
//!
//! Every target reads the same inputs ([`Request`]: the node, its [`node_offer::NodeOffer`], the
//! Kubernetes release, images) and returns a [`Bundle`] built entirely in memory; the command
//! prints it or writes it only once everything succeeded.

pub(crate) mod agent;
pub(crate) mod bundle;
pub(crate) mod cdi;
pub(crate) mod compose;
pub(crate) mod controller;
pub(crate) mod device_plugin;
pub(crate) mod dra;
mod dra_plugin;
pub(crate) mod examples;
pub(crate) mod gpushare_extender;
mod grafana_dashboard;
pub(crate) mod hami;
pub(crate) mod images;
pub(crate) mod node_offer;
pub(crate) mod objects;
pub(crate) mod own_node_policy;
pub(crate) mod prometheus_rules;
pub(crate) mod rbac;
pub(crate) mod version;
pub(crate) mod wiring;

use crate::node::config::Config;
use crate::node::model::Node;
use crate::support::error::{Error, Result};
pub(crate) use bundle::{Bundle, DocKind, Document};
use clap::ValueEnum;
pub(crate) use images::Images;
pub(crate) use node_offer::NodeOffer;
pub(crate) use version::K8sVersion;

/// What `manifests --target` generates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
pub(crate) enum Target {
    /// NVIDIA k8s-device-plugin: config (MIG strategy, time-slicing, MPS), DaemonSets, node label
    NvidiaDevicePlugin,
    /// Aliyun gpushare scheduler extender and device plugin (GPU memory as a resource)
    GpushareExtender,
    /// Helm values for HAMi
    Hami,
    /// DRA DeviceClasses and ResourceClaimTemplates for the NVIDIA DRA driver
    Dra,
    /// gpushare's own DRA driver: its kubelet plugin's DaemonSet and RBAC, and DeviceClasses and
    /// ResourceClaimTemplates on it (the same names as `dra`'s: use one or the other)
    DraPlugin,
    /// A CDI spec for every GPU and MIG device (nvidia.com/gpu)
    Cdi,
    /// A ConfigMap with gpushare.toml and a DaemonSet that applies it on labelled nodes
    Agent,
    /// The MIG-on-demand controller: a Deployment with leader election and its RBAC
    Controller,
    /// Alerting rules on gpushare's metrics (a Prometheus rules file)
    PrometheusRules,
    /// A Grafana dashboard for gpushare's metrics (a ConfigMap the Grafana sidecar loads)
    GrafanaDashboard,
}

impl Target {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Target::NvidiaDevicePlugin => "nvidia-device-plugin",
            Target::GpushareExtender => "gpushare-extender",
            Target::Hami => "hami",
            Target::Dra => "dra",
            Target::DraPlugin => "dra-plugin",
            Target::Cdi => "cdi",
            Target::Agent => "agent",
            Target::Controller => "controller",
            Target::PrometheusRules => "prometheus-rules",
            Target::GrafanaDashboard => "grafana-dashboard",
        }
    }

    pub(crate) fn all_names() -> Vec<&'static str> {
        Target::value_variants().iter().map(|t| t.name()).collect()
    }

    /// Parse a target name, listing the valid ones when it is not one.
    pub(crate) fn parse(name: &str) -> std::result::Result<Target, String> {
        Target::value_variants()
            .iter()
            .copied()
            .find(|t| t.name() == name)
            .ok_or_else(|| {
                format!(
                    "unknown target `{name}`; targets are {}",
                    Target::all_names().join(", ")
                )
            })
    }
}

/// Everything a target needs.
pub(crate) struct Request<'a> {
    pub node: &'a Node,
    pub layout: NodeOffer,
    /// `-c gpushare.toml`, when given (the agent ships it).
    pub config: Option<&'a Config>,
    pub version: K8sVersion,
    /// `--namespace`; each target has its own default.
    pub namespace: Option<String>,
    pub images: Images,
    /// `--helm-values`: Helm values instead of plain manifests (nvidia-device-plugin).
    pub helm_values: bool,
    /// `--examples`: add pods that request the node's resources.
    pub examples: bool,
    /// The name of this node's layout: label values and object names (`--name`).
    pub name: String,
    /// `--node-name`, for the `kubectl label node` lines of the notes.
    pub node_name: Option<String>,
    /// Where the CDI target reads device nodes.
    pub devices: crate::change::cdi::DeviceSource,
    /// Every MIG profile the layout's MIG GPUs offer (as the driver or the catalog lists them):
    /// DRA has a class for each, so a claim may ask for one MIG on demand makes.
    pub mig_profiles: Vec<String>,
}

impl Request<'_> {
    pub(crate) fn namespace_or(&self, default: &str) -> String {
        self.namespace.clone().unwrap_or_else(|| default.into())
    }

    /// `kubectl label node <node> KEY=VALUE --overwrite`.
    pub(crate) fn label_command(&self, key: &str, value: &str) -> String {
        format!(
            "kubectl label node {} {key}={value} --overwrite",
            self.node_name.as_deref().unwrap_or("<node>")
        )
    }
}

/// Generate one target (and its example pods when asked).
pub(crate) fn generate(target: Target, req: &Request) -> Result<Bundle> {
    let mut bundle = match target {
        Target::NvidiaDevicePlugin => device_plugin::generate(req)?,
        Target::GpushareExtender => gpushare_extender::generate(req)?,
        Target::Hami => hami::generate(req)?,
        Target::Dra => dra::generate(req)?,
        Target::DraPlugin => dra_plugin::generate(req)?,
        Target::Cdi => cdi::generate(req)?,
        Target::Agent => agent::generate(req)?,
        Target::Controller => controller::generate(req)?,
        Target::PrometheusRules => prometheus_rules::generate(req)?,
        Target::GrafanaDashboard => grafana_dashboard::generate(req)?,
    };
    if req.examples {
        bundle.extend(examples::generate(target, req)?);
    }
    Ok(bundle)
}

/// Check `--name`: it becomes a label value and part of object names.
/// A namespace must be a DNS label (`--namespace`, `[kubernetes] namespace`).
pub(crate) fn check_namespace(ns: &str) -> Result<()> {
    if crate::support::dns_name::is_dns_label(ns) {
        return Ok(());
    }
    Err(Error::usage(format!(
        "namespace {ns:?} is not a valid namespace name (lowercase letters, digits, '-')"
    ))
    .with_hint("e.g. namespace = \"gpu-operator\""))
}

/// `--node-name`: the name of a Node object, which lands in manifests and HAMi's per-node config.
pub(crate) fn check_node_name(name: &str) -> Result<()> {
    if crate::support::dns_name::is_dns_subdomain(name) {
        return Ok(());
    }
    Err(Error::usage(format!(
        "--node-name {name:?}: a node name is a DNS-1123 subdomain: at most 253 characters, lowercase letters, digits, '-' and '.', each dot-separated part starting and ending with a letter or digit"
    ))
    .with_hint("use the name `kubectl get nodes` shows, e.g. --node-name gpu-node-1"))
}

pub(crate) fn check_name(name: &str) -> Result<()> {
    if crate::support::dns_name::is_dns_label(name) && name.len() <= 30 {
        return Ok(());
    }
    Err(Error::usage(format!(
        "--name {name:?}: must be 1 to 30 lowercase letters, digits and '-', starting and ending with a letter or digit"
    ))
    .with_hint("e.g. --name dgx-balanced"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse_by_name_and_list_the_others() {
        assert_eq!(Target::parse("dra").unwrap(), Target::Dra);
        let e = Target::parse("volcano").unwrap_err();
        assert!(e.contains(
            "nvidia-device-plugin, gpushare-extender, hami, dra, dra-plugin, cdi, agent"
        ));
        for t in Target::value_variants() {
            assert_eq!(
                t.to_possible_value().unwrap().get_name(),
                t.name(),
                "clap and our names agree"
            );
        }
    }

    #[test]
    fn names_are_checked() {
        assert!(check_name("dgx-balanced").is_ok());
        assert!(check_name("Bad_Name").is_err());
        assert!(check_name(&"a".repeat(31)).is_err());
    }
}
