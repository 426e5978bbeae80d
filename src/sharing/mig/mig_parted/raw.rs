//! The mig-parted file as written (serde-saphyr, with positions) and the checks that turn an
//! entry into a [`MigConfigEntry`], with mig-parted's messages.

use super::entry::{DeviceFilter, Devices, MigConfigEntry, Position};
use crate::sharing::mig::profile_name::ProfileName;
use crate::support::error::{Error, Result};
use serde::Deserialize;
use serde_saphyr::Spanned;
use std::fmt;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSpec {
    pub version: Option<Spanned<String>>,
    #[serde(rename = "mig-configs")]
    pub mig_configs: Option<Spanned<Ordered<RawLabel>>>,
}

/// The entries of one label.
pub(super) type RawLabel = Spanned<Vec<Spanned<RawEntry>>>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawEntry {
    #[serde(rename = "device-filter")]
    device_filter: Option<Spanned<OneOrMany>>,
    devices: Option<Spanned<RawDevices>>,
    #[serde(rename = "mig-enabled")]
    mig_enabled: Option<Spanned<YamlBool>>,
    #[serde(rename = "mig-devices")]
    mig_devices: Option<Spanned<Ordered<Spanned<i64>>>>,
}

/// A scalar where a YAML boolean belongs: only `true` and `false` are booleans. A quoted
/// `"true"` is a string, as mig-parted reads it, and with strict booleans `yes` and `on` are too;
/// anything else is kept as written so the error can point at the value.
enum YamlBool {
    Bool(bool),
    Other(String),
}

impl<'de> Deserialize<'de> for YamlBool {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = YamlBool;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`true` or `false`")
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> std::result::Result<YamlBool, E> {
                Ok(YamlBool::Bool(v))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<YamlBool, E> {
                Ok(YamlBool::Other(format!("{v:?}")))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<YamlBool, E> {
                Ok(YamlBool::Other(v.to_string()))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<YamlBool, E> {
                Ok(YamlBool::Other(v.to_string()))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> std::result::Result<YamlBool, E> {
                Ok(YamlBool::Other(v.to_string()))
            }
        }
        d.deserialize_any(Visit)
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawDevices {
    Word(String),
    List(Vec<i64>),
}

/// A YAML mapping read in file order, keys with their positions.
pub(super) struct Ordered<V>(pub Vec<(Spanned<String>, V)>);

impl<'de, V: Deserialize<'de>> Deserialize<'de> for Ordered<V> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Visit<V>(std::marker::PhantomData<V>);
        impl<'de, V: Deserialize<'de>> serde::de::Visitor<'de> for Visit<V> {
            type Value = Ordered<V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a mapping")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<Ordered<V>, A::Error> {
                let mut out = Vec::new();
                while let Some(pair) = map.next_entry()? {
                    out.push(pair);
                }
                Ok(Ordered(out))
            }
        }
        d.deserialize_map(Visit(std::marker::PhantomData))
    }
}

pub(super) fn check_entry(
    entry: &Spanned<RawEntry>,
    err: &impl Fn(Option<Position>, String) -> Error,
) -> Result<MigConfigEntry> {
    let at = Position::of(entry);
    let e = &entry.value;
    let Some(devices) = &e.devices else {
        return Err(err(Some(at), "missing required field: devices".into())
            .with_hint("devices: all, or a list of GPU indexes like [0, 1]"));
    };
    let Some(mig_enabled) = &e.mig_enabled else {
        return Err(err(Some(at), "missing required field: mig-enabled".into()));
    };
    let enabled = match &mig_enabled.value {
        YamlBool::Bool(b) => *b,
        YamlBool::Other(text) => {
            return Err(err(
                Some(Position::of(mig_enabled)),
                format!("invalid boolean for 'mig-enabled': {text}"),
            )
            .with_hint("mig-enabled: true or mig-enabled: false"));
        }
    };
    let devices_at = Position::of(devices);
    let parsed_devices = match &devices.value {
        RawDevices::Word(w) if w == "all" => Devices::All,
        RawDevices::Word(w) => {
            return Err(err(
                Some(devices_at),
                format!("invalid string input for 'devices': {w}"),
            )
            .with_hint("devices: all, or a list of GPU indexes like [0, 1]"));
        }
        RawDevices::List(list) => {
            let mut out = Vec::new();
            for &i in list {
                let index = u32::try_from(i).map_err(|_| {
                    err(
                        Some(devices_at),
                        format!("invalid GPU index in 'devices': {i}"),
                    )
                })?;
                out.push(index);
            }
            Devices::Indexes(out)
        }
    };
    let device_filter = match &e.device_filter {
        None => None,
        Some(f) => {
            let texts: Vec<&str> = match &f.value {
                OneOrMany::One(s) if s.is_empty() => Vec::new(),
                OneOrMany::One(s) => vec![s.as_str()],
                OneOrMany::Many(list) => list.iter().map(String::as_str).collect(),
            };
            let mut out = Vec::new();
            for t in texts {
                out.push(parse_filter(t).map_err(|m| err(Some(Position::of(f)), m))?);
            }
            (!out.is_empty()).then_some(out)
        }
    };
    let mut mig_devices = Vec::new();
    match (&e.mig_devices, enabled) {
        (None, true) => {
            return Err(err(
                Some(at),
                "missing required field 'mig-devices' when 'mig-enabled' is true".into(),
            )
            .with_hint("use mig-devices: {} for MIG enabled without instances"));
        }
        (Some(map), false) if !map.value.0.is_empty() => {
            return Err(err(
                Some(Position::of(map)),
                "MIG devices included when 'mig-enabled' is false".into(),
            ));
        }
        (Some(map), true) => {
            for (name, count) in &map.value.0 {
                let name_at = Position::of(name);
                ProfileName::parse(&name.value).map_err(|m| {
                    err(
                        Some(name_at),
                        format!("error validating values in 'mig-devices' field: {m}"),
                    )
                })?;
                if count.value < 0 || count.value > u32::MAX as i64 {
                    return Err(err(
                        Some(Position::of(count)),
                        format!("invalid count for '{}': {}", name.value, count.value),
                    ));
                }
                if mig_devices.iter().any(|(n, _, _)| *n == name.value) {
                    return Err(err(
                        Some(name_at),
                        format!("'{}' appears twice in mig-devices", name.value),
                    ));
                }
                if count.value > 0 {
                    mig_devices.push((name.value.clone(), count.value as u32, name_at));
                }
            }
        }
        _ => {}
    }
    Ok(MigConfigEntry {
        at,
        device_filter,
        devices: parsed_devices,
        devices_at,
        mig_enabled: enabled,
        mig_devices,
    })
}

fn parse_filter(text: &str) -> std::result::Result<DeviceFilter, String> {
    let (device, subsystem) = match text.split_once(':') {
        Some((d, s)) => (d, Some(s)),
        None => (text, None),
    };
    let bad = |why: String| format!("invalid device-filter `{text}`: {why}");
    Ok(DeviceFilter {
        device: device.trim().parse().map_err(bad)?,
        subsystem: subsystem
            .map(|s| s.trim().parse())
            .transpose()
            .map_err(bad)?,
    })
}
