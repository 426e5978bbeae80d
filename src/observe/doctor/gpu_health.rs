//! The GPUs' health by the Xid and ECC events a health watch heard (see `crate::node::gpu_health`).

use super::Check;
use crate::node::gpu_health::NodeHealth;

const ID: &str = "gpu-health";

pub(super) fn gpu_health(health: Option<Result<NodeHealth, String>>) -> Check {
    let health = match health {
        None => return Check::skip(ID, "no driver"),
        Some(Err(why)) => {
            return Check::fail(
                ID,
                format!("the health record cannot be read: {why}"),
                "it is gpushare's own file (/var/lib/gpushare/health.json); move it away and the watch starts a new one",
            );
        }
        Some(Ok(h)) => h,
    };
    let sick: Vec<String> = health
        .unhealthy()
        .map(|(gpu, h)| {
            let reasons: Vec<String> = h.reasons.iter().map(|r| r.describe()).collect();
            format!("GPU {gpu}: {}", reasons.join(", "))
        })
        .collect();
    if !sick.is_empty() {
        return Check::fail(
            ID,
            format!("unhealthy: {}", sick.join("; ")),
            "fatal Xids need a GPU reset (with nothing on the GPU: `nvidia-smi -r -i N`); recoverable ones clear after [health] recover_after_seconds without another",
        );
    }
    let unknown: Vec<String> = health
        .gpus
        .iter()
        .filter_map(|(gpu, h)| h.as_ref().err().map(|why| (gpu, why)))
        .map(|(gpu, why)| format!("GPU {gpu}: {why}"))
        .collect();
    if unknown.len() == health.gpus.len() && !unknown.is_empty() {
        let why = health
            .gpus
            .values()
            .find_map(|h| h.as_ref().err())
            .cloned()
            .unwrap_or_default();
        return Check::warn(
            ID,
            format!("unknown: {why}"),
            "run `gpushare metrics --listen` (or `gpushare agent` on Kubernetes): the driver tells Xid and ECC errors only to a client that listens",
        );
    }
    if !unknown.is_empty() {
        return Check::warn(
            ID,
            format!("unknown for some GPUs: {}", unknown.join("; ")),
            "the driver raises no health events for them",
        );
    }
    Check::pass(
        ID,
        format!(
            "{} GPU(s) healthy by the Xid and ECC events heard",
            health.gpus.len()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::gpu_health::verdict::GpuHealth;
    use std::collections::BTreeMap;

    #[test]
    fn unhealthy_fails_unknown_warns_healthy_passes() {
        let healthy = NodeHealth {
            gpus: BTreeMap::from([(0, Ok(GpuHealth::clear()))]),
        };
        assert_eq!(
            gpu_health(Some(Ok(healthy))).status,
            super::super::Status::Pass
        );
        let unknown = NodeHealth {
            gpus: BTreeMap::from([(0, Err("no health watch runs".to_string()))]),
        };
        assert_eq!(
            gpu_health(Some(Ok(unknown))).status,
            super::super::Status::Warn
        );
        let mut sick = GpuHealth::clear();
        sick.healthy = false;
        let unhealthy = NodeHealth {
            gpus: BTreeMap::from([(0, Ok(sick))]),
        };
        assert_eq!(
            gpu_health(Some(Ok(unhealthy))).status,
            super::super::Status::Fail
        );
        assert_eq!(gpu_health(None).status, super::super::Status::Skip);
    }
}
