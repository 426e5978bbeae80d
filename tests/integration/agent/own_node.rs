//! An agent may change only its own node, and there only the labels and annotations it writes:
//! the admission policy of `manifests --target agent`, enforced by the real API server with the
//! node claim of a token bound to a pod on the node (as a DaemonSet pod's is). An agent told to
//! manage another node is refused, says so in its log, and changes nothing on either node or
//! on its GPUs.

use super::agent_process::{AgentProcess, profiles};
use super::{CONFIGMAP, HALVES, NS, STATE, apply_agent_manifests};
use crate::common::api_server::ApiServer;
use crate::common::cluster::{Cluster, wait_for};
use serde_json::json;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(60);

#[test]
fn an_agent_may_change_only_its_own_node_and_only_its_own_keys() {
    let test = "agent::own_node";
    let Some(server) = ApiServer::start(test) else {
        return;
    };
    let cluster = Cluster::connect(&server.kubeconfig);
    apply_agent_manifests(&cluster);
    cluster.put_layouts(NS, "gpushare-layouts", &[("halves", HALVES)]);
    cluster.create_node("node-a", &[]);
    cluster.create_node("node-b", &[("gpushare.io/config", "halves")]);
    let dir = tempfile::tempdir().unwrap();
    let a_token = dir.path().join("a.kubeconfig");
    cluster.pod_token_kubeconfig(NS, "gpushare-agent", "node-a", &a_token);
    let as_a = Cluster::connect(&a_token);
    let label = |key: &str, value: &str| json!({ "metadata": { "labels": { key: value } } });
    let annotate =
        |key: &str, value: &str| json!({ "metadata": { "annotations": { key: value } } });

    // The policy is enforced once the API server has read it (until then this probe passes,
    // and only adds a label of its own).
    let refused = wait_for("the admission policy enforced", WAIT, || {
        as_a.try_patch_node("node-b", label("e2e-probe", "x")).err()
    });
    assert!(
        refused.contains("gpushare-agent may change only the node its pod runs on: it runs on node-a, not on node-b"),
        "{refused}"
    );
    // On its own node: its state labels and annotations, nothing else.
    as_a.try_patch_node("node-a", label(STATE, "success"))
        .unwrap();
    as_a.try_patch_node(
        "node-a",
        label(
            "nvidia.com/gpu.deploy.device-plugin",
            "paused-for-mig-change",
        ),
    )
    .unwrap();
    as_a.try_patch_node("node-a", annotate("gpushare.io/mig.state", "{}"))
        .unwrap();
    for (what, patch) in [
        ("the layout it gets", label("gpushare.io/config", "halves")),
        (
            "opting in to MIG on demand",
            label("gpushare.io/mig.on-demand", "true"),
        ),
        (
            "the controller's layout",
            annotate("gpushare.io/mig.layout", "[[gpus]]"),
        ),
        (
            "another label",
            label("kubernetes.io/hostname", "elsewhere"),
        ),
        ("its spec", json!({ "spec": { "unschedulable": true } })),
    ] {
        let e = as_a.try_patch_node("node-a", patch).unwrap_err();
        assert!(
            e.contains("gpushare-agent may") && e.contains("(403)"),
            "{what}: {e}"
        );
    }
    // Removing a label it did not write is a change too.
    cluster.label("node-a", &[("team", Some("x"))]);
    let e = as_a
        .try_patch_node(
            "node-a",
            json!({ "metadata": { "labels": { "team": null } } }),
        )
        .unwrap_err();
    assert!(e.contains("may change only these labels"), "{e}");
    let a = cluster.labels("node-a");
    assert_eq!(a.get("team").map(String::as_str), Some("x"));
    assert!(!a.contains_key("gpushare.io/config"), "{a:?}");

    // The agent process, told to manage node-b with node-a's token: refused, and said.
    let agent = AgentProcess::start(dir.path(), &a_token, "node-b", CONFIGMAP);
    wait_for("the refusal in the agent's log", WAIT, || {
        agent
            .log()
            .contains("may change only the node its pod runs on: it runs on node-a, not on node-b")
            .then_some(())
    });
    std::thread::sleep(Duration::from_secs(2));
    assert!(
        !cluster.labels("node-b").contains_key(STATE),
        "{:?}",
        cluster.labels("node-b")
    );
    assert_eq!(
        profiles(&agent.node()),
        vec![Vec::<String>::new(); 8],
        "a refused agent changed its GPUs"
    );
    let (code, _) = agent.healthz();
    assert_eq!(code, 200, "the refused agent stays up");
}
