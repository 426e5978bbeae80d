//! `--k8s-version`: the Kubernetes minor release the manifests are written for.

use crate::support::error::{Error, Result};
use std::fmt;
use std::str::FromStr;

/// Oldest and newest minor release gpushare writes manifests for (the validators' schemas cover
/// 1.25–1.37; 1.29 is the oldest release with every API gpushare emits outside DRA).
pub(crate) const OLDEST: u32 = 29;
pub(crate) const NEWEST: u32 = 37;
pub(crate) const DEFAULT: K8sVersion = K8sVersion { minor: 34 };

/// A Kubernetes `1.<minor>` release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct K8sVersion {
    pub minor: u32,
}

impl K8sVersion {
    /// Parse `1.34`, `v1.34` or `1.34.2` and check it is a release gpushare supports.
    pub(crate) fn parse(text: &str) -> Result<Self> {
        let bad = || {
            Error::usage(format!(
                "Kubernetes version `{text}` is not a version like 1.34"
            ))
            .with_hint(format!("give 1.{OLDEST} to 1.{NEWEST}"))
        };
        let t = text.trim();
        let t = t.strip_prefix('v').unwrap_or(t);
        let mut parts = t.split('.');
        let major: u32 = parts.next().and_then(|p| p.parse().ok()).ok_or_else(bad)?;
        let minor: u32 = parts.next().and_then(|p| p.parse().ok()).ok_or_else(bad)?;
        if let Some(patch) = parts.next()
            && patch.parse::<u32>().is_err()
        {
            return Err(bad());
        }
        if parts.next().is_some() {
            return Err(bad());
        }
        if major != 1 || !(OLDEST..=NEWEST).contains(&minor) {
            return Err(Error::usage(format!(
                "Kubernetes {major}.{minor} is not supported: gpushare writes manifests for 1.{OLDEST} to 1.{NEWEST}"
            ))
            .with_hint(format!("pass --k8s-version 1.{OLDEST} … 1.{NEWEST}")));
        }
        Ok(K8sVersion { minor })
    }

    /// `resource.k8s.io` version of the DRA objects: v1 from 1.34, v1beta2 in 1.33, v1beta1 in
    /// 1.32; none before (classic DRA of 1.26–1.31 is gone and had other objects).
    pub(crate) fn dra_api(self) -> Option<DraApi> {
        match self.minor {
            0..=31 => None,
            32 => Some(DraApi::V1beta1),
            33 => Some(DraApi::V1beta2),
            _ => Some(DraApi::V1),
        }
    }

    /// Whether a DeviceClass may name an extended resource (`extendedResourceName`), so that
    /// pods asking for `nvidia.com/mig-1g.5gb` are served by DRA: the `DRAExtendedResource`
    /// gate is beta and on from 1.36 (alpha and off in 1.34 and 1.35).
    pub(crate) fn dra_extended_resources(self) -> bool {
        self.minor >= 36
    }
}

impl FromStr for K8sVersion {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Self::parse(s)
    }
}

impl fmt::Display for K8sVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "1.{}", self.minor)
    }
}

/// The `resource.k8s.io` API version DRA objects are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DraApi {
    V1beta1,
    V1beta2,
    V1,
}

impl DraApi {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            DraApi::V1beta1 => "resource.k8s.io/v1beta1",
            DraApi::V1beta2 => "resource.k8s.io/v1beta2",
            DraApi::V1 => "resource.k8s.io/v1",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_supported_releases() {
        assert_eq!(K8sVersion::parse("1.34").unwrap().minor, 34);
        assert_eq!(K8sVersion::parse("v1.29.3").unwrap().minor, 29);
        assert_eq!(K8sVersion::parse("1.37").unwrap().to_string(), "1.37");
    }

    #[test]
    fn refuses_versions_outside_the_range() {
        for bad in ["1.28", "1.38", "2.0", "1", "x", "1.3x", "1.34.1.2", ""] {
            let e = K8sVersion::parse(bad).unwrap_err();
            assert_eq!(e.exit, crate::support::error::Exit::Usage, "{bad}");
        }
        assert!(
            K8sVersion::parse("1.28")
                .unwrap_err()
                .message
                .contains("1.29 to 1.37")
        );
    }

    #[test]
    fn dra_api_follows_the_release() {
        let v = |m| K8sVersion { minor: m };
        assert_eq!(v(31).dra_api(), None);
        assert_eq!(v(32).dra_api(), Some(DraApi::V1beta1));
        assert_eq!(v(33).dra_api(), Some(DraApi::V1beta2));
        assert_eq!(v(34).dra_api(), Some(DraApi::V1));
        assert_eq!(v(37).dra_api(), Some(DraApi::V1));
        assert!(!v(35).dra_extended_resources());
        assert!(v(36).dra_extended_resources());
    }
}
