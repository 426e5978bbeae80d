//! Daemon names, settings.json round trips, orphans of starts that did not finish, broken files.

use super::*;

#[test]
fn names_say_which_gpus() {
    assert_eq!(whole_gpu_name(&[0, 1, 2, 3]), "gpu0-3");
    assert_eq!(whole_gpu_name(&[2, 0]), "gpu0_2");
    assert_eq!(whole_gpu_name(&[1]), "gpu1");
    assert_eq!(whole_gpu_name(&[0, 1, 3, 5, 6]), "gpu0-1_3_5-6");
    assert_eq!(mig_name(0, 1, 0), "gpu0-gi1-ci0");
}

#[test]
fn settings_round_trip_and_are_found_again() {
    let root = tempfile::tempdir().unwrap();
    let paths = Paths::new(Some(root.path().to_path_buf()));
    let spec = DaemonSpec {
        version: SETTINGS_VERSION,
        name: "gpu0".into(),
        pipe_dir: daemon_dir(&paths, "gpu0").join("pipe"),
        log_dir: daemon_dir(&paths, "gpu0").join("log"),
        multiuser: false,
        clients: Some(2),
        thread_percentage: Some(50),
        devices: vec![DaemonDevice {
            ordinal: 0,
            gpu: 0,
            uuid: "GPU-1".into(),
            name: "Tesla T4".into(),
            mig: None,
            memory_mib: 15360,
            memory_limit_mib: Some(7680),
            client_cap: 48,
            previous_compute_mode: Some(ComputeMode::Default),
        }],
        created_dirs: vec![],
    };
    std::fs::create_dir_all(daemon_dir(&paths, "gpu0")).unwrap();
    spec.write(&paths).unwrap();
    assert_eq!(load_all(&paths).unwrap(), vec![spec.clone()]);
    let mut other = spec.clone();
    other.devices[0].memory_limit_mib = Some(1024);
    assert!(!spec.same_settings(&other));
    other.devices[0].memory_limit_mib = Some(7680);
    other.devices[0].previous_compute_mode = None;
    assert!(
        spec.same_settings(&other),
        "the previous mode is not a setting"
    );
}

#[test]
fn a_start_that_did_not_finish_is_an_orphan_with_what_it_began() {
    let root = tempfile::tempdir().unwrap();
    let paths = Paths::new(Some(root.path().to_path_buf()));
    assert!(orphans(&paths).unwrap().is_empty());
    // Died before writing what it was about to do: only the name is known.
    std::fs::create_dir_all(daemon_dir(&paths, "gpu1").join("pipe")).unwrap();
    // Died after: its devices and the modes to go back to are known.
    let mut spec = DaemonSpec::new(
        "gpu0".into(),
        DirChoice {
            paths: &paths,
            pipe_dir: None,
            log_dir: None,
        },
        &MpsRequest::default(),
        false,
    );
    spec.devices.push(DaemonDevice {
        ordinal: 0,
        gpu: 0,
        uuid: "GPU-0".into(),
        name: "Tesla T4".into(),
        mig: None,
        memory_mib: 15360,
        memory_limit_mib: None,
        client_cap: 48,
        previous_compute_mode: Some(ComputeMode::Default),
    });
    std::fs::create_dir_all(daemon_dir(&paths, "gpu0")).unwrap();
    spec.write_starting(&paths).unwrap();
    // A finished start is a record, not an orphan.
    let mut done = spec.clone();
    done.name = "gpu2".into();
    std::fs::create_dir_all(daemon_dir(&paths, "gpu2")).unwrap();
    done.write(&paths).unwrap();
    let found = orphans(&paths).unwrap();
    assert_eq!(found.len(), 2);
    assert_eq!(found[0], spec);
    assert_eq!(found[1].name, "gpu1");
    assert!(found[1].devices.is_empty());
    assert_eq!(found[1].pipe_dir, daemon_dir(&paths, "gpu1").join("pipe"));
    // Writing the record ends the start.
    spec.write(&paths).unwrap();
    assert_eq!(orphans(&paths).unwrap().len(), 1);
    assert!(!daemon_dir(&paths, "gpu0").join(STARTING_FILE).exists());
}

#[test]
fn a_broken_settings_file_names_its_path() {
    let root = tempfile::tempdir().unwrap();
    let paths = Paths::new(Some(root.path().to_path_buf()));
    let dir = daemon_dir(&paths, "gpu0");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(SETTINGS_FILE), "{\"version\": 1,\n \"name\": 3}").unwrap();
    let e = load_all(&paths).unwrap_err();
    assert_eq!(e.exit, crate::support::error::Exit::Usage);
    assert!(e.message.contains("settings.json:2:"), "{}", e.message);
}
