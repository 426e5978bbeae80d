//! Container images of the generated workloads, and `--image NAME=REF` overrides.

use crate::support::error::{Error, Result};
use std::collections::BTreeMap;

/// The images gpushare knows, with the versions its manifests were written against.
/// `kube-scheduler` follows `--k8s-version`; `gpushare` has no default (see [`Images::gpushare`]).
const DEFAULTS: [(&str, &str); 6] = [
    ("device-plugin", "nvcr.io/nvidia/k8s-device-plugin:v0.20.0"),
    (
        "gpushare-extender",
        "registry.cn-hangzhou.aliyuncs.com/acs/k8s-gpushare-schd-extender:1.11-d170d8a",
    ),
    (
        "gpushare-device-plugin",
        "registry.cn-hangzhou.aliyuncs.com/acs/k8s-gpushare-plugin:v2-1.11-aff8a23",
    ),
    ("hami", "docker.io/projecthami/hami:v2.10.0"),
    ("cuda", "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04"),
    ("kube-scheduler", "registry.k8s.io/kube-scheduler"),
];

/// Names `--image` accepts.
pub(crate) fn names() -> Vec<&'static str> {
    let mut n: Vec<&str> = DEFAULTS.iter().map(|(k, _)| *k).collect();
    n.push("gpushare");
    n
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Images {
    overrides: BTreeMap<String, String>,
}

impl Images {
    /// Parse `--image NAME=REF` arguments.
    pub(crate) fn parse(args: &[String]) -> Result<Images> {
        let mut overrides = BTreeMap::new();
        for arg in args {
            let Some((name, reference)) = arg.split_once('=') else {
                return Err(Error::usage(format!("--image {arg}: expected NAME=REF"))
                    .with_hint("e.g. --image gpushare=registry.example.com/gpushare:0.1.0"));
            };
            if !names().contains(&name) {
                return Err(
                    Error::usage(format!("--image {arg}: unknown image `{name}`"))
                        .with_hint(format!("images are: {}", names().join(", "))),
                );
            }
            if let Err(why) = check_reference(reference) {
                return Err(Error::usage(format!(
                    "--image {name}={reference:?}: not an image reference: {why}"
                ))
                .with_hint("[REGISTRY[:PORT]/]PATH[:TAG][@sha256:DIGEST], e.g. registry.example.com/gpushare:0.1.0"));
            }
            overrides.insert(name.to_string(), reference.to_string());
        }
        Ok(Images { overrides })
    }

    /// The image for `name`, overridden or the default.
    pub(crate) fn get(&self, name: &str) -> String {
        if let Some(r) = self.overrides.get(name) {
            return r.clone();
        }
        DEFAULTS
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.to_string())
            .unwrap_or_default()
    }

    /// kube-scheduler matching the cluster release (its config API must match the binary).
    pub(crate) fn kube_scheduler(&self, minor: u32) -> String {
        match self.overrides.get("kube-scheduler") {
            Some(r) => r.clone(),
            None => format!("{}:v1.{minor}.0", self.get("kube-scheduler")),
        }
    }

    /// gpushare itself, for `target` (`agent`, `controller`): no public image exists, so the
    /// user must name one.
    pub(crate) fn gpushare(&self, target: &str) -> Result<String> {
        self.overrides.get("gpushare").cloned().ok_or_else(|| {
            Error::usage(format!(
                "the {target} target needs the image of gpushare to run in the cluster"
            ))
                .with_hint("pass --image gpushare=REF (an image with the gpushare binary at /usr/local/bin/gpushare)")
        })
    }
}

/// An image reference as the distribution grammar has it: `[domain[:port]/]path[:tag][@digest]`,
/// path components `[a-z0-9]+([._-][a-z0-9]+)*` (`__` too), a tag of at most 128 word characters,
/// dots and dashes, a name of at most 255 characters.
fn check_reference(reference: &str) -> std::result::Result<(), String> {
    let (rest, digest) = match reference.split_once('@') {
        Some((r, d)) => (r, Some(d)),
        None => (reference, None),
    };
    if let Some(d) = digest {
        let ok = d.split_once(':').is_some_and(|(algo, hex)| {
            !algo.is_empty()
                && algo
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "+._-".contains(c))
                && hex.len() >= 32
                && hex.chars().all(|c| c.is_ascii_hexdigit())
        });
        if !ok {
            return Err(format!("the digest `{d}` is not ALGORITHM:HEX"));
        }
    }
    // A tag follows the last `:` after the last `/` (an earlier `:` is the registry's port).
    let slash = rest.rfind('/').map_or(0, |i| i + 1);
    let (name, tag) = match rest[slash..].rfind(':') {
        Some(i) => (&rest[..slash + i], Some(&rest[slash + i + 1..])),
        None => (rest, None),
    };
    if let Some(t) = tag {
        let ok = !t.is_empty()
            && t.len() <= 128
            && t.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
            && t.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c));
        if !ok {
            return Err(format!(
                "the tag `{t}` is not 1 to 128 letters, digits, '_', '.' and '-'"
            ));
        }
    }
    if name.is_empty() || name.len() > 255 {
        return Err(format!(
            "the name is {} characters long; it must be 1 to 255",
            name.len()
        ));
    }
    let mut parts: Vec<&str> = name.split('/').collect();
    if parts.len() > 1 && (parts[0].contains(['.', ':']) || parts[0] == "localhost") {
        let domain = parts.remove(0);
        let (host, port) = domain.split_once(':').unwrap_or((domain, ""));
        let host_ok = host.split('.').all(|l| {
            !l.is_empty()
                && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                && !l.starts_with('-')
                && !l.ends_with('-')
        });
        if !host_ok || !(port.is_empty() || port.chars().all(|c| c.is_ascii_digit())) {
            return Err(format!("the registry `{domain}` is not HOST[:PORT]"));
        }
        if domain.contains(':') && port.is_empty() {
            return Err(format!("the registry `{domain}` has an empty port"));
        }
    }
    if let Some(part) = parts.iter().find(|p| !is_path_component(p)) {
        return Err(format!(
            "the path component `{part}` is not lowercase letters and digits separated by '.', '_', '__' or '-'"
        ));
    }
    Ok(())
}

/// `[a-z0-9]+` runs joined by `.`, `_`, `__` or any number of `-`.
fn is_path_component(part: &str) -> bool {
    let alnum = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    part.starts_with(alnum)
        && part.ends_with(alnum)
        && part
            .split(alnum)
            .filter(|sep| !sep.is_empty())
            .all(|sep| matches!(sep, "." | "_" | "__") || sep.chars().all(|c| c == '-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_and_defaults() {
        let i = Images::parse(&["device-plugin=my/dp:1".into()]).unwrap();
        assert_eq!(i.get("device-plugin"), "my/dp:1");
        assert_eq!(i.get("cuda"), "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04");
        assert_eq!(
            i.kube_scheduler(34),
            "registry.k8s.io/kube-scheduler:v1.34.0"
        );
        assert!(i.gpushare("agent").is_err());
    }

    #[test]
    fn bad_image_arguments_are_usage_errors() {
        let long = format!("gpushare=registry.example.com/{}:1", "a".repeat(5000));
        for bad in [
            "nope",
            "foo=bar",
            "gpushare=",
            "gpushare=a b",
            "gpushare=\u{1b}[2Jx:1",
            "gpushare=Registry/UPPER:1",
            "gpushare=x:",
            "gpushare=x@sha256:zz",
            "gpushare=a..b:1",
            "gpushare=a___b:1",
            "gpushare=-a:1",
            long.as_str(),
        ] {
            let e = Images::parse(&[bad.into()]).unwrap_err();
            assert_eq!(e.exit, crate::support::error::Exit::Usage, "{bad}");
        }
        for good in [
            "gpushare=gpushare",
            "gpushare=registry.example.com:5000/team/gpu_share-x:0.1.0",
            "gpushare=localhost/a__b:latest",
            "gpushare=a--b.c_d:1",
            "gpushare=nvcr.io/nvidia/k8s-device-plugin:v0.17.0@sha256:0123456789abcdef0123456789abcdef",
        ] {
            Images::parse(&[good.into()]).unwrap_or_else(|e| panic!("{good}: {}", e.message));
        }
        let e = Images::parse(&["foo=bar".into()]).unwrap_err();
        assert!(e.hint.unwrap().contains("device-plugin"));
    }
}
