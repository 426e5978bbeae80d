//! Container runtime checks: the NVIDIA container toolkit, CDI enabled in containerd/Docker, a
//! CDI spec that matches the GPUs and MIG devices the node has now, and what would make the
//! runtime pass that spec by without a word.

use super::{Check, Inputs};
use std::collections::BTreeSet;

pub(super) fn container_toolkit(_: &Inputs) -> Check {
    const ID: &str = "container-toolkit";
    for program in ["nvidia-ctk", "nvidia-container-runtime"] {
        if let Ok(path) = which::which(program) {
            return Check::pass(ID, format!("{}", path.display()));
        }
    }
    Check::warn(
        ID,
        "the NVIDIA container toolkit is not installed (no nvidia-ctk on PATH)",
        "install nvidia-container-toolkit so containers can use the GPUs",
    )
}

fn enables_cdi(toml_text: &str) -> bool {
    toml_text.lines().any(|l| {
        let compact: String = l
            .split('#')
            .next()
            .unwrap_or("")
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        compact == "enable_cdi=true"
    })
}

/// containerd 2.x configs (`version = 3`) enable CDI by default.
fn containerd_v3(toml_text: &str) -> bool {
    toml_text.lines().any(|l| {
        let compact: String = l.chars().filter(|c| !c.is_whitespace()).collect();
        compact == "version=3"
    })
}

pub(super) fn runtime_cdi(i: &Inputs) -> Check {
    const ID: &str = "runtime-cdi";
    if !i.host_checked {
        return Check::skip(ID, "simulated node");
    }
    let mut containerd: Vec<String> = i
        .host
        .read("/etc/containerd/config.toml")
        .into_iter()
        .collect();
    for name in i.host.list("/etc/containerd/conf.d") {
        if name.ends_with(".toml") {
            containerd.extend(i.host.read(&format!("/etc/containerd/conf.d/{name}")));
        }
    }
    let docker = i
        .host
        .read("/etc/docker/daemon.json")
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
    if containerd.is_empty() && docker.is_none() {
        return Check::skip(ID, "no containerd or Docker configuration found");
    }
    let mut enabled = Vec::new();
    if containerd.iter().any(|t| enables_cdi(t)) {
        enabled.push("containerd (enable_cdi = true)");
    } else if containerd.iter().any(|t| containerd_v3(t)) {
        enabled.push("containerd 2.x (CDI on by default)");
    }
    if docker
        .as_ref()
        .is_some_and(|d| d["features"]["cdi"] == serde_json::Value::Bool(true))
    {
        enabled.push("Docker (features.cdi)");
    }
    if enabled.is_empty() {
        return Check::warn(
            ID,
            "CDI is not enabled in the container runtime",
            "`nvidia-ctk runtime configure --runtime=containerd --cdi.enabled` (or --runtime=docker), then restart the runtime",
        );
    }
    Check::pass(ID, format!("CDI enabled in {}", enabled.join(" and ")))
}

/// GPU and MIG UUIDs named in a text.
fn uuids(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for prefix in ["GPU-", "MIG-"] {
        let mut rest = text;
        while let Some(at) = rest.find(prefix) {
            let tail = &rest[at + prefix.len()..];
            let len = tail
                .find(|c: char| !(c.is_ascii_hexdigit() || c == '-'))
                .unwrap_or(tail.len());
            if len >= 32 {
                out.insert(format!("{prefix}{}", &tail[..len]));
            }
            rest = &tail[len..];
        }
    }
    out
}

pub(super) fn cdi_spec(i: &Inputs) -> Check {
    const ID: &str = "cdi-spec";
    if !i.host_checked {
        return Check::skip(ID, "simulated node");
    }
    let mut specs = Vec::new();
    for dir in ["/etc/cdi", "/var/run/cdi"] {
        for name in i.host.list(dir) {
            if !(name.ends_with(".yaml") || name.ends_with(".yml") || name.ends_with(".json")) {
                continue;
            }
            let path = format!("{dir}/{name}");
            if let Some(text) = i.host.read(&path)
                && text.contains("nvidia.com/gpu")
            {
                specs.push((path, text));
            }
        }
    }
    let hint = "regenerate it: `gpushare manifests --target cdi --install` (or `nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml`)";
    if specs.is_empty() {
        return Check::warn(
            ID,
            "no CDI spec for nvidia.com/gpu in /etc/cdi or /var/run/cdi",
            hint,
        );
    }
    let files: Vec<&str> = specs.iter().map(|(p, _)| p.as_str()).collect();
    let Some(node) = i.node else {
        return Check::pass(
            ID,
            format!("{} (not compared: no driver)", files.join(", ")),
        );
    };
    let listed: BTreeSet<String> = specs.iter().flat_map(|(_, t)| uuids(t)).collect();
    let present: BTreeSet<String> =
        node.gpus
            .iter()
            .flat_map(|g| {
                std::iter::once(g.uuid.clone()).chain(
                    g.mig.instances.iter().flatten().flat_map(|gi| {
                        gi.compute_instances.iter().filter_map(|ci| ci.uuid.clone())
                    }),
                )
            })
            .collect();
    let missing: Vec<&String> = present.difference(&listed).collect();
    let gone: Vec<&String> = listed.difference(&present).collect();
    if missing.is_empty() && gone.is_empty() {
        return Check::pass(
            ID,
            format!("{} lists every GPU and MIG device", files.join(", ")),
        );
    }
    let mut detail = format!("{} is stale:", files.join(", "));
    if !missing.is_empty() {
        detail.push_str(&format!(" {} device(s) missing", missing.len()));
    }
    if !gone.is_empty() {
        detail.push_str(&format!(" {} device(s) that no longer exist", gone.len()));
    }
    Check::fail(ID, detail, hint)
}

/// The spec files of kind `nvidia.com/gpu` in each CDI directory, with their device names.
fn specs_in(i: &Inputs, dir: &str) -> Vec<(String, BTreeSet<String>)> {
    let mut out = Vec::new();
    for name in i.host.list(dir) {
        if !(name.ends_with(".yaml") || name.ends_with(".yml") || name.ends_with(".json")) {
            continue;
        }
        let path = format!("{dir}/{name}");
        let Some(spec) = i
            .host
            .read(&path)
            .and_then(|t| serde_saphyr::from_str::<serde_json::Value>(&t).ok())
        else {
            continue;
        };
        if spec["kind"] != "nvidia.com/gpu" {
            continue;
        }
        let names = spec["devices"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|d| d["name"].as_str().map(str::to_string))
            .collect();
        out.push((path, names));
    }
    out
}

/// What bypasses the spec in `/etc/cdi` silently: NVIDIA's runtime in its default mode builds its
/// own spec for `NVIDIA_VISIBLE_DEVICES=<UUID>` (jit-cdi) and never reads `/etc/cdi`; and a spec
/// of the same kind and names in `/var/run/cdi` wins over it, with nothing logged.
pub(super) fn spec_bypass(i: &Inputs) -> Check {
    const ID: &str = "cdi-bypass";
    if !i.host_checked {
        return Check::skip(ID, "simulated node");
    }
    let config_path = "/etc/nvidia-container-runtime/config.toml";
    let mode = i
        .host
        .read(config_path)
        .and_then(|t| toml::from_str::<toml::Table>(&t).ok())
        .map(|t| {
            t.get("nvidia-container-runtime")
                .and_then(|r| r.get("mode"))
                .and_then(|m| m.as_str())
                .unwrap_or("auto")
                .to_string()
        });
    let shadowed: Vec<String> = specs_in(i, "/etc/cdi")
        .iter()
        .flat_map(|(etc, names)| {
            specs_in(i, "/var/run/cdi")
                .into_iter()
                .filter(|(_, run)| !run.is_disjoint(names))
                .map(move |(run, _)| format!("{run} wins over {etc}"))
        })
        .collect();
    if !shadowed.is_empty() {
        return Check::warn(
            ID,
            format!(
                "a spec of the same kind and names is in both CDI directories: {}",
                shadowed.join("; ")
            ),
            "keep one spec per kind: remove the other (the toolkit's nvidia-cdi-refresh writes /var/run/cdi/nvidia.yaml; gpushare installs /etc/cdi/nvidia.yaml)",
        );
    }
    match mode.as_deref() {
        None => Check::skip(ID, format!("no {config_path}")),
        Some("cdi") => Check::pass(
            ID,
            "NVIDIA's runtime resolves devices through the CDI specs (mode = \"cdi\")",
        ),
        Some(other) => Check::warn(
            ID,
            format!(
                "NVIDIA's runtime is in mode = \"{other}\": for NVIDIA_VISIBLE_DEVICES=<UUID> it builds its own spec from NVML (jit-cdi) and never reads /etc/cdi/nvidia.yaml"
            ),
            "set mode = \"cdi\" (`nvidia-ctk config --in-place --set nvidia-container-runtime.mode=cdi`), or ask for fully qualified names (nvidia.com/gpu=<UUID>)",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_uuids_and_cdi_settings() {
        let text = "devices:\n- name: \"0\"\n  uuid: GPU-e79f4c73-0095-3da0-e789-ed03c7242ce1\n- MIG-11111111-2222-3333-4444-555555555555 x\n";
        let found = uuids(text);
        assert_eq!(found.len(), 2);
        assert!(found.contains("GPU-e79f4c73-0095-3da0-e789-ed03c7242ce1"));
        assert!(enables_cdi(
            "[plugins.\"io.containerd.grpc.v1.cri\"]\n  enable_cdi = true # yes\n"
        ));
        assert!(!enables_cdi("# enable_cdi = true\n"));
        assert!(containerd_v3("version = 3\n"));
    }
}
