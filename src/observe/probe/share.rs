//! `gpushare probe --share`: the share of a device a container holds, probed from inside it.
//! gpushare's DRA driver gives each share of a device claims share (`mps.shares`) an MPS client's
//! environment and says what the share was given:
//!
//! - `GPUSHARE_SHARE_DEVICE`: the device's UUID (`GPU-…`, `MIG-…`);
//! - `GPUSHARE_SHARE_MEMORY_MIB`, `GPUSHARE_SHARE_COMPUTE_PERCENT`: the memory and the share of
//!   the multiprocessors it was given;
//! - `GPUSHARE_SHARE_DEVICE_MULTIPROCESSORS`: the device's multiprocessors;
//! - `CUDA_MPS_PIPE_DIRECTORY` and the client's own limits.
//!
//! The worker keeps the container's client limits (they are what is checked) and is judged as
//! any MPS client against what the share was given.

use super::targets::{Promise, SHARE_NAME, Target, TargetKind};
use crate::support::error::{Error, Result};
use std::path::PathBuf;

/// The variables a share's container gets.
pub(crate) const DEVICE: &str = "GPUSHARE_SHARE_DEVICE";
pub(crate) const MEMORY_MIB: &str = "GPUSHARE_SHARE_MEMORY_MIB";
pub(crate) const COMPUTE_PERCENT: &str = "GPUSHARE_SHARE_COMPUTE_PERCENT";
pub(crate) const DEVICE_MULTIPROCESSORS: &str = "GPUSHARE_SHARE_DEVICE_MULTIPROCESSORS";

/// The MPS client limits of the container, kept for the worker.
pub(crate) const CLIENT_LIMITS: [&str; 2] = [
    "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT",
    "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
];

/// The share this process was given, from `var` (the environment).
pub(crate) fn target(var: impl Fn(&str) -> Option<String>) -> Result<Target> {
    let missing = |name: &str| {
        Error::usage(format!(
            "--share: {name} is not set: this is not a share's container"
        ))
        .with_hint(
            "run it in a pod holding a share of a device gpushare's DRA driver shares by \
                 claims (mps.shares in gpushare.toml)",
        )
    };
    let get = |name: &str| {
        var(name)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| missing(name))
    };
    let number = |name: &str, most: u64| -> Result<u64> {
        let text = get(name)?;
        text.parse::<u64>()
            .ok()
            .filter(|n| (1..=most).contains(n))
            .ok_or_else(|| {
                Error::usage(format!(
                    "--share: {name}={text:?} is not a number from 1 to {most}"
                ))
            })
    };
    let uuid = get(DEVICE)?;
    if !(uuid.starts_with("GPU-") || uuid.starts_with("MIG-")) || uuid.len() > 128 {
        return Err(Error::usage(format!(
            "--share: {DEVICE}={uuid:?} is not a device UUID"
        )));
    }
    let memory_mib = number(MEMORY_MIB, 1 << 30)?;
    let percent = number(COMPUTE_PERCENT, 100)? as u32;
    let sms = number(DEVICE_MULTIPROCESSORS, 1 << 16)? as u32;
    let pipe = PathBuf::from(get("CUDA_MPS_PIPE_DIRECTORY")?);
    Ok(Target {
        kind: TargetKind::Mps,
        gpu: 0,
        gpu_uuid: uuid.clone(),
        pci_bus_id: String::new(),
        name: SHARE_NAME.into(),
        uuid,
        device_memory_mib: memory_mib,
        device_multiprocessors: sms,
        mps_pipe_dir: Some(pipe),
        local_cpus: None,
        promise: Promise {
            memory_mib,
            memory_from: "the claim's share".into(),
            multiprocessors: None,
            max_multiprocessors: Some((u64::from(sms) * u64::from(percent)).div_ceil(100) as u32),
            thread_percentage: Some(percent),
            clients: Some(1),
            mps_missing: false,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn a_share_is_read_from_its_containers_environment() {
        let full = [
            (DEVICE, "GPU-45366afb"),
            (MEMORY_MIB, "10240"),
            (COMPUTE_PERCENT, "20"),
            (DEVICE_MULTIPROCESSORS, "108"),
            ("CUDA_MPS_PIPE_DIRECTORY", "/run/gpushare/mps/gpu7/pipe"),
        ];
        let t = target(env(&full)).unwrap();
        assert_eq!(t.kind, TargetKind::Mps);
        assert_eq!(t.promise.memory_mib, 10240);
        assert_eq!(t.promise.max_multiprocessors, Some(22));
        assert_eq!(t.label(), "share of GPU-45366afb");
        for (i, (name, _)) in full.iter().enumerate() {
            let mut less = full.to_vec();
            less.remove(i);
            let e = target(env(&less)).unwrap_err();
            assert!(e.message.contains(name), "{}", e.message);
        }
        let mut bad = full.to_vec();
        bad[2] = (COMPUTE_PERCENT, "120");
        assert!(target(env(&bad)).is_err());
        bad[2] = (COMPUTE_PERCENT, "20");
        bad[0] = (DEVICE, "../etc");
        assert!(target(env(&bad)).is_err());
    }
}
