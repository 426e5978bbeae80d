//! Parsing mig-parted configs: what is accepted, and mig-parted's messages for what is not.

use super::*;
use crate::node::backend::Backend;
use crate::node::backend::sim::SimBackend;
use crate::node::model::PciId;
use crate::support::error::Exit;

fn parse(text: &str) -> Result<MigPartedConfig> {
    MigPartedConfig::parse(SourceFile::inline("config.yaml", text))
}

fn error_of(text: &str) -> String {
    parse(text).expect_err("should fail").message
}

fn quiet() -> Output {
    Output::new(Default::default(), true, Default::default())
}

fn desires_on(preset: &str, text: &str, label: &str) -> Result<Vec<GpuDesire>> {
    let sim = SimBackend::from_preset(preset).unwrap();
    let node = sim.snapshot().unwrap();
    let book = ProfileBook::load(&sim, &node);
    let config = parse(text)?;
    let selected = config.select(Some(label))?;
    config.desires(selected, &node, &book, &quiet())
}

const BALANCED: &str = "version: v1
mig-configs:
  all-disabled:
    - devices: all
      mig-enabled: false
  custom:
    - device-filter: [\"0x20B010DE\", \"0x20B210DE:0x147F10DE\"]
      devices: [0, 1]
      mig-enabled: true
      mig-devices:
        \"1g.5gb\": 2
        \"2c.3g.20gb\": 1
        \"1g.5gb+me\": 0
    - devices: [1]
      mig-enabled: true
      mig-devices: {}
";

#[test]
fn parses_labels_entries_and_filters() {
    let c = parse(BALANCED).unwrap();
    assert_eq!(c.labels(), ["all-disabled", "custom"]);
    let custom = c.select(Some("custom")).unwrap();
    let e = &custom.entries[0];
    assert_eq!(e.at, Position { line: 7, column: 7 });
    assert_eq!(e.devices, Devices::Indexes(vec![0, 1]));
    let filters = e.device_filter.as_ref().unwrap();
    assert_eq!(filters[0].to_string(), "0x20B010DE");
    assert_eq!(filters[1].subsystem, Some(PciId(0x147F10DE)));
    let names: Vec<(&str, u32)> = e
        .mig_devices
        .iter()
        .map(|(n, c, _)| (n.as_str(), *c))
        .collect();
    assert_eq!(
        names,
        [("1g.5gb", 2), ("2c.3g.20gb", 1)],
        "zero counts are dropped"
    );
}

#[test]
fn the_last_matching_entry_wins_and_unlisted_gpus_are_left_alone() {
    let d = desires_on("dgx-a100", BALANCED, "custom").unwrap();
    let gpus: Vec<u32> = d.iter().map(|x| x.gpu).collect();
    assert_eq!(gpus, [0, 1]);
    let MigLayout::Enabled(zero) = &d[0].layout else {
        panic!()
    };
    assert_eq!(zero.len(), 3);
    assert_eq!(zero[2].compute.name, "2c.3g.20gb");
    assert_eq!(d[1].layout, MigLayout::Enabled(Vec::new()));
    assert!(
        d[0].origin.contains("config.yaml:7 (label custom)"),
        "{}",
        d[0].origin
    );
}

#[test]
fn a_subsystem_filter_needs_the_subsystem_id() {
    let text = "version: v1\nmig-configs:\n  x:\n    - device-filter: \"0x20B010DE:0x147F10DE\"\n      devices: all\n      mig-enabled: false\n";
    // The simulator reports no subsystem id, so the filter matches nothing.
    let e = desires_on("dgx-a100", text, "x").unwrap_err();
    assert!(
        e.message.contains("label x matches no GPU of this node"),
        "{}",
        e.message
    );
}

#[test]
fn label_selection() {
    let c = parse(BALANCED).unwrap();
    let e = c.select(Some("nope")).unwrap_err();
    assert_eq!(e.exit, Exit::Usage);
    assert_eq!(
        e.message,
        "config.yaml:3:3: selected mig-config not present: nope"
    );
    assert!(e.hint.unwrap().contains("all-disabled, custom"));
    assert!(
        c.select(None)
            .unwrap_err()
            .message
            .contains("selected-config")
    );
    let one =
        parse("version: v1\nmig-configs:\n  only:\n    - devices: all\n      mig-enabled: false\n")
            .unwrap();
    assert_eq!(one.select(None).unwrap().label, "only");
}

#[test]
fn mig_parted_errors_with_line_and_column() {
    assert_eq!(
        error_of("mig-configs:\n  a:\n    - devices: all\n      mig-enabled: false\n"),
        "config.yaml:1:1: unable to parse with missing 'version' field"
    );
    assert_eq!(
        error_of("version: v2\nmig-configs: {}\n"),
        "config.yaml:1:10: unknown version: v2"
    );
    assert_eq!(
        error_of("version: v1\nmig-configs: {}\n"),
        "config.yaml:2:14: at least one entry in 'mig-configs' is required"
    );
    assert_eq!(
        error_of("version: v1\nmig-configs:\n  a: []\n"),
        "config.yaml:3:3: at least one entry in 'a' is required"
    );
    assert!(
        error_of("version: v1\nextra: 1\n").starts_with("config.yaml:2:1: unknown field `extra`")
    );
    assert_eq!(
        error_of("version: v1\nmig-configs:\n  a:\n    - mig-enabled: false\n"),
        "config.yaml:4:7: missing required field: devices"
    );
    assert_eq!(
        error_of(
            "version: v1\nmig-configs:\n  a:\n    - devices: some\n      mig-enabled: false\n"
        ),
        "config.yaml:4:16: invalid string input for 'devices': some"
    );
    assert_eq!(
        error_of("version: v1\nmig-configs:\n  a:\n    - devices: all\n      mig-enabled: true\n"),
        "config.yaml:4:7: missing required field 'mig-devices' when 'mig-enabled' is true"
    );
    assert_eq!(
        error_of(
            "version: v1\nmig-configs:\n  a:\n    - devices: all\n      mig-enabled: false\n      mig-devices: {\"1g.5gb\": 1}\n"
        ),
        "config.yaml:6:20: MIG devices included when 'mig-enabled' is false"
    );
    assert!(
        error_of("version: v1\nmig-configs:\n  a:\n    - devices: all\n      mig-enabled: true\n      mig-devices:\n        \"1g5gb\": 1\n")
            .starts_with("config.yaml:7:9: error validating values in 'mig-devices' field: `1g5gb` is not a MIG profile")
    );
    assert_eq!(
        error_of(
            "version: v1\nmig-configs:\n  a:\n    - devices: all\n      mig-enabled: true\n      mig-devices:\n        \"1g.5gb\": -1\n"
        ),
        "config.yaml:7:19: invalid count for '1g.5gb': -1"
    );
    assert!(
        error_of("version: v1\nmig-configs:\n  a:\n    - devices: all\n      mig-enabled: 3\n")
            .starts_with("config.yaml:5:20: invalid boolean for 'mig-enabled': 3")
    );
    assert!(
        error_of("version: v1\nmig-configs:\n  a:\n    - device-filter: \"0xZZ\"\n      devices: all\n      mig-enabled: false\n")
            .starts_with("config.yaml:4:22: invalid device-filter `0xZZ`")
    );
    assert!(
        error_of("version: v1\nmig-configs:\n  a: []\n  a: []\n")
            .starts_with("config.yaml:4:3: duplicate mapping key")
    );
    assert!(error_of(": : :\n  - [").starts_with("config.yaml:"));
}

#[test]
fn node_dependent_errors() {
    let text = "version: v1\nmig-configs:\n  x:\n    - devices: all\n      mig-enabled: true\n      mig-devices:\n        \"1g.10gb\": 7\n";
    // 1g.10gb exists on an A100-40GB but at most 4 of them.
    let e = desires_on("dgx-a100", text, "x").unwrap_err();
    assert_eq!(
        e.message,
        "config.yaml:7:9: \"1g.10gb\": 7: GPU 0 (NVIDIA A100-SXM4-40GB) holds at most 4"
    );
    let e = desires_on("dgx-h100", "version: v1\nmig-configs:\n  x:\n    - devices: all\n      mig-enabled: true\n      mig-devices:\n        \"1g.5gb\": 7\n", "x").unwrap_err();
    assert!(
        e.message
            .contains("GPU 0 (NVIDIA H100 80GB HBM3) has no MIG profile `1g.5gb`"),
        "{}",
        e.message
    );
    assert!(e.hint.unwrap().contains("1g.10gb"));
    let e = desires_on(
        "dgx-a100",
        "version: v1\nmig-configs:\n  x:\n    - devices: [8]\n      mig-enabled: false\n",
        "x",
    )
    .unwrap_err();
    assert_eq!(e.message, "config.yaml:4:16: GPU 8 does not exist");
    // A GPU without MIG that an entry enables MIG on: mig-parted's error, listed or under `all`.
    let e = desires_on("mixed", "version: v1\nmig-configs:\n  x:\n    - devices: [2]\n      mig-enabled: true\n      mig-devices: {}\n", "x").unwrap_err();
    assert!(
        e.message.contains(
            "config.yaml:4:16: GPU 2 (Tesla T4): cannot set MIG mode on non MIG-capable GPU"
        ),
        "{}",
        e.message
    );
    let e = desires_on("mixed", "version: v1\nmig-configs:\n  x:\n    - devices: all\n      mig-enabled: true\n      mig-devices: {}\n", "x").unwrap_err();
    assert!(
        e.message
            .contains("config.yaml:4:16: GPU 2 (Tesla T4): cannot set MIG mode"),
        "{}",
        e.message
    );
    // mig-enabled: false there is a success, as in mig-parted.
    let d = desires_on(
        "mixed",
        "version: v1\nmig-configs:\n  x:\n    - devices: all\n      mig-enabled: false\n",
        "x",
    )
    .unwrap();
    assert_eq!(d.len(), 2);
    let d = desires_on(
        "mixed",
        "version: v1\nmig-configs:\n  x:\n    - devices: [2]\n      mig-enabled: false\n",
        "x",
    )
    .unwrap();
    assert!(d.is_empty());
    let e = desires_on("dgx-a100", "version: v1\nmig-configs:\n  x:\n    - devices: all\n      mig-enabled: true\n      mig-devices: {\"3g.20gb\": 2, \"2g.10gb\": 1}\n", "x").unwrap_err();
    assert!(e.message.contains("config.yaml:4:7: GPU 0 (NVIDIA A100-SXM4-40GB): no MIG layout fits: 3g.20gb ×2 + 2g.10gb ×1 need 8 compute slices; the GPU has 7"), "{}", e.message);
}

#[test]
fn only_true_and_false_enable_mig_and_unknown_tags_are_refused() {
    let with = |value: &str| {
        format!(
            "version: v1\nmig-configs:\n  c:\n    - devices: all\n      mig-enabled: {value}\n      mig-devices: {{}}\n"
        )
    };
    assert!(parse(&with("true")).is_ok());
    assert!(parse(&with("false")).is_ok());
    for value in ["\"yes\"", "yes", "on", "\"true\"", "1", "!foo true"] {
        let e = parse(&with(value)).expect_err(value);
        assert_eq!(e.exit, Exit::Usage);
        assert!(
            e.message.starts_with("config.yaml:5:"),
            "{value}: {}",
            e.message
        );
    }
    for text in [
        "version: !foo v1\nmig-configs: {}\n",
        "version: v1\nmig-configs:\n  c:\n    - devices: !!python/object:os.system all\n      mig-enabled: false\n",
    ] {
        let e = parse(text).expect_err(text);
        assert!(e.message.contains("tag"), "{}", e.message);
    }
}

#[test]
fn a_missing_field_or_label_is_placed() {
    assert!(error_of("mig-configs: {}\n").starts_with("config.yaml:1:1: "));
    assert!(error_of("version: v1\n").starts_with("config.yaml:1:1: "));
    let c = parse(BALANCED).unwrap();
    let e = c.select(Some("nope")).unwrap_err();
    assert!(
        e.message
            .starts_with("config.yaml:3:3: selected mig-config not present: nope"),
        "{}",
        e.message
    );
}
