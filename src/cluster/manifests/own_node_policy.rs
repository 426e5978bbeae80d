//! The admission policy that keeps each node agent to its own node: RBAC lets the agent's
//! service account patch every Node (it cannot say which one or which fields), so a
//! ValidatingAdmissionPolicy, evaluated by the API server itself, refuses an agent's change
//! to any node but the one its pod runs on (the node claim of its bound token, which the API
//! server puts in `authentication.kubernetes.io/node-name`), and any change there but to the
//! labels and annotations the agent writes. A compromised agent cannot steer another node, choose
//! layouts, or write the controller's layout annotation.

use super::objects::meta;
use k8s_openapi::api::admissionregistration::v1::{
    MatchCondition, MatchResources, NamedRuleWithOperations, ValidatingAdmissionPolicy,
    ValidatingAdmissionPolicyBinding, ValidatingAdmissionPolicyBindingSpec,
    ValidatingAdmissionPolicySpec, Validation, Variable,
};

/// The user info key the API server sets from a bound token's node claim.
const NODE_CLAIM: &str = "authentication.kubernetes.io/node-name";

/// The policy and its binding, for the service account `sa` of namespace `ns` (a DNS label),
/// which may write only `labels` and `annotations` of its node.
pub(crate) fn objects(
    name: &str,
    sa: &str,
    ns: &str,
    labels: &[String],
    annotations: &[String],
) -> (ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding) {
    let list = |keys: &[String]| {
        let quoted: Vec<String> = keys.iter().map(|k| cel_string(k)).collect();
        format!("[{}]", quoted.join(", "))
    };
    let variable = |name: &str, expression: String| Variable {
        name: name.into(),
        expression,
    };
    // A key may differ between before and after only when the agent writes it.
    let only_keys = |field: &str, allowed: &str| {
        let (before, after) = (
            format!("variables.{field}Before"),
            format!("variables.{field}After"),
        );
        format!(
            "{after}.all(k, k in variables.{allowed} || (k in {before} && {before}[k] == {after}[k])) && \
             {before}.all(k, k in variables.{allowed} || k in {after})"
        )
    };
    let policy = ValidatingAdmissionPolicy {
        metadata: meta(name, None),
        spec: Some(ValidatingAdmissionPolicySpec {
            failure_policy: Some("Fail".into()),
            match_constraints: Some(MatchResources {
                resource_rules: Some(vec![NamedRuleWithOperations {
                    api_groups: Some(vec!["".into()]),
                    api_versions: Some(vec!["v1".into()]),
                    operations: Some(vec!["UPDATE".into()]),
                    resources: Some(vec!["nodes".into(), "nodes/status".into()]),
                    ..Default::default()
                }]),
                ..Default::default()
            }),
            match_conditions: Some(vec![only_the_agent(sa, ns)]),
            variables: Some(vec![
                node_variable(),
                variable("agentLabels", list(labels)),
                variable("agentAnnotations", list(annotations)),
                variable(
                    "labelsBefore",
                    "has(oldObject.metadata.labels) ? oldObject.metadata.labels : {}".into(),
                ),
                variable(
                    "labelsAfter",
                    "has(object.metadata.labels) ? object.metadata.labels : {}".into(),
                ),
                variable(
                    "annotationsBefore",
                    "has(oldObject.metadata.annotations) ? oldObject.metadata.annotations : {}"
                        .into(),
                ),
                variable(
                    "annotationsAfter",
                    "has(object.metadata.annotations) ? object.metadata.annotations : {}".into(),
                ),
            ]),
            validations: Some(vec![
                Validation {
                    expression: "variables.node != '' && object.metadata.name == variables.node"
                        .into(),
                    message_expression: Some(format!(
                        "{} + (variables.node == '' ? 'its token names no node' : 'it runs on ' + variables.node) + ', not on ' + object.metadata.name",
                        cel_string(&format!("{sa} may change only the node its pod runs on: "))
                    )),
                    reason: Some("Forbidden".into()),
                    ..Default::default()
                },
                Validation {
                    expression: only_keys("labels", "agentLabels"),
                    message: Some(format!(
                        "{sa} may change only these labels of its node: {}",
                        labels.join(", ")
                    )),
                    reason: Some("Forbidden".into()),
                    ..Default::default()
                },
                Validation {
                    expression: only_keys("annotations", "agentAnnotations"),
                    message: Some(format!(
                        "{sa} may change only these annotations of its node: {}",
                        annotations.join(", ")
                    )),
                    reason: Some("Forbidden".into()),
                    ..Default::default()
                },
                Validation {
                    expression: "object.spec == oldObject.spec && \
                                 (has(object.metadata.ownerReferences) == has(oldObject.metadata.ownerReferences)) && \
                                 (!has(object.metadata.ownerReferences) || object.metadata.ownerReferences == oldObject.metadata.ownerReferences)"
                        .into(),
                    message: Some(format!(
                        "{sa} may not change a node's spec or owners"
                    )),
                    reason: Some("Forbidden".into()),
                    ..Default::default()
                },
            ]),
            ..Default::default()
        }),
        ..Default::default()
    };
    (policy, deny_binding(name))
}

/// The policy and binding that keep the agent's DeviceTaintRules to its own node's devices: a
/// rule it creates, changes or deletes selects the pool of the node its pod runs on (NVIDIA's
/// DRA driver names each node's pool after the node).
pub(crate) fn taint_rule_objects(
    name: &str,
    sa: &str,
    ns: &str,
) -> (ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding) {
    own_node_objects(
        name,
        sa,
        ns,
        "devicetaintrules",
        |o| {
            format!(
                "has({o}.spec.deviceSelector) && has({o}.spec.deviceSelector.pool) && {o}.spec.deviceSelector.pool == variables.node"
            )
        },
        format!(
            "{sa} may taint only the DRA devices of the node its pod runs on (spec.deviceSelector.pool)"
        ),
    )
}

/// The policy and binding that keep a DRA plugin's ResourceSlices to its own node: a slice it
/// creates, changes or deletes names the node its pod runs on (`spec.nodeName`).
pub(crate) fn slice_objects(
    name: &str,
    sa: &str,
    ns: &str,
) -> (ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding) {
    own_node_objects(
        name,
        sa,
        ns,
        "resourceslices",
        |o| format!("has({o}.spec.nodeName) && {o}.spec.nodeName == variables.node"),
        format!(
            "{sa} may publish only the ResourceSlices of the node its pod runs on (spec.nodeName)"
        ),
    )
}

/// The policy and binding that keep the `resource.k8s.io` objects `resource` that `sa` of `ns`
/// creates, changes or deletes to its own node: `owned` says it of an object (`object`, or
/// `oldObject` for a delete) in CEL; `message` is the refusal.
fn own_node_objects(
    name: &str,
    sa: &str,
    ns: &str,
    resource: &str,
    owned: impl Fn(&str) -> String,
    message: String,
) -> (ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding) {
    let policy = ValidatingAdmissionPolicy {
        metadata: meta(name, None),
        spec: Some(ValidatingAdmissionPolicySpec {
            failure_policy: Some("Fail".into()),
            match_constraints: Some(MatchResources {
                resource_rules: Some(vec![NamedRuleWithOperations {
                    api_groups: Some(vec!["resource.k8s.io".into()]),
                    api_versions: Some(vec!["*".into()]),
                    operations: Some(vec!["CREATE".into(), "UPDATE".into(), "DELETE".into()]),
                    resources: Some(vec![resource.into()]),
                    ..Default::default()
                }]),
                ..Default::default()
            }),
            match_conditions: Some(vec![only_the_agent(sa, ns)]),
            variables: Some(vec![node_variable()]),
            validations: Some(vec![Validation {
                expression: format!(
                    "variables.node != '' && (request.operation == 'DELETE' ? ({}) : ({}))",
                    owned("oldObject"),
                    owned("object")
                ),
                message: Some(message),
                reason: Some("Forbidden".into()),
                ..Default::default()
            }]),
            ..Default::default()
        }),
        ..Default::default()
    };
    (policy, deny_binding(name))
}

/// The requests of the service account `sa` of namespace `ns` (the agent's, the DRA plugin's),
/// the only ones checked.
fn only_the_agent(sa: &str, ns: &str) -> MatchCondition {
    MatchCondition {
        name: sa.into(),
        expression: format!(
            "request.userInfo.username == {}",
            cel_string(&format!("system:serviceaccount:{ns}:{sa}"))
        ),
    }
}

/// `variables.node`: the node the requester's token is bound to ('' without one).
fn node_variable() -> Variable {
    let claim = cel_string(NODE_CLAIM);
    Variable {
        name: "node".into(),
        expression: format!(
            "{claim} in request.userInfo.extra && request.userInfo.extra[{claim}].size() == 1 ? request.userInfo.extra[{claim}][0] : ''"
        ),
    }
}

/// The binding that makes policy `name` deny what it refuses.
fn deny_binding(name: &str) -> ValidatingAdmissionPolicyBinding {
    ValidatingAdmissionPolicyBinding {
        metadata: meta(name, None),
        spec: Some(ValidatingAdmissionPolicyBindingSpec {
            policy_name: Some(name.into()),
            validation_actions: Some(vec!["Deny".into()]),
            ..Default::default()
        }),
    }
}

/// `text` as a CEL string literal (JSON's escapes are CEL's).
fn cel_string(text: &str) -> String {
    serde_json::Value::String(text.into()).to_string()
}
