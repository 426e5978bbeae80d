//! `--out DIR` for a fleet: a run for another node class adds to the manifests already in DIR
//! instead of overwriting them, so `kubectl apply -f DIR` applies every class at once. Each
//! object keeps the file it has; a ConfigMap holds every run's keys (the device plugin's configs,
//! the agent's layouts), this run's keys replacing their earlier values, and so do the device
//! plugin chart's values (`config.map`); NOTES.txt gains this run's notes. Nothing is written
//! until every existing file has been read.

use super::bundle::{Bundle, DocKind, Document};
use crate::support::error::{Error, Result};
use crate::support::fsutil::write_atomic;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The most an existing manifest may hold (a ConfigMap of every layout of a fleet).
const FILE_LIMIT: u64 = 4 * 1024 * 1024;
const NOTES: &str = "NOTES.txt";

/// What to write into `dir`: file names and their text, and warnings (keys whose value changed).
struct Composed {
    files: Vec<(String, String)>,
    warnings: Vec<String>,
}

/// Write one file per document of `bundle` (0644, atomically) and NOTES.txt under `dir`, composed
/// with the manifests of other runs already there; the files written, and warnings.
pub(crate) fn write(dir: &Path, bundle: &Bundle) -> Result<(Vec<PathBuf>, Vec<String>)> {
    let composed = compose(dir, bundle)?;
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::failed(format!("cannot create {}: {e}", dir.display())))?;
    let mut written = Vec::new();
    for (name, text) in composed.files {
        let path = dir.join(&name);
        write_atomic(&path, text.as_bytes(), 0o644)
            .map_err(|e| Error::failed(format!("cannot write {}: {e}", path.display())))?;
        written.push(path);
    }
    Ok((written, composed.warnings))
}

/// The files of `bundle` composed with those already in `dir`.
fn compose(dir: &Path, bundle: &Bundle) -> Result<Composed> {
    let existing = existing(dir)?;
    let mut next = existing.values().map(|e| e.number + 1).max().unwrap_or(0);
    let width = (next + bundle.documents.len()).to_string().len().max(2);
    let mut files = Vec::new();
    let mut warnings = Vec::new();
    for doc in &bundle.documents {
        match existing.get(&doc.file) {
            None => {
                files.push((format!("{next:0width$}-{}", doc.file), doc.yaml.clone()));
                next += 1;
            }
            Some(before) => {
                let text = match keyed(doc) {
                    Some(keys) => merge_keys(
                        &dir.join(&before.name),
                        &before.text,
                        doc,
                        keys,
                        &mut warnings,
                    )?,
                    None => doc.yaml.clone(),
                };
                files.push((before.name.clone(), text));
            }
        }
    }
    if !bundle.notes.is_empty() {
        let before = crate::support::fsutil::read_host_text(&dir.join(NOTES), FILE_LIMIT)
            .map_err(|e| Error::failed(format!("cannot read {}: {e}", dir.join(NOTES).display())))?
            .unwrap_or_default();
        let mut notes: Vec<String> = before
            .split("\n\n")
            .map(|p| p.trim_end().to_string())
            .filter(|p| !p.is_empty())
            .collect();
        for note in &bundle.notes {
            if !notes.iter().any(|n| n == note.trim_end()) {
                notes.push(note.trim_end().to_string());
            }
        }
        files.push((NOTES.into(), notes.join("\n\n") + "\n"));
    }
    Ok(Composed { files, warnings })
}

/// A manifest gpushare wrote before: `<number>-<file>`.
struct Existing {
    number: usize,
    /// Its file name, as it spells its number.
    name: String,
    text: String,
}

/// The manifests gpushare wrote into `dir` before, by their unnumbered file name.
fn existing(dir: &Path) -> Result<BTreeMap<String, Existing>> {
    let mut out = BTreeMap::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(Error::failed(format!("cannot read {}: {e}", dir.display()))),
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some((number, file)) = split_number(&name) else {
            continue;
        };
        let path = entry.path();
        let text = crate::support::fsutil::read_host_text(&path, FILE_LIMIT)
            .map_err(|e| {
                Error::usage(format!("{}: cannot read it: {e}", path.display())).with_hint(
                    "--out names a directory of gpushare's manifests; give it an empty or new one",
                )
            })?
            .unwrap_or_default();
        // Two earlier files for one object: the later number is the one kubectl applies last.
        if out.get(file).is_none_or(|e: &Existing| e.number < number) {
            out.insert(
                file.to_string(),
                Existing {
                    number,
                    name: name.clone(),
                    text,
                },
            );
        }
    }
    Ok(out)
}

/// `07-configmap-x.yaml` → (7, `configmap-x.yaml`).
fn split_number(name: &str) -> Option<(usize, &str)> {
    let (number, file) = name.split_once('-')?;
    let ok =
        !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) && file.ends_with(".yaml");
    Some((number.parse().ok().filter(|_| ok)?, file))
}

/// Where `doc` keeps a value per layout, as a JSON pointer: a ConfigMap's `data` (the device
/// plugin's configs, the agent's layouts), the device plugin chart's `config.map`.
fn keyed(doc: &Document) -> Option<&'static str> {
    match doc.kind {
        DocKind::Object if doc.json["kind"] == "ConfigMap" => Some("/data"),
        DocKind::HelmValues if doc.json.pointer("/config/map").is_some() => Some("/config/map"),
        _ => None,
    }
}

/// `doc` with the keys that the document already in `path` holds at `keys`: this run's win.
fn merge_keys(
    path: &Path,
    before: &str,
    doc: &Document,
    keys: &str,
    warnings: &mut Vec<String>,
) -> Result<String> {
    let before: serde_json::Value = serde_saphyr::from_str(before).map_err(|e| {
        Error::usage(format!(
            "{}: not a manifest gpushare can add to: {e}",
            path.display()
        ))
        .with_hint("--out names a directory of gpushare's manifests; give it an empty or new one")
    })?;
    let mut merged = doc.json.clone();
    let Some(now) = merged.pointer_mut(keys).and_then(|v| v.as_object_mut()) else {
        return Ok(doc.yaml.clone());
    };
    for (key, value) in before
        .pointer(keys)
        .and_then(|v| v.as_object())
        .into_iter()
        .flatten()
    {
        match now.get(key) {
            None => {
                now.insert(key.clone(), value.clone());
            }
            Some(mine) if mine != value => warnings.push(format!(
                "{}: key `{key}` replaced by this run's (nodes labelled with it get the new one)",
                path.display()
            )),
            Some(_) => {}
        }
    }
    if doc.kind == DocKind::HelmValues {
        // The chart's other settings: what an earlier class needs stays (MPS's root, GFD), and
        // the default config for nodes without a label stays the first class's.
        let (Some(mine), Some(theirs)) = (merged.as_object_mut(), before.as_object()) else {
            return Ok(doc.yaml.clone());
        };
        for (key, value) in theirs {
            mine.entry(key.clone()).or_insert_with(|| value.clone());
        }
        if let Some(default) = before.pointer("/config/default") {
            merged["config"]["default"] = default.clone();
        }
    }
    Ok(Document::new(doc.file.clone(), doc.kind, &merged)?.yaml)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::manifests::bundle::tests::config_map;

    #[test]
    fn writes_files_with_mode_0644() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let mut b = Bundle::default();
        b.note("n");
        b.push(Document::object(&config_map(&[("k", "v")])).unwrap());
        let out = dir.path().join("out");
        let (written, _) = write(&out, &b).unwrap();
        assert_eq!(written.len(), 2);
        // Numbered in order, so `kubectl apply -f DIR` creates namespaces first.
        assert_eq!(written[0], out.join("00-configmap-x.yaml"));
        let mode = std::fs::metadata(&written[0]).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644);
        assert_eq!(
            std::fs::read_to_string(out.join("NOTES.txt")).unwrap(),
            "n\n"
        );
    }

    #[test]
    fn a_second_run_into_the_same_directory_adds_to_it() {
        let dir = tempfile::tempdir().unwrap();
        let run = |data: &[(&str, &str)], other: &str, note: &str| {
            let mut b = Bundle::default();
            b.note(note);
            b.push(Document::object(&config_map(data)).unwrap());
            let mut cm = config_map(&[]);
            cm.metadata.name = Some(other.into());
            b.push(Document::object(&cm).unwrap());
            write(dir.path(), &b).unwrap()
        };
        run(
            &[("a100", "one"), ("both", "1")],
            "first",
            "label the A100s",
        );
        let (written, warnings) = run(
            &[("h100", "two"), ("both", "2")],
            "second",
            "label the H100s",
        );
        let names: Vec<String> = written
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        // The ConfigMap keeps its file; the new object comes after the first run's.
        assert_eq!(
            names,
            [
                "00-configmap-x.yaml",
                "02-configmap-second.yaml",
                "NOTES.txt"
            ]
        );
        assert!(dir.path().join("01-configmap-first.yaml").is_file());
        let merged: serde_json::Value = serde_saphyr::from_str(
            &std::fs::read_to_string(dir.path().join("00-configmap-x.yaml")).unwrap(),
        )
        .unwrap();
        assert_eq!(
            merged["data"],
            serde_json::json!({ "a100": "one", "h100": "two", "both": "2" })
        );
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("key `both` replaced"), "{warnings:?}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("NOTES.txt")).unwrap(),
            "label the A100s\n\nlabel the H100s\n"
        );
    }

    #[test]
    fn the_device_plugin_charts_values_keep_every_class() {
        let dir = tempfile::tempdir().unwrap();
        let run = |name: &str, mps: bool| {
            let mut values = serde_json::json!({
                "config": { "map": { name: format!("{name} config") }, "default": name },
            });
            if mps {
                values["mps"] = serde_json::json!({ "root": "/run/nvidia/mps" });
            }
            let mut b = Bundle::default();
            b.push(Document::new("values.yaml", DocKind::HelmValues, &values).unwrap());
            write(dir.path(), &b).unwrap()
        };
        run("a100", true);
        let (written, _) = run("h100", false);
        let values: serde_json::Value =
            serde_saphyr::from_str(&std::fs::read_to_string(&written[0]).unwrap()).unwrap();
        assert_eq!(
            values,
            serde_json::json!({
                "config": {
                    "map": { "a100": "a100 config", "h100": "h100 config" },
                    "default": "a100",
                },
                "mps": { "root": "/run/nvidia/mps" },
            })
        );
    }

    #[test]
    fn numbered_files_are_recognised() {
        assert_eq!(
            split_number("07-configmap-x.yaml"),
            Some((7, "configmap-x.yaml"))
        );
        assert_eq!(split_number("NOTES.txt"), None);
        assert_eq!(split_number("x-configmap.yaml"), None);
        assert_eq!(split_number("07-notes.txt"), None);
    }
}
