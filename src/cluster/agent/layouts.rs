//! The layouts ConfigMap: each data key is a layout name and its value a gpushare.toml; the key
//! `config.yaml`, when it holds a mig-parted v1 config, also offers each of its labels by name.
//! Errors name the ConfigMap and key (`kube-system/gpushare-layouts[balanced]:3:7: …`).

use crate::change::pipeline::desired::DesiredSource;
use crate::node::config::Config;
use crate::sharing::mig::mig_parted::MigPartedConfig;
use crate::support::error::{Error, Result};
use crate::support::source_file::SourceFile;
use std::collections::BTreeMap;

/// The key that holds a mig-parted config (as the GPU Operator's MIG manager names it).
pub(crate) const MIG_PARTED_KEY: &str = "config.yaml";

/// `NAMESPACE/NAME` of the ConfigMap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ConfigMapRef {
    pub namespace: String,
    pub name: String,
}

impl ConfigMapRef {
    pub(crate) fn parse(text: &str) -> Result<Self> {
        let bad = || {
            Error::usage(format!("--configmap {text:?}: expected NAMESPACE/NAME"))
                .with_hint("e.g. --configmap kube-system/gpushare-layouts")
        };
        let (namespace, name) = text.split_once('/').ok_or_else(bad)?;
        let ok = crate::support::dns_name::is_dns_label(namespace)
            && !name.is_empty()
            && name.len() <= 253
            && name.split('.').all(crate::support::dns_name::is_dns_label);
        if !ok {
            return Err(bad());
        }
        Ok(ConfigMapRef {
            namespace: namespace.into(),
            name: name.into(),
        })
    }

    /// How a key is named in messages: `ns/name[key]`.
    pub(crate) fn key_path(&self, key: &str) -> String {
        format!("{self}[{key}]")
    }
}

impl std::fmt::Display for ConfigMapRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.namespace, self.name)
    }
}

/// A layout found by name: how to check it, and its text (a change of the text is a change of
/// the layout).
#[derive(Debug, Clone)]
pub(crate) struct Found {
    pub source: DesiredSource,
    pub text: String,
}

/// Find `name` in the ConfigMap's data (`None`: the ConfigMap does not exist). Bad input (a
/// missing name, a layout that does not parse) is exit 2.
pub(crate) fn find(
    at: &ConfigMapRef,
    data: Option<&BTreeMap<String, String>>,
    name: &str,
) -> Result<Found> {
    let Some(data) = data else {
        return Err(
            Error::usage(format!("the ConfigMap {at} does not exist")).with_hint(
                "create it with the layouts: `gpushare manifests --target agent` writes one",
            ),
        );
    };
    if name != MIG_PARTED_KEY
        && let Some(text) = data.get(name)
    {
        let config = Config::parse(SourceFile::inline(&at.key_path(name), text))?;
        return Ok(Found {
            source: DesiredSource::Gpushare(config),
            text: text.clone(),
        });
    }
    let mig_parted = match data.get(MIG_PARTED_KEY) {
        Some(text) => Some((
            MigPartedConfig::parse(SourceFile::inline(&at.key_path(MIG_PARTED_KEY), text))?,
            text,
        )),
        None => None,
    };
    if let Some((file, text)) = mig_parted
        && file.labels().contains(&name)
    {
        return Ok(Found {
            source: DesiredSource::MigParted {
                file,
                label: name.to_string(),
            },
            text: text.clone(),
        });
    }
    Err(
        Error::usage(format!("the ConfigMap {at} has no layout named `{name}`"))
            .with_hint(offered(data)),
    )
}

/// The controller's layout for `node` (annotation `gpushare.io/mig.layout`), checked as any
/// gpushare.toml; errors name the node and the annotation.
pub(crate) fn on_demand(node: &str, text: &str) -> Result<Found> {
    let at = format!(
        "node/{node}[{}]",
        crate::cluster::on_demand::LAYOUT_ANNOTATION
    );
    // Only MIG instances at placements come from here: hooks, GPU clients or another mode in
    // this annotation are refused, whoever wrote it.
    crate::cluster::on_demand::layout::parse(text).map_err(|why| {
        Error::usage(format!(
            "{at}: not a layout gpushare controller writes: {why}"
        ))
        .with_hint("only gpushare controller writes this annotation; remove it to return the node to its own layout")
    })?;
    let config = Config::parse(SourceFile::inline(&at, text))?;
    Ok(Found {
        source: DesiredSource::Gpushare(config),
        text: text.to_string(),
    })
}

/// `it offers: a, b; and the labels of config.yaml: x, y`.
fn offered(data: &BTreeMap<String, String>) -> String {
    let names: Vec<&str> = data
        .keys()
        .map(String::as_str)
        .filter(|k| *k != MIG_PARTED_KEY)
        .collect();
    let labels: Vec<String> = data
        .get(MIG_PARTED_KEY)
        .and_then(|t| MigPartedConfig::parse(SourceFile::inline(MIG_PARTED_KEY, t)).ok())
        .map(|c| c.labels().iter().map(|l| l.to_string()).collect())
        .unwrap_or_default();
    let mut s = if names.is_empty() {
        "it offers no gpushare.toml layouts".to_string()
    } else {
        format!("it offers: {}", names.join(", "))
    };
    if !labels.is_empty() {
        s.push_str(&format!(
            "; and the labels of {MIG_PARTED_KEY}: {}",
            labels.join(", ")
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::error::Exit;

    const TOML: &str =
        "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 7 }\n";
    const YAML: &str = "version: v1\nmig-configs:\n  all-disabled:\n    - devices: all\n      mig-enabled: false\n";

    fn at() -> ConfigMapRef {
        ConfigMapRef::parse("kube-system/gpushare-layouts").unwrap()
    }

    fn data(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_reference_is_namespace_and_name() {
        assert_eq!(at().to_string(), "kube-system/gpushare-layouts");
        for bad in ["layouts", "Kube/x", "ns/", "/x", "ns/a b"] {
            let e = ConfigMapRef::parse(bad).unwrap_err();
            assert_eq!(e.exit, Exit::Usage, "{bad}");
        }
    }

    #[test]
    fn names_are_keys_then_mig_parted_labels() {
        let d = data(&[("seven", TOML), (MIG_PARTED_KEY, YAML)]);
        let f = find(&at(), Some(&d), "seven").unwrap();
        assert!(matches!(f.source, DesiredSource::Gpushare(_)));
        assert_eq!(f.text, TOML);
        let f = find(&at(), Some(&d), "all-disabled").unwrap();
        match &f.source {
            DesiredSource::MigParted { label, .. } => assert_eq!(label, "all-disabled"),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            f.source.describe(),
            "label all-disabled of kube-system/gpushare-layouts[config.yaml]"
        );
    }

    #[test]
    fn a_missing_name_lists_what_there_is() {
        let d = data(&[("seven", TOML), (MIG_PARTED_KEY, YAML)]);
        let e = find(&at(), Some(&d), "nine").unwrap_err();
        assert_eq!(e.exit, Exit::Usage);
        assert_eq!(
            e.message,
            "the ConfigMap kube-system/gpushare-layouts has no layout named `nine`"
        );
        assert_eq!(
            e.hint.as_deref(),
            Some("it offers: seven; and the labels of config.yaml: all-disabled")
        );
        let e = find(&at(), None, "seven").unwrap_err();
        assert!(e.message.contains("does not exist"), "{}", e.message);
    }

    #[test]
    fn a_layout_time_slices_its_mig_devices() {
        let sliced = format!("{TOML}mig.time_slicing.replicas = 4\n");
        let d = data(&[
            ("sliced", &sliced),
            ("too-few", &format!("{TOML}mig.time_slicing.replicas = 1\n")),
        ]);
        let f = find(&at(), Some(&d), "sliced").unwrap();
        let DesiredSource::Gpushare(config) = &f.source else {
            panic!("{:?}", f.source)
        };
        let mig = config.file.gpus[0]
            .get_ref()
            .mig
            .as_ref()
            .unwrap()
            .get_ref();
        let ts = mig.time_slicing.as_ref().unwrap().get_ref();
        assert_eq!(*ts.replicas.get_ref(), 4);
        let e = find(&at(), Some(&d), "too-few").unwrap_err();
        assert!(
            e.message
                .starts_with("kube-system/gpushare-layouts[too-few]:5:29: replicas = 1"),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_bad_layout_names_the_key_line_and_column() {
        let d = data(&[("bad", "[[gpus]]\nselect = \"all\"\nmode = \"mug\"\n")]);
        let e = find(&at(), Some(&d), "bad").unwrap_err();
        assert_eq!(e.exit, Exit::Usage);
        assert!(
            e.message
                .starts_with("kube-system/gpushare-layouts[bad]:3:8: "),
            "{}",
            e.message
        );
    }

    #[test]
    fn the_controllers_annotation_gives_mig_instances_and_nothing_else() {
        let good = crate::cluster::on_demand::layout::render(&BTreeMap::from([(
            0,
            vec![("1g.5gb".to_string(), 0)],
        )]))
        .unwrap();
        assert!(on_demand("gpu-1", &good).is_ok());
        let injected = "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.instances = [{ profile = \"1g.5gb\", start = 0 }]\n[clients]\nsystemd = [\"kubelet.service\"]\n";
        // A valid gpushare.toml, but not what the controller writes: refused before any check.
        assert!(Config::parse(SourceFile::inline("x", injected)).is_ok());
        let e = on_demand("gpu-1", injected).unwrap_err();
        assert_eq!(e.exit, Exit::Usage);
        assert!(
            e.message.starts_with(
                "node/gpu-1[gpushare.io/mig.layout]: not a layout gpushare controller writes"
            ),
            "{}",
            e.message
        );
    }
}
