//! Manifests for a fleet: a MIG node class (DGX A100) and a time-slicing one (DGX H100), each
//! with the `gpushare.toml` that `init` writes, compose on a real API server instead of
//! overwriting each other: one device-plugin ConfigMap holds a key per layout, each layout's
//! DaemonSet mounts its own key and selects the nodes labelled with it, and no two layouts share
//! a name.

use crate::common;
use common::api_server::ApiServer;
use common::cluster::Cluster;
use serde_json::Value;
use std::path::Path;

const MIG: &str = "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"3g.20gb\" = 2 }\n";
const SLICED: &str =
    "[[gpus]]\nselect = \"all\"\nmode = \"time-slicing\"\ntime_slicing = { replicas = 4 }\n";

/// `gpushare manifests --target nvidia-device-plugin` for `preset` with `layout` as its
/// gpushare.toml, into `out` (stdout's documents when `out` is None).
fn generate(dir: &Path, preset: &str, layout: &str, ns: &str, out: Option<&Path>) -> Vec<Value> {
    let class = dir.join(ns).join(preset);
    std::fs::create_dir_all(&class).unwrap();
    let toml = class.join("gpushare.toml");
    std::fs::write(&toml, layout).unwrap();
    let mut cmd = common::sim(preset);
    cmd.args([
        "manifests",
        "--target",
        "nvidia-device-plugin",
        "--namespace",
        ns,
        "-c",
    ])
    .arg(&toml);
    match out {
        Some(out) => {
            cmd.arg("--out").arg(out).assert().success();
            Vec::new()
        }
        None => common::json(&mut cmd).as_array().unwrap().clone(),
    }
}

/// The documents of a directory of manifests, in file order.
fn documents(dir: &Path) -> Vec<Value> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| serde_saphyr::from_str(&std::fs::read_to_string(f).unwrap()).unwrap())
        .collect()
}

/// Each plugin DaemonSet's layout: its node label's value and the ConfigMap key it mounts.
fn layouts(cluster: &Cluster, ns: &str) -> Vec<(String, String)> {
    let daemonsets = cluster.list_json("apps/v1", "DaemonSet", ns);
    let mut out: Vec<(String, String)> = daemonsets
        .iter()
        .map(|d| {
            let spec = &d["spec"]["template"]["spec"];
            let label = spec["nodeSelector"]["nvidia.com/device-plugin.config"]
                .as_str()
                .unwrap()
                .to_string();
            let volume = spec["volumes"]
                .as_array()
                .unwrap()
                .iter()
                .find(|v| v["name"] == "config")
                .unwrap();
            assert_eq!(volume["configMap"]["name"], "nvidia-device-plugin-configs");
            let key = volume["configMap"]["items"][0]["key"].as_str().unwrap();
            (label, key.to_string())
        })
        .collect();
    out.sort();
    out
}

/// Both classes' plugins are there, each mounting a config of its own that the ConfigMap holds.
fn assert_both_kept(cluster: &Cluster, ns: &str) {
    let layouts = layouts(cluster, ns);
    assert_eq!(layouts.len(), 2, "{layouts:?}");
    assert_ne!(layouts[0].0, layouts[1].0, "two layouts share a name");
    let configs = cluster.list_json("v1", "ConfigMap", ns);
    let configs = configs
        .iter()
        .find(|c| c["metadata"]["name"] == "nvidia-device-plugin-configs")
        .expect("the fleet's ConfigMap");
    let mut strategies = Vec::new();
    for (label, key) in &layouts {
        assert_eq!(label, key, "a node labelled {label} gets the key {key}");
        let config: Value = serde_saphyr::from_str(
            configs["data"][key.as_str()]
                .as_str()
                .unwrap_or_else(|| panic!("no key {key}: {configs:#}")),
        )
        .unwrap();
        strategies.push(config["flags"]["migStrategy"].as_str().unwrap().to_string());
        if config["flags"]["migStrategy"] == "none" {
            assert_eq!(
                config["sharing"]["timeSlicing"]["resources"][0]["replicas"], 4,
                "{config:#}"
            );
        }
    }
    strategies.sort();
    assert_eq!(strategies, ["none", "single"]);
}

#[test]
fn two_node_classes_manifests_compose() {
    let test = "fleet";
    let Some(server) = ApiServer::start(test) else {
        return;
    };
    let cluster = Cluster::connect(&server.kubeconfig);
    let dir = tempfile::tempdir().unwrap();

    // Generated into one directory, one class after the other: applied at once.
    let ns = "fleet-in-one-dir";
    let fleet = dir.path().join("fleet");
    generate(dir.path(), "dgx-a100", MIG, ns, Some(&fleet));
    generate(dir.path(), "dgx-h100", SLICED, ns, Some(&fleet));
    cluster.apply_documents(&documents(&fleet));
    assert_both_kept(&cluster, ns);
    let notes = std::fs::read_to_string(fleet.join("NOTES.txt")).unwrap();
    assert_eq!(notes.matches("kubectl label node").count(), 2, "{notes}");

    // Generated apart (each class's admin pipes its own) and applied one after the other, each
    // class's manifests with a field manager of its own: the second keeps the first's key.
    let ns = "fleet-apart";
    for (preset, layout) in [("dgx-a100", MIG), ("dgx-h100", SLICED)] {
        let docs = generate(dir.path(), preset, layout, ns, None);
        let name = docs
            .iter()
            .find(|d| d["kind"] == "DaemonSet")
            .and_then(|d| d["metadata"]["name"].as_str())
            .unwrap()
            .to_string();
        cluster.apply_documents_as(&docs, &name);
    }
    assert_both_kept(&cluster, ns);
}
