//! `manifests --target cdi`: the node's CDI spec (`crate::change::cdi`) as a document of the
//! bundle, with what to do with it.

use super::node_offer::NodeOffer;
use super::{Bundle, DocKind, Document, Request};
use crate::change::cdi::{FILE_NAME, KIND, spec_for};
use crate::support::error::Result;

pub(crate) fn generate(req: &Request) -> Result<Bundle> {
    let mut bundle = Bundle::default();
    if req.devices.before_apply {
        // The node may have no device yet (MIG enabled, no instance): the spec is written after
        // the apply.
        bundle.note("CDI spec: written from the node's devices once it has the layout.");
        return Ok(bundle);
    }
    let (spec, tree) = spec_for(req.node, &req.devices)?;
    if mig_profiles_per_gpu(&req.layout) != mig_profiles_per_gpu(&NodeOffer::observed(req.node)) {
        bundle.warn("the node does not have the MIG layout of the config yet; the CDI spec describes the node as it is (run `gpushare apply`, then generate it again)");
    }
    let by_index: Vec<&str> = spec
        .devices
        .iter()
        .map(|d| d.name.as_str())
        .filter(|n| n.starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    bundle.note(format!(
        "CDI spec {KIND} (cdiVersion {}): devices {} (and each by UUID), all.",
        spec.cdi_version,
        by_index.join(", ")
    ));
    if !tree.read() {
        bundle.note(
            "Simulated node: the device nodes are derived as the driver numbers them (GPU minor = NVML index, nvidia-caps minors 3 + 135·G + 9·I (+1+C) from /proc/driver/nvidia-caps/mig-minors), and no driver files are mounted.",
        );
    }
    bundle.note(format!(
        "Install it for containerd/CRI-O/Docker/Podman: gpushare manifests --target cdi --install (writes /etc/cdi/{FILE_NAME}, 0644); then e.g. `docker run --device {KIND}=all …`."
    ));
    bundle.push(Document::new(
        format!("cdi-{FILE_NAME}"),
        DocKind::CdiSpec,
        &spec,
    )?);
    Ok(bundle)
}

/// Each GPU's MIG device profiles, sorted (None: MIG off), to compare layouts.
fn mig_profiles_per_gpu(layout: &NodeOffer) -> Vec<Option<Vec<String>>> {
    layout
        .gpus
        .iter()
        .map(|g| {
            g.mig.as_ref().map(|slices| {
                let mut p: Vec<String> = slices.iter().map(|s| s.profile.clone()).collect();
                p.sort();
                p
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::change::cdi::DeviceSource;
    use crate::change::cdi::tests::{BALANCED, node};
    use crate::node::config::AssignedConfig;
    use crate::support::source_file::SourceFile;

    #[test]
    fn an_unapplied_layout_is_reported_not_described() {
        use crate::node::config::Config;
        let n = node(BALANCED);
        let same = Config::parse(SourceFile::inline(
            "c.toml",
            "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.instances = [{ profile = \"1g.5gb\" }, { profile = \"3g.20gb\" }]\n",
        ))
        .unwrap();
        let other = Config::parse(SourceFile::inline(
            "c.toml",
            "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 7 }\n",
        ))
        .unwrap();
        for (config, warned) in [(&same, false), (&other, true)] {
            let req = Request {
                node: &n,
                layout: NodeOffer::desired(&n, &AssignedConfig::new(config.clone(), &n).unwrap())
                    .unwrap(),
                config: Some(config),
                version: crate::cluster::manifests::version::DEFAULT,
                namespace: None,
                images: Default::default(),
                helm_values: false,
                examples: false,
                name: "x".into(),
                node_name: None,
                devices: DeviceSource::default(),
                mig_profiles: Vec::new(),
            };
            let b = generate(&req).unwrap();
            assert_eq!(!b.warnings.is_empty(), warned);
            assert!(b.documents[0].yaml.contains("1:1"), "the node as it is");
        }
    }
}
