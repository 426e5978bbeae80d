use super::*;

#[test]
fn the_gpu_operators_clients_file_is_read_unchanged() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/mig-parted/gpu-clients.yaml");
    let clients = GpuClients::load_mig_parted(&path).unwrap();
    assert_eq!(clients.services.len(), 8);
    assert_eq!(clients.services[0], "nvsm.service");
    assert_eq!(clients.services[7], "dcgm-exporter.service");
    assert!(clients.modules.is_empty());
}

#[test]
fn bad_clients_files_are_refused_with_their_place() {
    let parse = |t: &str| GpuClients::parse_mig_parted(&SourceFile::inline("c.yaml", t));
    let e = parse("version: v1\nsystemd-services:\n  - nvsm.service\n  - \"--now\"\n").unwrap_err();
    assert!(
        e.message.contains("c.yaml:4:") && e.message.contains("not a systemd unit name"),
        "{}",
        e.message
    );
    let e = parse("version: v2\nsystemd-services: []\n").unwrap_err();
    assert!(e.message.contains("only v1"), "{}", e.message);
    assert!(parse("version: v1\nservices: []\n").is_err());
    let ok = parse("version: v1\nsystemd-services: [nvsm, nvsm.service]\n").unwrap();
    assert_eq!(
        ok.services,
        ["nvsm.service"],
        "a unit without a type is a service"
    );
}

#[test]
fn names_are_names_never_options_or_patterns() {
    assert_eq!(
        unit_name("dcgm-exporter.service").unwrap(),
        "dcgm-exporter.service"
    );
    assert_eq!(unit_name("nvsm@1").unwrap(), "nvsm@1.service");
    for bad in [
        "",
        "-x.service",
        "nvsm*.service",
        "a b",
        "a/b.service",
        "x\n",
    ] {
        assert!(unit_name(bad).is_err(), "{bad:?}");
    }
    assert_eq!(module_name("nvidia-drm").unwrap(), "nvidia_drm");
    for bad in ["", "-r", "nvidia drm", "../x"] {
        assert!(module_name(bad).is_err(), "{bad:?}");
    }
    let mut a = GpuClients {
        services: vec!["a.service".into()],
        modules: vec![],
    };
    a.merge(GpuClients {
        services: vec!["b.service".into(), "a.service".into()],
        modules: vec!["nvidia_drm".into()],
    });
    assert_eq!(a.services, ["a.service", "b.service"]);
    assert_eq!(a.modules, ["nvidia_drm"]);
}
