//! MIG: profile names, desired layouts (gpushare.toml and mig-parted v1), the placement solver,
//! and the planner that turns a desired layout and the observed node into a plan.

pub mod clear;
pub mod export;
pub mod from_config;
pub mod layout;
pub mod mig_parted;
pub mod planner;
pub mod profile_name;
pub mod solver;
pub mod source;
