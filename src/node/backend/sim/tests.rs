//! The simulator's driver semantics: the rules every MIG/MPS test relies on.

use super::*;
use crate::node::backend::{DriverErrorKind as K, ModeChange};
use crate::node::model::{HolderKind, Process};

fn a100() -> SimBackend {
    SimBackend::from_preset("dgx-a100").unwrap()
}

fn enabled_a100() -> SimBackend {
    let sim = a100();
    assert_eq!(
        sim.set_mig_mode(0, MigMode::Enabled).unwrap(),
        ModeChange::Applied
    );
    sim
}

fn place(start: u32, size: u32) -> Placement {
    Placement { start, size }
}

// A100-40GB profile ids as nvidia-smi shows them.
const P1G5: u32 = 19;
const P2G10: u32 = 14;
const P3G20: u32 = 9;
const P7G40: u32 = 0;

#[test]
fn every_preset_builds_and_snapshots() {
    for name in node_file::preset_names() {
        let sim = SimBackend::from_preset(&name).unwrap();
        let node = sim.snapshot().unwrap();
        assert!(!node.gpus.is_empty(), "{name}");
        let uuids: std::collections::BTreeSet<_> = node.gpus.iter().map(|g| &g.uuid).collect();
        assert_eq!(uuids.len(), node.gpus.len(), "{name}: distinct UUIDs");
        assert_eq!(node.source, format!("sim:{name}"));
    }
}

#[test]
fn mig_mode_applies_at_once_on_an_idle_gpu() {
    let sim = enabled_a100();
    let gpu = &sim.snapshot().unwrap().gpus[0];
    assert!(gpu.mig.current.is_enabled() && gpu.mig.pending.is_enabled());
}

#[test]
fn mig_mode_waits_for_a_reset_on_a_busy_gpu_and_reset_refuses_while_busy() {
    let mut sim = a100();
    sim.state_mut().gpus[0].processes.push(Process {
        pid: 7,
        name: "python".into(),
        used_memory_mib: Some(100),
        gpu_instance_id: None,
        compute_instance_id: None,
        kind: Default::default(),
        owner: None,
    });
    assert_eq!(
        sim.set_mig_mode(0, MigMode::Enabled).unwrap(),
        ModeChange::PendingReset
    );
    let gpu = sim.snapshot().unwrap().gpus[0].clone();
    assert_eq!(
        (gpu.mig.current, gpu.mig.pending),
        (MigMode::Disabled, MigMode::Enabled)
    );
    let e = sim.reset_gpus(&[0]).unwrap_err();
    assert_eq!(e.kind, K::InUse);
    assert!(e.detail.contains("pid 7 (python)"), "{e}");
    sim.state_mut().gpus[0].processes.clear();
    sim.reset_gpus(&[0]).unwrap();
    assert!(sim.snapshot().unwrap().gpus[0].mig.current.is_enabled());
}

#[test]
fn holders_block_resets_and_delay_mode_changes() {
    let mut sim = a100();
    sim.state_mut().holders.push(crate::node::model::Holder {
        unit: None,
        name: "nvidia_drm".into(),
        kind: HolderKind::Module,
        pid: None,
    });
    assert_eq!(
        sim.set_mig_mode(1, MigMode::Enabled).unwrap(),
        ModeChange::PendingReset
    );
    let e = sim.reset_gpus(&[1]).unwrap_err();
    assert!(e.detail.contains("kernel module nvidia_drm"), "{e}");
}

#[test]
fn mig_is_not_supported_on_a_t4() {
    let sim = SimBackend::from_preset("t4x4").unwrap();
    assert_eq!(
        sim.set_mig_mode(0, MigMode::Enabled).unwrap_err().kind,
        K::NotSupported
    );
    assert_eq!(
        sim.gpu_instance_profiles(0).unwrap_err().kind,
        K::NotSupported
    );
}

#[test]
fn instances_need_mig_enabled() {
    let sim = a100();
    let e = sim.create_gpu_instance(0, P1G5, place(0, 1)).unwrap_err();
    assert_eq!(e.kind, K::NotSupported);
}

#[test]
fn gpu_instances_get_the_drivers_slot_ids() {
    let sim = enabled_a100();
    assert_eq!(sim.create_gpu_instance(0, P3G20, place(4, 4)).unwrap(), 2);
    assert_eq!(sim.create_gpu_instance(0, P2G10, place(0, 2)).unwrap(), 3);
    assert_eq!(sim.create_gpu_instance(0, P1G5, place(3, 1)).unwrap(), 10);
}

#[test]
fn invalid_placements_and_overlaps_are_refused() {
    let sim = enabled_a100();
    let e = sim.create_gpu_instance(0, P3G20, place(2, 4)).unwrap_err();
    assert_eq!(e.kind, K::InvalidArgument);
    assert!(e.detail.contains("{0,4}:4"), "{e}");
    sim.create_gpu_instance(0, P3G20, place(0, 4)).unwrap();
    let e = sim.create_gpu_instance(0, P2G10, place(2, 2)).unwrap_err();
    assert_eq!(e.kind, K::InsufficientResources);
    assert!(e.detail.contains("overlaps"), "{e}");
    assert_eq!(
        sim.create_gpu_instance(0, 12345, place(0, 1))
            .unwrap_err()
            .kind,
        K::InvalidArgument
    );
}

#[test]
fn max_instances_and_compute_slices_hold() {
    let sim = enabled_a100();
    for start in 0..7 {
        sim.create_gpu_instance(0, P1G5, place(start, 1)).unwrap();
    }
    // Slice 7 is memory-only: no 8th 1g instance.
    assert_eq!(
        sim.gpu_instance_profiles(0).unwrap().listed().unwrap()[0].free_instances,
        0
    );
    let sim = enabled_a100();
    sim.create_gpu_instance(0, P3G20, place(0, 4)).unwrap();
    sim.create_gpu_instance(0, P3G20, place(4, 4)).unwrap();
    let e = sim.create_gpu_instance(0, P3G20, place(0, 4)).unwrap_err();
    assert_eq!(e.kind, K::InsufficientResources);
    let sim = enabled_a100();
    sim.create_gpu_instance(0, P7G40, place(0, 8)).unwrap();
    assert!(
        sim.gpu_instance_profiles(0)
            .unwrap()
            .listed()
            .unwrap()
            .iter()
            .all(|p| p.free_instances == 0)
    );
}

#[test]
fn free_counts_follow_occupancy() {
    let sim = enabled_a100();
    let free = |sim: &SimBackend, name: &str| {
        sim.gpu_instance_profiles(0)
            .unwrap()
            .listed()
            .unwrap()
            .into_iter()
            .find(|p| p.profile.name == name)
            .unwrap()
            .free_instances
    };
    assert_eq!(free(&sim, "1g.5gb"), 7);
    assert_eq!(free(&sim, "3g.20gb"), 2);
    sim.create_gpu_instance(0, P3G20, place(4, 4)).unwrap();
    assert_eq!(free(&sim, "1g.5gb"), 4);
    assert_eq!(free(&sim, "3g.20gb"), 1);
    assert_eq!(free(&sim, "7g.40gb"), 0);
}

#[test]
fn compute_instances_fill_their_gpu_instance_and_get_new_uuids() {
    let sim = enabled_a100();
    let gi = sim.create_gpu_instance(0, P3G20, place(0, 4)).unwrap();
    let profiles = sim.compute_instance_profiles(0, gi).unwrap();
    let one = profiles.iter().find(|p| p.name == "1c.3g.20gb").unwrap().id;
    for expected in 0..3 {
        assert_eq!(sim.create_compute_instance(0, gi, one).unwrap(), expected);
    }
    assert_eq!(
        sim.create_compute_instance(0, gi, one).unwrap_err().kind,
        K::InsufficientResources
    );
    let before = sim.snapshot().unwrap().gpus[0]
        .mig
        .instances
        .as_ref()
        .unwrap()[0]
        .compute_instances[1]
        .uuid
        .clone();
    sim.destroy_compute_instance(0, gi, 1).unwrap();
    assert_eq!(sim.create_compute_instance(0, gi, one).unwrap(), 1);
    let after = sim.snapshot().unwrap().gpus[0]
        .mig
        .instances
        .as_ref()
        .unwrap()[0]
        .compute_instances[1]
        .uuid
        .clone();
    assert!(
        before.as_deref().is_some_and(|u| u.starts_with("MIG-")) && before != after,
        "a re-created instance gets a new UUID"
    );
}

#[test]
fn nothing_in_use_is_destroyed() {
    let mut sim = enabled_a100();
    let gi = sim.create_gpu_instance(0, P2G10, place(0, 2)).unwrap();
    let full = sim
        .compute_instance_profiles(0, gi)
        .unwrap()
        .last()
        .unwrap()
        .id;
    let ci = sim.create_compute_instance(0, gi, full).unwrap();
    let e = sim.destroy_gpu_instance(0, gi).unwrap_err();
    assert_eq!(
        e.kind,
        K::InUse,
        "a GPU instance with compute instances is in use"
    );
    sim.state_mut().gpus[0].processes.push(Process {
        pid: 99,
        name: "trainer".into(),
        used_memory_mib: Some(10),
        gpu_instance_id: Some(gi),
        compute_instance_id: Some(ci),
        kind: Default::default(),
        owner: None,
    });
    let e = sim.destroy_compute_instance(0, gi, ci).unwrap_err();
    assert_eq!(e.kind, K::InUse);
    assert!(e.detail.contains("pid 99 (trainer)"));
    let e = sim.set_mig_mode(0, MigMode::Disabled).unwrap_err();
    assert_eq!(e.kind, K::InUse);
}

#[test]
fn compute_mode_is_per_mig_device_when_mig_is_on() {
    let sim = enabled_a100();
    let e = sim
        .set_compute_mode(DeviceRef::Gpu(0), ComputeMode::ExclusiveProcess)
        .unwrap_err();
    assert_eq!(e.kind, K::NotSupported);
    let gi = sim.create_gpu_instance(0, P7G40, place(0, 8)).unwrap();
    let full = sim
        .compute_instance_profiles(0, gi)
        .unwrap()
        .last()
        .unwrap()
        .id;
    let ci = sim.create_compute_instance(0, gi, full).unwrap();
    let dev = DeviceRef::Mig {
        gpu: 0,
        gpu_instance_id: gi,
        compute_instance_id: ci,
    };
    sim.set_compute_mode(dev, ComputeMode::ExclusiveProcess)
        .unwrap();
    let node = sim.snapshot().unwrap();
    assert_eq!(
        node.gpus[0].mig.instances.as_ref().unwrap()[0].compute_instances[0].compute_mode,
        Some(ComputeMode::ExclusiveProcess)
    );
    sim.set_compute_mode(DeviceRef::Gpu(1), ComputeMode::ExclusiveProcess)
        .unwrap();
    assert_eq!(
        sim.snapshot().unwrap().gpus[1].compute_mode,
        Some(ComputeMode::ExclusiveProcess)
    );
}

#[test]
fn a_reset_clears_instances_and_applies_the_pending_mode() {
    let sim = enabled_a100();
    sim.create_gpu_instance(0, P1G5, place(0, 1)).unwrap();
    sim.reset_gpus(&[0]).unwrap();
    assert!(
        sim.snapshot().unwrap().gpus[0]
            .mig
            .instances
            .as_ref()
            .unwrap()
            .is_empty()
    );
}

#[test]
fn changes_persist_in_the_state_file_and_faults_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.json");
    let sim = SimBackend::open(Some("dgx-a100"), Some(&path)).unwrap();
    sim.set_mig_mode(2, MigMode::Enabled).unwrap();
    sim.create_gpu_instance(2, P3G20, place(4, 4)).unwrap();
    let reopened = SimBackend::open(None, Some(&path)).unwrap();
    assert_eq!(reopened.snapshot().unwrap(), sim.snapshot().unwrap());

    let mut sim = SimBackend::open(Some("dgx-a100"), Some(&path)).unwrap();
    sim.faults = faults::Faults::parse("create_gpu_instance:1").unwrap();
    let e = sim.create_gpu_instance(2, P1G5, place(0, 1)).unwrap_err();
    assert!(e.detail.contains("injected"));
    let reopened = SimBackend::open(None, Some(&path)).unwrap();
    assert_eq!(
        reopened.snapshot().unwrap().gpus[2]
            .mig
            .instances
            .as_ref()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn a_state_file_of_another_node_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.json");
    SimBackend::open(Some("dgx-a100"), Some(&path)).unwrap();
    let e = SimBackend::open(Some("t4x4"), Some(&path)).err().unwrap();
    assert!(
        e.message.contains("holds the simulated node `dgx-a100`"),
        "{}",
        e.message
    );
    std::fs::write(&path, "{ not json").unwrap();
    let e = SimBackend::open(None, Some(&path)).err().unwrap();
    assert_eq!(e.exit, crate::support::error::Exit::Usage);
    assert!(e.message.contains("state.json:1:"), "{}", e.message);
}

#[test]
fn a_gpu_that_cannot_be_reset_waits_for_a_reboot() {
    let text = "[[gpus]]\nmodel = \"NVIDIA A100-SXM4-40GB\"\nreset = false\n";
    let state = node_file::from_file(&crate::support::source_file::SourceFile::inline(
        "vm.toml", text,
    ))
    .unwrap();
    let sim = SimBackend::from_state(state);
    assert_eq!(
        sim.set_mig_mode(0, MigMode::Enabled).unwrap(),
        ModeChange::PendingReboot
    );
    let e = sim.reset_gpus(&[0]).unwrap_err();
    assert_eq!(e.kind, K::NotSupported);
    assert!(e.detail.contains("reboot"), "{e}");
    sim.reboot().unwrap();
    let gpu = &sim.snapshot().unwrap().gpus[0];
    assert_eq!(
        (gpu.mig.current, gpu.mig.pending),
        (MigMode::Enabled, MigMode::Enabled)
    );
}

#[test]
fn a_reboot_applies_pending_modes_and_clears_instances_and_processes() {
    let mut sim = enabled_a100();
    let gi = sim.create_gpu_instance(0, P3G20, place(0, 4)).unwrap();
    sim.create_compute_instance(0, gi, 2).unwrap();
    sim.state_mut().gpus[1].processes.push(Process {
        pid: 9,
        name: "x".into(),
        used_memory_mib: Some(1),
        gpu_instance_id: None,
        compute_instance_id: None,
        kind: Default::default(),
        owner: None,
    });
    assert_eq!(
        sim.set_mig_mode(1, MigMode::Enabled).unwrap(),
        ModeChange::PendingReset
    );
    sim.reboot().unwrap();
    let node = sim.snapshot().unwrap();
    assert!(
        node.gpus[0].mig.current.is_enabled(),
        "MIG mode survives a reboot"
    );
    assert!(
        node.gpus[0].mig.instances.as_ref().unwrap().is_empty(),
        "instances do not"
    );
    assert!(
        node.gpus[1].mig.current.is_enabled()
            && node.gpus[1].processes.as_ref().unwrap().is_empty()
    );
}

#[test]
fn state_files_without_the_reset_field_still_load() {
    let sim = a100();
    let mut json: serde_json::Value = serde_json::to_value(sim.state()).unwrap();
    for g in json["gpus"].as_array_mut().unwrap() {
        g.as_object_mut().unwrap().remove("reset_supported");
    }
    let back: SimState = serde_json::from_value(json).unwrap();
    assert!(back.gpus.iter().all(|g| g.reset_supported));
}

#[test]
fn a_gpu_instances_used_memory_is_its_processes_and_unknown_with_one_unknown() {
    let mut sim = enabled_a100();
    let used = |sim: &SimBackend| {
        sim.snapshot().unwrap().gpus[0]
            .mig
            .instances
            .clone()
            .unwrap()[0]
            .memory_used_mib
    };
    let gi = sim.create_gpu_instance(0, P7G40, place(0, 8)).unwrap();
    // No compute instance, no MIG device to ask.
    assert_eq!(used(&sim), None);
    let full = sim
        .compute_instance_profiles(0, gi)
        .unwrap()
        .last()
        .unwrap()
        .id;
    let ci = sim.create_compute_instance(0, gi, full).unwrap();
    assert_eq!(used(&sim), Some(0));
    let process = |pid: u32, used_memory_mib: Option<u64>| Process {
        pid,
        name: "trainer".into(),
        used_memory_mib,
        gpu_instance_id: Some(gi),
        compute_instance_id: Some(ci),
        kind: Default::default(),
        owner: None,
    };
    sim.state_mut().gpus[0].processes.push(process(1, Some(10)));
    sim.state_mut().gpus[0].processes.push(process(2, Some(20)));
    assert_eq!(used(&sim), Some(30));
    sim.state_mut().gpus[0].processes.push(process(3, None));
    assert_eq!(
        used(&sim),
        None,
        "one unknown makes the sum unknown, not a smaller number"
    );
}

#[test]
fn events_are_numbered_kept_in_the_state_file_and_bounded() {
    use super::events::{EVENT_LIMIT, EventKind};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.json");
    let sim = SimBackend::open(Some("dgx-a100"), Some(&path)).unwrap();
    sim.raise_event(2, EventKind::Xid, 79, None).unwrap();
    sim.raise_event(3, EventKind::EccDoubleBit, 0, None)
        .unwrap();
    // Another process serving the file sees them, in order.
    let other = SimBackend::open(None, Some(&path)).unwrap();
    let seen: Vec<(u64, u32, u64)> = other
        .state()
        .events
        .iter()
        .map(|e| (e.seq, e.gpu, e.xid))
        .collect();
    assert_eq!(seen, [(1, 2, 79), (2, 3, 0)]);
    // A GPU or MIG device that is not there raises nothing.
    assert_eq!(
        sim.raise_event(9, EventKind::Xid, 79, None)
            .unwrap_err()
            .kind,
        K::InvalidArgument
    );
    sim.set_mig_mode(1, MigMode::Enabled).unwrap();
    let e = sim
        .raise_event(1, EventKind::Xid, 94, Some((1, 0)))
        .unwrap_err();
    assert_eq!(e.kind, K::NotFound, "{e:?}");
    let gi = sim.create_gpu_instance(1, P1G5, place(0, 1)).unwrap();
    let ci = sim.create_compute_instance(1, gi, 0).unwrap();
    sim.raise_event(1, EventKind::Xid, 94, Some((gi, ci)))
        .unwrap();
    for _ in 0..EVENT_LIMIT {
        sim.raise_event(0, EventKind::EccSingleBit, 0, None)
            .unwrap();
    }
    let kept = SimBackend::open(None, Some(&path)).unwrap().state().events;
    assert_eq!(kept.len(), EVENT_LIMIT);
    assert_eq!(kept.last().unwrap().seq, 3 + EVENT_LIMIT as u64);
}
