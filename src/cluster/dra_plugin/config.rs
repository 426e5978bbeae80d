//! A claim's configuration for gpushare's driver: opaque parameters (`apiVersion:
//! gpu.gpushare.io/v1alpha1`, `kind: DeviceConfig`) from its class or the claim itself, decoded
//! strictly (an unknown field or a bad value fails the prepare, naming it), and applied at
//! prepare: time-slicing sets a whole GPU's time-slice through the driver's own call
//! (`nvidia-smi compute-policy --set-timeslice`), as NVIDIA's DRA driver does; MPS makes the
//! container a client of the MPS daemon gpushare runs for the device, within that daemon's
//! limits.

use super::devices::{DRIVER, DraDevice};
use crate::change::cdi::spec::{ContainerEdits, Mount};
use crate::sharing::mps::settings::DaemonSpec;
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
    #[serde(default)]
    pub mps: Option<MpsConfig>,
}

#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub(crate) enum Strategy {
    Exclusive,
    TimeSlicing,
    #[serde(rename = "MPS")]
    Mps,
}

impl DeviceConfig {
    /// The configuration makes the container an MPS client.
    pub(crate) fn uses_mps(&self) -> bool {
        self.sharing
            .as_ref()
            .is_some_and(|s| s.strategy == Strategy::Mps)
    }
}

/// What a claim asks of its MPS client, within what the device's daemon gives each client.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct MpsConfig {
    /// The client's share of the multiprocessors, 1 to 100 percent.
    #[serde(default)]
    pub default_active_thread_percentage: Option<u32>,
    /// The client's pinned device memory, a quantity in Mi, Gi or Ti (`10Gi`).
    #[serde(default)]
    pub default_pinned_device_memory_limit: Option<String>,
}

impl MpsConfig {
    fn check(&self) -> Result<(), String> {
        if let Some(p) = self.default_active_thread_percentage
            && !(1..=100).contains(&p)
        {
            return Err(format!(
                "defaultActiveThreadPercentage: {p} is not a percentage from 1 to 100"
            ));
        }
        self.memory_mib()
            .map(|_| ())
            .map_err(|e| format!("defaultPinnedDeviceMemoryLimit: {e}"))
    }

    fn memory_mib(&self) -> Result<Option<u64>, String> {
        self.default_pinned_device_memory_limit
            .as_deref()
            .map(quantity_mib)
            .transpose()
    }
}

/// A Kubernetes quantity of whole Mi, Gi or Ti, in MiB.
fn quantity_mib(q: &str) -> Result<u64, String> {
    let split = q.find(|c: char| !c.is_ascii_digit()).unwrap_or(q.len());
    let (number, unit) = q.split_at(split);
    let factor: u64 = match unit {
        "Mi" => 1,
        "Gi" => 1 << 10,
        "Ti" => 1 << 20,
        _ => {
            return Err(format!(
                "{q:?} is not a quantity of Mi, Gi or Ti (10Gi, 512Mi)"
            ));
        }
    };
    number
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(factor))
        .filter(|&mib| mib > 0)
        .ok_or_else(|| format!("{q:?} is not a positive quantity"))
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
        if let Some(s) = &config.sharing {
            if s.strategy != Strategy::TimeSlicing && s.time_slicing.is_some() {
                return Err(format!(
                    "{at}.sharing.timeSlicing: only with strategy TimeSlicing"
                ));
            }
            if s.strategy != Strategy::Mps && s.mps.is_some() {
                return Err(format!("{at}.sharing.mps: only with strategy MPS"));
            }
            if let Some(mps) = &s.mps {
                mps.check().map_err(|e| format!("{at}.sharing.mps.{e}"))?;
            }
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

/// The configuration of a device allocated for `requests`: the last that applies (the class's
/// come first, the claim's after, so the claim's wins).
pub(crate) fn of_requests<'c>(
    configs: &'c [(Vec<String>, DeviceConfig)],
    requests: &[String],
) -> Option<&'c DeviceConfig> {
    configs
        .iter()
        .rev()
        .find(|(to, _)| to.is_empty() || to.iter().any(|r| requests.contains(r)))
        .map(|(_, c)| c)
}

/// Apply `config` to `device`, giving what the container needs for it: a time-slice is set on a
/// whole GPU (a MIG device has none); MPS gives the client's edits ([`mps_edits`]).
pub(crate) fn apply(
    config: &DeviceConfig,
    device: &DraDevice,
    daemons: &[DaemonSpec],
) -> Result<ContainerEdits, String> {
    let Some(sharing) = &config.sharing else {
        return Ok(ContainerEdits::default());
    };
    match sharing.strategy {
        Strategy::Exclusive => Ok(ContainerEdits::default()),
        Strategy::TimeSlicing => match &sharing.time_slicing {
            Some(slicing) => set_time_slice(slicing, device).map(|()| ContainerEdits::default()),
            None => Ok(ContainerEdits::default()),
        },
        Strategy::Mps => {
            let wanted = sharing.mps.clone().unwrap_or(MpsConfig {
                default_active_thread_percentage: None,
                default_pinned_device_memory_limit: None,
            });
            mps_edits(&wanted, device, daemons)
        }
    }
}

fn set_time_slice(slicing: &TimeSlicing, device: &DraDevice) -> Result<(), String> {
    if device.mig.is_some() || device.placed.is_some() {
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
    crate::support::program::run(
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

/// The container as a client of the MPS daemon gpushare runs for `device` alone (from its
/// record, running): its pipe directory and the host's `/dev/shm` (where MPS's clients and
/// server share memory), and the client's limits, at most the daemon's. A daemon that serves
/// other devices too is refused: its clients could reach them.
pub(crate) fn mps_edits(
    wanted: &MpsConfig,
    device: &DraDevice,
    daemons: &[DaemonSpec],
) -> Result<ContainerEdits, String> {
    let at = "sharing.mps";
    let no_daemon = || {
        format!(
            "{at}: device {} ({}) has no MPS daemon of its own on this node; share it through \
             MPS in gpushare.toml (its own [[gpus]] section with mode = \"mps\", or mig.mps for \
             a MIG device) and apply",
            device.name, device.uuid
        )
    };
    let daemon = daemons
        .iter()
        .find(|d| d.devices.iter().any(|dd| dd.uuid == device.uuid))
        .ok_or_else(no_daemon)?;
    if daemon.devices.len() != 1 {
        return Err(format!(
            "{at}: device {} shares the MPS daemon {} with {} other device(s), which its \
             clients could reach; give it a daemon of its own",
            device.name,
            daemon.name,
            daemon.devices.len() - 1
        ));
    }
    let served = &daemon.devices[0];
    let running = crate::sharing::mps::control::daemon_pid(&daemon.pipe_dir)
        .is_some_and(crate::sharing::mps::process::alive);
    if !running {
        return Err(format!(
            "{at}: the MPS daemon {} of device {} is not running (gpushare apply starts it)",
            daemon.name, device.name
        ));
    }
    let mut env = vec![format!(
        "CUDA_MPS_PIPE_DIRECTORY={}",
        daemon.pipe_dir.display()
    )];
    if let Some(p) = wanted.default_active_thread_percentage {
        let most = daemon.thread_percentage.unwrap_or(100);
        if p > most {
            return Err(format!(
                "{at}.defaultActiveThreadPercentage: {p} is more than the {most} the MPS daemon {} gives each client",
                daemon.name
            ));
        }
        env.push(format!("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE={p}"));
    }
    if let Some(mib) = wanted.memory_mib()? {
        let most = served.memory_limit_mib.unwrap_or(served.memory_mib);
        if mib > most {
            return Err(format!(
                "{at}.defaultPinnedDeviceMemoryLimit: {mib} MiB is more than the {most} MiB the MPS daemon {} gives each client",
                daemon.name
            ));
        }
        // The container's one device of this daemon is its ordinal 0.
        env.push(format!("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0={mib}M"));
    }
    let bind = |path: &std::path::Path| Mount {
        host_path: path.display().to_string(),
        container_path: path.display().to_string(),
        options: vec!["rbind".into(), "rprivate".into()],
    };
    Ok(ContainerEdits {
        env,
        mounts: vec![
            bind(&daemon.pipe_dir),
            bind(std::path::Path::new("/dev/shm")),
        ],
        ..Default::default()
    })
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
                "sharing": { "strategy": "Mps" } }),
                "unknown variant `Mps`",
            ),
            (
                json!({ "apiVersion": API_VERSION, "kind": "DeviceConfig",
                "sharing": { "strategy": "TimeSlicing", "mps": {} } }),
                "sharing.mps: only with strategy MPS",
            ),
            (
                json!({ "apiVersion": API_VERSION, "kind": "DeviceConfig",
                "sharing": { "strategy": "MPS", "mps": { "defaultActiveThreadPercentage": 0 } } }),
                "sharing.mps.defaultActiveThreadPercentage: 0 is not a percentage",
            ),
            (
                json!({ "apiVersion": API_VERSION, "kind": "DeviceConfig",
                "sharing": { "strategy": "MPS", "mps": { "defaultPinnedDeviceMemoryLimit": "10G" } } }),
                "sharing.mps.defaultPinnedDeviceMemoryLimit: \"10G\" is not a quantity",
            ),
            (
                json!({ "apiVersion": API_VERSION, "kind": "DeviceConfig",
                "sharing": { "strategy": "MPS", "mps": { "threads": 5 } } }),
                "unknown field `threads`",
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

    #[test]
    fn the_claims_configuration_wins_over_the_classs() {
        let config = |interval: Interval| DeviceConfig {
            api_version: API_VERSION.into(),
            kind: "DeviceConfig".into(),
            sharing: Some(Sharing {
                strategy: Strategy::TimeSlicing,
                time_slicing: Some(TimeSlicing { interval }),
                mps: None,
            }),
        };
        let configs = vec![
            (Vec::new(), config(Interval::Short)),
            (vec!["b".to_string()], config(Interval::Long)),
        ];
        let interval = |requests: &[&str]| {
            let requests: Vec<String> = requests.iter().map(|r| r.to_string()).collect();
            of_requests(&configs, &requests)
                .and_then(|c| c.sharing.as_ref()?.time_slicing.as_ref())
                .map(|t| t.interval)
        };
        assert_eq!(interval(&["a"]), Some(Interval::Short));
        assert_eq!(interval(&["b"]), Some(Interval::Long));
        assert_eq!(of_requests(&[], &["a".into()]), None);
    }

    #[test]
    fn quantities_are_whole_mi_gi_or_ti() {
        assert_eq!(quantity_mib("512Mi"), Ok(512));
        assert_eq!(quantity_mib("10Gi"), Ok(10240));
        assert_eq!(quantity_mib("1Ti"), Ok(1 << 20));
        for bad in [
            "",
            "Gi",
            "0Gi",
            "1.5Gi",
            "10G",
            "-1Gi",
            "99999999999999999999Ti",
        ] {
            assert!(quantity_mib(bad).is_err(), "{bad}");
        }
    }

    mod mps {
        use super::super::*;
        use crate::sharing::mps::settings::{DaemonDevice, DaemonSpec};
        use serde_json::json;
        use std::path::Path;

        fn device(uuid: &str) -> DraDevice {
            DraDevice {
                name: "gpu-5".into(),
                gpu: 5,
                mig: None,
                uuid: uuid.into(),
                placed: None,
                shared: None,
                published: json!({}),
            }
        }

        /// A daemon record for `uuids`, its pid file naming `pid`.
        fn daemon(pipe: &Path, uuids: &[&str], pid: u32) -> DaemonSpec {
            std::fs::create_dir_all(pipe).unwrap();
            std::fs::write(
                pipe.join(crate::sharing::mps::control::PID_FILE),
                pid.to_string(),
            )
            .unwrap();
            DaemonSpec {
                version: 1,
                name: "gpu5".into(),
                pipe_dir: pipe.to_path_buf(),
                log_dir: pipe.join("log"),
                multiuser: false,
                clients: Some(2),
                thread_percentage: Some(50),
                devices: uuids
                    .iter()
                    .enumerate()
                    .map(|(i, u)| DaemonDevice {
                        ordinal: i as u32,
                        gpu: 5 + i as u32,
                        uuid: u.to_string(),
                        name: "NVIDIA A100-SXM4-40GB".into(),
                        mig: None,
                        memory_mib: 40960,
                        memory_limit_mib: Some(20480),
                        client_cap: 48,
                        previous_compute_mode: None,
                    })
                    .collect(),
                created_dirs: Vec::new(),
            }
        }

        fn ask(threads: Option<u32>, memory: Option<&str>) -> MpsConfig {
            MpsConfig {
                default_active_thread_percentage: threads,
                default_pinned_device_memory_limit: memory.map(str::to_string),
            }
        }

        #[test]
        fn a_client_of_the_devices_own_daemon_within_its_limits() {
            let dir = tempfile::tempdir().unwrap();
            let pipe = dir.path().join("pipe");
            let daemons = [daemon(&pipe, &["GPU-5"], std::process::id())];
            let edits =
                mps_edits(&ask(Some(25), Some("10Gi")), &device("GPU-5"), &daemons).unwrap();
            assert_eq!(
                edits.env,
                [
                    format!("CUDA_MPS_PIPE_DIRECTORY={}", pipe.display()),
                    "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25".into(),
                    "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=10240M".into(),
                ]
            );
            let mounted: Vec<&str> = edits
                .mounts
                .iter()
                .map(|m| m.container_path.as_str())
                .collect();
            assert_eq!(mounted, [pipe.to_str().unwrap(), "/dev/shm"]);
            // Without limits of its own, the daemon's apply.
            let edits = mps_edits(&ask(None, None), &device("GPU-5"), &daemons).unwrap();
            assert_eq!(edits.env.len(), 1);
        }

        #[test]
        fn what_the_daemon_cannot_give_is_refused_naming_it() {
            let dir = tempfile::tempdir().unwrap();
            let own = [daemon(
                &dir.path().join("a"),
                &["GPU-5"],
                std::process::id(),
            )];
            let shared = [daemon(
                &dir.path().join("b"),
                &["GPU-5", "GPU-6"],
                std::process::id(),
            )];
            // A pid that is no process: far above any pid_max.
            let stopped = [daemon(&dir.path().join("c"), &["GPU-5"], 999_999_999)];
            for (daemons, wanted, says) in [
                (&own[..], ask(Some(60), None), "more than the 50"),
                (
                    &own[..],
                    ask(None, Some("30Gi")),
                    "30720 MiB is more than the 20480 MiB",
                ),
                (&shared[..], ask(None, None), "with 1 other device(s)"),
                (&stopped[..], ask(None, None), "is not running"),
                (&[][..], ask(None, None), "has no MPS daemon of its own"),
            ] {
                let e = mps_edits(&wanted, &device("GPU-5"), daemons).unwrap_err();
                assert!(e.contains(says), "{e}");
            }
        }
    }
}
