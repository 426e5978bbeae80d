//! mig-parted compatibility: every label of mig-parted's own configs, applied to every simulated
//! preset, gives the MIG devices mig-parted would create there.
//!
//! The expectation is computed here from the YAML alone (read as plain data, without gpushare's
//! parser) and the GPU catalog: per GPU the last matching entry, its mig-enabled and its
//! mig-devices counts. Labels whose profiles a GPU does not have, or that enable MIG on a GPU
//! without it (mig-parted's `assert` fails there), must be refused (exit 2) before anything
//! changes. Runs in-process on the simulator, through the same code as `mig apply`.

use crate::common;

use gpushare::change::pipeline::planner::mig::plan;
use gpushare::change::plan::PlanOptions;
use gpushare::node::backend::Backend;
use gpushare::node::backend::sim::{SimBackend, node_file};
use gpushare::node::model::catalog::catalog;
use gpushare::node::model::{Gpu, Node};
use gpushare::sharing::mig::{MigConfigFile, ProfileBook};
use gpushare::support::error::Exit;
use gpushare::support::output::Output;
use gpushare::support::source_file::SourceFile;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

fn quiet() -> Output {
    Output::new(Default::default(), true, Default::default())
}

/// What mig-parted would leave on one GPU: None = untouched; Some(None) = MIG disabled;
/// Some(Some(counts)) = MIG enabled with these MIG devices.
type Expected = Option<Option<BTreeMap<String, u64>>>;

fn filter_matches(entry: &Value, gpu: &Gpu) -> bool {
    let ids: Vec<String> = match &entry["device-filter"] {
        Value::Null => return true,
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a
            .iter()
            .filter_map(|v| v.as_str().map(String::from))
            .collect(),
        other => panic!("unexpected device-filter {other}"),
    };
    ids.iter()
        .any(|id| id.to_ascii_uppercase().replace("0X", "0x") == gpu.pci_device_id.to_string())
}

fn devices_match(entry: &Value, gpu: &Gpu) -> bool {
    match &entry["devices"] {
        Value::String(s) => s == "all",
        Value::Array(a) => a.iter().any(|v| v.as_u64() == Some(u64::from(gpu.index))),
        other => panic!("unexpected devices {other}"),
    }
}

fn last_match<'a>(entries: &'a [Value], gpu: &Gpu) -> Option<&'a Value> {
    entries
        .iter()
        .rfind(|e| filter_matches(e, gpu) && devices_match(e, gpu))
}

/// The label enables MIG on this GPU, which has none.
fn enables_mig_without_it(entries: &[Value], gpu: &Gpu) -> bool {
    !gpu.mig.capable
        && last_match(entries, gpu).is_some_and(|e| e["mig-enabled"] == Value::Bool(true))
}

fn expected(entries: &[Value], gpu: &Gpu) -> Expected {
    let entry = last_match(entries, gpu)?;
    if !gpu.mig.capable {
        return None;
    }
    if entry["mig-enabled"] != Value::Bool(true) {
        return Some(None);
    }
    let counts = entry["mig-devices"]
        .as_object()
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| v.as_u64().filter(|n| *n > 0).map(|n| (k.clone(), n)))
                .collect()
        })
        .unwrap_or_default();
    Some(Some(counts))
}

/// Whether the GPU has every profile, within its maximum counts (else gpushare must refuse).
fn supported(gpu: &Gpu, counts: &BTreeMap<String, u64>) -> bool {
    let c = catalog();
    let Some(table) = c.model(&gpu.name).and_then(|m| c.mig_table(m)) else {
        return false;
    };
    counts.iter().all(|(name, n)| {
        table
            .profile(name)
            .is_some_and(|p| *n <= u64::from(p.max_instances))
    })
}

/// The MIG devices a GPU has: compute-instance profile → count.
fn observed(gpu: &Gpu) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for ci in gpu
        .mig
        .instances
        .iter()
        .flatten()
        .flat_map(|gi| &gi.compute_instances)
    {
        *out.entry(ci.profile.clone()).or_insert(0) += 1;
    }
    out
}

fn apply(
    file: &MigConfigFile,
    label: &str,
    sim: &Arc<SimBackend>,
) -> gpushare::support::error::Result<Exit> {
    let node = sim.snapshot().unwrap();
    let book = ProfileBook::load(&**sim, &node);
    let desires = file.desires(Some(label), &node, &book, &quiet())?;
    let mut p = plan(&node, &desires, PlanOptions::default());
    let exit = gpushare::change::pipeline::execute(&mut p, sim.clone(), &quiet())?;
    let again = plan(&sim.snapshot().unwrap(), &desires, PlanOptions::default());
    assert!(again.is_converged(), "{label}: a second plan is empty");
    Ok(exit)
}

fn check_file(name: &str) -> (usize, usize) {
    let path = common::repo().join("tests/fixtures/mig-parted").join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let raw: Value = serde_saphyr::from_str(&text).unwrap();
    let file = MigConfigFile::parse(SourceFile::inline(name, &text)).unwrap();
    let (mut applied, mut refused) = (0, 0);
    for (label, entries) in raw["mig-configs"].as_object().unwrap() {
        let entries = entries.as_array().unwrap();
        for preset in node_file::preset_names() {
            let sim = Arc::new(SimBackend::from_preset(&preset).unwrap());
            let before: Node = sim.snapshot().unwrap();
            let wants: Vec<Expected> = before.gpus.iter().map(|g| expected(entries, g)).collect();
            let matched = before.gpus.iter().any(|g| {
                entries
                    .iter()
                    .any(|e| filter_matches(e, g) && devices_match(e, g))
            });
            // An index the node does not have is refused (mig-parted ignores it silently).
            let indexes_exist = entries.iter().all(|e| {
                e["devices"].as_array().is_none_or(|a| {
                    a.iter()
                        .all(|i| i.as_u64().is_some_and(|i| i < before.gpus.len() as u64))
                })
            });
            let ok = matched
                && indexes_exist
                && !before
                    .gpus
                    .iter()
                    .any(|g| enables_mig_without_it(entries, g))
                && before.gpus.iter().zip(&wants).all(|(g, w)| match w {
                    Some(Some(counts)) => supported(g, counts),
                    _ => true,
                });
            let result = apply(&file, label, &sim);
            if !ok {
                let e = result.expect_err(&format!("{name} {label} on {preset} must be refused"));
                assert_eq!(
                    e.exit,
                    Exit::Usage,
                    "{name} {label} on {preset}: {}",
                    e.message
                );
                assert_eq!(sim.snapshot().unwrap(), before, "refused before any change");
                refused += 1;
                continue;
            }
            assert_eq!(
                result.unwrap_or_else(|e| panic!("{name} {label} on {preset}: {}", e.message)),
                Exit::Ok
            );
            let after = sim.snapshot().unwrap();
            for (gpu, want) in after.gpus.iter().zip(&wants) {
                let at = format!("{name} {label} on {preset}, GPU {}", gpu.index);
                match want {
                    None => assert_eq!(Some(gpu), before.gpu(gpu.index), "{at}: untouched"),
                    Some(None) => {
                        assert!(!gpu.mig.current.is_enabled(), "{at}: MIG disabled");
                    }
                    Some(Some(counts)) => {
                        assert!(gpu.mig.current.is_enabled(), "{at}: MIG enabled");
                        assert_eq!(&observed(gpu), counts, "{at}");
                    }
                }
            }
            applied += 1;
        }
    }
    (applied, refused)
}

#[test]
fn every_label_of_the_default_config_on_every_preset() {
    let (applied, refused) = check_file("config-default.yaml");
    // Sanity: most labels are for one kind of GPU, so most combinations are refused, but each
    // preset's own labels apply.
    assert!(applied >= 60, "{applied} applied");
    assert!(refused > 0);
}

#[test]
fn every_label_of_the_example_config_on_every_preset() {
    let (applied, _) = check_file("examples-config.yaml");
    assert!(applied >= 9, "{applied} applied");
}

#[test]
fn all_balanced_on_each_preset_gives_the_balanced_layout() {
    // Spot checks of the expectation itself, from mig-deviceplugin.md §a.
    for (preset, want) in [
        (
            "dgx-a100",
            vec![("1g.5gb", 2), ("2g.10gb", 1), ("3g.20gb", 1)],
        ),
        (
            "hgx-a100-80gb",
            vec![("1g.10gb", 2), ("2g.20gb", 1), ("3g.40gb", 1)],
        ),
        (
            "dgx-h100",
            vec![("1g.10gb", 2), ("2g.20gb", 1), ("3g.40gb", 1)],
        ),
        (
            "hgx-h200",
            vec![("1g.18gb", 2), ("2g.35gb", 1), ("3g.71gb", 1)],
        ),
        (
            "dgx-b200",
            vec![("1g.23gb", 2), ("2g.45gb", 1), ("3g.90gb", 1)],
        ),
        ("a30x4", vec![("1g.6gb", 2), ("2g.12gb", 1)]),
        ("rtx-pro-6000x2", vec![("1g.24gb", 2), ("2g.48gb", 1)]),
    ] {
        let text = std::fs::read_to_string(
            common::repo().join("tests/fixtures/mig-parted/config-default.yaml"),
        )
        .unwrap();
        let file = MigConfigFile::parse(SourceFile::inline("config-default.yaml", &text)).unwrap();
        let sim = Arc::new(SimBackend::from_preset(preset).unwrap());
        apply(&file, "all-balanced", &sim).unwrap();
        let want: BTreeMap<String, u64> =
            want.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        for gpu in sim.snapshot().unwrap().gpus {
            assert_eq!(observed(&gpu), want, "{preset} GPU {}", gpu.index);
        }
    }
}
