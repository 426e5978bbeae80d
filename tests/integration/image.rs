//! gpushare's image, built from this checkout by `scripts/build-image.sh` (Debian's umoci, nothing
//! pulled), imported into a real node's containerd and run as a pod: its entrypoint is gpushare,
//! and the binary finds every library it links inside the image.

use crate::common;
use common::api_server::ApiServer;
use common::cluster::{Cluster, wait_for};
use common::image::image;
use common::real_node::RealNode;
use serde_json::json;
use std::time::Duration;

#[test]
fn the_image_runs_gpushare_as_a_pod() {
    let test = "image";
    let Some(image) = image(test) else { return };
    let Some(server) = ApiServer::with_scheduler(test) else {
        return;
    };
    let Some(node) = RealNode::start(test, &server, "127.0.0.1", true) else {
        return;
    };
    node.import(image);
    let cluster = Cluster::connect(&server.kubeconfig);
    // The image's own entrypoint, with the arguments of a detect on the simulated DGX A100.
    cluster.create_pod(json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": { "name": "detect", "namespace": "default" },
        "spec": {
            "restartPolicy": "Never",
            "containers": [{
                "name": "gpushare", "image": image.reference, "imagePullPolicy": "Never",
                "args": ["--sim", "dgx-a100", "--quiet", "detect", "--format", "json"],
                "securityContext": { "readOnlyRootFilesystem": true },
            }],
        },
    }));
    wait_for("the pod to finish", Duration::from_secs(120), || {
        let pods = cluster.pods_in_phase("default", "Succeeded");
        let failed = cluster.pods_in_phase("default", "Failed");
        assert!(
            failed.is_empty(),
            "the pod failed: {:?}\n{}",
            cluster.logs("default", "detect"),
            node.kubelet_log()
        );
        pods.contains(&"detect".to_string()).then_some(())
    });
    let log = cluster.logs("default", "detect").unwrap();
    let detect: serde_json::Value =
        serde_json::from_str(&log).unwrap_or_else(|e| panic!("not JSON ({e}):\n{log}"));
    assert_eq!(detect["gpus"].as_array().map(Vec::len), Some(8), "{log}");
}
