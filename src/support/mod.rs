//! The support wing, at the bottom: what every wing needs and nothing domain-specific — errors
//! and exit codes, root-safe files, everything printed, gpushare's paths, the host's programs,
//! the clock, and the small HTTP endpoint the long-running commands serve. It uses no other
//! wing.

pub(crate) mod clock;
pub(crate) mod dns_name;
pub mod error;
pub(crate) mod fsutil;
pub(crate) mod http_endpoint;
pub mod output;
pub(crate) mod paths;
pub(crate) mod program;
pub mod source_file;
