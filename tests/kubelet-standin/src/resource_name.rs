//! The kubelet's check of a registered resource name: an extended resource
//! (`v1helper.IsExtendedResourceName`): `domain/name`, not in `kubernetes.io`, and a qualified
//! name once `requests.` is put in front, as a quota names it.

/// Ok when `name` is an extended resource name, else the kubelet's reason.
pub fn check_resource_name(name: &str) -> Result<(), String> {
    let invalid = |why: &str| Err(format!("the ResourceName {name:?} is invalid: {why}"));
    let Some((domain, short)) = name.split_once('/') else {
        return invalid("a native resource (no domain)");
    };
    if domain == "kubernetes.io" || domain.ends_with(".kubernetes.io") {
        return invalid("a native resource (kubernetes.io)");
    }
    if name.starts_with("requests.") {
        return invalid("the requests. prefix is the quota's");
    }
    let quota_domain = format!("requests.{domain}");
    if !is_dns_subdomain(&quota_domain) {
        return invalid("its domain is not a DNS-1123 subdomain");
    }
    if !is_name_part(short) {
        return invalid("its name is not a qualified name");
    }
    Ok(())
}

fn is_dns_subdomain(s: &str) -> bool {
    s.len() <= 253
        && s.split('.').all(|label| {
            let b = label.as_bytes();
            !b.is_empty()
                && b.iter()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
                && b[0] != b'-'
                && b[b.len() - 1] != b'-'
        })
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`, at most 63 characters.
fn is_name_part(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

#[cfg(test)]
mod tests {
    use super::check_resource_name;

    #[test]
    fn extended_resource_names_as_the_kubelet_takes_them() {
        for good in [
            "nvidia.com/gpu",
            "nvidia.com/mig-1g.10gb",
            "nvidia.com/mig-1g.10gb.me",
            "aliyun.com/gpu-mem",
        ] {
            assert_eq!(check_resource_name(good), Ok(()), "{good}");
        }
        for bad in [
            "gpu",
            "kubernetes.io/gpu",
            "node.kubernetes.io/gpu",
            "Nvidia.com/gpu",
            "nvidia.com/",
            "nvidia.com/-gpu",
            "nvidia.com/mig-1g.10gb+me",
            "requests.nvidia.com/gpu",
        ] {
            assert!(check_resource_name(bad).is_err(), "{bad}");
        }
    }
}
