use super::*;
use crate::node::backend::Backend;
use crate::node::backend::sim::SimBackend;
use crate::node::config::AssignedConfig;
use crate::node::model::{MigMode, Placement};
use crate::support::error::Exit;
use crate::support::paths::Paths;
use crate::support::source_file::SourceFile;
use std::path::PathBuf;

fn config(text: &str) -> Config {
    Config::parse(SourceFile::inline("gpushare.toml", text)).unwrap()
}

fn node(preset: &str) -> Node {
    SimBackend::from_preset(preset).unwrap().snapshot().unwrap()
}

/// dgx-a100 with GPU 0 in MIG mode: a 3g.20gb and two 1g.5gb devices.
fn mig_node() -> Node {
    let sim = SimBackend::from_preset("dgx-a100").unwrap();
    sim.set_mig_mode(0, MigMode::Enabled).unwrap();
    for (profile, start, size, ci) in [(9, 4, 4, 2), (19, 0, 1, 0), (19, 1, 1, 0)] {
        let gi = sim
            .create_gpu_instance(0, profile, Placement { start, size })
            .unwrap();
        sim.create_compute_instance(0, gi, ci).unwrap();
    }
    sim.snapshot().unwrap()
}

fn paths() -> Paths {
    Paths::new(Some(PathBuf::from("/srv/root")))
}

fn dirs(paths: &Paths) -> DirChoice<'_> {
    DirChoice {
        paths,
        pipe_dir: None,
        log_dir: None,
    }
}

fn validate_text(text: &str, node: &Node) -> Result<()> {
    let c = AssignedConfig::new(config(text), node)?;
    let a = c.assignments();
    validate(&c, &a, node)
}

#[test]
fn too_many_clients_for_the_gpu_names_the_line() {
    let e = validate_text(
        "[[gpus]]\nselect = \"all\"\nmode = \"mps\"\nmps.clients = 49\n",
        &node("t4x4"),
    )
    .unwrap_err();
    assert_eq!(e.exit, Exit::Usage);
    assert!(
        e.message
            .starts_with("gpushare.toml:4:15: mps.clients = 49: 49 MPS clients"),
        "{}",
        e.message
    );
    assert!(e.message.contains("at most 48"), "{}", e.message);
    assert!(
        validate_text(
            "[[gpus]]\nselect = \"all\"\nmode = \"mps\"\nmps.clients = 48\n",
            &node("t4x4")
        )
        .is_ok()
    );
}

#[test]
fn a_memory_limit_above_the_gpu_is_refused() {
    let e = validate_text(
        "[[gpus]]\nselect = [2]\nmode = \"mps\"\nmps = { clients = 2, memory_limit = \"16G\" }\n",
        &node("mixed"),
    )
    .unwrap_err();
    assert!(e.message.starts_with("gpushare.toml:4:"), "{}", e.message);
    assert!(
        e.message
            .contains("16384 MiB is more than the 15360 MiB of GPU 2 (Tesla T4)"),
        "{}",
        e.message
    );
}

#[test]
fn mig_mps_is_checked_against_each_planned_profile() {
    let text = "[[gpus]]\nselect = [0]\nmode = \"mig\"\n\
                mig.devices = { \"3g.20gb\" = 1, \"1g.5gb\" = 2 }\n\
                mig.mps = { memory_limit = \"8G\" }\n";
    let e = validate_text(text, &node("dgx-a100")).unwrap_err();
    assert!(e.message.starts_with("gpushare.toml:5:"), "{}", e.message);
    assert!(
        e.message.contains("a 1g.5gb MIG device of GPU 0"),
        "{}",
        e.message
    );
    // 1g.5gb takes 6 clients (48 scaled to 1 of 7 compute slices).
    let text = "[[gpus]]\nselect = [0]\nmode = \"mig\"\n\
                mig.devices = { \"2c.3g.20gb\" = 1, \"1g.5gb\" = 1 }\nmig.mps = { clients = 7 }\n";
    let e = validate_text(text, &node("dgx-a100")).unwrap_err();
    assert!(e.message.contains("at most 6"), "{}", e.message);
    let text = "[[gpus]]\nselect = [0]\nmode = \"mig\"\n\
                mig.devices = { \"2c.3g.20gb\" = 1 }\nmig.mps = { clients = 14 }\n";
    let e = validate_text(text, &node("dgx-a100")).unwrap_err();
    assert!(e.message.contains("at most 13"), "{}", e.message);
}

#[test]
fn planned_targets_read_gpu_and_compute_instance_profiles() {
    let n = node("dgx-a100");
    let t = planned_mig_target(&n, &n.gpus[0], "3g.20gb").unwrap();
    assert_eq!((t.memory_mib, t.client_cap), (19968, 20));
    let t = planned_mig_target(&n, &n.gpus[0], "1c.3g.20gb").unwrap();
    assert_eq!((t.memory_mib, t.client_cap), (19968, 6));
    assert!(planned_mig_target(&n, &n.gpus[0], "9g.99gb").is_none());
    let t4 = node("t4x4");
    assert!(planned_mig_target(&t4, &t4.gpus[0], "1g.5gb").is_none());
}

#[test]
fn each_entry_gets_its_daemon_and_time_slicing_gets_default_mode() {
    let c = config(
        "[[gpus]]\nselect = [0, 1]\nmode = \"time-slicing\"\ntime_slicing.replicas = 4\n\
         [[gpus]]\nselect = { model = \"Tesla T4\" }\nmode = \"mps\"\n\
         mps = { clients = 4, thread_percentage = 50 }\n",
    );
    let n = node("mixed");
    let c = AssignedConfig::new(c, &n).unwrap();
    let a = c.assignments();
    let p = paths();
    let d = wanted(&c, &a, &n, dirs(&p), false).unwrap();
    assert_eq!(d.covered, BTreeSet::from([0, 1, 2, 3]));
    assert_eq!(d.default_mode, vec![DeviceRef::Gpu(0), DeviceRef::Gpu(1)]);
    assert_eq!(d.daemons.len(), 1);
    let daemon = &d.daemons[0];
    assert_eq!(daemon.name, "gpu2-3");
    assert_eq!(daemon.thread_percentage, Some(50));
    assert_eq!(
        daemon.pipe_dir,
        PathBuf::from("/srv/root/run/gpushare/mps/gpu2-3/pipe")
    );
    let devices: Vec<(u32, u32, Option<u64>)> = daemon
        .devices
        .iter()
        .map(|d| (d.ordinal, d.gpu, d.memory_limit_mib))
        .collect();
    assert_eq!(devices, [(0, 2, Some(3840)), (1, 3, Some(3840))]);
    assert_eq!(
        daemon.visible_devices(),
        format!("{},{}", n.gpus[2].uuid, n.gpus[3].uuid)
    );
}

#[test]
fn mps_on_a_gpu_with_mig_enabled_points_at_mig_mps() {
    let c = config("[[gpus]]\nselect = [0]\nmode = \"mps\"\nmps.clients = 2\n");
    let n = mig_node();
    let c = AssignedConfig::new(c, &n).unwrap();
    let a = c.assignments();
    let p = paths();
    let e = wanted(&c, &a, &n, dirs(&p), false).unwrap_err();
    assert!(
        e.message.starts_with("gpushare.toml:3:8: "),
        "{}",
        e.message
    );
    assert!(e.hint.unwrap().contains("mig.mps"));
}

#[test]
fn mig_mps_gives_each_mig_device_its_daemon_and_share() {
    let c = config(
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\n\
         mig.devices = { \"3g.20gb\" = 1, \"1g.5gb\" = 2 }\nmig.mps = { clients = 2 }\n",
    );
    let n = mig_node();
    let c = AssignedConfig::new(c, &n).unwrap();
    let a = c.assignments();
    let p = paths();
    let d = wanted(&c, &a, &n, dirs(&p), false).unwrap();
    let got: Vec<(String, Option<u64>, u32)> = d
        .daemons
        .iter()
        .map(|s| {
            assert_eq!(s.devices.len(), 1);
            assert!(s.devices[0].uuid.starts_with("MIG-"));
            assert_eq!(s.devices[0].ordinal, 0);
            (
                s.name.clone(),
                s.devices[0].memory_limit_mib,
                s.devices[0].client_cap,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("gpu0-gi2-ci0".to_string(), Some(9984), 20),
            ("gpu0-gi7-ci0".to_string(), Some(2432), 6),
            ("gpu0-gi8-ci0".to_string(), Some(2432), 6),
        ]
    );
    assert!(d.default_mode.is_empty());
}

#[test]
fn one_pipe_dir_cannot_serve_several_daemons() {
    let c = config(
        "[[gpus]]\nselect = [0]\nmode = \"mps\"\nmps.clients = 2\n\
         [[gpus]]\nselect = [1]\nmode = \"mps\"\nmps.clients = 3\n",
    );
    let n = node("t4x4");
    let c = AssignedConfig::new(c, &n).unwrap();
    let a = c.assignments();
    let p = paths();
    let pipe = PathBuf::from("/tmp/pipe");
    let choice = DirChoice {
        paths: &p,
        pipe_dir: Some(&pipe),
        log_dir: None,
    };
    let e = wanted(&c, &a, &n, choice, false).unwrap_err();
    assert_eq!(e.exit, Exit::Usage);
}

fn wanted_for(text: &str, n: &Node) -> WantedMps {
    let c = config(text);
    let c = AssignedConfig::new(c, n).unwrap();
    let a = c.assignments();
    let p = paths();
    wanted(&c, &a, n, dirs(&p), false).unwrap()
}

#[test]
fn plans_stop_what_the_file_drops_and_start_what_it_adds() {
    let n = node("t4x4");
    let before = wanted_for(
        "[[gpus]]\nselect = [0, 1]\nmode = \"mps\"\nmps.clients = 2\n\
         [[gpus]]\nselect = [3]\nmode = \"mps\"\nmps.clients = 2\n",
        &n,
    );
    let records = before.daemons.clone();
    let after = wanted_for(
        "[[gpus]]\nselect = [0, 1]\nmode = \"mps\"\nmps.clients = 2\n\
         [[gpus]]\nselect = [2, 3]\nmode = \"time-slicing\"\ntime_slicing.replicas = 2\n",
        &n,
    );
    let both: BTreeSet<String> = records.iter().map(|r| r.name.clone()).collect();
    let p = plan(&after, &records, &both, &n);
    assert_eq!(names(&p.keep), ["gpu0-1"]);
    assert_eq!(names(&p.stop), ["gpu3"]);
    assert!(p.start.is_empty());
    // GPU 3's daemon is stopped (which restores DEFAULT); GPU 2 is already DEFAULT.
    assert!(p.set_default.is_empty());

    // A recorded daemon that does not answer is restarted.
    let only_one = BTreeSet::from(["gpu3".to_string()]);
    let p = plan(&after, &records, &only_one, &n);
    assert_eq!(names(&p.stop), ["gpu0-1", "gpu3"]);
    assert_eq!(names(&p.start), ["gpu0-1"]);
}

#[test]
fn plans_restart_on_other_limits_and_reset_exclusive_gpus() {
    let sim = SimBackend::from_preset("t4x4").unwrap();
    sim.set_compute_mode(DeviceRef::Gpu(2), ComputeMode::ExclusiveProcess)
        .unwrap();
    let n = sim.snapshot().unwrap();
    let records = wanted_for(
        "[[gpus]]\nselect = [0]\nmode = \"mps\"\nmps.clients = 2\n",
        &n,
    )
    .daemons;
    let after = wanted_for(
        "[[gpus]]\nselect = [0]\nmode = \"mps\"\nmps.clients = 4\n\
         [[gpus]]\nselect = [2]\nmode = \"none\"\n",
        &n,
    );
    let running = BTreeSet::from(["gpu0".to_string()]);
    let p = plan(&after, &records, &running, &n);
    assert_eq!(names(&p.stop), ["gpu0"]);
    assert_eq!(names(&p.start), ["gpu0"]);
    assert_eq!(p.set_default, [DeviceRef::Gpu(2)]);
    assert_eq!(p.start[0].thread_percentage, Some(25));

    // Daemons on GPUs the file does not cover are not its business.
    let other = wanted_for("[[gpus]]\nselect = [1]\nmode = \"none\"\n", &n);
    let p = plan(&other, &records, &running, &n);
    assert!(p.stop.is_empty() && p.keep.is_empty() && p.start.is_empty());
}

fn names(specs: &[DaemonSpec]) -> Vec<&str> {
    specs.iter().map(|s| s.name.as_str()).collect()
}

#[test]
fn shared_gpus_get_no_daemon_of_apply_and_theirs_are_left_to_the_dra_driver() {
    let text = "[[gpus]]\nselect = [0, 1]\nmode = \"mps\"\n\
                mps.shares.memory = { default = \"4G\", min = \"1G\", step = \"1G\" }\n\
                [[gpus]]\nselect = [2, 3]\nmode = \"none\"\n";
    let n = node("t4x4");
    let c = AssignedConfig::new(config(text), &n).unwrap();
    let a = c.assignments();
    validate(&c, &a, &n).unwrap();
    let p = paths();
    let d = wanted(&c, &a, &n, dirs(&p), false).unwrap();
    assert!(d.daemons.is_empty(), "{:?}", d.daemons);
    assert_eq!(d.shared, BTreeSet::from([0, 1]));
    // A daemon the DRA driver started for GPU 0's shares is neither stopped nor kept.
    let request = MpsRequest::default();
    let theirs = DaemonSpec::for_gpus(
        &[(&n.gpus[0], limits::gpu_target(&n, &n.gpus[0]))],
        &request,
        dirs(&p),
        false,
    );
    let steps = plan(&d, std::slice::from_ref(&theirs), &BTreeSet::new(), &n);
    assert!(steps.stop.is_empty() && steps.keep.is_empty(), "{steps:?}");
    // A share bigger than the T4 is refused where it is written.
    let e = validate_text(
        "[[gpus]]\nselect = [0]\nmode = \"mps\"\n\
         mps.shares.memory = { default = \"20G\", min = \"1G\" }\n",
        &n,
    )
    .unwrap_err();
    assert!(
        e.message
            .starts_with("gpushare.toml:4:21: mps.shares.memory.default = 20480 MiB"),
        "{}",
        e.message
    );
}
