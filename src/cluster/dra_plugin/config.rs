//! A claim's configuration for gpushare's driver: opaque parameters (`apiVersion:
//! gpu.gpushare.io/v1alpha1`, `kind: DeviceConfig`) from its class or the claim itself, decoded
//! strictly (an unknown field or a bad value fails the prepare, naming it), and applied at
//! prepare: time-slicing sets a whole GPU's time-slice through the driver's own call
//! (`nvidia-smi compute-policy --set-timeslice`), as NVIDIA's DRA driver does.

use super::devices::{DRIVER, DraDevice};
use serde::Deserialize;

pub(crate) const API_VERSION: &str = "gpu.gpushare.io/v1alpha1";

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct DeviceConfig {
    pub api_version: String,
    pub kind: String,
    #[serde(default)]
    pub sharing: Option<Sharing>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct Sharing {
    pub strategy: Strategy,
    #[serde(default)]
    pub time_slicing: Option<TimeSlicing>,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub(crate) enum Strategy {
    Exclusive,
    TimeSlicing,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct TimeSlicing {
    pub interval: Interval,
}

/// The driver's time-slice, as `nvidia-smi compute-policy --set-timeslice` numbers it.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub(crate) enum Interval {
    Default,
    Short,
    Medium,
    Long,
}

impl Interval {
    fn number(self) -> u8 {
        match self {
            Interval::Default => 0,
            Interval::Short => 1,
            Interval::Medium => 2,
            Interval::Long => 3,
        }
    }
}

/// The configurations of this driver in the claim's allocation, with the requests each applies
/// to (none: every request); an error names what is wrong.
pub(crate) fn of_claim(
    claim: &serde_json::Value,
) -> Result<Vec<(Vec<String>, DeviceConfig)>, String> {
    let mut out = Vec::new();
    let configs = claim["status"]["allocation"]["devices"]["config"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for (i, c) in configs.iter().enumerate() {
        let opaque = &c["opaque"];
        if opaque["driver"] != DRIVER {
            continue;
        }
        let at = format!("status.allocation.devices.config[{i}].opaque.parameters");
        let config: DeviceConfig = serde_json::from_value(opaque["parameters"].clone())
            .map_err(|e| format!("{at}: {e}"))?;
        if config.api_version != API_VERSION || config.kind != "DeviceConfig" {
            return Err(format!(
                "{at}: apiVersion {:?} kind {:?}: gpushare's driver takes {API_VERSION} DeviceConfig",
                config.api_version, config.kind
            ));
        }
        if let Some(s) = &config.sharing
            && s.strategy != Strategy::TimeSlicing
            && s.time_slicing.is_some()
        {
            return Err(format!(
                "{at}.sharing.timeSlicing: only with strategy TimeSlicing"
            ));
        }
        let requests = c["requests"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r.as_str().map(str::to_string))
            .collect();
        out.push((requests, config));
    }
    Ok(out)
}

/// Apply `config` to `device`: a time-slice is set on a whole GPU (a MIG device has none).
pub(crate) fn apply(config: &DeviceConfig, device: &DraDevice) -> Result<(), String> {
    let Some(sharing) = &config.sharing else {
        return Ok(());
    };
    let Some(slicing) = sharing
        .time_slicing
        .as_ref()
        .filter(|_| sharing.strategy == Strategy::TimeSlicing)
    else {
        return Ok(());
    };
    if device.mig.is_some() {
        return Err(format!(
            "sharing.timeSlicing.interval: device {} is a MIG device, which has no time-slice to set",
            device.name
        ));
    }
    let smi = which::which("nvidia-smi").map_err(|e| {
        format!(
            "cannot set the time-slice of {}: nvidia-smi: {e}",
            device.name
        )
    })?;
    let number = slicing.interval.number().to_string();
    crate::program::run(
        &smi,
        &[
            "compute-policy",
            "-i",
            &device.uuid,
            "--set-timeslice",
            &number,
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn claim(parameters: serde_json::Value) -> serde_json::Value {
        json!({ "status": { "allocation": { "devices": { "config": [
            { "source": "FromClaim", "requests": ["gpu"],
              "opaque": { "driver": DRIVER, "parameters": parameters } },
            { "source": "FromClass",
              "opaque": { "driver": "gpu.nvidia.com", "parameters": { "anything": 1 } } },
        ]}}}})
    }

    #[test]
    fn configurations_are_decoded_strictly_naming_what_is_wrong() {
        let good = json!({ "apiVersion": API_VERSION, "kind": "DeviceConfig",
            "sharing": { "strategy": "TimeSlicing", "timeSlicing": { "interval": "Long" } } });
        let got = of_claim(&claim(good)).unwrap();
        assert_eq!(got.len(), 1, "NVIDIA's config is not ours");
        assert_eq!(got[0].0, ["gpu"]);
        assert_eq!(
            got[0]
                .1
                .sharing
                .as_ref()
                .unwrap()
                .time_slicing
                .as_ref()
                .unwrap()
                .interval,
            Interval::Long
        );
        for (bad, said) in [
            (
                json!({ "apiVersion": API_VERSION, "kind": "DeviceConfig", "sharng": {} }),
                "unknown field `sharng`",
            ),
            (
                json!({ "apiVersion": API_VERSION, "kind": "DeviceConfig",
                "sharing": { "strategy": "TimeSlicing", "timeSlicing": { "interval": "Fast" } } }),
                "unknown variant `Fast`",
            ),
            (
                json!({ "apiVersion": API_VERSION, "kind": "DeviceConfig",
                "sharing": { "strategy": "MPS" } }),
                "unknown variant `MPS`",
            ),
            (
                json!({ "apiVersion": "v9", "kind": "DeviceConfig" }),
                "apiVersion \"v9\"",
            ),
            (
                json!({ "apiVersion": API_VERSION, "kind": "DeviceConfig",
                "sharing": { "strategy": "Exclusive", "timeSlicing": { "interval": "Long" } } }),
                "only with strategy TimeSlicing",
            ),
            (json!("text"), "invalid type"),
        ] {
            let e = of_claim(&claim(bad)).unwrap_err();
            assert!(
                e.contains(said) && e.contains("config[0].opaque.parameters"),
                "{e}"
            );
        }
    }
}
