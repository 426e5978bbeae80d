//! The state file and its operation log: a crash keeps every call made, a command writes the
//! state once, calls from many threads at once read back as they were made.

use super::super::SimBackend;
use crate::node::backend::Backend;
use crate::node::backend::host_events::HostEvents;
use crate::node::clients::Client;
use crate::node::model::{MigMode, Placement};
use std::path::Path;

const P1G5: u32 = 19;

fn ops_path(state: &Path) -> std::path::PathBuf {
    state.with_file_name(format!(
        "{}.ops",
        state.file_name().unwrap().to_string_lossy()
    ))
}

fn instances(sim: &SimBackend, gpu: usize) -> usize {
    sim.snapshot().unwrap().gpus[gpu]
        .mig
        .instances
        .as_ref()
        .map_or(0, Vec::len)
}

#[test]
fn a_crash_after_a_call_keeps_it_and_a_flush_writes_the_state_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.json");
    let sim = SimBackend::open(Some("dgx-a100"), Some(&path)).unwrap();
    let written = std::fs::read_to_string(&path).unwrap();
    sim.set_mig_mode(1, MigMode::Enabled).unwrap();
    sim.create_gpu_instance(1, P1G5, Placement { start: 0, size: 1 })
        .unwrap();
    // Calls are logged, not written into the state file.
    assert_eq!(std::fs::read_to_string(&path).unwrap(), written);
    assert_eq!(
        std::fs::read_to_string(ops_path(&path))
            .unwrap()
            .lines()
            .count(),
        2
    );
    // The process dies: nothing is flushed, and the next one sees both calls.
    std::mem::forget(sim);
    let log = std::fs::read_to_string(ops_path(&path)).unwrap();
    // A command that only reads (and takes no lock) writes nothing.
    let reader = SimBackend::open(None, Some(&path)).unwrap();
    assert_eq!(instances(&reader, 1), 1);
    reader.keep().unwrap();
    drop(reader);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), written);
    assert_eq!(std::fs::read_to_string(ops_path(&path)).unwrap(), log);
    let after_crash = SimBackend::open(None, Some(&path)).unwrap();
    assert_eq!(instances(&after_crash, 1), 1);
    after_crash
        .create_gpu_instance(1, P1G5, Placement { start: 1, size: 1 })
        .unwrap();
    after_crash.keep().unwrap();
    assert_eq!(std::fs::read_to_string(ops_path(&path)).unwrap(), "");
    drop(after_crash);
    // What the log held is in the state file now, and is not replayed a second time.
    let reopened = SimBackend::open(None, Some(&path)).unwrap();
    assert_eq!(instances(&reopened, 1), 2);
}

#[test]
fn lines_of_an_earlier_state_are_skipped_a_cut_line_too_a_bad_one_is_placed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.json");
    let sim = SimBackend::open(Some("dgx-a100"), Some(&path)).unwrap();
    sim.set_mig_mode(0, MigMode::Enabled).unwrap();
    let line = std::fs::read_to_string(ops_path(&path)).unwrap();
    drop(sim);
    // Dropped with a call made: the state was written, the log emptied. The old line put back
    // belongs to the state before: it is not replayed (a second enable would be harmless, a
    // second create would not).
    assert_eq!(std::fs::read_to_string(ops_path(&path)).unwrap(), "");
    let create = line.replace(
        r#""op":"set_mig_mode","gpu":0,"mode":"enabled""#,
        r#""op":"create_gpu_instance","gpu":0,"profile_id":19,"placement":{"start":0,"size":1}"#,
    );
    assert_ne!(create, line);
    std::fs::write(ops_path(&path), format!("{create}{{\"id\":\"x")).unwrap();
    let sim = SimBackend::open(None, Some(&path)).unwrap();
    assert!(sim.snapshot().unwrap().gpus[0].mig.current.is_enabled());
    assert_eq!(instances(&sim, 0), 0);
    drop(sim);

    std::fs::write(ops_path(&path), "{\"id\":\"x\"}\n\n").unwrap();
    let e = SimBackend::open(None, Some(&path)).err().unwrap();
    assert!(e.message.contains("state.json.ops:1:1"), "{}", e.message);
    assert!(e.hint.unwrap().contains("delete it and"));
}

#[test]
fn a_link_where_the_log_goes_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.json");
    drop(SimBackend::open(Some("dgx-a100"), Some(&path)).unwrap());
    let target = dir.path().join("target");
    std::fs::write(&target, "keep").unwrap();
    std::os::unix::fs::symlink(&target, ops_path(&path)).unwrap();
    let e = SimBackend::open(None, Some(&path)).err().unwrap();
    assert!(e.message.contains("symbolic link"), "{}", e.message);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
}

#[test]
fn calls_from_many_threads_at_once_read_back_as_they_were_made() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.json");
    let sim = SimBackend::open(Some("dgx-a100"), Some(&path)).unwrap();
    std::thread::scope(|scope| {
        for gpu in 0..8 {
            let sim = &sim;
            scope.spawn(move || {
                sim.set_mig_mode(gpu, MigMode::Enabled).unwrap();
                for start in 0..7 {
                    let gi = sim
                        .create_gpu_instance(gpu, P1G5, Placement { start, size: 1 })
                        .unwrap();
                    sim.create_compute_instance(gpu, gi, 0).unwrap();
                }
            });
        }
    });
    let made = sim.snapshot().unwrap();
    for gpu in &made.gpus {
        assert_eq!(gpu.mig.instances.as_ref().unwrap().len(), 7);
    }
    // Every MIG device got its own UUID, whichever thread came first.
    let mut uuids: Vec<String> = made
        .gpus
        .iter()
        .flat_map(|g| g.mig.instances.iter().flatten())
        .flat_map(|gi| gi.compute_instances.iter().filter_map(|ci| ci.uuid.clone()))
        .collect();
    uuids.sort();
    uuids.dedup();
    assert_eq!(uuids.len(), 56);
    std::mem::forget(sim);
    let replayed = SimBackend::open(None, Some(&path)).unwrap();
    assert_eq!(replayed.snapshot().unwrap(), made);
}

#[test]
fn a_crash_after_a_client_stopped_keeps_it_stopped_until_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    let node = dir.path().join("node.toml");
    std::fs::write(
        &node,
        "holders = [\n\
           { name = \"nv-hostengine\", pid = 2001, unit = \"nvidia-dcgm.service\" },\n\
           { name = \"nvidia_drm\", kind = \"module\" },\n\
         ]\n\
         [[gpus]]\nmodel = \"NVIDIA A100-SXM4-40GB\"\n",
    )
    .unwrap();
    let path = dir.path().join("state.json");
    let holders = |sim: &SimBackend| -> Vec<String> {
        sim.snapshot()
            .unwrap()
            .holders
            .iter()
            .map(|h| h.name.clone())
            .collect()
    };
    let sim = SimBackend::open(Some(node.to_str().unwrap()), Some(&path)).unwrap();
    assert_eq!(holders(&sim), ["nv-hostengine", "nvidia_drm"]);
    let dcgm = Client::Service("nvidia-dcgm.service".into());
    let drm = Client::Module("nvidia_drm".into());
    sim.client_changed(&dcgm, false).unwrap();
    sim.client_changed(&drm, false).unwrap();
    // The process dies right after the stops (`GPUSHARE_SIM_CRASH=stop_service…:kill`): no
    // flush, and the next command still sees nothing holding the GPU.
    std::mem::forget(sim);
    let after_crash = SimBackend::open(None, Some(&path)).unwrap();
    assert!(holders(&after_crash).is_empty());
    after_crash.reset_gpus(&[0]).unwrap();
    after_crash.client_changed(&drm, true).unwrap();
    after_crash.client_changed(&dcgm, true).unwrap();
    after_crash.keep().unwrap();
    drop(after_crash);
    let reopened = SimBackend::open(None, Some(&path)).unwrap();
    assert_eq!(holders(&reopened), ["nv-hostengine", "nvidia_drm"]);
    assert!(reopened.reset_gpus(&[0]).is_err());
}
