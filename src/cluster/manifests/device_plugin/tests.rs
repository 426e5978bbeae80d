use super::*;
use crate::node::backend::Backend;
use crate::node::backend::sim::SimBackend;
use crate::node::config::AssignedConfig;
use crate::node::config::Config;
use crate::node::model::Node;
use crate::support::error::Exit;
use crate::support::source_file::SourceFile;

fn node(preset: &str) -> Node {
    SimBackend::from_preset(preset).unwrap().snapshot().unwrap()
}

fn layout(preset: &str, toml: &str) -> NodeOffer {
    let c = Config::parse(SourceFile::inline("gpushare.toml", toml)).unwrap();
    let n = node(preset);
    NodeOffer::desired(&n, &AssignedConfig::new(c, &n).unwrap()).unwrap()
}

fn refusal(preset: &str, toml: &str) -> String {
    let e = plugin_config(&layout(preset, toml)).unwrap_err();
    assert_eq!(e.exit, Exit::Usage);
    e.message
}

#[test]
fn strategy_is_none_without_mig() {
    let l = NodeOffer::observed(&node("dgx-a100"));
    assert_eq!(MigStrategy::of(&l), MigStrategy::None);
    assert_eq!(resources(&l)["nvidia.com/gpu"], 8);
}

#[test]
fn one_profile_everywhere_is_single() {
    let l = layout(
        "dgx-a100",
        "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 7 }\n",
    );
    assert_eq!(MigStrategy::of(&l), MigStrategy::Single);
    assert_eq!(resources(&l)["nvidia.com/gpu"], 56);
}

#[test]
fn several_profiles_or_mig_on_some_gpus_are_mixed() {
    let l = layout(
        "dgx-a100",
        "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 2, \"2g.10gb\" = 1, \"3g.20gb\" = 1 }\n",
    );
    assert_eq!(MigStrategy::of(&l), MigStrategy::Mixed);
    let r = resources(&l);
    assert_eq!(r["nvidia.com/mig-1g.5gb"], 16);
    assert_eq!(r["nvidia.com/mig-3g.20gb"], 8);
    let one_gpu = layout(
        "dgx-a100",
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 7 }\n",
    );
    assert_eq!(MigStrategy::of(&one_gpu), MigStrategy::Mixed);
    assert_eq!(resources(&one_gpu)["nvidia.com/gpu"], 7);
    assert_eq!(mig_resource("1g.10gb+me"), "nvidia.com/mig-1g.10gb.me");
}

#[test]
fn time_slicing_and_mps_become_replicas() {
    let (c, _) = plugin_config(&layout(
        "t4x4",
        "[[gpus]]\nselect = \"all\"\nmode = \"time-slicing\"\ntime_slicing = { replicas = 4 }\n",
    ))
    .unwrap();
    let ts = c.sharing.unwrap().time_slicing.unwrap();
    assert_eq!(ts.resources[0].replicas, 4);
    let (c, warnings) = plugin_config(&layout(
        "t4x4",
        "[[gpus]]\nselect = \"all\"\nmode = \"mps\"\nmps = { clients = 4 }\n",
    ))
    .unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(c.flags.mps_root.as_deref(), Some(MPS_ROOT));
    assert_eq!(c.sharing.unwrap().mps.unwrap().resources[0].replicas, 4);
    let (_, warnings) = plugin_config(&layout(
        "t4x4",
        "[[gpus]]\nselect = \"all\"\nmode = \"mps\"\nmps = { clients = 4, memory_limit = \"2G\" }\n",
    ))
    .unwrap();
    assert_eq!(
        warnings.len(),
        4,
        "limits the plugin cannot set are reported"
    );
}

#[test]
fn time_sliced_mig_devices_are_replicas_of_their_profile() {
    let (c, _) = plugin_config(&layout(
        "dgx-a100",
        "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 2, \"3g.20gb\" = 1 }\nmig.time_slicing.replicas = 4\n",
    ))
    .unwrap();
    assert_eq!(c.flags.mig_strategy, MigStrategy::Mixed);
    let sharing = c.sharing.unwrap();
    assert!(sharing.mps.is_none());
    let names: Vec<(&str, u32)> = sharing
        .time_slicing
        .as_ref()
        .unwrap()
        .resources
        .iter()
        .map(|r| (r.name.as_str(), r.replicas))
        .collect();
    assert_eq!(
        names,
        [("nvidia.com/mig-1g.5gb", 4), ("nvidia.com/mig-3g.20gb", 4)]
    );
    // Whole GPUs beside them keep their own sharing; single: the MIG devices are nvidia.com/gpu.
    let (c, _) = plugin_config(&layout(
        "dgx-a100",
        "[[gpus]]\nselect = [0, 1]\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 7 }\nmig.time_slicing.replicas = 2\n[[gpus]]\nselect = [2, 3, 4, 5, 6, 7]\nmode = \"time-slicing\"\ntime_slicing.replicas = 3\n",
    ))
    .unwrap();
    let ts = c.sharing.unwrap().time_slicing.unwrap().resources;
    assert_eq!(ts.len(), 2, "{ts:?}");
    assert_eq!((ts[0].name.as_str(), ts[0].replicas), ("nvidia.com/gpu", 3));
    assert_eq!(
        (ts[1].name.as_str(), ts[1].replicas),
        ("nvidia.com/mig-1g.5gb", 2)
    );
    let (c, _) = plugin_config(&layout(
        "dgx-a100",
        "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 7 }\nmig.time_slicing.replicas = 2\n",
    ))
    .unwrap();
    assert_eq!(c.flags.mig_strategy, MigStrategy::Single);
    let ts = c.sharing.unwrap().time_slicing.unwrap().resources;
    assert_eq!((ts[0].name.as_str(), ts[0].replicas), ("nvidia.com/gpu", 2));
    // One profile, two replica counts: the plugin has one setting per resource name.
    let m = refusal(
        "dgx-a100",
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 7 }\nmig.time_slicing.replicas = 2\n[[gpus]]\nselect = [1]\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 3, \"3g.20gb\" = 1 }\n",
    );
    assert!(
        m.contains("every nvidia.com/mig-1g.5gb device of a node, but GPU 0 (gpushare.toml:1) has time-slicing with 2 replicas; GPU 1 (gpushare.toml:6) has no sharing"),
        "{m}"
    );
}

#[test]
fn refuses_what_the_plugin_refuses() {
    let m = refusal(
        "mixed",
        "[[gpus]]\nselect = [0, 1]\nmode = \"mig\"\nmig.devices = { \"1g.10gb\" = 7 }\n[[gpus]]\nselect = [2, 3]\nmode = \"mps\"\nmps = { clients = 2 }\n",
    );
    assert!(
        m.contains("mig-strategy=mixed is not supported with MPS"),
        "{m}"
    );
    let m = refusal(
        "dgx-a100",
        "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 7 }\nmig.mps = { clients = 2 }\n",
    );
    assert!(m.contains("does not support MPS on MIG"), "{m}");
    let m = refusal(
        "t4x4",
        "[[gpus]]\nselect = [0, 1]\nmode = \"time-slicing\"\ntime_slicing = { replicas = 4 }\n",
    );
    assert!(m.contains("one sharing setting"), "{m}");
    assert!(
        m.contains("GPU 0,1 (gpushare.toml:1) has time-slicing with 4 replicas"),
        "{m}"
    );
    let m = refusal(
        "t4x4",
        "[[gpus]]\nselect = \"all\"\nmode = \"mps\"\nmps = { clients = 1 }\n",
    );
    assert!(m.contains("2 or more replicas"), "{m}");
    let m = refusal(
        "t4x4",
        "[[gpus]]\nselect = \"all\"\nmode = \"vgpu\"\nvgpu.devices = { \"T4-4C\" = 4 }\n",
    );
    assert!(m.contains("vGPU"), "{m}");
}

#[test]
fn the_config_file_has_the_plugin_field_names() {
    let (c, _) = plugin_config(&NodeOffer::observed(&node("t4x4"))).unwrap();
    let y = serde_saphyr::to_string(&c).unwrap();
    assert!(y.contains("migStrategy: none"), "{y}");
    assert!(y.contains("deviceIDStrategy: uuid"), "{y}");
    assert!(!y.contains("sharing"), "{y}");
}
