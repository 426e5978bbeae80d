//! What a target produces: documents (Kubernetes objects, CDI specs, Helm values) and notes,
//! built in memory first so nothing is written when generation fails.

use crate::support::error::{Error, Result};
use serde::Serialize;

/// What a document is, which says how it is applied and validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DocKind {
    /// A Kubernetes API object (`kubectl apply -f`).
    Object,
    /// A CDI spec for the container runtime (`/etc/cdi`).
    CdiSpec,
    /// Helm values (`helm install -f`).
    HelmValues,
    /// A Prometheus rules file (`rule_files:`).
    PrometheusRules,
}

#[derive(Debug, Clone)]
pub(crate) struct Document {
    /// File name under `--out`.
    pub file: String,
    pub kind: DocKind,
    pub yaml: String,
    pub json: serde_json::Value,
}

impl Document {
    /// A typed document serialised once as YAML (ambiguous scalars quoted) and once as JSON.
    pub(crate) fn new<T: Serialize>(
        file: impl Into<String>,
        kind: DocKind,
        value: &T,
    ) -> Result<Self> {
        let file = file.into();
        let yaml = crate::support::output::to_safe_yaml(value).map_err(|e| e.context(&file))?;
        let json = serde_json::to_value(value)
            .map_err(|e| Error::failed(format!("cannot write {file} as JSON: {e}")))?;
        Ok(Document {
            file,
            kind,
            yaml,
            json,
        })
    }

    /// A Kubernetes object; its file is `<kind>-<name>.yaml`.
    pub(crate) fn object<T>(value: &T) -> Result<Self>
    where
        T: Serialize
            + k8s_openapi::Resource
            + k8s_openapi::Metadata<Ty = k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta>,
    {
        let name = value.metadata().name.clone().unwrap_or_default();
        let file = format!("{}-{name}.yaml", T::KIND.to_ascii_lowercase());
        Self::new(file, DocKind::Object, value)
    }
}

/// Everything one run generates.
#[derive(Debug, Clone, Default)]
pub(crate) struct Bundle {
    pub documents: Vec<Document>,
    /// Steps a person still has to take (labels, scheduler wiring); YAML comments on stdout,
    /// `NOTES.txt` under `--out`.
    pub notes: Vec<String>,
    /// What the target could not express exactly; printed on stderr.
    pub warnings: Vec<String>,
}

impl Bundle {
    pub(crate) fn push(&mut self, doc: Document) {
        self.documents.push(doc);
    }

    pub(crate) fn note(&mut self, text: impl Into<String>) {
        self.notes.push(text.into());
    }

    pub(crate) fn warn(&mut self, text: impl Into<String>) {
        self.warnings.push(text.into());
    }

    pub(crate) fn extend(&mut self, other: Bundle) {
        self.documents.extend(other.documents);
        self.notes.extend(other.notes);
        self.warnings.extend(other.warnings);
    }

    /// A multi-document YAML stream, the notes first as comments.
    pub(crate) fn to_yaml(&self) -> String {
        let mut out = String::new();
        for note in &self.notes {
            for line in note.lines() {
                out.push_str(if line.is_empty() { "#" } else { "# " });
                out.push_str(line);
                out.push('\n');
            }
        }
        for doc in &self.documents {
            out.push_str("---\n");
            out.push_str(&doc.yaml);
            if !doc.yaml.ends_with('\n') {
                out.push('\n');
            }
        }
        out
    }

    /// The documents as one JSON array.
    pub(crate) fn to_json(&self) -> Result<String> {
        let values: Vec<&serde_json::Value> = self.documents.iter().map(|d| &d.json).collect();
        crate::support::output::to_safe_json(&values)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    /// A ConfigMap `x` holding `data`.
    pub(crate) fn config_map(data: &[(&str, &str)]) -> ConfigMap {
        ConfigMap {
            metadata: ObjectMeta {
                name: Some("x".into()),
                ..Default::default()
            },
            data: Some(
                data.iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            ),
            ..Default::default()
        }
    }

    #[test]
    fn ambiguous_scalars_are_quoted() {
        let doc = Document::object(&config_map(&[
            ("a", "yes"),
            ("b", "on"),
            ("c", "0755"),
            ("d", "true"),
            ("e", "1.10"),
            ("f", "null"),
        ]))
        .unwrap();
        assert_eq!(doc.file, "configmap-x.yaml");
        for v in ["yes", "on", "0755", "true", "1.10", "null"] {
            assert!(
                doc.yaml.contains(&format!("\"{v}\"")) || doc.yaml.contains(&format!("'{v}'")),
                "{v} unquoted in:\n{}",
                doc.yaml
            );
        }
        assert!(
            doc.yaml.starts_with("apiVersion: v1\nkind: ConfigMap\n"),
            "{}",
            doc.yaml
        );
    }

    #[test]
    fn streams_put_notes_first_as_comments() {
        let mut b = Bundle::default();
        b.note("label the node:\n  kubectl label node N a=b");
        b.push(Document::object(&config_map(&[("k", "v")])).unwrap());
        let y = b.to_yaml();
        assert!(
            y.starts_with("# label the node:\n#   kubectl label node N a=b\n---\napiVersion: v1\n"),
            "{y}"
        );
        let json: serde_json::Value = serde_json::from_str(&b.to_json().unwrap()).unwrap();
        assert_eq!(json[0]["kind"], "ConfigMap");
    }
}
