//! Kubernetes' names (DNS-1123), checked wherever a name comes from outside: flags, files,
//! objects others made.

/// A DNS-1123 subdomain (a Node's name): at most 253 characters, dot-separated DNS labels.
pub(crate) fn is_dns_subdomain(name: &str) -> bool {
    name.len() <= 253 && name.split('.').all(is_dns_label)
}

/// Whether `name` is a DNS-1123 label (namespaces, most object names).
pub(crate) fn is_dns_label(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 63
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !name.starts_with('-')
        && !name.ends_with('-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dns_labels() {
        assert!(is_dns_label("gpu-operator"));
        assert!(!is_dns_label("Kube"));
        assert!(!is_dns_label("-a"));
        assert!(!is_dns_label(&"a".repeat(64)));
    }
}
