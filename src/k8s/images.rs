//! Container images of the generated workloads, and `--image NAME=REF` overrides.

use crate::error::{Error, Result};
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
            if reference.is_empty() || reference.contains(char::is_whitespace) {
                return Err(Error::usage(format!(
                    "--image {arg}: `{reference}` is not an image reference"
                )));
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

    /// gpushare itself: no public image exists, so the user must name one.
    pub(crate) fn gpushare(&self) -> Result<String> {
        self.overrides.get("gpushare").cloned().ok_or_else(|| {
            Error::usage("the agent target needs the image of gpushare to run on the nodes")
                .with_hint("pass --image gpushare=REF (an image with the gpushare binary at /usr/local/bin/gpushare)")
        })
    }
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
        assert!(i.gpushare().is_err());
    }

    #[test]
    fn bad_image_arguments_are_usage_errors() {
        for bad in ["nope", "foo=bar", "gpushare=", "gpushare=a b"] {
            let e = Images::parse(&[bad.into()]).unwrap_err();
            assert_eq!(e.exit, crate::error::Exit::Usage, "{bad}");
        }
        let e = Images::parse(&["foo=bar".into()]).unwrap_err();
        assert!(e.hint.unwrap().contains("device-plugin"));
    }
}
