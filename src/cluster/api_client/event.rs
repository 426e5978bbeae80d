//! core/v1 Events, the kind `kubectl describe` lists, about any object.

use k8s_openapi::api::core::v1::{Event, EventSource, ObjectReference};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};

/// Events about a cluster-scoped object (a Node) live in `default`, as the kubelet's do; the API
/// server refuses them elsewhere.
pub(crate) const EVENTS_NAMESPACE: &str = "default";

/// Normal or Warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EventType {
    Normal,
    Warning,
}

/// A core/v1 Event about any object, from `component` on `host`.
pub(crate) fn event_about(
    about: ObjectReference,
    component: &str,
    host: &str,
    kind: EventType,
    reason: &str,
    message: &str,
) -> Event {
    let now = k8s_openapi::jiff::Timestamp::now();
    let name = about.name.clone().unwrap_or_default();
    Event {
        metadata: ObjectMeta {
            generate_name: Some(format!("{name}.gpushare.")),
            namespace: about.namespace.clone(),
            ..Default::default()
        },
        involved_object: about,
        reason: Some(reason.into()),
        message: Some(clip(message, 1024)),
        type_: Some(
            match kind {
                EventType::Normal => "Normal",
                EventType::Warning => "Warning",
            }
            .into(),
        ),
        source: Some(EventSource {
            component: Some(component.into()),
            host: Some(host.into()),
        }),
        first_timestamp: Some(Time(now)),
        last_timestamp: Some(Time(now)),
        action: Some(reason.into()),
        reporting_component: Some(format!("gpushare.io/{component}")),
        reporting_instance: Some(clip(&format!("{component}-{host}"), 128)),
        count: Some(1),
        ..Default::default()
    }
}

/// At most `max` bytes, cut at a character boundary, with `…` when cut.
pub(crate) fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max - '…'.len_utf8();
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::clip;

    #[test]
    fn clipped_text_ends_within_its_bytes_at_a_character() {
        assert_eq!(clip("short", 10), "short");
        let long = "é".repeat(20);
        let cut = clip(&long, 10);
        assert!(cut.len() <= 10 && cut.ends_with('…'), "{cut}");
    }
}
