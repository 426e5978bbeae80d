//! Layouts from flags on the simulator's presets.

use super::*;
use crate::node::backend::Backend;
use crate::node::backend::sim::SimBackend;
use crate::node::config::Config;
use crate::support::error::Exit;
use crate::support::source_file::SourceFile;

fn choose_on(preset: &str, flags: Flags) -> Result<(Chosen, String)> {
    let sim = SimBackend::from_preset(preset).unwrap();
    let node = sim.snapshot().unwrap();
    let book = ProfileBook::load(&sim, &node);
    let chosen = choose(&flags, &node, &book)?;
    let text = Config::to_toml(&chosen.file).unwrap();
    // What init writes must read back as a valid file.
    Config::parse(SourceFile::inline("gpushare.toml", &text)).unwrap();
    Ok((chosen, flat(&text)))
}

/// The file without whitespace and trailing commas, so that tests need not care how the TOML
/// writer breaks lines: `select=[0,1]`, `"1g.5gb"=7`.
fn flat(text: &str) -> String {
    let s: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    s.replace(",]", "]")
}

fn mode(mode: SharingMode) -> Flags {
    Flags {
        mode: Some(mode),
        ..Flags::default()
    }
}

#[test]
fn mig_fills_every_capable_gpu_with_the_profile() {
    let (_, text) = choose_on(
        "dgx-a100",
        Flags {
            profile: Some("1g.5gb".into()),
            ..mode(SharingMode::Mig)
        },
    )
    .unwrap();
    assert!(text.contains("select=\"all\""), "{text}");
    assert!(text.contains("mode=\"mig\""), "{text}");
    assert!(text.contains("\"1g.5gb\"=7"), "{text}");
    assert!(
        text.contains("targets=[\"nvidia-device-plugin\",\"cdi\"]"),
        "{text}"
    );
    // On a mixed node the T4s stay out of the file.
    let (chosen, text) = choose_on(
        "mixed",
        Flags {
            profile: Some("3g.40gb".into()),
            ..mode(SharingMode::Mig)
        },
    )
    .unwrap();
    assert!(text.contains("select=[0,1]"), "{text}");
    assert!(text.contains("\"3g.40gb\"=2"), "{text}");
    assert_eq!(chosen.notes.len(), 2);
    assert!(chosen.notes[0].contains("GPU 2 (Tesla T4) cannot do MIG"));
}

#[test]
fn mig_refuses_nodes_and_profiles_that_cannot() {
    let e = choose_on(
        "t4x4",
        Flags {
            profile: Some("1g.5gb".into()),
            ..mode(SharingMode::Mig)
        },
    )
    .unwrap_err();
    assert_eq!(e.exit, Exit::Usage);
    assert!(
        e.message
            .contains("no GPU of this node can do MIG (4x Tesla T4)"),
        "{}",
        e.message
    );
    let e = choose_on(
        "dgx-a100",
        Flags {
            profile: Some("1g.10gb+gfx".into()),
            ..mode(SharingMode::Mig)
        },
    )
    .unwrap_err();
    assert!(
        e.message
            .starts_with("--profile 1g.10gb+gfx: GPU 0 (NVIDIA A100-SXM4-40GB) has no MIG profile"),
        "{}",
        e.message
    );
    assert!(e.hint.unwrap().contains("1g.5gb"));
}

#[test]
fn mps_and_time_slicing_cover_every_gpu() {
    let (_, text) = choose_on(
        "t4x4",
        Flags {
            clients: Some(4),
            ..mode(SharingMode::Mps)
        },
    )
    .unwrap();
    assert!(
        text.contains("mode=\"mps\"") && text.contains("clients=4"),
        "{text}"
    );
    let (_, text) = choose_on(
        "mixed",
        Flags {
            replicas: Some(3),
            ..mode(SharingMode::TimeSlicing)
        },
    )
    .unwrap();
    assert!(
        text.contains("select=\"all\"") && text.contains("replicas=3"),
        "{text}"
    );
    let e = choose_on(
        "t4x4",
        Flags {
            clients: Some(60),
            ..mode(SharingMode::Mps)
        },
    )
    .unwrap_err();
    assert!(
        e.message.starts_with(
            "60 clients: 60 MPS clients is more than GPU 0 (Tesla T4) takes: at most 48"
        ),
        "{}",
        e.message
    );
}

#[test]
fn auto_takes_the_largest_profile_that_gives_the_slices_and_mps_elsewhere() {
    let auto = |slices, min| Flags {
        slices: Some(slices),
        min_memory_mib: min,
        ..mode(SharingMode::Auto)
    };
    let (_, text) = choose_on("dgx-a100", auto(3, None)).unwrap();
    assert!(text.contains("\"2g.10gb\"=3"), "{text}");
    let (_, text) = choose_on("dgx-a100", auto(7, Some(5 * 1024))).unwrap();
    assert!(text.contains("\"1g.5gb\"=7"), "{text}");
    // No A100-40GB profile gives 7 slices of 10 GB: MPS then, 40 GB / 7 each.
    let e = choose_on("dgx-a100", auto(7, Some(10 * 1024))).unwrap_err();
    assert!(
        e.message
            .contains("cannot give 7 slices of at least 10240 MiB"),
        "{}",
        e.message
    );
    let (_, text) = choose_on("mixed", auto(4, None)).unwrap();
    assert!(
        text.contains("select=[0,1]") && text.contains("\"1g.20gb\"=4"),
        "{text}"
    );
    assert!(
        text.contains("select=[2,3]") && text.contains("clients=4"),
        "{text}"
    );
    let (_, text) = choose_on("dgx-a100", auto(8, None)).unwrap();
    assert!(
        text.contains("mode=\"mps\"") && text.contains("clients=8"),
        "{text}"
    );
}

#[test]
fn flags_must_fit_the_mode() {
    let e = choose_on("t4x4", Flags::default()).unwrap_err();
    assert!(e.message.contains("-c FILE or --mode"), "{}", e.message);
    let e = choose_on("t4x4", mode(SharingMode::Mps)).unwrap_err();
    assert_eq!(e.message, "--mode mps needs --clients");
    let e = choose_on(
        "t4x4",
        Flags {
            clients: Some(2),
            replicas: Some(2),
            ..mode(SharingMode::Mps)
        },
    )
    .unwrap_err();
    assert_eq!(e.message, "--replicas does not go with --mode mps");
    let e = choose_on(
        "dgx-a100",
        Flags {
            profile: Some("1g.5gb".into()),
            min_memory_mib: Some(1024),
            ..mode(SharingMode::Mig)
        },
    )
    .unwrap_err();
    assert_eq!(e.message, "--min-memory does not go with --mode mig");
}
