//! The GPU catalog (`data/gpus.toml`, embedded): models, their MIG geometry and profiles.
//!
//! The simulator builds nodes from it. On a real node **the driver decides**: what NVML reports
//! (name, memory, compute capability, architecture, SM count, MIG capability, and the MIG profiles
//! and placements) wins, and the catalog only fills what the driver cannot say yet — chiefly the
//! MIG profiles of a GPU whose MIG mode is off, and the SM count when the driver does not report
//! CUDA cores. The catalog is found by PCI id, else by the driver's name, and checked against the
//! driver ([`Catalog::match_gpu`]): on a name or memory mismatch it is not used for that GPU, and
//! a GPU the catalog does not know still works.

use crate::node::model::PciId;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::LazyLock;

const CATALOG_TOML: &str = include_str!("../../../data/gpus.toml");

static CATALOG: LazyLock<Catalog> = LazyLock::new(|| {
    toml::from_str(CATALOG_TOML).expect("data/gpus.toml is valid (checked by the catalog tests)")
});

/// The embedded catalog.
pub fn catalog() -> &'static Catalog {
    &CATALOG
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Catalog {
    #[serde(rename = "model")]
    pub models: Vec<GpuModel>,
    pub mig: BTreeMap<String, MigTable>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuModel {
    pub name: String,
    pub pci_device_ids: Vec<PciId>,
    pub memory_mib: u64,
    pub multiprocessors: u32,
    pub compute_capability: String,
    pub architecture: String,
    /// Key of the model's MIG table; absent for GPUs without MIG.
    pub mig: Option<String>,
}

/// The MIG geometry of a family of GPUs.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MigTable {
    pub compute_slices: u32,
    pub memory_slices: u32,
    pub max_gpu_instances: u32,
    pub profiles: Vec<GpuInstanceProfile>,
}

/// A GPU-instance profile as `nvidia-smi mig -lgip` / `-lgipp` show it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuInstanceProfile {
    pub name: String,
    /// `NVML_GPU_INSTANCE_PROFILE_*` index.
    pub nvml_profile: u32,
    /// Profile id as nvidia-smi shows it.
    pub id: u32,
    /// Compute slices.
    pub slices: u32,
    pub memory_mib: u64,
    pub max_instances: u32,
    pub sm: u32,
    pub ce: u32,
    pub dec: u32,
    pub enc: u32,
    pub jpeg: u32,
    pub ofa: u32,
    /// Valid placement starts, in memory slices.
    pub starts: Vec<u32>,
    /// Memory slices one instance occupies.
    pub size: u32,
    #[serde(default)]
    pub inferred: bool,
}

/// A compute-instance profile inside a GPU instance (`nvidia-smi mig -lcip`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComputeInstanceProfile {
    /// `1c.3g.20gb`, or the GPU-instance profile name for the full-size one.
    pub name: String,
    /// `NVML_COMPUTE_INSTANCE_PROFILE_*` index. The driver's profile id (what nvidia-smi shows)
    /// equals it on A100 and H100 but need not; the NVML backend looks the id up.
    pub id: u32,
    /// Compute slices.
    pub slices: u32,
    pub max_instances: u32,
    pub sm: u32,
    /// Valid starts in compute slices of the GPU instance.
    pub starts: Vec<u32>,
}

impl Catalog {
    /// The model NVML would name `name` (exact, then case-insensitive).
    pub fn model(&self, name: &str) -> Option<&GpuModel> {
        self.models.iter().find(|m| m.name == name).or_else(|| {
            self.models
                .iter()
                .find(|m| m.name.eq_ignore_ascii_case(name))
        })
    }

    #[cfg(test)]
    pub(crate) fn model_by_pci(&self, id: PciId) -> Option<&GpuModel> {
        self.models.iter().find(|m| m.pci_device_ids.contains(&id))
    }

    /// The catalog's entry for a GPU of a snapshot, when it agrees with the driver about it.
    pub(crate) fn model_of(&self, gpu: &crate::node::model::Gpu) -> Option<&GpuModel> {
        self.match_gpu(&gpu.name, gpu.pci_device_id, gpu.memory_total_mib)
            .model()
    }

    /// The catalog's entry for a GPU as the driver describes it: found by PCI id (the entry
    /// whose name matches, when several share the id), else by name, and checked against the
    /// driver's name and memory.
    pub(crate) fn match_gpu(
        &self,
        name: &str,
        pci_device_id: PciId,
        memory_mib: u64,
    ) -> CatalogMatch<'_> {
        let by_pci: Vec<&GpuModel> = self
            .models
            .iter()
            .filter(|m| m.pci_device_ids.contains(&pci_device_id))
            .collect();
        let model = match by_pci.iter().find(|m| same_name(&m.name, name)) {
            Some(m) => *m,
            None => match by_pci.first() {
                Some(other) => {
                    return CatalogMatch::Mismatch(format!(
                        "the catalog lists PCI id {pci_device_id} as {}, but the driver calls it {name}: \
                         the catalog is not used for it",
                        other.name
                    ));
                }
                None => match self.models.iter().find(|m| same_name(&m.name, name)) {
                    Some(m) => m,
                    None => return CatalogMatch::Unknown,
                },
            },
        };
        if !similar_memory(model.memory_mib, memory_mib) {
            return CatalogMatch::Mismatch(format!(
                "the catalog's {} has {} MiB, but the driver reports {memory_mib} MiB: the \
                 catalog is not used for it",
                model.name, model.memory_mib
            ));
        }
        CatalogMatch::Found(model)
    }

    pub fn mig_table(&self, model: &GpuModel) -> Option<&MigTable> {
        model.mig.as_deref().and_then(|key| self.mig.get(key))
    }

    pub(crate) fn model_names(&self) -> Vec<&str> {
        self.models.iter().map(|m| m.name.as_str()).collect()
    }
}

/// What the catalog knows of a GPU the driver describes.
#[derive(Debug, Clone)]
pub(crate) enum CatalogMatch<'c> {
    /// An entry that agrees with the driver on name and memory.
    Found(&'c GpuModel),
    /// The catalog has no entry for it (a GPU newer than the catalog, a board variant).
    Unknown,
    /// The entry the PCI id or name leads to disagrees with the driver: why (a warning).
    Mismatch(String),
}

impl<'c> CatalogMatch<'c> {
    pub(crate) fn model(&self) -> Option<&'c GpuModel> {
        match self {
            CatalogMatch::Found(m) => Some(m),
            _ => None,
        }
    }
}

/// Names compare without case and without the brand word drivers changed over the years
/// (`Tesla T4` and `NVIDIA T4` are one GPU).
fn same_name(a: &str, b: &str) -> bool {
    fn core(name: &str) -> String {
        let lower = name.trim().to_ascii_lowercase();
        ["nvidia ", "tesla "].iter().fold(lower, |n, brand| {
            n.strip_prefix(brand).map_or(n.clone(), str::to_string)
        })
    }
    core(a) == core(b)
}

/// Within 10 %: what NVML reports as total memory varies a little with the driver and the ECC
/// setting (and NVIDIA's mock reports the marketing size), while the variants the catalog must
/// tell apart differ by far more (A100 40 GB / 80 GB, H100 80 GB / 94 GB, GH200 96 GB / 144 GB).
fn similar_memory(catalog_mib: u64, driver_mib: u64) -> bool {
    catalog_mib.abs_diff(driver_mib) * 10 <= catalog_mib
}

impl MigTable {
    pub fn profile(&self, name: &str) -> Option<&GpuInstanceProfile> {
        self.profiles.iter().find(|p| p.name == name)
    }

    pub fn profile_by_id(&self, id: u32) -> Option<&GpuInstanceProfile> {
        self.profiles.iter().find(|p| p.id == id)
    }
}

/// Compute-slice counts a compute instance may have, with their NVML profile index.
const CI_SIZES: [(u32, u32); 5] = [(1, 0), (2, 1), (3, 2), (4, 3), (7, 4)];

impl GpuInstanceProfile {
    /// Compute-instance profiles a GPU instance of this profile offers. A `c`-slice compute
    /// instance starts at multiples of the next power of two of `c`, as on A100/H100.
    pub fn compute_profiles(&self) -> Vec<ComputeInstanceProfile> {
        let g = self.slices;
        CI_SIZES
            .iter()
            .filter(|(c, _)| *c <= g && !(*c == 3 && g == 4))
            .map(|&(c, id)| {
                let align = c.next_power_of_two();
                let starts: Vec<u32> = (0..g).filter(|s| s % align == 0 && s + c <= g).collect();
                let name = if c == g {
                    self.name.clone()
                } else {
                    format!("{c}c.{}", self.name)
                };
                ComputeInstanceProfile {
                    name,
                    id,
                    slices: c,
                    max_instances: starts.len() as u32,
                    sm: self.sm * c / g,
                    starts,
                }
            })
            .collect()
    }

    pub fn placements(&self) -> impl Iterator<Item = crate::node::model::Placement> + '_ {
        self.starts
            .iter()
            .map(|&start| crate::node::model::Placement {
                start,
                size: self.size,
            })
    }
}

/// The GB number of a MIG profile name, by the driver's rule: the instance's share of the GPU's
/// memory rounded up to eighths, times the GPU's memory in whole GiB.
pub(crate) fn profile_gb(instance_memory_mib: u64, total_memory_mib: u64) -> u64 {
    if total_memory_mib == 0 {
        return 0;
    }
    let eighths = (instance_memory_mib as f64 / total_memory_mib as f64 * 8.0).ceil();
    let total_gib = (total_memory_mib as f64 / 1024.0).ceil();
    (eighths / 8.0 * total_gib).round() as u64
}

/// The attribute suffix nvidia-smi appends for an `NVML_GPU_INSTANCE_PROFILE_*` index.
pub(crate) fn profile_suffix(nvml_profile: u32) -> &'static str {
    match nvml_profile {
        0x7 | 0x8 => "+me",
        0xA | 0xB | 0xC | 0x11 => "+gfx",
        0xD | 0xE => "-me",
        0xF | 0x10 => "+me.all",
        _ => "",
    }
}

/// The profile name the driver gives an instance: `<slices>g.<GB>gb<suffix>`.
pub(crate) fn profile_name(
    slices: u32,
    nvml_profile: u32,
    memory_mib: u64,
    total_mib: u64,
) -> String {
    format!(
        "{slices}g.{}gb{}",
        profile_gb(memory_mib, total_mib),
        profile_suffix(nvml_profile)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_model_resolves_its_mig_table() {
        let c = catalog();
        for m in &c.models {
            if let Some(key) = &m.mig {
                assert!(
                    c.mig.contains_key(key),
                    "{}: unknown MIG table {key}",
                    m.name
                );
            }
            assert!(!m.pci_device_ids.is_empty(), "{} has no PCI id", m.name);
            assert!(m.memory_mib > 0 && m.multiprocessors > 0, "{}", m.name);
        }
        for key in c.mig.keys() {
            assert!(
                c.models.iter().any(|m| m.mig.as_deref() == Some(key)),
                "MIG table {key} is used by no model"
            );
        }
    }

    #[test]
    fn the_required_models_are_present() {
        let c = catalog();
        for name in [
            "Tesla V100-SXM2-16GB",
            "Tesla T4",
            "NVIDIA A10",
            "NVIDIA A16",
            "NVIDIA A40",
            "NVIDIA L4",
            "NVIDIA L40S",
            "NVIDIA RTX 6000 Ada Generation",
            "NVIDIA GeForce RTX 4090",
            "NVIDIA A30",
            "NVIDIA A100-SXM4-40GB",
            "NVIDIA A100-SXM4-80GB",
            "NVIDIA A100 80GB PCIe",
            "NVIDIA H100 80GB HBM3",
            "NVIDIA H100 NVL",
            "NVIDIA H200",
            "NVIDIA GH200 480GB",
            "NVIDIA B200",
            "NVIDIA GB200",
            "NVIDIA RTX PRO 6000 Blackwell Server Edition",
        ] {
            assert!(c.model(name).is_some(), "missing {name}");
        }
        assert_eq!(
            c.model_by_pci("0x20B010DE".parse().unwrap()).unwrap().name,
            "NVIDIA A100-SXM4-40GB"
        );
    }

    #[test]
    fn placements_lie_inside_the_memory_slices_and_allow_max_instances() {
        let c = catalog();
        for (key, t) in &c.mig {
            assert!(t.compute_slices <= t.memory_slices, "{key}");
            for p in &t.profiles {
                assert!(!p.starts.is_empty(), "{key} {}", p.name);
                assert!(
                    p.slices >= 1 && p.slices <= t.compute_slices,
                    "{key} {}",
                    p.name
                );
                for s in &p.starts {
                    assert!(s + p.size <= t.memory_slices, "{key} {} start {s}", p.name);
                }
                // max_instances non-overlapping placements must exist, and no more than that
                // can fit in the compute slices.
                let mut chosen: Vec<crate::node::model::Placement> = Vec::new();
                for pl in p.placements() {
                    if chosen.iter().all(|c| !c.overlaps(pl)) {
                        chosen.push(pl);
                    }
                }
                assert!(
                    chosen.len() as u32 >= p.max_instances,
                    "{key} {}: only {} disjoint placements for max {}",
                    p.name,
                    chosen.len(),
                    p.max_instances
                );
                assert!(
                    p.max_instances * p.slices <= t.compute_slices,
                    "{key} {}",
                    p.name
                );
                assert!(p.max_instances <= t.max_gpu_instances, "{key} {}", p.name);
                assert!(p.memory_mib > 0 && p.sm > 0, "{key} {}", p.name);
            }
            let ids: std::collections::BTreeSet<u32> = t.profiles.iter().map(|p| p.id).collect();
            assert_eq!(ids.len(), t.profiles.len(), "{key}: profile ids are unique");
        }
    }

    #[test]
    fn profile_names_rederive_from_memory() {
        let c = catalog();
        for m in &c.models {
            let Some(t) = c.mig_table(m) else { continue };
            for p in &t.profiles {
                assert_eq!(
                    profile_name(p.slices, p.nvml_profile, p.memory_mib, m.memory_mib),
                    p.name,
                    "{}: {} ({} MiB)",
                    m.name,
                    p.name,
                    p.memory_mib
                );
            }
        }
    }

    #[test]
    fn compute_profiles_follow_the_driver_layout() {
        let c = catalog();
        let a100 = c
            .mig_table(c.model("NVIDIA A100-SXM4-40GB").unwrap())
            .unwrap();
        let full = a100.profile("7g.40gb").unwrap().compute_profiles();
        let names: Vec<_> = full.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "1c.7g.40gb",
                "2c.7g.40gb",
                "3c.7g.40gb",
                "4c.7g.40gb",
                "7g.40gb"
            ]
        );
        let counts: Vec<_> = full.iter().map(|c| c.max_instances).collect();
        assert_eq!(counts, [7, 3, 2, 1, 1]);
        let three = a100.profile("3g.20gb").unwrap();
        let full = three.compute_profiles().pop().unwrap();
        assert_eq!(
            (full.name.as_str(), full.id, full.slices),
            ("3g.20gb", 2, 3)
        );
        let four: Vec<_> = a100
            .profile("4g.20gb")
            .unwrap()
            .compute_profiles()
            .iter()
            .map(|c| c.slices)
            .collect();
        assert_eq!(four, [1, 2, 4]);
    }

    #[test]
    fn the_catalog_is_found_by_pci_id_else_by_name_and_checked_against_the_driver() {
        let c = catalog();
        let id = |s: &str| s.parse::<PciId>().unwrap();
        let found = |m: CatalogMatch| m.model().map(|m| m.name.clone());
        // PCI id and name agree; the brand word does not matter; memory within 10 %.
        assert_eq!(
            found(c.match_gpu("NVIDIA A100-SXM4-40GB", id("0x20B010DE"), 40960)).as_deref(),
            Some("NVIDIA A100-SXM4-40GB")
        );
        assert_eq!(
            found(c.match_gpu("NVIDIA T4", id("0x1EB810DE"), 16384)).as_deref(),
            Some("Tesla T4")
        );
        // A board variant with another PCI id is found by name (NVIDIA's mock B200, 0x2340).
        assert_eq!(
            found(c.match_gpu("NVIDIA B200", id("0x234010DE"), 196608)).as_deref(),
            Some("NVIDIA B200")
        );
        // Two models share a PCI id: the one the driver names.
        assert_eq!(
            found(c.match_gpu("NVIDIA GH200 120GB", id("0x234210DE"), 97871)).as_deref(),
            Some("NVIDIA GH200 120GB")
        );
        // A GB200 whose PCI id the catalog maps to the H100: not used, and why.
        let CatalogMatch::Mismatch(why) = c.match_gpu("NVIDIA GB200", id("0x233010DE"), 196608)
        else {
            panic!("a name mismatch must not match");
        };
        assert!(
            why.contains("0x233010DE as NVIDIA H100 80GB HBM3") && why.contains("NVIDIA GB200"),
            "{why}"
        );
        // Same name, other memory (an 80 GB board reported as the 40 GB one).
        let CatalogMatch::Mismatch(why) =
            c.match_gpu("NVIDIA A100-SXM4-40GB", id("0x20B010DE"), 81920)
        else {
            panic!("a memory mismatch must not match");
        };
        assert!(
            why.contains("40960 MiB") && why.contains("81920 MiB"),
            "{why}"
        );
        // A GPU newer than the catalog.
        assert!(matches!(
            c.match_gpu("NVIDIA Future GPU", id("0x2FFF10DE"), 100_000),
            CatalogMatch::Unknown
        ));
    }

    #[test]
    fn naming_rule_matches_known_names() {
        assert_eq!(profile_gb(4864, 40960), 5);
        assert_eq!(profile_gb(71168, 143771), 71);
        assert_eq!(profile_name(1, 7, 9984, 81559), "1g.10gb+me");
        assert_eq!(profile_gb(1, 0), 0);
    }
}
