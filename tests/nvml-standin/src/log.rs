//! The call log (`NVML_STANDIN_LOG`): one JSON line per call, appended with one write so lines of
//! several processes never interleave.

use crate::call::{Record, Ret, code_name, is_changing};
use serde_json::{Map, Value, json};
use std::io::Write;

pub fn write(name: &str, record: &Record, code: Ret, detail: Option<String>) {
    let Some(path) = std::env::var_os(crate::LOG_ENV).filter(|p| !p.is_empty()) else {
        return;
    };
    let mut line = json!({
        "pid": std::process::id(),
        "fn": name,
        "args": Value::Object(record.args.clone()),
        "ret": code_name(code),
    });
    let obj = line.as_object_mut().expect("an object");
    if !record.out.is_empty() {
        obj.insert("out".into(), Value::Object(record.out.clone()));
    }
    if is_changing(name) {
        obj.insert("changing".into(), true.into());
    }
    if let Some(d) = detail {
        obj.insert("detail".into(), d.into());
    }
    append(&path, &line);
}

/// Append one entry to the log at `path` (the stand-in nvidia-smi logs its own calls too).
pub fn append(path: &std::ffi::OsStr, entry: &Value) {
    let mut text = entry.to_string();
    text.push('\n');
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = f.write_all(text.as_bytes());
    }
}

/// A log entry for a program of the stand-in (nvidia-smi): its arguments and result.
pub fn program_entry(name: &str, args: &[String], ret: &str, detail: Option<&str>) -> Value {
    let mut m = Map::new();
    m.insert("pid".into(), std::process::id().into());
    m.insert("fn".into(), name.into());
    m.insert("args".into(), json!({ "argv": args }));
    m.insert("ret".into(), ret.into());
    m.insert("changing".into(), true.into());
    if let Some(d) = detail {
        m.insert("detail".into(), d.into());
    }
    Value::Object(m)
}
