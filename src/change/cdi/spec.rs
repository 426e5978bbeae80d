//! The CDI spec format (cncf-tags/container-device-interface), its version and name rules.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Every valid `cdiVersion`, oldest first (`specs-go/version.go`; "1.0.1" is not one).
pub(crate) const VERSIONS: [&str; 10] = [
    "0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0", "1.0.0", "1.1.0",
];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Spec {
    pub cdi_version: String,
    pub kind: String,
    /// What the spec's maker notes about it (CDI 0.6.0): gpushare's DRA driver records a
    /// claim's name, devices and pods there.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
    pub devices: Vec<Device>,
    #[serde(default, skip_serializing_if = "ContainerEdits::is_empty")]
    pub container_edits: ContainerEdits,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Device {
    pub name: String,
    pub container_edits: ContainerEdits,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ContainerEdits {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub device_nodes: Vec<DeviceNode>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mounts: Vec<Mount>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hooks: Vec<Hook>,
}

impl ContainerEdits {
    pub(crate) fn is_empty(&self) -> bool {
        self.env.is_empty()
            && self.device_nodes.is_empty()
            && self.mounts.is_empty()
            && self.hooks.is_empty()
    }
}

/// A device node. Its numbers and mode are written where they were read from the node (as
/// nvidia-ctk writes them); left out, the runtime stats the host node.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct DeviceNode {
    /// Path in the container.
    pub path: String,
    /// Path on the host, when it differs (a driver root other than `/`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub major: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minor: Option<u32>,
    /// The node's permission bits (`0644` is 420), as the host node has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_mode: Option<u32>,
    /// The cgroup access the container gets (`rwm`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<String>,
}

/// An OCI hook the runtime runs (NVIDIA's `nvidia-cdi-hook` subcommands).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Hook {
    /// `createContainer`, …
    pub hook_name: String,
    /// The program on the host.
    pub path: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Mount {
    pub host_path: String,
    pub container_path: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
}

/// The lowest `cdiVersion` whose features this spec uses (`specs-go/version.go`): `hostPath` on
/// a device node or a device name starting with a digit need 0.5.0; a `.` in the class or
/// annotations 0.6.0.
pub(crate) fn minimum_version(spec: &Spec) -> &'static str {
    let class = spec.kind.split_once('/').map_or("", |(_, c)| c);
    let all_edits = std::iter::once(&spec.container_edits)
        .chain(spec.devices.iter().map(|d| &d.container_edits));
    let host_paths = all_edits
        .flat_map(|e| &e.device_nodes)
        .any(|n| n.host_path.is_some());
    let digit_names = spec
        .devices
        .iter()
        .any(|d| d.name.starts_with(|c: char| c.is_ascii_digit()));
    if class.contains('.') || !spec.annotations.is_empty() {
        "0.6.0"
    } else if host_paths || digit_names {
        "0.5.0"
    } else {
        "0.3.0"
    }
}

/// `vendor` and `class`: a letter first, alphanumeric last, `[A-Za-z0-9_.-]` between.
fn valid_kind_part(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_alphabetic()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
}

/// An annotation key, as Kubernetes' (CDI checks them so): `[prefix/]name`, the name at most 63
/// of `[A-Za-z0-9_.-]`, alphanumeric first and last; the prefix a DNS subdomain.
fn valid_annotation_key(key: &str) -> bool {
    let (prefix, name) = key
        .rsplit_once('/')
        .map_or((None, key), |(p, n)| (Some(p), n));
    let name_ok = name.len() <= 63
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name.ends_with(|c: char| c.is_ascii_alphanumeric())
        && name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'));
    let prefix_ok = prefix.is_none_or(|p| {
        p.len() <= 253
            && p.split('.').all(|label| {
                !label.is_empty()
                    && label.len() <= 63
                    && label.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
                    && label.ends_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
                    && label
                        .bytes()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
            })
    });
    name_ok && prefix_ok
}

/// A device name: alphanumeric first and last, `[A-Za-z0-9_.:-]` between (`:` allows `0:1`).
pub(crate) fn valid_device_name(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b':' | b'-'))
}

fn version_index(v: &str) -> Option<usize> {
    let v = v.strip_prefix('v').unwrap_or(v);
    VERSIONS.iter().position(|x| *x == v)
}

/// Check what the CDI library checks when it loads a spec; the problems found, if any.
pub(crate) fn validate(spec: &Spec) -> Vec<String> {
    let mut problems = Vec::new();
    match version_index(&spec.cdi_version) {
        None => problems.push(format!(
            "cdiVersion {} is not a CDI version",
            spec.cdi_version
        )),
        Some(i) => {
            let min = version_index(minimum_version(spec)).unwrap_or(0);
            if i < min {
                problems.push(format!(
                    "cdiVersion {} is older than the {} its features need",
                    spec.cdi_version,
                    minimum_version(spec)
                ));
            }
        }
    }
    match spec.kind.split_once('/') {
        Some((vendor, class)) if valid_kind_part(vendor) && valid_kind_part(class) => {}
        _ => problems.push(format!("kind {} is not vendor/class", spec.kind)),
    }
    if spec.devices.is_empty() {
        problems.push("a spec needs at least one device".into());
    }
    for key in spec.annotations.keys().filter(|k| !valid_annotation_key(k)) {
        problems.push(format!("annotation key {key:?} is not a qualified name"));
    }
    let mut seen = BTreeSet::new();
    for d in &spec.devices {
        if !valid_device_name(&d.name) {
            problems.push(format!("device name {:?} is invalid", d.name));
        }
        if !seen.insert(d.name.as_str()) {
            problems.push(format!("device {} is defined twice", d.name));
        }
        if d.container_edits.is_empty() {
            problems.push(format!("device {} has no container edits", d.name));
        }
    }
    let all_edits = std::iter::once(&spec.container_edits)
        .chain(spec.devices.iter().map(|d| &d.container_edits));
    for e in all_edits {
        for env in &e.env {
            if env.find('=').is_none_or(|i| i == 0) {
                problems.push(format!("env {env:?} is not KEY=VALUE"));
            }
        }
        for n in &e.device_nodes {
            if n.path.is_empty() {
                problems.push("a device node has no path".into());
            }
        }
        for m in &e.mounts {
            if m.host_path.is_empty() || m.container_path.is_empty() {
                problems.push("a mount needs hostPath and containerPath".into());
            }
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(names: &[&str], host_path: bool) -> Spec {
        Spec {
            cdi_version: "0.3.0".into(),
            annotations: Default::default(),
            kind: "nvidia.com/gpu".into(),
            devices: names
                .iter()
                .map(|n| Device {
                    name: n.to_string(),
                    container_edits: ContainerEdits {
                        device_nodes: vec![DeviceNode {
                            path: "/dev/nvidia0".into(),
                            host_path: host_path.then(|| "/r/dev/nvidia0".into()),
                            major: None,
                            minor: None,
                            file_mode: None,
                            permissions: None,
                        }],
                        ..Default::default()
                    },
                })
                .collect(),
            container_edits: ContainerEdits::default(),
        }
    }

    #[test]
    fn version_follows_the_features() {
        assert_eq!(minimum_version(&spec(&["gpu0", "GPU-x"], false)), "0.3.0");
        assert_eq!(minimum_version(&spec(&["0", "0:1"], false)), "0.5.0");
        assert_eq!(minimum_version(&spec(&["all"], true)), "0.5.0");
        let mut s = spec(&["all"], false);
        s.kind = "nvidia.com/gpu.mig".into();
        assert_eq!(minimum_version(&s), "0.6.0");
        let mut s = spec(&["all"], false);
        s.annotations
            .insert("gpu.gpushare.io/claim".into(), "ml/a".into());
        assert_eq!(minimum_version(&s), "0.6.0");
    }

    #[test]
    fn annotation_keys_are_qualified_names() {
        for good in ["claim", "gpu.gpushare.io/claim", "a-b.c/x_y.z-1"] {
            assert!(valid_annotation_key(good), "{good}");
        }
        let long = "x".repeat(64);
        for bad in [
            "",
            "/x",
            "Gpu.io/x",
            "a..b/x",
            "x/",
            "-x",
            "a/b/c",
            long.as_str(),
        ] {
            assert!(!valid_annotation_key(bad), "{bad}");
        }
        let mut s = spec(&["all"], false);
        s.cdi_version = "0.6.0".into();
        s.annotations.insert("bad key".into(), String::new());
        assert!(validate(&s)[0].contains("bad key"), "{:?}", validate(&s));
    }

    #[test]
    fn validation_finds_what_the_runtime_refuses() {
        let mut s = spec(&["0", "0:1", "all"], false);
        s.cdi_version = "0.5.0".into();
        assert!(validate(&s).is_empty(), "{:?}", validate(&s));
        s.cdi_version = "0.4.0".into();
        assert!(validate(&s)[0].contains("older"));
        s.cdi_version = "1.0.1".into();
        assert!(validate(&s)[0].contains("not a CDI version"));
        let mut s = spec(&["0", "0", ":x", "a:"], false);
        s.cdi_version = "0.5.0".into();
        s.kind = "nvidia.com".into();
        s.container_edits.env = vec!["=x".into()];
        let p = validate(&s);
        assert_eq!(p.len(), 5, "{p:?}");
        assert!(valid_device_name("MIG-1234-abcd"));
        assert!(!valid_device_name("0/1"));
    }
}
