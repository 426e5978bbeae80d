//! Hostile device and driver trees: whatever the links under a root, a spec either names only
//! real paths inside the root, of the kind they stand for, or is refused naming the path.

use super::tests::char_device;
use super::*;
use crate::node::backend::Backend;
use crate::node::backend::sim::SimBackend;
use proptest::prelude::*;
use std::os::unix::fs::symlink;

const VERSION: &str = "580.105.08";

fn node() -> Node {
    let mut n = SimBackend::from_preset("t4x4").unwrap().snapshot().unwrap();
    n.driver_version = VERSION.into();
    n
}

/// A sound root: four GPUs, nvidiactl, one library and its SONAME link, nvidia-smi, a firmware
/// blob, the ICD file and the persistenced socket; plus the host-like files a link may aim at.
fn sound_root(dir: &Path) {
    let dev = dir.join("dev");
    std::fs::create_dir_all(&dev).unwrap();
    for g in 0..4 {
        char_device(&dev.join(format!("nvidia{g}")), 195, g);
    }
    char_device(&dev.join("nvidiactl"), 195, 255);
    char_device(&dev.join("null"), 1, 3);
    let lib = dir.join("usr/lib/x86_64-linux-gnu");
    std::fs::create_dir_all(&lib).unwrap();
    std::fs::write(lib.join(format!("libcuda.so.{VERSION}")), "").unwrap();
    symlink(format!("libcuda.so.{VERSION}"), lib.join("libcuda.so.1")).unwrap();
    std::fs::create_dir_all(dir.join("usr/bin")).unwrap();
    std::fs::write(dir.join("usr/bin/nvidia-smi"), "").unwrap();
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    std::fs::write(dir.join("bin/sh"), "").unwrap();
    std::fs::create_dir_all(dir.join("etc/vulkan/icd.d")).unwrap();
    std::fs::write(dir.join("etc/shadow"), "").unwrap();
    std::fs::write(dir.join("etc/vulkan/icd.d/nvidia_icd.json"), "{}").unwrap();
    let fw = dir.join(format!("lib/firmware/nvidia/{VERSION}"));
    std::fs::create_dir_all(&fw).unwrap();
    std::fs::write(fw.join("gsp_ga10x.bin"), "").unwrap();
    std::fs::create_dir_all(dir.join("run/nvidia-persistenced")).unwrap();
    std::os::unix::net::UnixListener::bind(dir.join("run/nvidia-persistenced/socket")).unwrap();
}

fn source(root: &Path) -> DeviceSource {
    DeviceSource {
        root: Some(root.to_path_buf()),
        ..DeviceSource::default()
    }
}

/// Every host path the spec names: inside the root, and the path itself, no link in it.
fn confined(spec: &Spec, root: &Path) -> std::result::Result<(), String> {
    let root = std::fs::canonicalize(root).unwrap();
    let nodes = spec
        .devices
        .iter()
        .flat_map(|d| &d.container_edits.device_nodes)
        .chain(&spec.container_edits.device_nodes)
        .filter_map(|n| n.host_path.as_deref());
    let mounts = spec
        .container_edits
        .mounts
        .iter()
        .map(|m| m.host_path.as_str());
    for host in nodes.chain(mounts) {
        let real = std::fs::canonicalize(host).map_err(|e| format!("{host}: {e}"))?;
        if real != Path::new(host) || !real.starts_with(&root) {
            return Err(format!(
                "{host} is {} (root {})",
                real.display(),
                root.display()
            ));
        }
    }
    for n in spec
        .devices
        .iter()
        .flat_map(|d| &d.container_edits.device_nodes)
    {
        if n.path.starts_with("/dev/nvidia") && !n.path.contains("caps") && n.major != Some(195) {
            return Err(format!("{} has major {:?}", n.path, n.major));
        }
    }
    Ok(())
}

/// The entries a hostile tree may replace by a link, as the root's system names them.
const ENTRIES: [&str; 9] = [
    "/usr/lib/x86_64-linux-gnu/libcuda.so.580.105.08",
    "/usr/lib/x86_64-linux-gnu",
    "/usr/bin/nvidia-smi",
    "/lib/firmware/nvidia/580.105.08",
    "/lib/firmware/nvidia/580.105.08/gsp_ga10x.bin",
    "/etc/vulkan/icd.d/nvidia_icd.json",
    "/run/nvidia-persistenced/socket",
    "/dev/nvidia1",
    "/dev/nvidiactl",
];

/// What a link may aim at: files of the host (and, inside the root, of the root's own).
const TARGETS: [&str; 7] = [
    "etc/shadow",
    "bin/sh",
    "dev/null",
    "usr/lib",
    "etc",
    "nonexistent/file",
    "proc/self/root/etc/shadow",
];

fn link_target(up: usize, absolute: bool, target: &str) -> String {
    if absolute {
        format!("/{target}")
    } else {
        format!("{}{target}", "../".repeat(up))
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Any entry replaced by a link of any shape: the spec stays inside the root or is refused
    /// naming the entry.
    #[test]
    fn a_link_anywhere_never_leads_out_of_the_root(
        entry in 0..ENTRIES.len(),
        up in 0usize..12,
        absolute in any::<bool>(),
        target in 0..TARGETS.len(),
    ) {
        if !super::tests::as_root("a_link_anywhere_never_leads_out_of_the_root") {
            return Ok(());
        }
        let dir = tempfile::tempdir().unwrap();
        sound_root(dir.path());
        let inner = ENTRIES[entry];
        let at = dir.path().join(inner.trim_start_matches('/'));
        if at.is_dir() {
            std::fs::remove_dir_all(&at).unwrap();
        } else {
            std::fs::remove_file(&at).unwrap();
        }
        symlink(link_target(up, absolute, TARGETS[target]), &at).unwrap();
        match spec_for(&node(), &source(dir.path())) {
            Ok((spec, _)) => prop_assert_eq!(confined(&spec, dir.path()), Ok(())),
            Err(e) => {
                let text = format!("{} {}", e.message, e.hint.unwrap_or_default());
                let named = text.contains(inner)
                    || ["libcuda", "x86_64-linux-gnu", "firmware"].iter().any(|w| inner.contains(w) && text.contains(w));
                prop_assert!(named, "{} not named: {}", inner, text);
            }
        }
    }
}

#[test]
fn device_nodes_must_be_the_drivers_character_devices() {
    if !super::tests::as_root("device_nodes_must_be_the_drivers_character_devices") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    sound_root(dir.path());
    let (spec, _) = spec_for(&node(), &source(dir.path())).unwrap();
    assert_eq!(confined(&spec, dir.path()), Ok(()));
    let gpu1 = dir.path().join("dev/nvidia1");
    type Plant = fn(&Path);
    let planted: [(&str, Plant, &str); 6] = [
        (
            "a regular file",
            |p| std::fs::write(p, "").unwrap(),
            "a regular file",
        ),
        (
            "a directory",
            |p| std::fs::create_dir(p).unwrap(),
            "a directory",
        ),
        (
            "a FIFO",
            |p| {
                let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
                // SAFETY: mkfifo(3) with a NUL-terminated path.
                assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
            },
            "a FIFO",
        ),
        (
            "a link to /dev/null",
            |p| symlink("/dev/null", p).unwrap(),
            "1:3",
        ),
        (
            "a link up to dev/null",
            |p| symlink("../../../../../../dev/null", p).unwrap(),
            "1:3",
        ),
        ("another device", |p| char_device(p, 8, 0), "8:0"),
    ];
    for (what, plant, said) in planted {
        std::fs::remove_file(&gpu1)
            .or_else(|_| std::fs::remove_dir(&gpu1))
            .unwrap();
        plant(&gpu1);
        let e = spec_for(&node(), &source(dir.path())).unwrap_err();
        assert!(
            e.message.contains("dev/nvidia1") && e.message.contains(said),
            "{what}: {}",
            e.message
        );
    }
    std::fs::remove_file(&gpu1).unwrap();
    char_device(&gpu1, 195, 1);
    // A dangling nvidiactl is an error, not a smaller spec; so is none at all.
    let ctl = dir.path().join("dev/nvidiactl");
    std::fs::remove_file(&ctl).unwrap();
    symlink("/dev/nvidiactl-gone", &ctl).unwrap();
    let e = spec_for(&node(), &source(dir.path())).unwrap_err();
    assert!(
        e.message.contains("nvidiactl") && e.message.contains("leads to nothing"),
        "{}",
        e.message
    );
    std::fs::remove_file(&ctl).unwrap();
    let e = spec_for(&node(), &source(dir.path())).unwrap_err();
    assert!(
        e.message.contains("nvidiactl") && e.message.contains("does not exist"),
        "{}",
        e.message
    );
}

#[test]
fn a_library_linked_to_a_host_file_is_mounted_from_inside_the_root_or_refused() {
    if !super::tests::as_root(
        "a_library_linked_to_a_host_file_is_mounted_from_inside_the_root_or_refused",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    sound_root(dir.path());
    let lib = dir.path().join("usr/lib/x86_64-linux-gnu");
    let name = format!("libnvidia-ml.so.{VERSION}");
    // The root has its own etc/shadow: the link means that one, never the host's.
    symlink("/etc/shadow", lib.join(&name)).unwrap();
    let (spec, _) = spec_for(&node(), &source(dir.path())).unwrap();
    let m = spec
        .container_edits
        .mounts
        .iter()
        .find(|m| m.container_path.ends_with(&name))
        .unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    assert_eq!(m.host_path, root.join("etc/shadow").display().to_string());
    // Without it, the link leads to nothing and is refused by name.
    std::fs::remove_file(dir.path().join("etc/shadow")).unwrap();
    let e = spec_for(&node(), &source(dir.path())).unwrap_err();
    assert!(
        e.message.contains(&name) && e.message.contains("/etc/shadow"),
        "{}",
        e.message
    );
}

#[test]
fn a_relative_root_gives_absolute_paths() {
    if !super::tests::as_root("a_relative_root_gives_absolute_paths") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    sound_root(dir.path());
    let cwd = std::env::current_dir().unwrap();
    let relative: PathBuf = cwd
        .components()
        .skip(1)
        .map(|_| "..")
        .collect::<PathBuf>()
        .join(dir.path().strip_prefix("/").unwrap());
    let (spec, _) = spec_for(&node(), &source(&relative)).unwrap();
    let hosts: Vec<&str> = spec
        .container_edits
        .mounts
        .iter()
        .map(|m| m.host_path.as_str())
        .chain(
            spec.devices[0]
                .container_edits
                .device_nodes
                .iter()
                .filter_map(|n| n.host_path.as_deref()),
        )
        .collect();
    assert!(!hosts.is_empty());
    assert!(hosts.iter().all(|h| h.starts_with('/')), "{hosts:?}");
}

#[test]
fn hostile_library_names_are_escaped_or_refused() {
    if !super::tests::as_root("hostile_library_names_are_escaped_or_refused") {
        return;
    }
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    sound_root(dir.path());
    let lib = dir.path().join("usr/lib/x86_64-linux-gnu");
    let bidi = format!("libgpj\u{202e}exe.so.{VERSION}");
    std::fs::write(lib.join(&bidi), "").unwrap();
    let (spec, _) = spec_for(&node(), &source(dir.path())).unwrap();
    let yaml = crate::support::output::to_safe_yaml(&spec).unwrap();
    assert!(
        !yaml.contains('\u{202e}') && yaml.contains("\\u202e"),
        "{yaml}"
    );
    let back: Spec = serde_saphyr::from_str(&yaml).unwrap();
    assert_eq!(back, spec, "the escape reads back as the same name");
    let mut raw = b"libbad\xff".to_vec();
    raw.extend_from_slice(format!(".so.{VERSION}").as_bytes());
    std::fs::write(lib.join(std::ffi::OsStr::from_bytes(&raw)), "").unwrap();
    let e = spec_for(&node(), &source(dir.path())).unwrap_err();
    assert!(
        e.message.contains("libbad\\xff") && e.message.contains("not UTF-8"),
        "{}",
        e.message
    );
}
