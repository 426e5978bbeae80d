use super::*;
use crate::node::backend::Backend;
use crate::node::backend::sim::SimBackend;
use std::fs;

fn tree() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn touch(root: &std::path::Path, path: &str, text: &str) {
    let p = root.join(path.trim_start_matches('/'));
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

fn node(preset: &str) -> Node {
    SimBackend::from_preset(preset).unwrap().snapshot().unwrap()
}

fn by_id<'a>(checks: &'a [Check], id: &str) -> &'a Check {
    checks.iter().find(|c| c.id == id).unwrap()
}

fn healthy_host(root: &std::path::Path, gpus: usize) {
    touch(
        root,
        "/proc/modules",
        "nvidia_uvm 1 0 - Live\nnvidia 1 0 - Live\n",
    );
    touch(
        root,
        "/proc/driver/nvidia/version",
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.105.08\n",
    );
    for dev in ["nvidiactl", "nvidia-uvm", "nvidia-uvm-tools"] {
        touch(root, &format!("/dev/{dev}"), "");
    }
    for i in 0..gpus {
        touch(root, &format!("/dev/nvidia{i}"), "");
    }
    touch(
        root,
        "/proc/driver/nvidia-caps/mig-minors",
        "config 1\nmonitor 2\n",
    );
    touch(root, "/dev/nvidia-caps/nvidia-cap1", "");
    touch(root, "/dev/nvidia-caps/nvidia-cap2", "");
    touch(
        root,
        "/etc/containerd/config.toml",
        "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"]\n  enable_cdi = true\n",
    );
}

#[test]
fn a_healthy_host_passes_the_host_checks() {
    let dir = tree();
    let n = node("dgx-a100");
    healthy_host(dir.path(), 8);
    let uuids: String = n.gpus.iter().map(|g| format!("  - {}\n", g.uuid)).collect();
    touch(
        dir.path(),
        "/etc/cdi/nvidia.yaml",
        &format!("kind: nvidia.com/gpu\n{uuids}"),
    );
    let host = Host::new(dir.path());
    let inputs = Inputs {
        host: &host,
        node: Some(&n),
        host_checked: true,
    };
    let checks = checks(&inputs, Ok(&n));
    for id in [
        "kernel-module",
        "nvml",
        "device-nodes",
        "mig-caps",
        "persistence",
        "reset-blockers",
        "runtime-cdi",
        "cdi-spec",
    ] {
        assert_eq!(
            by_id(&checks, id).status,
            Status::Pass,
            "{:?}",
            by_id(&checks, id)
        );
    }
    assert_eq!(by_id(&checks, "fabric-manager").status, Status::Skip);
    assert_eq!(by_id(&checks, "iommu").status, Status::Skip);
    assert!(
        by_id(&checks, "kernel-module")
            .detail
            .contains("580.105.08")
    );
}

#[test]
fn an_empty_host_fails_with_hints() {
    let dir = tree();
    let host = Host::new(dir.path());
    let err = Error::no_driver("no NVIDIA driver").with_hint("install it");
    let inputs = Inputs {
        host: &host,
        node: None,
        host_checked: true,
    };
    let checks = checks(&inputs, Err(&err));
    for id in ["kernel-module", "nvml", "device-nodes"] {
        let c = by_id(&checks, id);
        assert_eq!(c.status, Status::Fail, "{c:?}");
        assert!(c.hint.is_some());
    }
    assert_eq!(by_id(&checks, "persistence").status, Status::Skip);
}

#[test]
fn a_stale_cdi_spec_fails() {
    let dir = tree();
    healthy_host(dir.path(), 4);
    touch(
        dir.path(),
        "/etc/cdi/nvidia.yaml",
        "kind: nvidia.com/gpu\n- MIG-11111111-2222-3333-4444-555555555555\n",
    );
    let n = node("t4x4");
    let host = Host::new(dir.path());
    let inputs = Inputs {
        host: &host,
        node: Some(&n),
        host_checked: true,
    };
    let c = runtime::cdi_spec(&inputs);
    assert_eq!(c.status, Status::Fail);
    assert!(
        c.detail.contains("4 device(s) missing")
            && c.detail.contains("1 device(s) that no longer exist"),
        "{}",
        c.detail
    );
}

#[test]
fn holders_and_nvswitch_without_fabric_manager() {
    let dir = tree();
    healthy_host(dir.path(), 8);
    touch(dir.path(), "/dev/nvidia-nvswitch0", "");
    let mut n = node("dgx-h100");
    n.holders.push(crate::node::model::Holder {
        unit: None,
        name: "nvidia_drm".into(),
        kind: crate::node::model::HolderKind::Module,
        pid: None,
    });
    let host = Host::new(dir.path());
    let inputs = Inputs {
        host: &host,
        node: Some(&n),
        host_checked: true,
    };
    let checks = checks(&inputs, Ok(&n));
    assert_eq!(by_id(&checks, "fabric-manager").status, Status::Fail);
    let b = by_id(&checks, "reset-blockers");
    assert_eq!(b.status, Status::Warn);
    assert!(b.detail.contains("kernel module nvidia_drm"));
    touch(dir.path(), "/proc/4242/comm", "nv-fabricmanager\n");
    assert_eq!(sharing::fabric_manager(&inputs).status, Status::Pass);
}

#[test]
fn persistence_off_warns_unless_the_daemon_runs() {
    let dir = tree();
    let n = node("t4x4");
    let host = Host::new(dir.path());
    let inputs = Inputs {
        host: &host,
        node: Some(&n),
        host_checked: true,
    };
    assert_eq!(driver::persistence(&inputs).status, Status::Warn);
    touch(dir.path(), "/proc/77/comm", "nvidia-persistenced\n");
    assert_eq!(driver::persistence(&inputs).status, Status::Pass);
}

#[test]
fn vgpu_hosts_need_iommu_groups() {
    let dir = tree();
    touch(dir.path(), "/sys/class/mdev_bus/0000:41:00.0/x", "");
    let host = Host::new(dir.path());
    let inputs = Inputs {
        host: &host,
        node: None,
        host_checked: true,
    };
    assert_eq!(sharing::iommu(&inputs).status, Status::Fail);
    touch(dir.path(), "/sys/kernel/iommu_groups/7/x", "");
    assert_eq!(sharing::iommu(&inputs).status, Status::Pass);
}

#[test]
fn simulated_nodes_skip_host_checks() {
    let dir = tree();
    let n = node("dgx-a100");
    let host = Host::new(dir.path());
    let inputs = Inputs {
        host: &host,
        node: Some(&n),
        host_checked: false,
    };
    let checks = checks(&inputs, Ok(&n));
    for id in [
        "kernel-module",
        "device-nodes",
        "mig-caps",
        "fabric-manager",
        "runtime-cdi",
        "cdi-spec",
        "cdi-bypass",
        "iommu",
    ] {
        assert_eq!(by_id(&checks, id).status, Status::Skip, "{id}");
    }
    assert_eq!(by_id(&checks, "nvml").status, Status::Pass);
}

#[test]
fn a_layout_file_wants_the_boot_unit_installed_and_enabled() {
    let dir = tree();
    let host = Host::new(dir.path());
    let inputs = Inputs {
        host: &host,
        node: None,
        host_checked: true,
    };
    let check = || boot::boot_unit(&inputs);
    assert_eq!(
        check().status,
        Status::Skip,
        "no layout file: nothing to apply"
    );
    touch(dir.path(), "/etc/gpushare/gpushare.toml", "");
    let c = check();
    assert_eq!(c.status, Status::Warn);
    assert!(c.hint.unwrap().contains("gpushare unit --install"));
    touch(dir.path(), "/etc/systemd/system/gpushare-apply.service", "");
    let c = check();
    assert_eq!(c.status, Status::Warn);
    assert!(c.detail.contains("not enabled"), "{}", c.detail);
    let wants = dir
        .path()
        .join("etc/systemd/system/multi-user.target.wants");
    fs::create_dir_all(&wants).unwrap();
    std::os::unix::fs::symlink(
        "/etc/systemd/system/gpushare-apply.service",
        wants.join("gpushare-apply.service"),
    )
    .unwrap();
    assert_eq!(check().status, Status::Pass);
    let simulated = Inputs {
        host_checked: false,
        ..inputs
    };
    assert_eq!(boot::boot_unit(&simulated).status, Status::Skip);
}

#[test]
fn what_passes_the_spec_by_is_said() {
    let dir = tree();
    healthy_host(dir.path(), 1);
    let host = Host::new(dir.path());
    let inputs = Inputs {
        host: &host,
        node: None,
        host_checked: true,
    };
    assert_eq!(runtime::spec_bypass(&inputs).status, Status::Skip);
    let config = "/etc/nvidia-container-runtime/config.toml";
    touch(
        dir.path(),
        config,
        "[nvidia-container-runtime]\nlog-level = \"info\"\n",
    );
    let c = runtime::spec_bypass(&inputs);
    assert_eq!(c.status, Status::Warn);
    assert!(
        c.detail.contains("mode = \"auto\"") && c.detail.contains("jit-cdi"),
        "{}",
        c.detail
    );
    touch(
        dir.path(),
        config,
        "[nvidia-container-runtime]\nmode = \"cdi\"\n",
    );
    assert_eq!(runtime::spec_bypass(&inputs).status, Status::Pass);
    let spec = |name: &str| {
        format!(
            "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n- name: \"{name}\"\n  containerEdits: {{}}\n"
        )
    };
    touch(dir.path(), "/etc/cdi/nvidia.yaml", &spec("0"));
    touch(dir.path(), "/var/run/cdi/other.yaml", &spec("1"));
    assert_eq!(
        runtime::spec_bypass(&inputs).status,
        Status::Pass,
        "no name in common"
    );
    touch(dir.path(), "/var/run/cdi/nvidia.yaml", &spec("0"));
    let c = runtime::spec_bypass(&inputs);
    assert_eq!(c.status, Status::Warn);
    assert!(
        c.detail
            .contains("/var/run/cdi/nvidia.yaml wins over /etc/cdi/nvidia.yaml"),
        "{}",
        c.detail
    );
}
