//! `mps.shares` (and `mig.mps.shares`): a whole GPU or MIG device shared by DRA claims, each
//! claim taking the memory and compute it asks for (consumable capacity), enforced as an MPS
//! client of the device's daemon. The request policies say what a claim may ask for:
//!
//! ```toml
//! mps.shares.memory = { default = "4G", min = "1G", step = "1G", max = "20G" }
//! mps.shares.compute = { default = 25, min = 5, step = 5 }    # percent of the multiprocessors
//! ```
//!
//! A claim that asks nothing gets `default`; less than `min` is raised to it, what lies between
//! steps is raised to the next, and more than `max` (or than the device has) is not allocated.

use super::MemorySize;
use serde::{Deserialize, Serialize};
use toml::Spanned;

/// `shares`: the request policies of a shared device.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SharesSection {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<Spanned<Policy<MemorySize>>>,
    /// Percent of the device's multiprocessors (MPS's active thread percentage).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute: Option<Spanned<Policy<u32>>>,
}

/// One capacity's request policy, as written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, bound(deserialize = "T: Deserialize<'de>"))]
pub(crate) struct Policy<T> {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Spanned<T>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<Spanned<T>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<Spanned<T>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<Spanned<T>>,
}

/// One capacity's request policy, resolved: a claim gets `default` unless it asks, at least
/// `min`, `min + k × step`, at most `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Range {
    pub default: u64,
    pub min: u64,
    pub step: u64,
    pub max: Option<u64>,
}

/// What a shared device offers each claim: memory in MiB, compute in percent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SharePolicy {
    pub memory_mib: Range,
    pub compute_percent: Range,
}

/// Without a policy: 1 GiB steps from 1 GiB, 10 % of the multiprocessors in steps of 1 %.
const MEMORY: Range = Range {
    default: 1024,
    min: 1024,
    step: 1024,
    max: None,
};
const COMPUTE: Range = Range {
    default: 10,
    min: 1,
    step: 1,
    max: None,
};

/// A policy that cannot be: the span of the value at fault and why.
pub(crate) struct PolicyError {
    pub span: std::ops::Range<usize>,
    pub message: String,
}

impl SharesSection {
    /// The policies, checked: each value positive (compute 1 to 100), `min ≤ default ≤ max`,
    /// `default` on a step from `min`.
    pub(crate) fn resolve(&self) -> Result<SharePolicy, PolicyError> {
        let memory = match &self.memory {
            Some(p) => resolve(p, "memory", MEMORY, |m| m.0, |_| true, "")?,
            None => MEMORY,
        };
        let compute = match &self.compute {
            Some(p) => resolve(
                p,
                "compute",
                COMPUTE,
                |c| u64::from(*c),
                |v| (1..=100).contains(&v),
                " (a percentage, 1 to 100)",
            )?,
            None => COMPUTE,
        };
        Ok(SharePolicy {
            memory_mib: memory,
            compute_percent: compute,
        })
    }
}

fn resolve<T>(
    policy: &Spanned<Policy<T>>,
    name: &str,
    fallback: Range,
    value: impl Fn(&T) -> u64,
    valid: impl Fn(u64) -> bool,
    what: &str,
) -> Result<Range, PolicyError> {
    let p = policy.get_ref();
    let checked = |field: &str, v: &Option<Spanned<T>>| -> Result<Option<u64>, PolicyError> {
        let Some(v) = v else { return Ok(None) };
        let n = value(v.get_ref());
        if n == 0 || !valid(n) {
            return Err(PolicyError {
                span: v.span(),
                message: format!("shares.{name}.{field} = {n}: not a valid value{what}"),
            });
        }
        Ok(Some(n))
    };
    let min = checked("min", &p.min)?;
    let step = checked("step", &p.step)?;
    let max = checked("max", &p.max)?;
    let default = checked("default", &p.default)?;
    let min = min.unwrap_or(fallback.min.min(default.unwrap_or(u64::MAX)));
    let range = Range {
        default: default.unwrap_or(fallback.default.max(min)),
        min,
        step: step.unwrap_or(fallback.step),
        max,
    };
    let at = |v: &Option<Spanned<T>>| v.as_ref().map_or(policy.span(), Spanned::span);
    if let Some(max) = range.max
        && range.min > max
    {
        return Err(PolicyError {
            span: at(&p.max),
            message: format!("shares.{name}: max {max} is below min {}", range.min),
        });
    }
    if range.default < range.min || range.max.is_some_and(|m| range.default > m) {
        return Err(PolicyError {
            span: at(&p.default),
            message: format!(
                "shares.{name}.default = {}: outside min {} to max {}",
                range.default,
                range.min,
                range.max.map_or("(none)".to_string(), |m| m.to_string())
            ),
        });
    }
    if !(range.default - range.min).is_multiple_of(range.step) {
        return Err(PolicyError {
            span: at(&p.default),
            message: format!(
                "shares.{name}.default = {}: not min {} plus a whole number of steps of {}",
                range.default, range.min, range.step
            ),
        });
    }
    Ok(range)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(text: &str) -> Result<SharePolicy, String> {
        #[derive(Deserialize)]
        struct Doc {
            shares: Spanned<SharesSection>,
        }
        let doc: Doc = toml::from_str(text).map_err(|e| e.to_string())?;
        doc.shares.get_ref().resolve().map_err(|e| e.message)
    }

    #[test]
    fn defaults_and_policies_as_written() {
        let p = policy("shares = {}").unwrap();
        assert_eq!(p.memory_mib, MEMORY);
        assert_eq!(p.compute_percent, COMPUTE);
        let p = policy(
            "[shares]\nmemory = { default = \"4G\", min = \"1G\", step = \"1G\", max = \"20G\" }\n\
             compute = { default = 25, min = 5, step = 5 }",
        )
        .unwrap();
        assert_eq!(
            p.memory_mib,
            Range {
                default: 4096,
                min: 1024,
                step: 1024,
                max: Some(20480)
            }
        );
        assert_eq!(p.compute_percent.default, 25);
        // A default below the built-in minimum lowers the minimum with it.
        let p = policy("[shares]\nmemory = { default = 512 }").unwrap();
        assert_eq!((p.memory_mib.default, p.memory_mib.min), (512, 512));
    }

    #[test]
    fn impossible_policies_are_refused_naming_the_value() {
        for (text, says) in [
            (
                "[shares]\ncompute = { default = 120 }",
                "compute.default = 120",
            ),
            ("[shares]\ncompute = { step = 0 }", "compute.step = 0"),
            (
                "[shares]\nmemory = { min = \"8G\", max = \"4G\" }",
                "max 4096 is below min 8192",
            ),
            (
                "[shares]\ncompute = { default = 7, min = 5, step = 5 }",
                "plus a whole number",
            ),
            (
                "[shares]\ncompute = { default = 50, max = 40 }",
                "outside min 1 to max 40",
            ),
            ("[shares]\nthreads = 5", "unknown field"),
        ] {
            let e = policy(text).unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
        }
    }
}
