//! `gpushare vgpu` on fake vGPU hosts: sysfs trees shaped like the real layouts, the fake kernel
//! answering writes as the driver does, and a stand-in sriov-manage.

use crate::common;
use common::vgpu_host::*;
use common::*;
use serde_json::Value;
use std::collections::BTreeMap;

fn gpushare_toml(host: &FakeHost, body: &str) -> String {
    host.file("gpushare.toml", body).display().to_string()
}

/// Type → count of each GPU's devices, from `vgpu status --format json`.
fn layout(host: &FakeHost) -> Vec<BTreeMap<String, u32>> {
    let v = json(&mut host.vgpu(&["status"]));
    v["gpus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let mut m = BTreeMap::new();
            for d in g["devices"].as_array().unwrap() {
                let name = d["type_name"]
                    .as_str()
                    .map_or_else(|| format!("type {}", d["type_id"]), str::to_string);
                *m.entry(name).or_insert(0) += 1;
            }
            m
        })
        .collect()
}

fn of(pairs: &[(&str, u32)]) -> BTreeMap<String, u32> {
    pairs.iter().map(|(t, n)| (t.to_string(), *n)).collect()
}

/// The changes a run made, from its plan (the JSON every changing command prints).
fn changed(v: &Value) -> u64 {
    v["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "done")
        .count() as u64
}

/// The `status` of each change of a plan (`null` in a dry run).
fn statuses(v: &Value) -> Vec<&str> {
    v["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["status"].as_str().unwrap_or("-"))
        .collect()
}

const DM_CONFIG: &str = r#"version: v1
vgpu-configs:
  A100-4C:
    - device-filter: "0x20B010DE"
      devices: all
      vgpu-devices:
        "A100-4C": 10
  mixed:
    - devices: [0]
      vgpu-devices: {"A100-10C": 4}
    - devices: [1]
      vgpu-devices: {"A100-4C": 10}
"#;

#[test]
fn an_a100_mdev_host_lists_its_types() {
    let host = a100_mdev_host();
    let v = json(&mut host.vgpu(&["types"]));
    let gpus = v["gpus"].as_array().unwrap();
    assert_eq!(gpus.len(), 2);
    assert_eq!(gpus[0]["index"], 0);
    assert_eq!(gpus[0]["name"], "NVIDIA A100-SXM4-40GB");
    assert_eq!(gpus[0]["pci_bus_id"], "0000:07:00.0");
    assert_eq!(gpus[0]["framework"], "mdev");
    assert_eq!(gpus[0]["sriov"]["total_vfs"], 16);
    let t = gpus[0]["types"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "A100-4C")
        .unwrap();
    assert_eq!(t["id"], 472);
    assert_eq!(t["full_name"], "NVIDIA A100-4C");
    assert_eq!(t["framebuffer_mib"], 4096);
    assert_eq!(t["max_instances"], 10);
    // Sixteen VFs offer one each, but the GPU holds ten.
    assert_eq!(t["available_instances"], 10);
    let status = json(&mut host.vgpu(&["status"]));
    assert_eq!(status["gpus"][0]["parents"].as_array().unwrap().len(), 16);
    assert!(status["gpus"][0]["devices"].as_array().unwrap().is_empty());
    assert_eq!(status["in_use_known"], true);
    let table = host.vgpu(&["types", "--gpu", "1"]).output().unwrap();
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(text.contains("GPU 1 (0000:0f:00.0)"), "{text}");
    assert!(!text.contains("GPU 0 "), "{text}");
}

#[test]
fn an_a100_mdev_host_reaches_a_vgpu_device_manager_config_and_stays_there() {
    let host = a100_mdev_host();
    let cfg = host.file("vgpu.yaml", DM_CONFIG).display().to_string();
    assert_eq!(
        fails_with(&mut host.vgpu(&["assert", "-f", &cfg, "-c", "A100-4C"]), 3)
            .lines()
            .filter(|l| !l.starts_with("simulated node"))
            .count(),
        1
    );
    let v = json(&mut host.vgpu(&["apply", "-f", &cfg, "-c", "A100-4C"]));
    assert_eq!(changed(&v), 20);
    assert_eq!(layout(&host), vec![of(&[("A100-4C", 10)]); 2]);
    let status = json(&mut host.vgpu(&["status"]));
    let devices = status["gpus"][0]["devices"].as_array().unwrap();
    let mut parents: Vec<&str> = devices
        .iter()
        .map(|d| d["parent"].as_str().unwrap())
        .collect();
    parents.sort();
    parents.dedup();
    assert_eq!(parents.len(), 10, "one vGPU per VF");
    assert!(devices.iter().all(|d| d["driver"] == "nvidia-vgpu-vfio"));
    assert!(
        host.root()
            .join("sys/bus/mdev/devices")
            .join(devices[0]["uuid"].as_str().unwrap())
            .exists()
    );

    // Again: nothing changes, down to the last file.
    let before = host.digest();
    let v = json(&mut host.vgpu(&["apply", "-f", &cfg, "-c", "A100-4C"]));
    assert_eq!(changed(&v), 0);
    assert!(v["changes"].as_array().unwrap().is_empty());
    assert_eq!(host.digest(), before);
    host.vgpu(&["assert", "-f", &cfg, "-c", "A100-4C"])
        .assert()
        .success();

    // Another config: GPU 0 changes type, GPU 1 keeps its devices.
    let uuids_1: Vec<Value> = status["gpus"][1]["devices"].as_array().unwrap().clone();
    let v = json(&mut host.vgpu(&["apply", "-f", &cfg, "-c", "mixed"]));
    assert_eq!(changed(&v), 14, "10 removed, 4 created");
    assert_eq!(
        layout(&host),
        vec![of(&[("A100-10C", 4)]), of(&[("A100-4C", 10)])]
    );
    let status = json(&mut host.vgpu(&["status"]));
    assert_eq!(status["gpus"][1]["devices"].as_array().unwrap(), &uuids_1);

    // Clear one GPU.
    let v = json(&mut host.vgpu(&["clear", "--gpu", "0"]));
    assert_eq!(changed(&v), 4);
    assert_eq!(layout(&host), vec![of(&[]), of(&[("A100-4C", 10)])]);
}

#[test]
fn a_t4_carries_its_mdev_devices_on_the_gpu_itself() {
    let host = t4_mdev_host();
    let cfg = gpushare_toml(
        &host,
        "[[gpus]]\nselect = \"all\"\nmode = \"vgpu\"\nvgpu.devices = { \"T4-4Q\" = 4 }\n",
    );
    let v = json(&mut host.vgpu(&["apply", "-f", &cfg]));
    assert_eq!(changed(&v), 4);
    let status = json(&mut host.vgpu(&["status"]));
    let gpu = &status["gpus"][0];
    assert!(gpu.get("sriov").is_none());
    assert!(
        gpu["devices"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["parent"] == "0000:07:00.0")
    );
    // Full, and one type at a time: nothing else is creatable now.
    assert!(
        gpu["types"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["available_instances"] == 0)
    );
    let cfg = gpushare_toml(
        &host,
        "[[gpus]]\nselect = \"all\"\nmode = \"vgpu\"\nvgpu.devices = { \"T4-4Q\" = 5 }\n",
    );
    let err = fails_with(&mut host.vgpu(&["apply", "-f", &cfg]), 2);
    assert!(
        err.contains("gpushare.toml:4:28: GPU 0 (0000:07:00.0): 5 × T4-4Q do not fit: the GPU holds at most 4"),
        "{err}"
    );
    // Another type replaces them.
    let cfg = gpushare_toml(
        &host,
        "[[gpus]]\nselect = \"all\"\nmode = \"vgpu\"\nvgpu.devices = { \"T4-8Q\" = 2 }\n",
    );
    assert_eq!(changed(&json(&mut host.vgpu(&["apply", "-f", &cfg]))), 6);
    assert_eq!(layout(&host), vec![of(&[("T4-8Q", 2)])]);
}

/// The UUIDs of the mdev devices `vgpu status` shows, sorted.
fn uuids(host: &FakeHost) -> Vec<String> {
    let status = json(&mut host.vgpu(&["status"]));
    let mut out: Vec<String> = status["gpus"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["devices"].as_array().unwrap().clone())
        .map(|d| d["uuid"].as_str().unwrap().to_string())
        .collect();
    out.sort();
    out
}

#[test]
fn created_mdev_devices_are_defined_with_mdevctl_and_undefined_when_removed() {
    let host = t4_mdev_host();
    let cfg = gpushare_toml(
        &host,
        "[[gpus]]\nselect = \"all\"\nmode = \"vgpu\"\nvgpu.devices = { \"T4-8Q\" = 2 }\n",
    );
    host.vgpu(&["apply", "-f", &cfg]).assert().success();
    let created = uuids(&host);
    assert_eq!(created.len(), 2);
    assert_eq!(
        host.defined(),
        created,
        "each device is kept across reboots"
    );
    let log = std::fs::read_to_string(host.dir.path().join("standin.log")).unwrap();
    assert!(
        log.contains(&format!("mdevctl define --uuid {} --auto", created[0])),
        "{log}"
    );
    // Another layout: the removed devices lose their definitions, the new ones get theirs.
    let cfg = gpushare_toml(
        &host,
        "[[gpus]]\nselect = \"all\"\nmode = \"vgpu\"\nvgpu.devices = { \"T4-4Q\" = 1 }\n",
    );
    host.vgpu(&["apply", "-f", &cfg]).assert().success();
    assert_eq!(host.defined(), uuids(&host));
    host.vgpu(&["clear"]).assert().success();
    assert!(uuids(&host).is_empty());
    assert!(host.defined().is_empty(), "clear undefines them");
    // A definition that fails leaves the device made, with a warning.
    host.vgpu(&["apply", "-f", &cfg])
        .env("MDEVCTL_STANDIN_DIR", "")
        .assert()
        .success()
        .stderr(predicates::str::contains("is not kept across reboots"));
    assert_eq!(uuids(&host).len(), 1);
}

#[test]
fn an_l40s_vendor_vfio_host_applies_and_still_names_its_types_when_full() {
    let host = l40s_vfio_host();
    let types = json(&mut host.vgpu(&["types"]));
    let gpu = &types["gpus"][0];
    assert_eq!(gpu["framework"], "vendor_vfio");
    let by_name = |name: &str| {
        gpu["types"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(by_name("L40S-12Q")["id"], 1155);
    assert_eq!(by_name("L40S-12Q")["max_instances"], 4);
    assert_eq!(by_name("L40S-4Q")["max_instances"], 12);
    assert_eq!(by_name("L40S-48Q")["available_instances"], 1);

    let cfg = gpushare_toml(
        &host,
        "[[gpus]]\nselect = [0]\nmode = \"vgpu\"\nvgpu.devices = { \"L40S-12Q\" = 4 }\n",
    );
    assert_eq!(changed(&json(&mut host.vgpu(&["apply", "-f", &cfg]))), 4);
    assert_eq!(layout(&host), vec![of(&[("L40S-12Q", 4)])]);
    let vf0 = host.vfs(0)[0].clone();
    let current =
        std::fs::read_to_string(host.device_dir(&vf0).join("nvidia/current_vgpu_type")).unwrap();
    assert_eq!(current.trim(), "1155");
    // The GPU is full: no VF lists a type any more, the names come from what apply learned.
    for vf in &host.vfs(0)[4..] {
        let list = std::fs::read_to_string(host.device_dir(vf).join("nvidia/creatable_vgpu_types"))
            .unwrap();
        assert_eq!(list, "");
    }
    assert!(
        host.state_root()
            .join("var/lib/gpushare/vgpu-types.json")
            .exists()
    );

    let before = host.digest();
    assert_eq!(changed(&json(&mut host.vgpu(&["apply", "-f", &cfg]))), 0);
    assert_eq!(host.digest(), before);

    // Without that knowledge the devices still show, by type id.
    let v = json(&mut host.vgpu_with_state(&host.dir.path().join("fresh"), &["status"]));
    let d = &v["gpus"][0]["devices"][0];
    assert_eq!(d["type_id"], 1155);
    assert!(d["type_name"].is_null());

    host.vgpu(&["clear"]).assert().success();
    assert_eq!(layout(&host), vec![of(&[])]);
}

#[test]
fn sriov_is_enabled_first_where_it_is_off() {
    let host = h100_sriov_off_host();
    let types = json(&mut host.vgpu(&["types"]));
    assert_eq!(types["gpus"][0]["framework"], "sriov_disabled");
    assert_eq!(types["gpus"][0]["sriov"]["enabled_vfs"], 0);
    let cfg = gpushare_toml(
        &host,
        "[[gpus]]\nselect = \"all\"\nmode = \"vgpu\"\nvgpu.devices = { \"H100-20C\" = 4 }\n",
    );
    let before = host.digest();
    let v = json(&mut host.vgpu(&["apply", "-f", &cfg, "--dry-run"]));
    let actions: Vec<&str> = v["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["action"].as_str().unwrap())
        .collect();
    // The devices on the VFs SR-IOV makes are planned exactly once they exist.
    assert_eq!(
        actions,
        ["enable_sriov", "enable_sriov", "create_vgpu", "create_vgpu"]
    );
    assert_eq!(v["changes"][2]["later"], true);
    assert_eq!(statuses(&v), ["-"; 4], "a dry run makes nothing");
    assert_eq!(host.digest(), before);
    assert!(!host.sriov_log().exists());

    let v = json(&mut host.vgpu(&["apply", "-f", &cfg]));
    assert_eq!(changed(&v), 10, "2 enabled, 8 created");
    let log = std::fs::read_to_string(host.sriov_log()).unwrap();
    assert_eq!(log, "-e 0000:07:00.0\n-e 0000:0f:00.0\n");
    assert_eq!(layout(&host), vec![of(&[("H100-20C", 4)]); 2]);
    let status = json(&mut host.vgpu(&["status"]));
    assert_eq!(status["gpus"][1]["framework"], "vendor_vfio");
    assert_eq!(status["gpus"][1]["sriov"]["enabled_vfs"], 16);
    assert!(status["gpus"][1]["devices"][0]["vf"].is_string());

    let before = host.digest();
    assert_eq!(changed(&json(&mut host.vgpu(&["apply", "-f", &cfg]))), 0);
    assert_eq!(host.digest(), before);
    assert_eq!(
        std::fs::read_to_string(host.sriov_log())
            .unwrap()
            .lines()
            .count(),
        2
    );
}

#[test]
fn a_failing_sriov_manage_stops_before_any_vgpu_change() {
    let host = h100_sriov_off_host();
    std::fs::write(
        host.dir.path().join("bin/sriov-manage"),
        "#!/bin/sh\necho 'sriov-manage: cannot enable VFs: Operation not permitted' >&2\nexit 1\n",
    )
    .unwrap();
    let cfg = gpushare_toml(
        &host,
        "[[gpus]]\nselect = [0]\nmode = \"vgpu\"\nvgpu.devices = { \"H100-20C\" = 4 }\n",
    );
    let err = fails_with(&mut host.vgpu(&["apply", "-f", &cfg]), 1);
    assert!(
        err.contains(
            "GPU 0: enable_sriov (enable SR-IOV on 0000:07:00.0 (0000:07:00.0)) failed: `"
        ),
        "{err}"
    );
    assert!(err.contains("Operation not permitted"), "{err}");
}

#[test]
fn devices_a_vm_uses_are_kept_unless_forced() {
    let host = a100_mdev_host();
    let toml = |body: &str| {
        gpushare_toml(
            &host,
            &format!("[[gpus]]\nselect = [0]\nmode = \"vgpu\"\nvgpu.devices = {body}\n"),
        )
    };
    json(&mut host.vgpu(&["apply", "-f", &toml("{ \"A100-4C\" = 2 }")]));
    let status = json(&mut host.vgpu(&["status"]));
    let held = status["gpus"][0]["devices"][1].clone();
    let group = held["iommu_group"].as_str().unwrap();
    host.vm_holds(4242, &format!("/dev/vfio/{group}"));
    let status = json(&mut host.vgpu(&["status"]));
    let users = &status["gpus"][0]["devices"][1]["in_use_by"];
    assert_eq!(users[0]["pid"], 4242);
    assert_eq!(users[0]["name"], "qemu-system-x86");

    let before = host.digest();
    let err = fails_with(
        &mut host.vgpu(&["apply", "-f", &toml("{ \"A100-5C\" = 2 }")]),
        1,
    );
    assert!(
        err.contains("nothing was changed: GPU 0: vGPU A100-4C"),
        "{err}"
    );
    assert!(err.contains(held["uuid"].as_str().unwrap()), "{err}");
    assert!(err.contains("is used by"), "{err}");
    assert!(err.contains("qemu-system-x86 (pid 4242)"), "{err}");
    assert!(err.contains("--force"), "{err}");
    assert_eq!(host.digest(), before, "nothing changed");
    fails_with(&mut host.vgpu(&["clear", "--gpu", "0"]), 1);
    assert_eq!(host.digest(), before);

    // Fewer devices of the same type: the one in use is the one kept.
    let v = json(&mut host.vgpu(&["apply", "-f", &toml("{ \"A100-4C\" = 1 }")]));
    assert_eq!(changed(&v), 1);
    let status = json(&mut host.vgpu(&["status"]));
    assert_eq!(status["gpus"][0]["devices"][0]["uuid"], held["uuid"]);

    // --force removes it (the kernel asks the VM to let go of an mdev device).
    let v = json(&mut host.vgpu(&["apply", "-f", &toml("{ \"A100-5C\" = 2 }"), "--force"]));
    assert_eq!(changed(&v), 3);
    assert_eq!(layout(&host)[0], of(&[("A100-5C", 2)]));
}

#[test]
fn the_kernel_refuses_to_take_a_vf_from_a_running_vm_even_forced() {
    let host = l40s_vfio_host();
    let toml = |t: &str| {
        gpushare_toml(
            &host,
            &format!("[[gpus]]\nselect = [0]\nmode = \"vgpu\"\nvgpu.devices = {{ \"{t}\" = 1 }}\n"),
        )
    };
    json(&mut host.vgpu(&["apply", "-f", &toml("L40S-12Q")]));
    host.vm_holds(777, "/dev/vfio/devices/vfio0");
    let status = json(&mut host.vgpu(&["status"]));
    assert_eq!(status["gpus"][0]["devices"][0]["in_use_by"][0]["pid"], 777);
    fails_with(&mut host.vgpu(&["apply", "-f", &toml("L40S-24Q")]), 1);
    let out = host
        .vgpu(&[
            "apply",
            "-f",
            &toml("L40S-24Q"),
            "--force",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("Device or resource busy"), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["changes"][0]["action"], "remove_vgpu");
    assert_eq!(statuses(&v), ["failed", "not_run"]);
    assert_eq!(layout(&host), vec![of(&[("L40S-12Q", 1)])]);
}

#[test]
fn a_write_failing_half_way_stops_and_a_rerun_converges() {
    let host = a100_mdev_host();
    let cfg = gpushare_toml(
        &host,
        "[[gpus]]\nselect = [0]\nmode = \"vgpu\"\nvgpu.devices = { \"A100-8C\" = 5 }\n",
    );
    let out = host
        .vgpu(&["apply", "-f", &cfg, "--format", "json"])
        .env("GPUSHARE_SYSFS_FAIL", "3")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .contains("GPU 0: create_vgpu (create A100-8C on 0000:07:00.6 (0000:07:00.0)) failed"),
        "{stderr}"
    );
    assert!(stderr.contains("Input/output error"), "{stderr}");
    assert!(stderr.contains("2 of 5 change(s) were made"), "{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        statuses(&v),
        ["done", "done", "failed", "not_run", "not_run"]
    );
    assert_eq!(changed(&v), 2);
    // The UUIDs of the devices made are named as they are made.
    assert_eq!(
        stderr.matches("GPU 0: created A100-8C ").count(),
        2,
        "{stderr}"
    );
    assert_eq!(layout(&host)[0], of(&[("A100-8C", 2)]));

    let v = json(&mut host.vgpu(&["apply", "-f", &cfg]));
    assert_eq!(changed(&v), 3);
    assert_eq!(layout(&host)[0], of(&[("A100-8C", 5)]));
    assert_eq!(changed(&json(&mut host.vgpu(&["apply", "-f", &cfg]))), 0);
}

#[test]
fn bad_input_names_the_file_position_and_changes_nothing() {
    let host = a100_mdev_host();
    let before = host.digest();
    let entry = |devices: &str| {
        gpushare_toml(
            &host,
            &format!("[[gpus]]\nselect = \"all\"\nmode = \"vgpu\"\nvgpu.devices = {devices}\n"),
        )
    };
    let err = fails_with(
        &mut host.vgpu(&["apply", "-f", &entry("{ \"A100-3C\" = 2 }")]),
        2,
    );
    assert!(
        err.contains("gpushare.toml:4:18: GPU 0 (0000:07:00.0) has no vGPU type `A100-3C`"),
        "{err}"
    );
    assert!(
        err.contains("hint: types of this GPU: A100-4C, A100-5C"),
        "{err}"
    );

    let err = fails_with(
        &mut host.vgpu(&[
            "apply",
            "-f",
            &entry("{ \"A100-4C\" = 2, \"A100-1-5C\" = 1 }"),
        ]),
        2,
    );
    assert!(err.contains("gpushare.toml:4:18:"), "{err}");
    assert!(
        err.contains("time-sliced and MIG-backed vGPUs do not mix"),
        "{err}"
    );

    let err = fails_with(
        &mut host.vgpu(&[
            "apply",
            "-f",
            &entry("{ \"A100-4C\" = 2, \"A100-5C\" = 1 }"),
        ]),
        2,
    );
    assert!(err.contains("gpushare.toml:4:33:"), "{err}");
    assert!(err.contains("one time-sliced vGPU type per GPU"), "{err}");
    assert!(err.contains("--heterogeneous"), "{err}");

    let err = fails_with(
        &mut host.vgpu(&["apply", "-f", &entry("{ \"A100-4C\" = 11 }")]),
        2,
    );
    assert!(err.contains("gpushare.toml:4:30:"), "{err}");
    assert!(err.contains("holds at most 10"), "{err}");

    let err = fails_with(
        &mut host.vgpu(&["apply", "-f", &entry("{ \"A100 4C\" = 1 }")]),
        2,
    );
    assert!(
        err.contains("gpushare.toml:4:18: `A100 4C` is not a vGPU type name"),
        "{err}"
    );

    let yaml = host.file("vgpu.yaml", DM_CONFIG).display().to_string();
    let err = fails_with(&mut host.vgpu(&["apply", "-f", &yaml]), 2);
    assert!(err.contains("choose one with -c LABEL"), "{err}");
    assert!(err.contains("A100-4C, mixed"), "{err}");
    let err = fails_with(&mut host.vgpu(&["apply", "-f", &yaml, "-c", "nope"]), 2);
    assert!(err.contains("no config `nope`"), "{err}");
    let err = fails_with(
        &mut host.vgpu(&["apply", "-f", &entry("{ \"A100-4C\" = 1 }"), "-c", "x"]),
        2,
    );
    assert!(err.contains("-c picks a config"), "{err}");
    let err = fails_with(&mut host.vgpu(&["apply", "-f", "/no/such.toml"]), 2);
    assert!(err.contains("/no/such.toml"), "{err}");
    let err = fails_with(
        gpushare().args(["vgpu", "types", "--sysfs-root", "/no/such/root"]),
        2,
    );
    assert!(err.contains("--sysfs-root /no/such/root"), "{err}");
    assert_eq!(host.digest(), before);
}

#[test]
fn mixed_sizes_need_heterogeneous_mode() {
    let host = l40s_heterogeneous_host();
    let cfg = gpushare_toml(
        &host,
        "[[gpus]]\nselect = [0]\nmode = \"vgpu\"\nvgpu.devices = { \"L40S-12Q\" = 2, \"L40S-8Q\" = 3 }\n",
    );
    fails_with(&mut host.vgpu(&["apply", "-f", &cfg]), 2);
    // assert refuses the same layout the same way, and with the flag says it differs.
    let err = fails_with(&mut host.vgpu(&["assert", "-f", &cfg]), 2);
    assert!(err.contains("--heterogeneous"), "{err}");
    fails_with(
        &mut host.vgpu(&["assert", "-f", &cfg, "--heterogeneous"]),
        3,
    );
    let v = json(&mut host.vgpu(&["apply", "-f", &cfg, "--heterogeneous"]));
    assert_eq!(changed(&v), 5);
    assert_eq!(layout(&host), vec![of(&[("L40S-12Q", 2), ("L40S-8Q", 3)])]);
    // Once the GPU holds both, its mode shows and the flag is not needed again.
    assert_eq!(changed(&json(&mut host.vgpu(&["apply", "-f", &cfg]))), 0);
    let too_big = gpushare_toml(
        &host,
        "[[gpus]]\nselect = [0]\nmode = \"vgpu\"\nvgpu.devices = { \"L40S-12Q\" = 3, \"L40S-8Q\" = 3 }\n",
    );
    let err = fails_with(
        &mut host.vgpu(&["apply", "-f", &too_big, "--heterogeneous"]),
        2,
    );
    assert!(
        err.contains("need 61440 MiB of framebuffer; the GPU has 49152"),
        "{err}"
    );
}

#[test]
fn a_host_without_the_vgpu_manager_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let err = fails_with(
        gpushare()
            .args(["--sim", "t4x4", "vgpu", "status", "--sysfs-root"])
            .arg(dir.path()),
        4,
    );
    assert!(
        err.contains("not a vGPU host: no NVIDIA GPU under"),
        "{err}"
    );
    assert!(
        err.contains("hint: install and load the NVIDIA vGPU Manager"),
        "{err}"
    );
    // An NVIDIA GPU with the ordinary driver: SR-IOV capable, but no vGPU module.
    let gpu = dir.path().join("sys/bus/pci/devices/0000:07:00.0");
    std::fs::create_dir_all(&gpu).unwrap();
    std::fs::write(gpu.join("vendor"), "0x10de\n").unwrap();
    std::fs::write(gpu.join("class"), "0x030200\n").unwrap();
    std::fs::write(gpu.join("sriov_totalvfs"), "16\n").unwrap();
    let err = fails_with(
        gpushare()
            .args(["--sim", "t4x4", "vgpu", "types", "--sysfs-root"])
            .arg(dir.path()),
        4,
    );
    assert!(err.contains("0000:07:00.0 have no vGPU support"), "{err}");
}
