//! GPU memory shared the Aliyun way, with Aliyun's own programs (`../shared/tools/aliyun-gpushare`:
//! the scheduler extender and the device plugin, built from their sources unchanged): a real
//! kube-apiserver and kube-scheduler running the KubeSchedulerConfiguration `gpushare manifests
//! --target gpushare-extender` generates (its extender URL pointed at a loopback port, as the
//! notes say for a scheduler outside the cluster), the extender and the plugin as the generated
//! ServiceAccounts with the generated RBAC and arguments, the plugin in a real node on the NVML
//! stand-in of a simulated T4 node. Busybox pods ask `aliyun.com/gpu-mem`; what gpushare said the
//! node offers is what the plugin advertises.

use crate::common;
use common::api_server::ApiServer;
use common::cluster::{Cluster, wait_for};
use common::nvidia_tools::{NvidiaNode, tools};
use common::real_node::{BUSYBOX, RealNode, tool_dir};
use common::unpacked;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(120);

/// Aliyun's two programs, unpacked once; None (said loudly, or a failure under
/// `GPUSHARE_REQUIRE_NVIDIA_TOOLS=1`) when the tool is not there.
fn programs(test: &str) -> Option<&'static Path> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        unpacked::unpack(
            "aliyun-gpushare",
            &["gpushare-sche-extender", "gpushare-device-plugin-v2"],
        )
    });
    unpacked::or_skip(test, "Aliyun's programs are", dir)
}

/// A process killed (and reaped) when dropped; its log for failure messages.
struct Running {
    child: Child,
    log: PathBuf,
}

impl Running {
    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // The extender ignores the first SIGTERM: it is killed.
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            let log = self.log();
            let tail: Vec<&str> = log.lines().take(40).collect();
            eprintln!("--- {}:\n{}", self.log.display(), tail.join("\n"));
        }
    }
}

/// The admin kubeconfig, impersonating `user` (a generated ServiceAccount), written to `file`:
/// the program then has exactly the generated RBAC.
fn impersonating(admin: &Path, user: &str, file: &Path) {
    let mut config: Value =
        serde_saphyr::from_str(&std::fs::read_to_string(admin).unwrap()).unwrap();
    for u in config["users"].as_array_mut().unwrap() {
        u["user"]["as"] = user.into();
    }
    std::fs::write(file, serde_json::to_string(&config).unwrap()).unwrap();
}

fn pod(name: &str, scheduler: &str, gib: u32) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": { "name": name, "namespace": "default" },
        "spec": {
            "schedulerName": scheduler,
            "restartPolicy": "Never",
            "terminationGracePeriodSeconds": 0,
            "containers": [{
                "name": "c", "image": BUSYBOX, "imagePullPolicy": "Never",
                "command": ["sh", "-c", "env | grep -e NVIDIA -e ALIYUN | sort; echo ready; exec sleep 1000000"],
                "resources": { "limits": { "aliyun.com/gpu-mem": gib.to_string() } },
            }],
        },
    })
}

#[test]
fn aliyuns_extender_and_plugin_share_gpu_memory_with_gpushares_manifests() {
    let test = "aliyun_gpushare";
    let Some(bin) = programs(test) else { return };
    let Some(nvidia_tools) = tools(test) else {
        return;
    };
    let nvidia = NvidiaNode::new(nvidia_tools, "t4x4");
    let dir = tempfile::tempdir().unwrap();

    // What gpushare generates, and what it says the node offers.
    let out = nvidia
        .gpushare()
        .args([
            "manifests",
            "--target",
            "gpushare-extender",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = dir.path().join("manifests");
    nvidia
        .gpushare()
        .args(["manifests", "--target", "gpushare-extender", "--out"])
        .arg(&written)
        .assert()
        .success();
    let notes = std::fs::read_to_string(written.join("NOTES.txt")).unwrap();
    let offered: u64 = notes
        .split("aliyun.com/gpu-mem: ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("gpushare says what the node offers: {notes}"));
    let docs: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let of = |kind: &str, name: &str| {
        docs.iter()
            .find(|d| {
                d["kind"] == kind
                    && d["metadata"]["name"]
                        .as_str()
                        .is_some_and(|n| n.contains(name))
            })
            .unwrap_or_else(|| panic!("no {kind} {name}"))
    };
    let config_map = of("ConfigMap", "scheduler-config");
    let generated = config_map["data"]["config.yaml"].as_str().unwrap();
    let mut config: Value = serde_saphyr::from_str(generated).unwrap();
    let scheduler = config["profiles"][0]["schedulerName"]
        .as_str()
        .unwrap()
        .to_string();
    let prefix = config["extenders"][0]["urlPrefix"]
        .as_str()
        .unwrap()
        .to_string();
    let path = prefix
        .split_once("://")
        .unwrap()
        .1
        .split_once('/')
        .unwrap()
        .1;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    config["extenders"][0]["urlPrefix"] = format!("http://127.0.0.1:{port}/{path}").into();
    let scheduler_file = dir.path().join("scheduler.yaml");
    std::fs::write(&scheduler_file, serde_json::to_string(&config).unwrap()).unwrap();
    let plugin_set = of("DaemonSet", "device-plugin");
    let plugin_spec = &plugin_set["spec"]["template"]["spec"];
    let container = &plugin_spec["containers"][0];
    let plugin_args: Vec<String> = container["command"].as_array().unwrap()[1..]
        .iter()
        .chain(container["args"].as_array().into_iter().flatten())
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    let extender = of("Deployment", "extender");
    let extender_env: Vec<(String, String)> = extender["spec"]["template"]["spec"]["containers"][0]
        ["env"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["name"] != "PORT")
        .map(|e| {
            (
                e["name"].as_str().unwrap().into(),
                e["value"].as_str().unwrap_or("").into(),
            )
        })
        .collect();

    // The API server with the real scheduler running gpushare's configuration, and the RBAC.
    let Some(server) = ApiServer::with_scheduler_config(test, &scheduler_file) else {
        return;
    };
    let cluster = Cluster::connect(&server.kubeconfig);
    let rbac: Vec<Value> = docs
        .iter()
        .filter(|d| {
            [
                "ServiceAccount",
                "ClusterRole",
                "ClusterRoleBinding",
                "Role",
                "RoleBinding",
            ]
            .contains(&d["kind"].as_str().unwrap())
        })
        .cloned()
        .collect();
    cluster.apply_documents(&rbac);
    let service_account = |d: &Value| {
        format!(
            "system:serviceaccount:{}:{}",
            d["metadata"]["namespace"].as_str().unwrap_or("default"),
            d["spec"]["template"]["spec"]["serviceAccountName"]
                .as_str()
                .unwrap()
        )
    };
    let extender_kubeconfig = dir.path().join("extender.kubeconfig");
    impersonating(
        &server.kubeconfig,
        &service_account(extender),
        &extender_kubeconfig,
    );
    let plugin_kubeconfig = dir.path().join("plugin.kubeconfig");
    impersonating(
        &server.kubeconfig,
        &service_account(plugin_set),
        &plugin_kubeconfig,
    );

    // Aliyun's extender on the loopback port.
    let extender_log = dir.path().join("extender.log");
    let extender = Running {
        child: Command::new(bin.join("gpushare-sche-extender"))
            .env_clear()
            .envs(extender_env)
            .env("LOG_LEVEL", "debug")
            .env("KUBECONFIG", &extender_kubeconfig)
            .env("PORT", port.to_string())
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&extender_log).unwrap())
            .stderr(std::fs::File::create(dir.path().join("extender.err")).unwrap())
            .spawn()
            .expect("the extender starts"),
        log: extender_log,
    };

    // A real node, labelled as the DaemonSet selects, and Aliyun's device plugin in it.
    let Some(node) = RealNode::start(test, &server, "127.0.0.1", true) else {
        return;
    };
    let selector: Vec<(String, Option<String>)> = plugin_spec["nodeSelector"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), Some(v.as_str().unwrap().to_string())))
        .collect();
    let selector: Vec<(&str, Option<&str>)> = selector
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_deref()))
        .collect();
    cluster.label(&node.name, &selector);
    // It reads a ServiceAccount token at start even when it never uses one (a pod has it
    // mounted): one is written inside the node's namespace (/var/run is the node's there).
    let enter = |args: &[&str]| {
        let mut cmd = Command::new("bash");
        cmd.arg(tool_dir().join("enter-node.sh"))
            .arg(&node.dir)
            .args(args);
        cmd
    };
    let wrote = enter(&[
        "sh",
        "-c",
        "mkdir -p /var/run/secrets/kubernetes.io/serviceaccount && echo unused > /var/run/secrets/kubernetes.io/serviceaccount/token",
    ])
    .status()
    .unwrap();
    assert!(wrote.success());
    let plugin_log = dir.path().join("plugin.log");
    let log_file = std::fs::File::create(&plugin_log).unwrap();
    let mut plugin_cmd = enter(&[bin.join("gpushare-device-plugin-v2").to_str().unwrap()]);
    nvidia.environment(&mut plugin_cmd);
    // Its NVML bindings (2018) read power limits, BAR1 memory, PCIe links and clocks the
    // stand-in does not model: those answer NOT_SUPPORTED (as a driver does for what a GPU does
    // not report), which the bindings take as unknown.
    plugin_cmd.env_remove("NVML_STANDIN_STRICT");
    let plugin = Running {
        child: plugin_cmd
            .args(&plugin_args)
            .env("KUBECONFIG", &plugin_kubeconfig)
            .env("NODE_NAME", &node.name)
            .stdin(Stdio::null())
            .stdout(log_file.try_clone().unwrap())
            .stderr(log_file)
            .spawn()
            .expect("the device plugin starts"),
        log: plugin_log,
    };

    // What it advertises is what gpushare said: the first GPU's MiB floored to GiB, times four.
    let (memory, count) = wait_for("the node to advertise aliyun.com/gpu-mem", WAIT, || {
        let allocatable = cluster.node(&node.name).status?.allocatable?;
        let get = |r: &str| allocatable.get(r).and_then(|q| q.0.parse::<u64>().ok());
        Some((
            get("aliyun.com/gpu-mem").filter(|m| *m > 0)?,
            get("aliyun.com/gpu-count")?,
        ))
    });
    assert_eq!(
        (memory, count),
        (offered, 4),
        "gpushare said: {notes}\n{}",
        plugin.log()
    );
    let per_gpu = memory / count;

    // A 2 GiB pod: filtered and bound by the extender, annotated, given its GPU by the plugin.
    cluster.create_pod(pod("mem2", &scheduler, 2));
    let seen = |name: &str| {
        wait_for(&format!("{name} to run and say what it got"), WAIT, || {
            let log = cluster.logs("default", name)?;
            log.lines().any(|l| l == "ready").then_some(log)
        })
    };
    let said = seen("mem2");
    let mem2 = cluster
        .pods("default")
        .into_iter()
        .find(|p| p.metadata.name.as_deref() == Some("mem2"))
        .unwrap();
    assert_eq!(
        mem2.spec.as_ref().unwrap().node_name.as_deref(),
        Some(node.name.as_str())
    );
    let annotations = mem2.metadata.annotations.clone().unwrap_or_default();
    let idx = annotations
        .get("ALIYUN_COM_GPU_MEM_IDX")
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        annotations
            .get("ALIYUN_COM_GPU_MEM_POD")
            .map(String::as_str),
        Some("2"),
        "{annotations:?}"
    );
    assert_eq!(
        annotations
            .get("ALIYUN_COM_GPU_MEM_ASSIGNED")
            .map(String::as_str),
        Some("true"),
        "{annotations:?}"
    );
    for line in [
        format!("NVIDIA_VISIBLE_DEVICES={idx}"),
        format!("ALIYUN_COM_GPU_MEM_IDX={idx}"),
        "ALIYUN_COM_GPU_MEM_POD=2".to_string(),
        "ALIYUN_COM_GPU_MEM_CONTAINER=2".to_string(),
        format!("ALIYUN_COM_GPU_MEM_DEV={per_gpu}"),
    ] {
        assert!(
            said.lines().any(|l| l == line),
            "{line} not in mem2's env:\n{said}"
        );
    }
    assert!(
        extender.log().contains("gpushare-scheduler/bind"),
        "{}",
        extender.log()
    );

    // Two more that fit on one GPU each; one that fits on none stays Pending with the
    // extender's reason, though the node's total would hold it.
    let big = (per_gpu - 2).max(1) as u32;
    cluster.create_pod(pod("big-a", &scheduler, big));
    cluster.create_pod(pod("big-b", &scheduler, big));
    let a = seen("big-a");
    let b = seen("big-b");
    let gpu = |log: &str| {
        log.lines()
            .find_map(|l| l.strip_prefix("ALIYUN_COM_GPU_MEM_IDX="))
            .map(str::to_string)
    };
    assert_ne!(
        gpu(&a),
        gpu(&b),
        "two {big} GiB pods on one {per_gpu} GiB GPU:\n{a}\n{b}"
    );
    cluster.create_pod(pod("too-big", &scheduler, per_gpu as u32 + 1));
    wait_for("too-big's FailedScheduling", WAIT, || {
        cluster
            .events_of("default", "Pod", "too-big")
            .into_iter()
            .find(|(r, m)| {
                r == "FailedScheduling" && m.contains("Insufficient GPU Memory in one device")
            })
    });
    for log in [extender.log(), plugin.log()] {
        assert!(
            !log.to_lowercase().contains("forbidden"),
            "RBAC as generated is short:\n{log}"
        );
    }
}
