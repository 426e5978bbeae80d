//! The solver's terms: a GPU's size in MIG terms, the instances asked for and those that exist,
//! where each goes, and why a layout cannot be had.

use crate::node::model::Placement;
use crate::node::model::catalog::GpuInstanceProfile;

/// The size of a GPU in MIG terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Geometry {
    pub memory_slices: u32,
    pub compute_slices: u32,
    pub max_gpu_instances: u32,
}

impl Geometry {
    /// Derived from the profiles, so it works the same for the catalog and for what the driver
    /// reports: memory slices end where the last placement ends, the largest profile spans every
    /// compute slice, and the smallest profile's count is the most instances a GPU holds.
    pub(crate) fn of(profiles: &[GpuInstanceProfile]) -> Geometry {
        Geometry {
            memory_slices: profiles
                .iter()
                .flat_map(|p| p.starts.iter().map(move |s| s.saturating_add(p.size)))
                .max()
                .unwrap_or(0),
            compute_slices: profiles.iter().map(|p| p.slices).max().unwrap_or(0),
            max_gpu_instances: profiles.iter().map(|p| p.max_instances).max().unwrap_or(0),
        }
    }
}

/// One GPU instance the layout asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// Index into the profile list.
    pub profile: usize,
    /// A start the user pinned (`mig.instances = [{ profile, start }]`).
    pub start: Option<u32>,
    /// The compute-instance profile id it should hold (opaque here; used to prefer existing
    /// instances that already have it).
    pub compute_profile: u32,
}

/// A GPU instance that exists now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Existing {
    /// Index into the profile list (`None`: a profile the list does not know; never kept).
    pub profile: Option<usize>,
    pub placement: Placement,
    /// Compute-instance profile ids it holds now.
    pub compute_profiles: Vec<u32>,
    /// It has processes: the layout must keep it where it is.
    pub must_keep: bool,
}

/// Where a requested instance goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// Keep the existing instance with this index.
    Keep(usize),
    /// Create a new instance here.
    New(Placement),
}

impl Slot {
    pub(crate) fn placement(self, existing: &[Existing]) -> Placement {
        match self {
            Slot::Keep(e) => existing[e].placement,
            Slot::New(p) => p,
        }
    }
}

/// Why no layout exists, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Infeasible(pub String);

impl std::fmt::Display for Infeasible {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
