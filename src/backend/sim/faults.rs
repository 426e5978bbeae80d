//! Fault injection for the simulator: `GPUSHARE_SIM_FAIL=<op>:<n>[,<op>:<n>…]` makes the n-th call
//! of that operation in this process fail, so tests can prove that a re-run converges.

use crate::backend::{DriverError, DriverErrorKind};
use crate::error::{Error, Result};
use std::cell::RefCell;
use std::collections::BTreeMap;

pub const ENV: &str = "GPUSHARE_SIM_FAIL";

/// The operations that can be made to fail.
pub const OPERATIONS: [&str; 7] = [
    "set_mig_mode",
    "reset",
    "create_gpu_instance",
    "create_compute_instance",
    "destroy_compute_instance",
    "destroy_gpu_instance",
    "set_compute_mode",
];

#[derive(Debug, Default)]
pub struct Faults {
    /// op -> the call numbers (1-based) that fail.
    planned: BTreeMap<&'static str, Vec<u32>>,
    calls: RefCell<BTreeMap<&'static str, u32>>,
}

impl Faults {
    pub fn from_env() -> Result<Self> {
        match std::env::var(ENV) {
            Ok(spec) if !spec.trim().is_empty() => Self::parse(&spec),
            _ => Ok(Faults::default()),
        }
    }

    pub fn parse(spec: &str) -> Result<Self> {
        let mut faults = Faults::default();
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let bad = || {
                Error::usage(format!("{ENV}: `{item}` is not <operation>:<n>")).with_hint(format!(
                    "operations: {}; n counts calls from 1",
                    OPERATIONS.join(", ")
                ))
            };
            let (op, n) = item.split_once(':').ok_or_else(bad)?;
            let op = OPERATIONS
                .iter()
                .find(|o| **o == op.trim())
                .ok_or_else(bad)?;
            let n: u32 = n.trim().parse().map_err(|_| bad())?;
            if n == 0 {
                return Err(bad());
            }
            faults.planned.entry(op).or_default().push(n);
        }
        Ok(faults)
    }

    /// Count a call of `op`; fail it if it is one of the planned ones.
    pub fn check(&self, op: &'static str) -> Result<(), DriverError> {
        let mut calls = self.calls.borrow_mut();
        let n = calls.entry(op).or_insert(0);
        *n += 1;
        if self.planned.get(op).is_some_and(|list| list.contains(n)) {
            return Err(DriverError::new(
                DriverErrorKind::Unknown,
                format!("injected failure of {op} call {n} ({ENV})"),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fails_exactly_the_planned_call() {
        let f = Faults::parse("reset:2, create_gpu_instance:1").unwrap();
        assert!(f.check("reset").is_ok());
        assert!(f.check("reset").is_err());
        assert!(f.check("reset").is_ok());
        assert!(f.check("create_gpu_instance").is_err());
        assert!(f.check("set_mig_mode").is_ok());
    }

    #[test]
    fn rejects_unknown_operations_and_counts() {
        assert!(Faults::parse("explode:1").is_err());
        assert!(Faults::parse("reset").is_err());
        assert!(Faults::parse("reset:0").is_err());
        assert!(Faults::parse("reset:x").is_err());
    }
}
