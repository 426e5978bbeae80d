//! MIG: profile names, desired layouts (gpushare.toml and mig-parted v1), the placement solver.
//! The planner that turns a desired layout and the observed node into a plan is the change
//! wing's (`crate::change::pipeline::planner::mig`).

pub(crate) mod claimed;
pub(crate) mod clear;
pub(crate) mod config_file;
pub(crate) mod export;
pub(crate) mod from_config;
pub(crate) mod layout;
pub(crate) mod mig_parted;
pub mod partitions;
pub(crate) mod profile_name;
pub(crate) mod solver;

// What the MIG bench and the mig-parted compatibility test drive directly (with
// `change::pipeline::planner::mig::plan`).
pub use config_file::MigConfigFile;
pub use layout::ProfileBook;
pub use solver::{Request, solve};
