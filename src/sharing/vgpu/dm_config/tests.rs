use super::*;
use crate::node::backend::Backend;
use crate::node::backend::sim::SimBackend;

fn parse(text: &str) -> Result<DmConfig> {
    DmConfig::parse(&SourceFile::inline("vgpu.yaml", text))
}

fn node(preset: &str) -> Node {
    SimBackend::from_preset(preset).unwrap().snapshot().unwrap()
}

const FILE: &str = r#"version: v1
vgpu-configs:
  default:
    - devices: all
      vgpu-devices: {}
  A100-4C:
    - device-filter: ["0x20B010DE", "0x20B210DE"]
      devices: all
      vgpu-devices:
        "A100-4C": 10
  split:
    - devices: [0, 1]
      vgpu-devices: {"A100-5C": 8}
    - device-filter: "0x20B010DE"
      devices: [2, 3]
      vgpu-devices: {"A100-1-5C": 7}
"#;

#[test]
fn parses_labels_in_file_order() {
    let c = parse(FILE).unwrap();
    assert_eq!(c.labels(), vec!["default", "A100-4C", "split"]);
    let d = c.select("A100-4C", &node("dgx-a100")).unwrap();
    assert_eq!(d.gpus.len(), 8);
    assert_eq!(d.gpus[3].types[0].name, "A100-4C");
    assert_eq!(d.gpus[3].types[0].count, 10);
    let at = d.gpus[3].types[0].count_at.as_ref().unwrap();
    assert_eq!((at.line, at.column), (10, 20));
    let d = c.select("default", &node("dgx-a100")).unwrap();
    assert!(d.gpus.iter().all(|g| g.types.is_empty()));
}

#[test]
fn filters_and_indexes_choose_gpus() {
    let c = parse(FILE).unwrap();
    let d = c.select("split", &node("dgx-a100")).unwrap();
    let chosen: Vec<u32> = d.gpus.iter().map(|g| g.index).collect();
    assert_eq!(chosen, vec![0, 1, 2, 3]);
    // The filter names an A100 40GB: a T4 node matches nothing.
    let d = c.select("A100-4C", &node("t4x4")).unwrap();
    assert!(d.gpus.is_empty());
}

#[test]
fn an_index_the_node_lacks_is_bad_input_at_its_place() {
    let text = "version: v1\nvgpu-configs:\n  a:\n    - devices: [0, 99]\n      vgpu-devices: {}\n";
    let e = parse(text).unwrap().select("a", &node("t4x4")).unwrap_err();
    assert_eq!(e.exit, crate::support::error::Exit::Usage);
    assert!(
        e.message
            .starts_with("vgpu.yaml:4:16: GPU 99 does not exist"),
        "{}",
        e.message
    );
    let e = parse(text).unwrap().select("b", &node("t4x4")).unwrap_err();
    assert!(
        e.message.starts_with("vgpu.yaml:3:3: no config `b`"),
        "{}",
        e.message
    );
}

#[test]
fn a_count_past_u32_says_so() {
    let e = error_of(
        "version: v1\nvgpu-configs:\n  a:\n    - devices: all\n      vgpu-devices: {\"A100-4C\": 4294967296}\n",
    );
    assert!(e.starts_with("vgpu.yaml:5:33:"), "{e}");
    assert!(e.contains("more than any GPU holds"), "{e}");
}

#[test]
fn unknown_labels_list_the_known_ones() {
    let e = parse(FILE)
        .unwrap()
        .select("nope", &node("t4x4"))
        .unwrap_err();
    assert_eq!(e.exit, crate::support::error::Exit::Usage);
    assert!(e.hint.unwrap().contains("default, A100-4C, split"));
}

fn error_of(text: &str) -> String {
    parse(text).expect_err("should fail").message
}

#[test]
fn bad_files_name_the_position() {
    let e =
        error_of("version: v2\nvgpu-configs:\n  a:\n    - devices: all\n      vgpu-devices: {}\n");
    assert!(e.starts_with("vgpu.yaml:1:10: version: v2"), "{e}");
    let e =
        error_of("version: v1\nvgpu-configs:\n  a:\n    - devices: some\n      vgpu-devices: {}\n");
    assert!(e.starts_with("vgpu.yaml:4:16: devices: some"), "{e}");
    let e = error_of(
        "version: v1\nvgpu-configs:\n  a:\n    - devices: all\n      vgpu-devices: {\"A100-4X\": 1}\n",
    );
    assert!(e.starts_with("vgpu.yaml:5:22: `A100-4X`"), "{e}");
    let e = error_of(
        "version: v1\nvgpu-configs:\n  a:\n    - devices: all\n      vgpu-devices: {\"A100-4C\": -1}\n",
    );
    assert!(e.starts_with("vgpu.yaml:5:33:"), "{e}");
    assert!(e.contains("at least 1"), "{e}");
    let e = error_of(
        "version: v1\nvgpu-configs:\n  a:\n    - devices: all\n      vgpu-devices: {}\n      extra: 1\n",
    );
    assert!(e.starts_with("vgpu.yaml:6:"), "{e}");
    assert!(e.contains("extra"), "{e}");
    let e = error_of("version: v1\nvgpu-configs:\n  a:\n    - vgpu-devices: {}\n");
    assert!(e.contains("devices"), "{e}");
    let e = error_of("version: v1\nvgpu-configs:\n  a: []\n");
    assert!(e.starts_with("vgpu.yaml:3:3: a: at least one entry"), "{e}");
    let e = error_of(
        "version: v1\nvgpu-configs:\n  a:\n    - device-filter: 0xZZ\n      devices: all\n      vgpu-devices: {}\n",
    );
    assert!(e.starts_with("vgpu.yaml:4:22: device-filter"), "{e}");
    let e = error_of("vgpu-configs:\n  a:\n    - devices: all\n      vgpu-devices: {}\n");
    assert!(e.contains("version: v1"), "{e}");
    let e = error_of(
        "version: v1\nvgpu-configs:\n  a:\n    - devices: {x: 1}\n      vgpu-devices: {}\n",
    );
    assert!(e.starts_with("vgpu.yaml:4:16:"), "{e}");
    assert!(e.contains("`all` or a list of GPU indexes"), "{e}");
    let e = error_of(
        "version: v1\nvgpu-configs:\n  a:\n    - devices: all\n      vgpu-devices: {\"A100-4C\": 1, \"A100-4C\": 2}\n",
    );
    assert!(
        e.starts_with("vgpu.yaml:5:36: duplicate mapping key: A100-4C"),
        "{e}"
    );
    assert!(!e.contains("DuplicateKeyPolicy"), "{e}");
    let e = error_of("version: v1\nvgpu-configs: [\n");
    assert!(e.starts_with("vgpu.yaml:"), "{e}");
}

#[test]
fn a_gpu_in_two_entries_is_an_error() {
    let text = "version: v1\nvgpu-configs:\n  a:\n    - devices: all\n      vgpu-devices: {}\n    - devices: [1]\n      vgpu-devices: {}\n";
    let e = parse(text).unwrap().select("a", &node("t4x4")).unwrap_err();
    assert!(
        e.message
            .starts_with("vgpu.yaml:6:7: GPU 1 is already configured by the entry at line 4"),
        "{}",
        e.message
    );
}

#[test]
fn a_huge_type_name_is_named_as_a_bad_type_name() {
    let name = "A".repeat(200_000);
    let e = parse(&format!(
        "version: v1\nvgpu-configs:\n  a:\n    - devices: all\n      vgpu-devices:\n        \"{name}\": 1\n"
    ))
    .unwrap_err();
    assert!(e.message.starts_with("vgpu.yaml:6:9: "), "{}", e.message);
    assert_eq!(
        e.hint.as_deref(),
        Some("a YAML key is at most 1024 characters long")
    );
    // Written as an explicit key, it is read, and refused as a type name.
    let e = error_of(&format!(
        "version: v1\nvgpu-configs:\n  a:\n    - devices: all\n      vgpu-devices:\n        ? \"{name}\"\n        : 1\n"
    ));
    assert!(e.starts_with("vgpu.yaml:6:11: `AAAA"), "{}", &e[..100]);
    assert!(
        e.contains("is not a vGPU type name"),
        "{}",
        &e[e.len() - 200..]
    );
}
