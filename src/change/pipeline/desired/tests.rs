//! The desired state of each source, checked against simulated nodes: every mode at once, errors
//! in place.

use super::*;
use crate::node::backend::Backend;
use crate::node::backend::sim::SimBackend;
use crate::support::error::Exit;
use crate::support::source_file::SourceFile;

fn check(preset: &str, text: &str) -> Result<(Desired, Node)> {
    let sim = SimBackend::from_preset(preset).unwrap();
    let node = sim.snapshot().unwrap();
    let book = ProfileBook::load(&sim, &node);
    let config = Config::parse(SourceFile::inline("gpushare.toml", text))?;
    let d = Desired::check(config, &node, &book)?;
    Ok((d, node))
}

fn error(preset: &str, text: &str) -> String {
    let e = check(preset, text).expect_err("should fail");
    assert_eq!(e.exit, Exit::Usage, "{}", e.message);
    e.message
}

#[test]
fn every_mode_is_checked_before_anything_changes() {
    let (d, _) = check(
        "mixed",
        "[[gpus]]\nselect = [0, 1]\nmode = \"mig\"\nmig.devices = { \"3g.40gb\" = 2 }\nmig.mps = { clients = 2 }\n\
         [[gpus]]\nselect = [2]\nmode = \"mps\"\nmps.clients = 4\n\
         [[gpus]]\nselect = [3]\nmode = \"time-slicing\"\ntime_slicing.replicas = 4\n\
         [kubernetes]\ntargets = [\"nvidia-device-plugin\"]\n",
    )
    .unwrap();
    assert_eq!(d.mig.len(), 2);
    assert!(d.wants_mps());
    assert!(!d.wants_vgpu());
    let (d, _) = check(
        "t4x4",
        "[[gpus]]\nselect = \"all\"\nmode = \"time-slicing\"\ntime_slicing.replicas = 2\n",
    )
    .unwrap();
    assert!(!d.wants_mps());
    assert!(d.mps.touched(), "the file decides the compute modes");
}

#[test]
fn the_kubernetes_section_is_checked_in_place() {
    let file =
        |body: &str| format!("[[gpus]]\nselect = [0]\nmode = \"none\"\n\n[kubernetes]\n{body}\n");
    let e = error("t4x4", &file("namespace = \"Bad_NS\""));
    assert!(
        e.starts_with("gpushare.toml:6:13: namespace \"Bad_NS\" is not a valid"),
        "{e}"
    );
    let e = error("t4x4", &file("version = \"1.99\""));
    assert!(e.starts_with("gpushare.toml:6:11: Kubernetes 1.99"), "{e}");
    let e = error("t4x4", &file("targets = [\"bogus\"]"));
    assert!(e.starts_with("gpushare.toml:6:12:"), "{e}");
}

#[test]
fn bad_files_name_the_place_and_the_value() {
    // A GPU that does not exist.
    assert!(
        error(
            "t4x4",
            "[[gpus]]\nselect = [7]\nmode = \"mps\"\nmps.clients = 2\n"
        )
        .starts_with("gpushare.toml:2:10: GPU 7 does not exist")
    );
    // MIG on a T4.
    assert!(
        error(
            "t4x4",
            "[[gpus]]\nselect = [1]\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 1 }\n"
        )
        .contains("cannot set MIG mode on non MIG-capable GPU")
    );
    // MPS and time-slicing on the same GPU.
    let m = error(
        "t4x4",
        "[[gpus]]\nselect = [0, 1]\nmode = \"mps\"\nmps.clients = 2\n\
         [[gpus]]\nselect = [1]\nmode = \"time-slicing\"\ntime_slicing.replicas = 2\n",
    );
    assert!(
        m.starts_with("gpushare.toml:6:10: GPU 1 is already configured by the entry at line 1"),
        "{m}"
    );
    // MPS on MIG devices that do not exist yet is checked against the profile.
    let m = error(
        "dgx-a100",
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 7 }\nmig.mps = { clients = 40 }\n",
    );
    assert!(
        m.starts_with("gpushare.toml:5:23: mig.mps.clients = 40"),
        "{m}"
    );
    // An unknown Kubernetes target.
    let m = error(
        "t4x4",
        "[[gpus]]\nselect = \"all\"\nmode = \"none\"\n[kubernetes]\ntargets = [\"helm\"]\n",
    );
    assert!(
        m.starts_with("gpushare.toml:5:12: unknown target `helm`"),
        "{m}"
    );
}
