use super::*;
use crate::node::backend::Backend;
use crate::node::backend::sim::SimBackend;
use crate::support::source_file::SourceFile;
use std::path::Path;

pub(crate) const BALANCED: &str = "name = \"n\"\n[[gpus]]\nmodel = \"NVIDIA A100-SXM4-40GB\"\ncount = 2\ninstances = [{ profile = \"3g.20gb\", start = 4 }, { profile = \"1g.5gb\", start = 0 }]\n";

pub(crate) fn node(text: &str) -> Node {
    let state =
        crate::node::backend::sim::node_file::from_file(&SourceFile::inline("n.toml", text))
            .unwrap();
    state.snapshot().unwrap()
}

fn names(spec: &Spec) -> Vec<&str> {
    spec.devices.iter().map(|d| d.name.as_str()).collect()
}

#[test]
fn whole_gpus_by_index_and_uuid() {
    let n = SimBackend::from_preset("t4x4").unwrap().snapshot().unwrap();
    let (spec, tree) = spec_for(&n, &DeviceSource::default()).unwrap();
    assert!(!tree.read(), "a simulated node is derived");
    assert_eq!(spec.cdi_version, "0.5.0");
    assert_eq!(names(&spec)[..2], ["0", n.gpus[0].uuid.as_str()]);
    assert_eq!(spec.devices.len(), 9);
    let all = &spec.devices[8];
    assert_eq!(all.name, "all");
    assert_eq!(all.container_edits.device_nodes.len(), 4);
    assert!(spec::validate(&spec).is_empty());
}

#[test]
fn mig_devices_get_their_capability_nodes() {
    let n = node(BALANCED);
    let (spec, _) = spec_for(&n, &DeviceSource::default()).unwrap();
    let idx: Vec<&str> = names(&spec)
        .into_iter()
        .filter(|n| n.contains(':'))
        .collect();
    assert_eq!(idx, ["0:0", "0:1", "1:0", "1:1"]);
    let gpu0 = &n.gpus[0];
    let first = gpu0
        .mig
        .instances
        .iter()
        .flatten()
        .min_by_key(|g| g.gpu_instance_id)
        .unwrap();
    let gi = first.gpu_instance_id;
    let nodes = &spec.devices[0].container_edits.device_nodes;
    assert_eq!(nodes[0].path, "/dev/nvidia0");
    assert_eq!(
        nodes[1].path,
        format!("/dev/nvidia-caps/nvidia-cap{}", 3 + gi * 9)
    );
    assert_eq!(
        nodes[2].path,
        format!("/dev/nvidia-caps/nvidia-cap{}", 3 + gi * 9 + 1)
    );
    assert_eq!(
        Some(&spec.devices[1].name),
        first.compute_instances[0].uuid.as_ref()
    );
    // GPU 1's caps are numbered from its minor.
    let gpu1 = spec.devices.iter().find(|d| d.name == "1:0").unwrap();
    assert!(
        gpu1.container_edits.device_nodes[1]
            .path
            .ends_with(&format!("nvidia-cap{}", 3 + 135 + gi * 9))
    );
}

#[test]
fn a_mig_device_without_a_known_uuid_is_refused() {
    let mut n = node(BALANCED);
    let gpu = &mut n.gpus[1];
    let gi = &mut gpu.mig.instances.as_mut().unwrap()[0];
    let at = format!(
        "{}:{}",
        gi.gpu_instance_id, gi.compute_instances[0].compute_instance_id
    );
    gi.compute_instances[0].uuid = None;
    gpu.notes.push(crate::node::model::GpuNote {
        field: "mig.instances.uuid".into(),
        message: format!(
            "compute instance {at}: nvmlDeviceGetUUID (MIG device 0) (Insufficient Permissions)"
        ),
        needs_root: true,
    });
    let e = spec_for(&n, &DeviceSource::default()).unwrap_err();
    assert!(
        e.message.starts_with(&format!(
            "GPU 1 (NVIDIA A100-SXM4-40GB): the UUID of MIG device {at} ("
        )) && e.message.contains("is unknown: compute instance"),
        "{}",
        e.message
    );
    assert!(e.hint.unwrap().contains("as root"));
}

/// Whether device nodes can be made here (root); without, `test` says loudly it is skipped.
pub(super) fn as_root(test: &str) -> bool {
    // SAFETY: geteuid(2) has no preconditions and cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    if !root {
        // Straight to stderr, past the test harness's capture: a skip must be seen.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: {test}: making device nodes (mknod) needs root"
        );
    }
    root
}

/// A character device node (tests run as root, as the suite's real nodes need).
pub(super) fn char_device(path: &Path, major: u32, minor: u32) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: mknod(2) with a NUL-terminated path; no memory is shared.
    let rc = unsafe {
        libc::mknod(
            c.as_ptr(),
            libc::S_IFCHR | 0o666,
            libc::makedev(major, minor),
        )
    };
    assert_eq!(
        rc,
        0,
        "mknod {}: {} (the CDI tests make device nodes, as root)",
        path.display(),
        std::io::Error::last_os_error()
    );
}

fn fake_root(dir: &Path, node: &Node, minors: &str) {
    let dev = dir.join("dev");
    std::fs::create_dir_all(dev.join("nvidia-caps")).unwrap();
    char_device(&dev.join("nvidiactl"), 195, 255);
    char_device(&dev.join("nvidia-uvm"), 511, 0);
    for g in &node.gpus {
        // Minors in reverse order, to see that they are read, not assumed.
        let minor = node.gpus.len() as u32 - 1 - g.index;
        char_device(&dev.join(format!("nvidia{minor}")), 195, minor);
        let bus = format!("0000{}", &g.pci_bus_id[8..]).to_ascii_lowercase();
        let info = dir.join("proc/driver/nvidia/gpus").join(bus);
        std::fs::create_dir_all(&info).unwrap();
        std::fs::write(
            info.join("information"),
            format!("Model: x\nDevice Minor: {minor}\n"),
        )
        .unwrap();
    }
    let caps = dir.join("proc/driver/nvidia-caps");
    std::fs::create_dir_all(&caps).unwrap();
    std::fs::write(caps.join("mig-minors"), minors).unwrap();
    for line in minors.lines() {
        if let Some((_, m)) = line.split_once(' ') {
            char_device(
                &dev.join(format!("nvidia-caps/nvidia-cap{m}")),
                236,
                m.parse().unwrap(),
            );
        }
    }
}

/// The driver's mig-minors of `n`, each GPU's minor counted down from the last.
fn minors_of(n: &Node) -> String {
    let mut minors = String::from("config 1\nmonitor 2\n");
    for g in &n.gpus {
        let minor = n.gpus.len() as u32 - 1 - g.index;
        for gi in g.mig.instances.as_ref().unwrap() {
            let id = gi.gpu_instance_id;
            minors.push_str(&format!(
                "gpu{minor}/gi{id}/access {}\n",
                500 + minor * 50 + id
            ));
            minors.push_str(&format!(
                "gpu{minor}/gi{id}/ci0/access {}\n",
                700 + minor * 50 + id
            ));
        }
    }
    minors
}

#[test]
fn a_device_root_is_read_and_becomes_host_paths() {
    if !as_root("a_device_root_is_read_and_becomes_host_paths") {
        return;
    }
    let n = node(BALANCED);
    let dir = tempfile::tempdir().unwrap();
    fake_root(dir.path(), &n, &minors_of(&n));
    let source = DeviceSource {
        root: Some(dir.path().to_path_buf()),
        ..DeviceSource::default()
    };
    let (spec, tree) = spec_for(&n, &source).unwrap();
    assert!(tree.read());
    assert_eq!(tree.control, ["/dev/nvidia-uvm", "/dev/nvidiactl"]);
    let d = &spec.devices[0].container_edits.device_nodes;
    assert_eq!(d[0].path, "/dev/nvidia1", "GPU 0 has minor 1 here");
    let root = dir.path().display().to_string();
    assert_eq!(
        d[0].host_path.as_deref(),
        Some(&*format!("{root}/dev/nvidia1"))
    );
    let gi = n.gpus[0]
        .mig
        .instances
        .iter()
        .flatten()
        .map(|g| g.gpu_instance_id)
        .min()
        .unwrap();
    assert_eq!(
        d[1].path,
        format!("/dev/nvidia-caps/nvidia-cap{}", 550 + gi)
    );
    assert_eq!(spec.cdi_version, "0.5.0");
    assert!(spec::validate(&spec).is_empty());
}

/// Inside a container with the host's `/` at DIR: read there, named as the host sees them.
#[test]
fn a_spec_written_in_a_container_names_the_hosts_paths() {
    if !as_root("a_spec_written_in_a_container_names_the_hosts_paths") {
        return;
    }
    let n = node(BALANCED);
    let dir = tempfile::tempdir().unwrap();
    fake_root(dir.path(), &n, &minors_of(&n));
    let source = DeviceSource {
        root: Some(dir.path().to_path_buf()),
        host_root: Some(dir.path().to_path_buf()),
        ..DeviceSource::default()
    };
    let (spec, _) = spec_for(&n, &source).unwrap();
    let nodes = spec
        .devices
        .iter()
        .flat_map(|d| &d.container_edits.device_nodes)
        .chain(&spec.container_edits.device_nodes);
    for node in nodes {
        assert_eq!(node.host_path, None, "{node:?}");
        assert!(node.major.is_some(), "{node:?}");
    }
}

#[test]
fn missing_nodes_and_minors_are_errors() {
    if !as_root("missing_nodes_and_minors_are_errors") {
        return;
    }
    let n = node(BALANCED);
    let dir = tempfile::tempdir().unwrap();
    fake_root(dir.path(), &n, "config 1\n");
    let source = DeviceSource {
        root: Some(dir.path().to_path_buf()),
        ..DeviceSource::default()
    };
    let e = spec_for(&n, &source).unwrap_err();
    assert!(
        e.message.contains("no minor in mig-minors"),
        "{}",
        e.message
    );
    std::fs::remove_file(dir.path().join("dev/nvidia0")).unwrap();
    let e = spec_for(&n, &source).unwrap_err();
    assert!(e.message.contains("does not exist"), "{}", e.message);
}

#[test]
fn refresh_rewrites_only_an_installed_spec() {
    let dir = tempfile::tempdir().unwrap();
    let paths = Paths::new(Some(dir.path().to_path_buf()));
    let n = node(BALANCED);
    assert_eq!(refresh_installed(&paths, &n).unwrap(), None);
    assert!(!installed_path(&paths).exists());
    install(&paths, "old", &DeviceSource::default()).unwrap();
    let written = refresh_installed(&paths, &n).unwrap().unwrap();
    let text = std::fs::read_to_string(&written).unwrap();
    assert!(
        text.contains("name: 1:1") || text.contains("name: \"1:1\""),
        "{text}"
    );
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&written).unwrap().permissions().mode() & 0o777,
        0o644
    );
}

#[test]
fn a_separate_driver_root_and_hook_give_nvidia_ctks_mounts_and_hooks_and_a_refresh_keeps_them() {
    if !as_root(
        "a_separate_driver_root_and_hook_give_nvidia_ctks_mounts_and_hooks_and_a_refresh_keeps_them",
    ) {
        return;
    }
    let n = SimBackend::from_preset("t4x4").unwrap().snapshot().unwrap();
    let devices = tempfile::tempdir().unwrap();
    fake_root(devices.path(), &n, "");
    let driver = tempfile::tempdir().unwrap();
    let lib = driver.path().join("usr/lib/x86_64-linux-gnu");
    std::fs::create_dir_all(&lib).unwrap();
    let version = &n.driver_version;
    std::fs::write(lib.join(format!("libcuda.so.{version}")), "").unwrap();
    std::os::unix::fs::symlink(format!("libcuda.so.{version}"), lib.join("libcuda.so.1")).unwrap();
    let hook = driver.path().join("nvidia-cdi-hook");
    std::fs::write(&hook, "#!/bin/sh\n").unwrap();
    let source = DeviceSource {
        root: Some(devices.path().to_path_buf()),
        driver_root: Some(driver.path().to_path_buf()),
        hook: Some(hook.clone()),
        host_root: None,
        before_apply: false,
    };
    let (spec, _) = spec_for(&n, &source).unwrap();
    let edits = &spec.container_edits;
    let mounted: Vec<&str> = edits
        .mounts
        .iter()
        .map(|m| m.container_path.as_str())
        .collect();
    assert_eq!(
        mounted,
        [format!("/usr/lib/x86_64-linux-gnu/libcuda.so.{version}")],
        "the SONAME link is the hook's to make"
    );
    assert!(
        edits.mounts[0]
            .host_path
            .starts_with(&driver.path().display().to_string())
    );
    assert_eq!(
        edits.mounts[0].options,
        ["ro", "nosuid", "nodev", "rbind", "rprivate"]
    );
    let verbs: Vec<&str> = edits.hooks.iter().map(|h| h.args[1].as_str()).collect();
    assert_eq!(
        verbs,
        [
            "create-symlinks",
            "enable-cuda-compat",
            "update-ldcache",
            "disable-device-node-modification"
        ]
    );
    assert!(
        edits
            .hooks
            .iter()
            .all(|h| h.path == hook.display().to_string())
    );
    assert_eq!(
        edits.env,
        [
            "NVIDIA_CTK_LIBCUDA_DIR=/usr/lib/x86_64-linux-gnu",
            "NVIDIA_VISIBLE_DEVICES=void"
        ]
    );
    // The device nodes are the device root's.
    assert!(
        spec.devices[0].container_edits.device_nodes[0]
            .host_path
            .as_ref()
            .unwrap()
            .starts_with(&devices.path().display().to_string())
    );

    // Installed with these roots, a refresh (after a MIG change) builds from the same.
    let state = tempfile::tempdir().unwrap();
    let paths = Paths::new(Some(state.path().to_path_buf()));
    let yaml = serde_saphyr::to_string(&spec).unwrap();
    install(&paths, &yaml, &source).unwrap();
    std::fs::write(installed_path(&paths), "stale").unwrap();
    let written = refresh_installed(&paths, &n).unwrap().unwrap();
    let again: Spec = serde_saphyr::from_str(&std::fs::read_to_string(written).unwrap()).unwrap();
    assert_eq!(again, spec);

    // A hook that is not there is refused, not silently left out.
    let missing = DeviceSource {
        hook: Some(driver.path().join("nope")),
        ..source
    };
    let e = spec_for(&n, &missing).unwrap_err();
    assert!(e.message.contains("no such program"), "{}", e.message);
}

#[test]
fn a_recorded_relative_root_is_refused_by_a_refresh() {
    let state = tempfile::tempdir().unwrap();
    let paths = Paths::new(Some(state.path().to_path_buf()));
    let relative = DeviceSource {
        root: Some(PathBuf::from("dev-root")),
        ..DeviceSource::default()
    };
    install(&paths, "old", &relative).unwrap();
    let e = refresh_installed(&paths, &node(BALANCED)).unwrap_err();
    assert!(
        e.message.contains("relative path dev-root"),
        "{}",
        e.message
    );
    assert_eq!(
        std::fs::read_to_string(installed_path(&paths)).unwrap(),
        "old",
        "nothing rewritten"
    );
}
