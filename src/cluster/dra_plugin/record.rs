//! What a prepared claim's CDI spec records of it, in the spec's annotations: the claim, the
//! devices it was prepared with and the pods it was reserved for. The spec is written atomically
//! before the kubelet hears of the prepare and removed by the unprepare, so the specs under the
//! CDI directory are exactly the claims this node holds for pods, from the moment they are
//! prepared: holders for `detect`, the metrics, the agent and the controller before any of their
//! containers runs.
//!
//! The files are read back as input: bounded in size and count, each field checked.

use super::devices::DRIVER;
use std::collections::BTreeMap;
use std::path::Path;

/// Where the runtime reads CDI specs, under a host root.
pub(crate) const CDI_DIR: &str = "var/run/cdi";

const CLAIM: &str = "gpu.gpushare.io/claim";
const DEVICES: &str = "gpu.gpushare.io/devices";
const PODS: &str = "gpu.gpushare.io/pods";

/// A spec is a few kilobytes; more is not one of ours.
const MAX_SPEC: u64 = 4 << 20;
/// More prepared claims than a node could hold are not read.
const MAX_CLAIMS: usize = 4096;

/// A claim the driver prepared on this node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PreparedClaim {
    pub namespace: String,
    pub name: String,
    /// The driver's device names.
    pub devices: Vec<String>,
    /// The pods the claim was reserved for when it was prepared.
    pub pods: Vec<String>,
}

impl PreparedClaim {
    /// The spec's annotations that record it.
    pub(crate) fn annotations(&self) -> BTreeMap<String, String> {
        BTreeMap::from([
            (
                CLAIM.to_string(),
                format!("{}/{}", self.namespace, self.name),
            ),
            (DEVICES.to_string(), self.devices.join(",")),
            (PODS.to_string(), self.pods.join(",")),
        ])
    }

    fn from_annotations(annotations: &BTreeMap<String, String>) -> Result<Self, String> {
        let field = |key: &str| {
            annotations
                .get(key)
                .ok_or_else(|| format!("no annotation {key}"))
        };
        let (namespace, name) = field(CLAIM)?
            .split_once('/')
            .filter(|(ns, name)| is_name(ns) && is_name(name))
            .ok_or_else(|| format!("annotation {CLAIM} is not namespace/name"))?;
        let list = |key: &str| -> Result<Vec<String>, String> {
            let text = field(key)?;
            let items: Vec<String> = text
                .split(',')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            match items.iter().find(|i| !is_name(i)) {
                Some(bad) => Err(format!("annotation {key} has {bad:?}, not a name")),
                None => Ok(items),
            }
        };
        let devices = list(DEVICES)?;
        if devices.is_empty() {
            return Err(format!("annotation {DEVICES} names no device"));
        }
        Ok(PreparedClaim {
            namespace: namespace.to_string(),
            name: name.to_string(),
            devices,
            pods: list(PODS)?,
        })
    }
}

/// A Kubernetes object or device name: DNS-label characters, at most 253.
fn is_name(s: &str) -> bool {
    (1..=253).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.')
}

/// The claims prepared under `cdi_dir` (none when it does not exist); an error names a spec of
/// this driver that cannot be read as one, since its devices would be held unseen.
pub(crate) fn prepared_claims(cdi_dir: &Path) -> Result<Vec<PreparedClaim>, String> {
    let entries = match std::fs::read_dir(cdi_dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: {e}", cdi_dir.display())),
    };
    let prefix = format!("{DRIVER}-");
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: {e}", cdi_dir.display()))?;
        let file_name = entry.file_name();
        let Some(file_name) = file_name.to_str() else {
            continue;
        };
        if !file_name.starts_with(&prefix) || !file_name.ends_with(".json") {
            continue;
        }
        if out.len() == MAX_CLAIMS {
            return Err(format!(
                "{}: more than {MAX_CLAIMS} prepared claims",
                cdi_dir.display()
            ));
        }
        let path = entry.path();
        match read(&path) {
            Ok(Some(claim)) => out.push(claim),
            // Removed by an unprepare while the directory was read.
            Ok(None) => {}
            Err(why) => return Err(format!("{}: {why}", path.display())),
        }
    }
    out.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
    Ok(out)
}

fn read(path: &Path) -> Result<Option<PreparedClaim>, String> {
    #[derive(serde::Deserialize)]
    struct Annotated {
        #[serde(default)]
        annotations: BTreeMap<String, String>,
    }
    // Not through a link: the specs are the driver's own files.
    let text = crate::support::fsutil::read_own_text(path, MAX_SPEC).map_err(|e| e.to_string())?;
    let Some(text) = text else {
        return Ok(None);
    };
    let spec: Annotated = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    PreparedClaim::from_annotations(&spec.annotations).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim() -> PreparedClaim {
        PreparedClaim {
            namespace: "ml".into(),
            name: "train-gpu-x7".into(),
            devices: vec!["gpu-0".into(), "gpu-1-mig-1g.5gb-4".into()],
            pods: vec!["train".into()],
        }
    }

    fn write(dir: &Path, name: &str, text: &str) {
        std::fs::write(dir.join(name), text).unwrap();
    }

    #[test]
    fn what_a_spec_records_is_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let spec =
            serde_json::json!({ "cdiVersion": "0.6.0", "annotations": claim().annotations() });
        write(dir.path(), "gpu.gpushare.io-1.json", &spec.to_string());
        write(dir.path(), "nvidia.com-gpu.json", "not ours, not read");
        assert_eq!(prepared_claims(dir.path()).unwrap(), [claim()]);
        assert_eq!(
            prepared_claims(&dir.path().join("absent")).unwrap(),
            Vec::new()
        );
    }

    #[test]
    fn a_spec_that_is_not_a_record_is_an_error_naming_it() {
        for (text, says) in [
            ("{", "EOF"),
            (r#"{"annotations": {}}"#, "no annotation"),
            (
                r#"{"annotations": {"gpu.gpushare.io/claim": "x", "gpu.gpushare.io/devices": "gpu-0", "gpu.gpushare.io/pods": ""}}"#,
                "not namespace/name",
            ),
            (
                r#"{"annotations": {"gpu.gpushare.io/claim": "a/b", "gpu.gpushare.io/devices": "../x", "gpu.gpushare.io/pods": ""}}"#,
                "not a name",
            ),
            (
                r#"{"annotations": {"gpu.gpushare.io/claim": "a/b", "gpu.gpushare.io/devices": "", "gpu.gpushare.io/pods": ""}}"#,
                "no device",
            ),
        ] {
            let dir = tempfile::tempdir().unwrap();
            write(dir.path(), "gpu.gpushare.io-1.json", text);
            let e = prepared_claims(dir.path()).unwrap_err();
            assert!(
                e.contains(says) && e.contains("gpu.gpushare.io-1.json"),
                "{text}: {e}"
            );
        }
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink("/etc/hostname", dir.path().join("gpu.gpushare.io-2.json"))
            .unwrap();
        assert!(prepared_claims(dir.path()).is_err());
    }
}
