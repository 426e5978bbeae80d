//! `--clients`: how many workers run at once on each target.

use super::targets::Target;

/// How many clients run at once on a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Clients {
    /// This many on every target.
    Each(u32),
    /// As many as the target is promised to (MPS clients, time-slicing replicas of a GPU or a
    /// MIG device), one where nothing is promised.
    Promised,
}

impl Clients {
    /// The most clients a probe runs on one target.
    pub(crate) const MAX: u32 = 64;

    /// `promised`, or a count from 1 to [`Clients::MAX`] (`--clients`).
    pub(crate) fn parse(text: &str) -> std::result::Result<Clients, String> {
        if text == "promised" {
            return Ok(Clients::Promised);
        }
        match text.parse::<u32>() {
            Ok(n) if (1..=Clients::MAX).contains(&n) => Ok(Clients::Each(n)),
            _ => Err(format!(
                "expected a number from 1 to {}, or `promised`",
                Clients::MAX
            )),
        }
    }

    pub(crate) fn on(self, target: &Target) -> u32 {
        match self {
            Clients::Each(n) => n,
            Clients::Promised => target.promise.clients.unwrap_or(1).clamp(1, Clients::MAX),
        }
    }
}
