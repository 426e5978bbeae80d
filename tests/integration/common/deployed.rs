//! gpushare deployed as users deploy it: its image imported into a real node's containerd, and
//! the node set up as a GPU node of a cluster, so that pods of gpushare's manifests run there
//! unchanged (only `--image` set):
//! - NVIDIA's container runtime (`../shared/tools/nvidia-ctk`) is the node's default runtime, in
//!   CDI mode, as the GPU Operator's toolkit sets it; the node's driver spec (`nvidia.com/gpu=all`)
//!   gives a container that asks for `NVIDIA_VISIBLE_DEVICES=all` the driver root's device nodes
//!   and the NVML stand-in as `libnvidia-ml.so.1`, with the stand-in's node (its state file);
//! - the driver's device nodes in the node's `/dev` and its MIG minors in `/proc/driver`, as a
//!   driver installs them (inside the node's mount namespace only: an overlay on `/dev`, a tmpfs
//!   on `/proc/driver`), so a DaemonSet that reads the host under `/host` finds them;
//! - a pod network that reaches this host both ways (`tests/support/cni/gpushare-test-cni`), so
//!   the kubelet probes the pods and Prometheus scrapes them;
//! - the `kubernetes` Service at its ClusterIP: the API server's certificate names it, and the
//!   address forwards to the API server, which is what kube-proxy does on a cluster.
//!
//! While a test runs, this host has the ClusterIP (10.96.0.1) on its `lo` (removed after; one
//! such test runs at a time) and a veth per pod (gone with the pod's network namespace).

use super::api_server::ApiServer;
use super::cluster::Cluster;
use super::image::{Image, image};
use super::nvidia_tools::{NvidiaNode, toolkit, tools};
use super::real_node::{RealNode, driver_root, tool_dir};
use super::repo;
use serde_json::Value;
use std::io::Write;
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The `kubernetes` Service's ClusterIP (the first address of start.sh's service range).
const SERVICE_IP: &str = "10.96.0.1";
/// How long a deployed component has to do its part.
const WAIT: Duration = Duration::from_secs(180);
/// One test at a time holds the ClusterIP.
static SERVICE: Mutex<()> = Mutex::new(());

pub struct Deployed {
    // Dropped in this order: the client, the node (its pods), the simulated GPUs, the Service,
    // the API server.
    pub cluster: Cluster,
    pub node: RealNode,
    pub nvidia: NvidiaNode,
    pub image: &'static Image,
    _service: ServiceAddress,
    _server: ApiServer,
}

impl Deployed {
    /// A DGX A100 (`preset`) node and its cluster; None (said loudly) when this machine cannot.
    pub fn start(test: &str, preset: &str) -> Option<Deployed> {
        let nvidia_tools = tools(test)?;
        let ctk = toolkit(test)?;
        let image = image(test)?;
        let server = ApiServer::for_pods(test)?;
        let service = ServiceAddress::start(&server);
        let nvidia = NvidiaNode::new(nvidia_tools, preset);
        let root = driver_root(&nvidia);
        // The node dir first: the runtime's and the network's configuration name it.
        let dir = tempfile::Builder::new()
            .prefix("kube-node.")
            .tempdir()
            .unwrap()
            .keep();
        pod_network(&dir, "10.244.1.0/24");
        std::fs::create_dir_all(dir.join("cdi")).unwrap();
        std::fs::write(
            dir.join("cdi/nvidia-driver.yaml"),
            driver_spec(&root, &nvidia),
        )
        .unwrap();
        let runtime = ctk.join("nvidia-container-runtime");
        let node = RealNode::start_with(
            test,
            &server,
            "127.0.0.1",
            true,
            &[
                ("KUBE_NODE_OVERLAY_ETC", "1"),
                ("KUBE_NODE_RUNC", runtime.to_str().unwrap()),
            ],
            Some(&dir),
        )?;
        runtime_config(&node, ctk);
        install_driver(&node, &root);
        node.import(image);
        let cluster = Cluster::connect(&server.kubeconfig);
        Some(Deployed {
            cluster,
            node,
            nvidia,
            image,
            _service: service,
            _server: server,
        })
    }

    /// `gpushare manifests ARGS --image gpushare=<the image>` on this node, as JSON documents.
    pub fn manifests(&self, args: &[&str]) -> Vec<Value> {
        let out = self
            .nvidia
            .gpushare()
            .current_dir(repo())
            .args(["--format", "json", "manifests"])
            .args(args)
            .arg("--image")
            .arg(format!("gpushare={}", self.image.reference))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// [`wait_for`] `f`, telling what the pods of `ns` said when it times out.
    pub fn wait<T>(&self, what: &str, ns: &str, mut f: impl FnMut() -> Option<T>) -> T {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(v) = f() {
                return v;
            }
            assert!(
                Instant::now() < deadline,
                "timed out after {} s waiting for {what}:\n{}",
                WAIT.as_secs(),
                self.pod_story(ns)
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// What a pod's containers said so far, and the kubelet's view of it, for a failure message.
    pub fn pod_story(&self, ns: &str) -> String {
        let mut out = String::new();
        for pod in self.cluster.pods(ns) {
            let name = pod.metadata.name.clone().unwrap_or_default();
            let status = serde_json::to_string_pretty(&pod.status).unwrap_or_default();
            let log = self.cluster.logs(ns, &name).unwrap_or_default();
            out.push_str(&format!(
                "--- pod {ns}/{name}\n{status}\n--- its log\n{log}\n"
            ));
        }
        out
    }
}

/// This test's CNI plugin, first in the node's configuration (the node loads one).
fn pod_network(dir: &Path, subnet: &str) {
    let bin = dir.join("cni/bin");
    let conf = dir.join("cni/conf");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&conf).unwrap();
    let plugin = bin.join("gpushare-test-cni");
    std::fs::copy(repo().join("tests/support/cni/gpushare-test-cni"), &plugin).unwrap();
    std::fs::set_permissions(&plugin, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let config = serde_json::json!({
        "cniVersion": "1.0.0", "name": "gpushare-test",
        "plugins": [{
            "type": "gpushare-test-cni", "subnet": subnet,
            "dataDir": dir.join("cni/gpushare-test-ipam"),
        }],
    });
    std::fs::write(conf.join("00-gpushare-test.conflist"), config.to_string()).unwrap();
}

/// The node's driver spec: what the NVIDIA container runtime gives a container that asks for
/// every GPU. A driver installer writes its driver's files; this one writes the stand-in's.
fn driver_spec(root: &Path, nvidia: &NvidiaNode) -> String {
    let mut nodes: Vec<PathBuf> = std::fs::read_dir(root.join("dev"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.is_dir())
        .collect();
    nodes.sort();
    let device_nodes: Vec<Value> = nodes
        .iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            serde_json::json!({ "path": format!("/dev/{name}"), "hostPath": p })
        })
        .collect();
    let lib = root.join("usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1");
    let lib = std::fs::canonicalize(&lib).unwrap();
    let state_dir = nvidia.dir.path();
    let spec = serde_json::json!({
        "cdiVersion": "0.5.0",
        "kind": "nvidia.com/gpu",
        "devices": [{ "name": "all", "containerEdits": { "deviceNodes": device_nodes } }],
        "containerEdits": {
            "env": [format!("NVML_STANDIN_STATE={}", nvidia.state().display())],
            "mounts": [
                {
                    "hostPath": lib,
                    "containerPath": "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1",
                    "options": ["ro", "nosuid", "nodev", "bind"],
                },
                {
                    "hostPath": state_dir, "containerPath": state_dir,
                    "options": ["rw", "nosuid", "nodev", "bind"],
                },
            ],
        },
    });
    // CDI reads JSON as YAML.
    spec.to_string()
}

/// The driver's device nodes and MIG minors on the node, as a driver installs them: over the
/// node's own `/dev` (an overlay, whose other entries and mounts stay) and `/proc/driver`.
fn install_driver(node: &RealNode, root: &Path) {
    let script = r#"set -e
T="$1/driver-overlay" ROOT="$2"
mkdir -p "$T" && mount -t tmpfs tmpfs "$T" && mkdir "$T/upper" "$T/work" "$T/dev"
mount --rbind /dev "$T/dev"
mount -t overlay overlay -o "lowerdir=$T/dev,upperdir=$T/upper,workdir=$T/work" /dev
for m in pts shm mqueue hugepages; do
  if mountpoint -q "$T/dev/$m"; then mount --rbind "$T/dev/$m" "/dev/$m"; fi
done
cp -a "$ROOT/dev/." /dev/
mount -t tmpfs tmpfs /proc/driver
cp -a "$ROOT/proc/driver/." /proc/driver/
"#;
    let out = Command::new("bash")
        .arg(tool_dir().join("enter-node.sh"))
        .arg(&node.dir)
        .args(["sh", "-c", script, "install-driver"])
        .arg(&node.dir)
        .arg(root)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the driver's files on the node: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `text` as `path` in the node's own filesystem (its `/etc` is the node's).
pub fn write_on_node(node: &RealNode, path: &str, text: &str) {
    let mut write = Command::new("bash")
        .arg(tool_dir().join("enter-node.sh"))
        .arg(&node.dir)
        .args([
            "sh",
            "-c",
            "mkdir -p \"$(dirname \"$1\")\" && cat > \"$1\"",
            "write",
        ])
        .arg(path)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    write
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    assert!(write.wait().unwrap().success(), "{path} on the node");
}

/// NVIDIA's runtime's configuration at its default path, in the node's /etc only: CDI mode,
/// runc below it.
fn runtime_config(node: &RealNode, ctk: &Path) {
    let runc = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join("runc"))
        .find(|p| p.is_file())
        .unwrap_or_else(|| "/usr/sbin/runc".into());
    let config = format!(
        "[nvidia-container-runtime]\ndebug = \"{}\"\nlog-level = \"debug\"\nmode = \"cdi\"\nruntimes = [\"{}\"]\n\n[nvidia-container-runtime.modes.cdi]\ndefault-kind = \"nvidia.com/gpu\"\nannotation-prefixes = [\"cdi.k8s.io/\"]\nspec-dirs = [\"/etc/cdi\", \"/var/run/cdi\"]\n\n[nvidia-ctk]\npath = \"{}\"\n",
        node.dir.join("nvidia-container-runtime.log").display(),
        runc.display(),
        ctk.join("nvidia-ctk").display()
    );
    write_on_node(node, "/etc/nvidia-container-runtime/config.toml", &config);
}

/// The `kubernetes` Service's ClusterIP on this host, forwarding to the API server.
struct ServiceAddress {
    added: bool,
    stop: Arc<AtomicBool>,
    _one: MutexGuard<'static, ()>,
}

impl ServiceAddress {
    fn start(server: &ApiServer) -> ServiceAddress {
        let one = SERVICE.lock().unwrap_or_else(|p| p.into_inner());
        let api = server.env_value("KUBE_REAL_API");
        let api = api.trim_start_matches("https://").to_string();
        name_the_service_ip(&server.dir, &api);
        let lo = Command::new("ip")
            .args(["-4", "addr", "show", "dev", "lo"])
            .output()
            .unwrap();
        let added = !String::from_utf8_lossy(&lo.stdout).contains(&format!("{SERVICE_IP}/32"));
        if added {
            let ok = Command::new("ip")
                .args(["addr", "add", &format!("{SERVICE_IP}/32"), "dev", "lo"])
                .status()
                .unwrap();
            assert!(ok.success(), "cannot add {SERVICE_IP} to lo");
        }
        let listener = TcpListener::bind((SERVICE_IP, 443)).expect("the Service's port");
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        std::thread::spawn(move || {
            for client in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    return;
                }
                let (Ok(client), Ok(upstream)) = (client, TcpStream::connect(&api)) else {
                    continue;
                };
                forward(client, upstream);
            }
        });
        ServiceAddress {
            added,
            stop,
            _one: one,
        }
    }
}

/// Copy both ways until either side closes.
fn forward(a: TcpStream, b: TcpStream) {
    for (mut from, mut to) in [(a.try_clone().unwrap(), b.try_clone().unwrap()), (b, a)] {
        std::thread::spawn(move || {
            let _ = std::io::copy(&mut from, &mut to);
            let _ = to.shutdown(Shutdown::Write);
        });
    }
}

impl Drop for ServiceAddress {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect((SERVICE_IP, 443));
        if self.added {
            let _ = Command::new("ip")
                .args(["addr", "del", &format!("{SERVICE_IP}/32"), "dev", "lo"])
                .status();
        }
    }
}

/// The API server's certificate also names the ClusterIP (as a cluster's does); the API server
/// reloads it from its file.
fn name_the_service_ip(dir: &Path, api: &str) {
    std::fs::write(
        dir.join("service.ext"),
        format!("subjectAltName=IP:127.0.0.1,IP:{SERVICE_IP},DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n"),
    )
    .unwrap();
    let out = Command::new("openssl")
        .current_dir(dir)
        .args([
            "x509",
            "-req",
            "-in",
            "apiserver.csr",
            "-CA",
            "ca.crt",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "2",
            "-extfile",
            "service.ext",
            "-out",
            "apiserver.crt.new",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::rename(dir.join("apiserver.crt.new"), dir.join("apiserver.crt")).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let served = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "echo | openssl s_client -connect {api} 2>/dev/null | openssl x509 -noout -ext subjectAltName"
            ))
            .output()
            .unwrap();
        if String::from_utf8_lossy(&served.stdout).contains(SERVICE_IP) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the API server did not take its new certificate"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}
