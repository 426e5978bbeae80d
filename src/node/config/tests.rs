use super::*;
use crate::node::backend::Backend;
use crate::node::backend::sim::SimBackend;

fn parse(text: &str) -> Result<Config> {
    Config::parse(SourceFile::inline("gpushare.toml", text))
}

fn node(preset: &str) -> Node {
    SimBackend::from_preset(preset).unwrap().snapshot().unwrap()
}

#[test]
fn every_mode_parses() {
    let c = parse(
        r#"
[[gpus]]
select = [0, 1]
mode = "mig"
mig.devices = { "3g.40gb" = 1, "2c.3g.40gb" = 1 }
mig.instances = [{ profile = "1g.10gb", start = 6 }]
mig.mps = { clients = 2 }

[[gpus]]
select = { model = "Tesla T4" }
mode = "mps"
mps = { clients = 4, memory_limit = "3G" }

[kubernetes]
targets = ["nvidia-device-plugin"]
"#,
    )
    .unwrap();
    assert_eq!(c.file.gpus.len(), 2);
    let mig = c.file.gpus[0].get_ref().mig.as_ref().unwrap().get_ref();
    assert_eq!(mig.devices.len(), 2);
    assert_eq!(
        *mig.instances[0].get_ref().start.as_ref().unwrap().get_ref(),
        6
    );
    let mps = c.file.gpus[1].get_ref().mps.as_ref().unwrap().get_ref();
    assert_eq!(
        mps.memory_limit.as_ref().unwrap().get_ref(),
        &MemorySize(3072)
    );
    let assigned = AssignedConfig::new(c, &node("mixed")).unwrap();
    let pairs: Vec<(u32, Mode)> = assigned
        .assignments()
        .iter()
        .map(|a| (a.gpu, *a.entry.get_ref().mode.get_ref()))
        .collect();
    assert_eq!(
        pairs,
        [
            (0, Mode::Mig),
            (1, Mode::Mig),
            (2, Mode::Mps),
            (3, Mode::Mps)
        ]
    );
}

#[test]
fn gpus_matched_by_no_entry_are_left_out() {
    let c = parse("[[gpus]]\nselect = [1]\nmode = \"none\"\n").unwrap();
    let c = AssignedConfig::new(c, &node("t4x4")).unwrap();
    let a = c.assignments();
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].gpu, 1);
}

#[test]
fn round_trips_through_toml() {
    let text = "[[gpus]]\nselect = { model = \"NVIDIA A100*\", pci_device_id = \"0x20B010DE\" }\nmode = \"time-slicing\"\ntime_slicing = { replicas = 4 }\n";
    let c = parse(text).unwrap();
    let again = parse(&Config::to_toml(&c.file).unwrap()).unwrap();
    assert_eq!(
        again.file.gpus[0].get_ref().select.get_ref(),
        c.file.gpus[0].get_ref().select.get_ref()
    );
}

fn error_of(text: &str) -> String {
    parse(text).expect_err("should fail").message
}

#[test]
fn bad_files_name_the_line_and_value() {
    assert!(
        error_of("[[gpus]]\nselect = \"some\"\nmode = \"mig\"\n")
            .starts_with("gpushare.toml:2:10: select = \"some\"")
    );
    assert!(
        error_of("[[gpus]]\nselect = \"all\"\nmode = \"magic\"\n")
            .starts_with("gpushare.toml:3:8:")
    );
    let e = parse("[[gpus]]\nselect = \"all\"\nmode = \"mps\"\ntime_slicing = { replicas = 2 }\n")
        .unwrap_err();
    assert!(
        e.message.contains(
            "gpushare.toml:4:16: a `time_slicing` section does not go with mode = \"mps\""
        ),
        "{}",
        e.message
    );
    assert!(
        error_of("[[gpus]]\nselect = \"all\"\nmode = \"mps\"\n")
            .contains("mode = \"mps\" needs a `mps` section")
    );
    assert!(
        error_of("[[gpus]]\nselect = \"all\"\nmode = \"mps\"\nmps = { thread_percentage = 120 }\n")
            .contains("gpushare.toml:4:29: thread_percentage = 120")
    );
    assert!(
        error_of(
            "[[gpus]]\nselect = \"all\"\nmode = \"time-slicing\"\ntime_slicing = { replicas = 1 }\n"
        )
        .contains("replicas = 1")
    );
    assert!(
        error_of("[[gpus]]\nselect = \"all\"\nmode = \"mps\"\nmps = { memory_limit = \"4X\" }\n")
            .contains("unknown unit")
    );
    assert!(
        error_of(
            "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 7 }\nmig.time_slicing.replicas = 1\n"
        )
        .starts_with("gpushare.toml:5:29: replicas = 1: time-slicing needs 2 to 1024 replicas")
    );
    assert!(
        error_of(
            "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 7 }\nmig.mps.clients = 2\nmig.time_slicing.replicas = 2\n"
        )
        .contains("shared by MPS (mig.mps) or by time-slicing (mig.time_slicing), not both")
    );
    let e = error_of(
        "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.dynamic = true\nmig.devices = { \"1g.5gb\" = 7 }\n",
    );
    assert!(
        e.starts_with("gpushare.toml:5:17: mig.devices does not go with mig.dynamic = true"),
        "{e}"
    );
    assert!(parse("[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.dynamic = true\n").is_ok());
    assert!(
        parse(
            "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.dynamic = true\nmig.mps.shares = {}\n"
        )
        .is_ok(),
        "instances made for claims may be shared by claims"
    );
    let e = error_of(
        "[[gpus]]\nselect = \"all\"\nmode = \"mig\"\nmig.dynamic = true\nmig.mps.clients = 2\n",
    );
    assert!(
        e.contains("mig.mps does not go with mig.dynamic = true"),
        "{e}"
    );
    assert!(error_of("version = 2\n").contains("only version 1"));
    assert!(error_of("[[gpus]]\nselect = []\nmode = \"none\"\n").contains("name at least one GPU"));
}

#[test]
fn assignment_errors() {
    let n = node("t4x4");
    let c = parse("[[gpus]]\nselect = [0, 9]\nmode = \"none\"\n").unwrap();
    assert!(
        c.assign(&n)
            .unwrap_err()
            .message
            .contains("gpushare.toml:2:10: GPU 9 does not exist")
    );
    let c = parse("[[gpus]]\nselect = { model = \"NVIDIA A100*\" }\nmode = \"none\"\n").unwrap();
    let e = c.assign(&n).unwrap_err();
    assert!(e.message.contains("matches no GPU"), "{}", e.message);
    assert!(e.hint.unwrap().contains("Tesla T4"));
    let c = parse("[[gpus]]\nselect = \"all\"\nmode = \"mps\"\nmps.clients = 2\n[[gpus]]\nselect = [1]\nmode = \"time-slicing\"\ntime_slicing.replicas = 2\n").unwrap();
    let e = c.assign(&n).unwrap_err();
    assert!(
        e.message
            .contains("gpushare.toml:6:10: GPU 1 is already configured by the entry at line 1"),
        "{}",
        e.message
    );
}

#[test]
fn the_health_policy_is_checked_where_it_is_written() {
    let c = parse("[health]\nfatal_xids = [79, 48]\nrecover_after_seconds = 60\n").unwrap();
    let policy = crate::node::gpu_health::policy::Policy::of(c.file.health.as_deref());
    assert_eq!(policy.fatal, [48, 79].into());
    assert_eq!(policy.recover_after_seconds, 60);
    assert!(
        policy.application.contains(&13),
        "a list left out keeps its default"
    );
    let e = parse("[health]\napplication_xids = [13, 79]\nfatal_xids = [79]\n").unwrap_err();
    assert!(e.message.contains("Xid 79 is in both"), "{}", e.message);
    assert!(e.message.contains("gpushare.toml:3:15"), "{}", e.message);
    let e = parse("[health]\nrecover_after_seconds = 999999999\n").unwrap_err();
    assert!(e.message.contains("more than a week"), "{}", e.message);
    let e = parse("[health]\nfatal_xid = [79]\n").unwrap_err();
    assert!(e.message.contains("fatal_xid"), "{}", e.message);
}

#[test]
fn shares_stand_alone_in_their_mps_section() {
    let e = error_of(
        "[[gpus]]\nselect = [0]\nmode = \"mps\"\n\
         mps = { clients = 4, shares = {} }\n",
    );
    assert!(
        e.starts_with("gpushare.toml:4:19: clients does not go with shares"),
        "{e}"
    );
    let e = error_of(
        "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.devices = { \"1g.5gb\" = 7 }\n\
         mig.mps.shares.compute = { default = 0 }\n",
    );
    assert!(e.contains("shares.compute.default = 0"), "{e}");
    assert!(
        parse("[[gpus]]\nselect = [0]\nmode = \"mps\"\nmps.shares = {}\n").is_ok(),
        "shares alone are an mps section"
    );
}
