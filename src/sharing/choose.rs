//! The layout `init --mode …` asks for on this node, as a gpushare.toml. Pure (the
//! node and the driver's MIG profiles in, a file out), so every choice is unit-tested.
//!
//! - `mig --profile P`: on every MIG-capable GPU, as many instances of P as it holds; the other
//!   GPUs are left out of the file (untouched);
//! - `mps --clients N`, `time-slicing --replicas N`: every GPU;
//! - `auto --slices N [--min-memory SIZE]`: on a MIG-capable GPU, the MIG profile with the most
//!   memory (then compute) that gives N instances of at least SIZE, ignoring `+me`-style and
//!   compute-instance profiles; MPS with N clients on the others, which must give each client at
//!   least SIZE.

use crate::node::config::{
    ConfigFile, GpuEntry, KubernetesSection, MigSection, Mode, MpsSection, Select,
    TimeSlicingSection,
};
use crate::node::model::{Gpu, Node};
use crate::sharing::mig::layout::{ProfileBook, resolve};
use crate::sharing::mig::profile_name::ProfileName;
use crate::sharing::mps::limits::{self, MpsRequest, MpsTarget};
use crate::support::error::{Error, Result};
use std::collections::BTreeMap;
use toml::Spanned;

/// Targets `init` writes manifests for: NVIDIA's device plugin and a CDI spec.
pub(crate) const DEFAULT_TARGETS: [&str; 2] = ["nvidia-device-plugin", "cdi"];
/// For layouts the device plugin cannot describe (MIG and MPS on one node, MPS on GPUs with
/// different memory): the NVIDIA DRA driver's classes instead.
pub(crate) const FALLBACK_TARGETS: [&str; 2] = ["dra", "cdi"];

/// How `init --mode` shares the GPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SharingMode {
    /// MIG instances of one profile.
    Mig,
    /// MPS with N clients per GPU.
    Mps,
    /// Time-slicing with N replicas per GPU.
    TimeSlicing,
    /// N slices per GPU: MIG where a profile gives them, MPS elsewhere.
    Auto,
}

/// The layout flags of `init`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Flags {
    pub mode: Option<SharingMode>,
    pub profile: Option<String>,
    pub clients: Option<u32>,
    pub replicas: Option<u32>,
    pub slices: Option<u32>,
    pub min_memory_mib: Option<u64>,
}

/// What one GPU gets.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Share {
    Mig {
        profile: String,
        count: u32,
        /// Time-slicing replicas of each MIG device.
        replicas: Option<u32>,
    },
    Mps {
        clients: u32,
        volta_or_newer: bool,
    },
    TimeSlicing {
        replicas: u32,
    },
}

/// The file the flags ask for, and notes about GPUs left out.
#[derive(Debug, Clone)]
pub(crate) struct Chosen {
    pub file: ConfigFile,
    pub notes: Vec<String>,
}

pub(crate) fn choose(flags: &Flags, node: &Node, book: &ProfileBook) -> Result<Chosen> {
    let Some(mode) = flags.mode else {
        return Err(
            Error::usage("init needs a layout: -c FILE or --mode").with_hint(
                "e.g. --mode mig --profile 1g.10gb, --mode mps --clients 4, \
                 --mode time-slicing --replicas 4, or --mode auto --slices 4",
            ),
        );
    };
    check_flags(mode, flags)?;
    if node.gpus.is_empty() {
        return Err(Error::failed("this node has no GPU to share")
            .with_hint("`gpushare detect` shows what the driver sees"));
    }
    let mut notes = Vec::new();
    let mut shares: Vec<(u32, Share)> = Vec::new();
    for gpu in &node.gpus {
        let share = match mode {
            SharingMode::Mig => {
                let Some(profile) = &flags.profile else {
                    continue;
                };
                if !gpu.mig.capable {
                    notes.push(format!(
                        "GPU {} ({}) cannot do MIG: left as it is",
                        gpu.index, gpu.name
                    ));
                    continue;
                }
                mig_share(gpu, book, profile, flags.replicas)?
            }
            SharingMode::Mps => mps_share(node, gpu, flags.clients.unwrap_or(1), None)?,
            SharingMode::TimeSlicing => Share::TimeSlicing {
                replicas: flags.replicas.unwrap_or(2),
            },
            SharingMode::Auto => auto_share(node, gpu, book, flags)?,
        };
        shares.push((gpu.index, share));
    }
    if shares.is_empty() {
        return Err(Error::usage(format!(
            "--mode mig: no GPU of this node can do MIG ({})",
            models(node)
        ))
        .with_hint(
            "share them with --mode mps --clients N or --mode time-slicing --replicas N \
             (--mode auto --slices N picks MIG where it can)",
        ));
    }
    let mut file = ConfigFile {
        version: spanned(1),
        gpus: entries(node, shares),
        kubernetes: None,
        clients: None,
        health: None,
    };
    set_targets(&mut file, &DEFAULT_TARGETS);
    Ok(Chosen { file, notes })
}

/// `[kubernetes] targets = [...]`.
pub(crate) fn set_targets(file: &mut ConfigFile, targets: &[&str]) {
    file.kubernetes = Some(KubernetesSection {
        targets: targets.iter().map(|t| spanned(t.to_string())).collect(),
        namespace: None,
        version: None,
    });
}

fn spanned<T>(value: T) -> Spanned<T> {
    Spanned::new(0..0, value)
}

/// Each mode takes its own flags and no others.
fn check_flags(mode: SharingMode, f: &Flags) -> Result<()> {
    let (name, needed, example) = match mode {
        SharingMode::Mig => ("mig", "--profile", "--profile 1g.10gb"),
        SharingMode::Mps => ("mps", "--clients", "--clients 4"),
        SharingMode::TimeSlicing => ("time-slicing", "--replicas", "--replicas 4"),
        SharingMode::Auto => ("auto", "--slices", "--slices 4"),
    };
    let given = [
        ("--profile", f.profile.is_some()),
        ("--clients", f.clients.is_some()),
        ("--replicas", f.replicas.is_some()),
        ("--slices", f.slices.is_some()),
        ("--min-memory", f.min_memory_mib.is_some()),
    ];
    let allowed: &[&str] = match mode {
        SharingMode::Auto => &["--slices", "--min-memory"],
        SharingMode::Mig => &["--profile", "--replicas"],
        _ => &[needed],
    };
    if let Some((flag, _)) = given
        .iter()
        .find(|(flag, set)| *set && !allowed.contains(flag))
    {
        return Err(
            Error::usage(format!("{flag} does not go with --mode {name}"))
                .with_hint(format!("--mode {name} takes {}", allowed.join(" and "))),
        );
    }
    if !given.iter().any(|(flag, set)| *set && *flag == needed) {
        return Err(Error::usage(format!("--mode {name} needs {needed}"))
            .with_hint(format!("e.g. --mode {name} {example}")));
    }
    Ok(())
}

/// `--profile P` on one MIG-capable GPU: as many as it holds.
fn mig_share(gpu: &Gpu, book: &ProfileBook, profile: &str, replicas: Option<u32>) -> Result<Share> {
    let Some(profiles) = book.known(gpu)? else {
        return Err(Error::failed(format!(
            "GPU {} ({}): --profile {profile} needs its MIG profiles, which are known only once MIG is on",
            gpu.index, gpu.name
        ))
        .with_hint(
            "enable MIG first (`gpushare mig apply` with `mig-enabled: true` and no devices), \
             then run init again; or write the layout yourself and pass it with -c FILE",
        ));
    };
    let (index, _) = resolve(gpu, profiles, profile)
        .map_err(|p| problem(p).context(format!("--profile {profile}")))?;
    Ok(Share::Mig {
        profile: profile.to_string(),
        count: profiles[index].max_instances,
        replicas,
    })
}

fn problem(p: crate::sharing::mig::layout::Problem) -> Error {
    let e = Error::usage(p.message);
    match p.hint {
        Some(h) => e.with_hint(h),
        None => e,
    }
}

/// MPS with `clients` on a whole GPU, each client getting at least `min_mib` when given.
fn mps_share(node: &Node, gpu: &Gpu, clients: u32, min_mib: Option<u64>) -> Result<Share> {
    let target: MpsTarget = limits::gpu_target(node, gpu);
    let request = MpsRequest {
        clients: Some(clients),
        ..MpsRequest::default()
    };
    if let Err(p) = limits::check(&request, &target) {
        return Err(
            Error::usage(format!("{clients} clients: {}", p.describe(&target)))
                .with_hint(p.hint(&target)),
        );
    }
    if let Some(min) = min_mib {
        let each = gpu.memory_total_mib / u64::from(clients);
        if each < min {
            return Err(Error::usage(format!(
                "GPU {} ({}) cannot give {clients} slices of at least {min} MiB: MPS gives each \
                 client {each} MiB of its {} MiB, and it has no MIG profile for it",
                gpu.index, gpu.name, gpu.memory_total_mib
            ))
            .with_hint("ask for fewer slices or less memory"));
        }
    }
    Ok(Share::Mps {
        clients,
        volta_or_newer: target.volta_or_newer,
    })
}

/// `auto`: MIG when a plain profile gives N instances of at least the memory, else MPS.
fn auto_share(node: &Node, gpu: &Gpu, book: &ProfileBook, flags: &Flags) -> Result<Share> {
    let n = flags.slices.unwrap_or(1);
    let min_mib = flags.min_memory_mib.unwrap_or(0);
    if gpu.mig.capable
        && let Ok(Some(profiles)) = book.known(gpu)
    {
        let best = profiles
            .iter()
            .filter_map(|p| {
                let name = ProfileName::parse(&p.name).ok()?;
                let plain = name.attributes.is_empty()
                    && name.without.is_empty()
                    && name.compute_slices == name.slices;
                // The name's memory figure is what people ask for (`5G` for 1g.5gb, whose
                // instances have a little less).
                let nominal_mib = u64::from(name.gb) * 1024;
                (plain && p.max_instances >= n && nominal_mib >= min_mib).then_some(p)
            })
            .max_by_key(|p| (p.memory_mib, p.slices));
        if let Some(p) = best {
            return Ok(Share::Mig {
                profile: p.name.clone(),
                count: n,
                replicas: None,
            });
        }
    }
    mps_share(node, gpu, n, flags.min_memory_mib)
}

/// One entry per kind of share, selecting its GPUs (`"all"` when it is every GPU).
fn entries(node: &Node, shares: Vec<(u32, Share)>) -> Vec<Spanned<GpuEntry>> {
    let mut groups: BTreeMap<Share, Vec<u32>> = BTreeMap::new();
    for (gpu, share) in shares {
        groups.entry(share).or_default().push(gpu);
    }
    let mut out: Vec<(u32, GpuEntry)> = groups
        .into_iter()
        .map(|(share, gpus)| {
            let select = if gpus.len() == node.gpus.len() {
                Select::All
            } else {
                Select::Indexes(gpus.clone())
            };
            (gpus[0], entry(select, share))
        })
        .collect();
    out.sort_by_key(|(first, _)| *first);
    out.into_iter().map(|(_, e)| spanned(e)).collect()
}

fn entry(select: Select, share: Share) -> GpuEntry {
    let mut e = GpuEntry {
        select: spanned(select),
        mode: spanned(Mode::None),
        mig: None,
        mps: None,
        time_slicing: None,
        vgpu: None,
    };
    match share {
        Share::Mig {
            profile,
            count,
            replicas,
        } => {
            e.mode = spanned(Mode::Mig);
            let mut devices = BTreeMap::new();
            devices.insert(spanned(profile), spanned(count));
            e.mig = Some(spanned(MigSection {
                devices,
                time_slicing: replicas.map(|r| {
                    spanned(TimeSlicingSection {
                        replicas: spanned(r),
                    })
                }),
                ..MigSection::default()
            }));
        }
        Share::Mps { clients, .. } => {
            e.mode = spanned(Mode::Mps);
            e.mps = Some(spanned(MpsSection {
                clients: Some(spanned(clients)),
                ..MpsSection::default()
            }));
        }
        Share::TimeSlicing { replicas } => {
            e.mode = spanned(Mode::TimeSlicing);
            e.time_slicing = Some(spanned(TimeSlicingSection {
                replicas: spanned(replicas),
            }));
        }
    }
    e
}

/// `4x Tesla T4`, `2x NVIDIA A100 80GB PCIe + 2x Tesla T4`.
pub(crate) fn models(node: &Node) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for g in &node.gpus {
        match counts.iter_mut().find(|(n, _)| *n == g.name) {
            Some((_, c)) => *c += 1,
            None => counts.push((&g.name, 1)),
        }
    }
    counts
        .iter()
        .map(|(n, c)| format!("{c}x {n}"))
        .collect::<Vec<_>>()
        .join(" + ")
}

#[cfg(test)]
mod tests;
