use super::*;
use crate::node::model::PciId;
use crate::sharing::vgpu::from_config::Origin;
use std::path::Path;

fn vtype(id: u32, name: &str, fb_gb: u64, max: u32, available: u32) -> VgpuType {
    VgpuType {
        id,
        name: name.into(),
        full_name: format!("NVIDIA {name}"),
        mig_backed: TypeName::parse(name).unwrap().is_mig_backed(),
        framebuffer_mib: Some(fb_gb * 1024),
        max_instances: Some(max),
        available_instances: available,
    }
}

fn device(type_id: u32, type_name: &str, parent: &str, uuid: Option<&str>) -> VgpuDevice {
    VgpuDevice {
        type_id,
        type_name: Some(type_name.into()),
        uuid: uuid.map(str::to_string),
        vf: uuid.is_none().then(|| parent.to_string()),
        parent: parent.into(),
        driver: Some("nvidia".into()),
        iommu_group: None,
        in_use_by: Vec::new(),
    }
}

/// A T4-like GPU: mdev on the GPU itself.
fn t4() -> VgpuGpu {
    VgpuGpu {
        index: Some(0),
        name: Some("Tesla T4".into()),
        pci_bus_id: "0000:07:00.0".into(),
        pci_device_id: PciId(0x1EB810DE),
        framework: Framework::Mdev,
        driver: Some("nvidia".into()),
        sriov: None,
        parents: vec!["0000:07:00.0".into()],
        types: vec![
            vtype(223, "T4-2Q", 2, 8, 8),
            vtype(224, "T4-4Q", 4, 4, 4),
            vtype(226, "T4-16Q", 16, 1, 1),
        ],
        devices: Vec::new(),
        full_type_list: None,
    }
}

/// An L40S-like GPU: vendor VFIO on four VFs.
fn l40s() -> VgpuGpu {
    VgpuGpu {
        index: Some(1),
        name: Some("NVIDIA L40S".into()),
        pci_bus_id: "0000:41:00.0".into(),
        pci_device_id: PciId(0x26B910DE),
        framework: Framework::VendorVfio,
        driver: Some("nvidia".into()),
        sriov: Some(crate::sharing::vgpu::host::Sriov {
            total_vfs: 4,
            enabled_vfs: 4,
        }),
        parents: (4..8).map(|f| format!("0000:41:00.{f}")).collect(),
        types: vec![
            vtype(1154, "L40S-8Q", 8, 6, 4),
            vtype(1155, "L40S-12Q", 12, 4, 4),
            vtype(1156, "L40S-24Q", 24, 2, 2),
            vtype(1157, "L40S-48Q", 48, 1, 1),
        ],
        devices: Vec::new(),
        full_type_list: None,
    }
}

fn host(gpus: Vec<VgpuGpu>) -> Host {
    Host {
        sysfs_root: "/".into(),
        gpus,
        other_gpus: Vec::new(),
        in_use_known: true,
    }
}

fn at(line: usize, column: usize) -> Option<Origin> {
    Some(Origin::new(Path::new("g.toml"), line, column))
}

fn want(index: u32, types: &[(&str, u32)]) -> VgpuLayout {
    VgpuLayout {
        gpus: vec![DesiredGpu {
            index,
            types: types
                .iter()
                .enumerate()
                .map(|(i, (name, count))| DesiredType {
                    name: name.to_string(),
                    count: *count,
                    name_at: at(4, 10 * i + 1),
                    count_at: at(4, 10 * i + 5),
                })
                .collect(),
            at: at(2, 10),
        }],
    }
}

fn steps(plan: &Plan) -> Vec<String> {
    plan.gpus
        .iter()
        .flat_map(|g| &g.steps)
        .map(|s| s.describe(false, None))
        .collect()
}

#[test]
fn an_empty_gpu_gets_the_devices_created_on_it() {
    let p = plan(
        &want(0, &[("T4-4Q", 3)]),
        &host(vec![t4()]),
        VgpuPlanOptions::default(),
    )
    .unwrap();
    assert_eq!(steps(&p), vec!["create T4-4Q on 0000:07:00.0"; 3]);
    assert_eq!(
        p.gpus[0].desired,
        BTreeMap::from([("T4-4Q".to_string(), 3)])
    );
}

#[test]
fn matching_devices_are_kept_extra_removed_missing_created() {
    let mut g = t4();
    g.devices = vec![
        device(
            224,
            "T4-4Q",
            "0000:07:00.0",
            Some("aaaaaaaa-0000-0000-0000-000000000001"),
        ),
        device(
            224,
            "T4-4Q",
            "0000:07:00.0",
            Some("aaaaaaaa-0000-0000-0000-000000000002"),
        ),
        device(
            224,
            "T4-4Q",
            "0000:07:00.0",
            Some("aaaaaaaa-0000-0000-0000-000000000003"),
        ),
    ];
    let h = host(vec![g]);
    let p = plan(&want(0, &[("T4-4Q", 3)]), &h, VgpuPlanOptions::default()).unwrap();
    assert_eq!(p.step_count(), 0);
    let p = plan(&want(0, &[("T4-4Q", 1)]), &h, VgpuPlanOptions::default()).unwrap();
    assert_eq!(
        steps(&p),
        [
            "remove T4-4Q aaaaaaaa-0000-0000-0000-000000000002",
            "remove T4-4Q aaaaaaaa-0000-0000-0000-000000000003"
        ]
    );
    // Another type: everything goes first, then the new devices come.
    let p = plan(&want(0, &[("T4-2Q", 2)]), &h, VgpuPlanOptions::default()).unwrap();
    let s = steps(&p);
    assert_eq!(s.len(), 5);
    assert!(s[..3].iter().all(|s| s.starts_with("remove T4-4Q")));
    assert!(s[3..].iter().all(|s| s == "create T4-2Q on 0000:07:00.0"));
}

#[test]
fn a_device_a_vm_uses_is_kept_first_and_never_removed_unforced() {
    let mut g = t4();
    let mut busy = device(
        224,
        "T4-4Q",
        "0000:07:00.0",
        Some("bbbbbbbb-0000-0000-0000-000000000002"),
    );
    busy.in_use_by = vec![Opener {
        pid: 99,
        name: "qemu".into(),
    }];
    g.devices = vec![
        device(
            224,
            "T4-4Q",
            "0000:07:00.0",
            Some("bbbbbbbb-0000-0000-0000-000000000001"),
        ),
        busy,
    ];
    let h = host(vec![g]);
    let p = plan(&want(0, &[("T4-4Q", 1)]), &h, VgpuPlanOptions::default()).unwrap();
    assert_eq!(
        steps(&p),
        ["remove T4-4Q bbbbbbbb-0000-0000-0000-000000000001"]
    );
    let e = plan(&want(0, &[("T4-2Q", 1)]), &h, VgpuPlanOptions::default()).unwrap_err();
    assert_eq!(e.exit, crate::support::error::Exit::Failed);
    assert!(
        e.message
            .contains("bbbbbbbb-0000-0000-0000-000000000002 (used by qemu (pid 99))")
    );
    let forced = VgpuPlanOptions {
        force: true,
        ..VgpuPlanOptions::default()
    };
    let p = plan(&want(0, &[("T4-2Q", 1)]), &h, forced).unwrap();
    assert_eq!(steps(&p).len(), 3);
}

#[test]
fn vfs_carry_one_vgpu_each_and_freed_vfs_are_reused() {
    let mut g = l40s();
    g.devices = vec![device(1156, "L40S-24Q", "0000:41:00.5", None)];
    let h = host(vec![g]);
    let p = plan(&want(1, &[("L40S-12Q", 4)]), &h, VgpuPlanOptions::default()).unwrap();
    assert_eq!(
        steps(&p),
        [
            "remove L40S-24Q from 0000:41:00.5",
            "create L40S-12Q on 0000:41:00.4",
            "create L40S-12Q on 0000:41:00.5",
            "create L40S-12Q on 0000:41:00.6",
            "create L40S-12Q on 0000:41:00.7",
        ]
    );
    match &p.gpus[0].steps[1] {
        Step::SetVfType { type_id, .. } => assert_eq!(*type_id, 1155),
        other => panic!("{other:?}"),
    }
}

#[test]
fn layouts_that_do_not_fit_are_refused_at_their_count() {
    let e = plan(
        &want(0, &[("T4-4Q", 5)]),
        &host(vec![t4()]),
        VgpuPlanOptions::default(),
    )
    .unwrap_err();
    assert_eq!(e.exit, crate::support::error::Exit::Usage);
    assert_eq!(
        e.message,
        "g.toml:4:5: GPU 0 (0000:07:00.0): 5 × T4-4Q do not fit: the GPU holds at most 4"
    );
    // Six 8Q fit the framebuffer, but the GPU has four VFs.
    let e = plan(
        &want(1, &[("L40S-8Q", 6)]),
        &host(vec![l40s()]),
        VgpuPlanOptions::default(),
    )
    .unwrap_err();
    assert!(
        e.message
            .contains("each takes a virtual function and the GPU has 4"),
        "{}",
        e.message
    );
    let mixed = VgpuPlanOptions {
        heterogeneous: true,
        ..VgpuPlanOptions::default()
    };
    let e = plan(
        &want(1, &[("L40S-24Q", 1), ("L40S-12Q", 3)]),
        &host(vec![l40s()]),
        mixed,
    )
    .unwrap_err();
    assert!(
        e.message
            .contains("need 61440 MiB of framebuffer; the GPU has 49152"),
        "{}",
        e.message
    );
    assert!(
        plan(
            &want(1, &[("L40S-24Q", 1), ("L40S-12Q", 2)]),
            &host(vec![l40s()]),
            mixed
        )
        .is_ok()
    );
}

#[test]
fn forbidden_mixes_are_refused_before_anything() {
    let e = plan(
        &want(0, &[("T4-4Q", 1), ("T4-2Q", 1)]),
        &host(vec![t4()]),
        VgpuPlanOptions::default(),
    )
    .unwrap_err();
    assert!(e.message.starts_with("g.toml:4:11: "), "{}", e.message);
    assert!(e.hint.unwrap().contains("nvidia-smi vgpu -i 0 -shm 1"));
    let mut g = t4();
    g.types.push(vtype(230, "T4-1-4C", 4, 4, 4));
    let e = plan(
        &want(0, &[("T4-4Q", 1), ("T4-1-4C", 1)]),
        &host(vec![g]),
        VgpuPlanOptions::default(),
    )
    .unwrap_err();
    assert!(
        e.message
            .contains("time-sliced and MIG-backed vGPUs do not mix"),
        "{}",
        e.message
    );
}

#[test]
fn unknown_types_list_what_the_gpu_offers() {
    let mut g = t4();
    g.devices = vec![device(
        224,
        "T4-4Q",
        "0000:07:00.0",
        Some("cccccccc-0000-0000-0000-000000000001"),
    )];
    g.types[0].available_instances = 0;
    g.types[2].available_instances = 0;
    let e = plan(
        &want(0, &[("T4-3Q", 1)]),
        &host(vec![g]),
        VgpuPlanOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        e.message,
        "g.toml:4:1: GPU 0 (0000:07:00.0) has no vGPU type `T4-3Q`"
    );
    assert_eq!(
        e.hint.unwrap(),
        "creatable now: T4-4Q; all types of this GPU: T4-2Q, T4-4Q, T4-16Q"
    );
}

#[test]
fn a_mig_suffix_the_host_lacks_falls_back_to_the_plain_type() {
    let mut g = t4();
    g.types = vec![vtype(700, "A100-1-5C", 5, 7, 7)];
    let p = plan(
        &want(0, &[("A100-1-5CME", 2)]),
        &host(vec![g]),
        VgpuPlanOptions::default(),
    )
    .unwrap();
    assert_eq!(steps(&p), vec!["create A100-1-5C on 0000:07:00.0"; 2]);
}

#[test]
fn a_gpu_without_vfs_waits_for_sriov() {
    let mut g = l40s();
    g.framework = Framework::SriovDisabled;
    g.parents.clear();
    g.types.clear();
    let h = host(vec![g]);
    let p = plan(&want(1, &[("L40S-12Q", 2)]), &h, VgpuPlanOptions::default()).unwrap();
    assert_eq!(steps(&p), ["enable SR-IOV on 0000:41:00.0"]);
    // Nothing wanted there: nothing to enable.
    let none = plan(&want(1, &[]), &h, VgpuPlanOptions::default()).unwrap();
    assert_eq!(none.step_count(), 0);
}

#[test]
fn a_gpu_that_cannot_carry_vgpus_is_named_with_its_entry() {
    let e = plan(
        &want(5, &[("T4-4Q", 1)]),
        &host(vec![t4()]),
        VgpuPlanOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        e.message,
        "g.toml:2:10: GPU 5 cannot carry vGPUs on this host"
    );
    assert!(e.hint.unwrap().contains("GPU 0 (0000:07:00.0)"));
}
