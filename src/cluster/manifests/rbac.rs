//! Service accounts and RBAC objects: rules name their verbs and resources, never `*`.

use super::objects::meta;
use super::{Bundle, Document};
use crate::support::error::Result;
use k8s_openapi::api::core::v1::ServiceAccount;
use k8s_openapi::api::rbac::v1::{
    ClusterRole, ClusterRoleBinding, PolicyRule, RoleBinding, RoleRef, Subject,
};

pub(crate) const RBAC_GROUP: &str = "rbac.authorization.k8s.io";

pub(crate) fn rule(groups: &[&str], resources: &[&str], verbs: &[&str]) -> PolicyRule {
    let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    PolicyRule {
        api_groups: Some(v(groups)),
        resources: Some(v(resources)),
        verbs: v(verbs),
        ..Default::default()
    }
}

/// A rule on the named objects only.
pub(crate) fn rule_on(
    groups: &[&str],
    resources: &[&str],
    names: &[&str],
    verbs: &[&str],
) -> PolicyRule {
    PolicyRule {
        resource_names: Some(names.iter().map(|x| x.to_string()).collect()),
        ..rule(groups, resources, verbs)
    }
}

/// A component's identity: its service account in `ns`, a ClusterRole of `rules` and the
/// binding of the one to the other, all named `name`.
pub(crate) fn cluster_identity(
    b: &mut Bundle,
    name: &str,
    ns: &str,
    rules: Vec<PolicyRule>,
) -> Result<()> {
    b.push(Document::object(&service_account(name, ns))?);
    b.push(Document::object(&ClusterRole {
        metadata: meta(name, None),
        rules: Some(rules),
        ..Default::default()
    })?);
    b.push(Document::object(&cluster_binding(name, name, name, ns))?);
    Ok(())
}

pub(crate) fn service_account(name: &str, ns: &str) -> ServiceAccount {
    ServiceAccount {
        metadata: meta(name, Some(ns)),
        ..Default::default()
    }
}

pub(crate) fn subject(name: &str, ns: &str) -> Subject {
    Subject {
        kind: "ServiceAccount".into(),
        name: name.into(),
        namespace: Some(ns.into()),
        ..Default::default()
    }
}

/// Bind the ClusterRole `role` to the service account `sa` of `ns`.
pub(crate) fn cluster_binding(name: &str, role: &str, sa: &str, ns: &str) -> ClusterRoleBinding {
    ClusterRoleBinding {
        metadata: meta(name, None),
        role_ref: RoleRef {
            api_group: RBAC_GROUP.into(),
            kind: "ClusterRole".into(),
            name: role.into(),
        },
        subjects: Some(vec![subject(sa, ns)]),
    }
}

/// Bind the Role `role` of `namespace` to the service account `sa` of `sa_ns`.
pub(crate) fn role_binding(
    name: &str,
    namespace: &str,
    role: &str,
    sa: &str,
    sa_ns: &str,
) -> RoleBinding {
    RoleBinding {
        metadata: meta(name, Some(namespace)),
        role_ref: RoleRef {
            api_group: RBAC_GROUP.into(),
            kind: "Role".into(),
            name: role.into(),
        },
        subjects: Some(vec![subject(sa, sa_ns)]),
    }
}

/// Whether a rule holds a wildcard (`*` as group, resource, name or verb).
#[cfg(test)]
pub(crate) fn has_wildcard(rule: &PolicyRule) -> bool {
    let lists = [
        rule.api_groups.as_deref().unwrap_or_default(),
        rule.resources.as_deref().unwrap_or_default(),
        rule.resource_names.as_deref().unwrap_or_default(),
        rule.verbs.as_slice(),
        rule.non_resource_urls.as_deref().unwrap_or_default(),
    ];
    lists.iter().any(|l| l.iter().any(|x| x.contains('*')))
}
