//! The series of one scrape, gathered by family and handed to `prometheus-client` to encode:
//! only families with a series are registered, so what is unknown is absent, never 0.

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, NoLabelSet};
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::{Registry, Unit};
use std::collections::BTreeMap;

/// A series' labels, in the order they are written.
pub(crate) type Labels = Vec<(&'static str, String)>;

/// One series: its labels and value.
pub(crate) type Series = (Labels, f64);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Gauge,
    /// Written with `_total`.
    Counter,
}

/// A family: its name without the `gpushare_` prefix and the unit, which the encoder appends.
#[derive(Debug)]
pub(crate) struct Spec {
    pub name: &'static str,
    pub help: &'static str,
    pub unit: Option<&'static str>,
    pub kind: Kind,
}

impl Spec {
    pub(crate) const fn gauge(name: &'static str, help: &'static str) -> Spec {
        Spec {
            name,
            help,
            unit: None,
            kind: Kind::Gauge,
        }
    }

    pub(crate) const fn counter(name: &'static str, help: &'static str) -> Spec {
        Spec {
            name,
            help,
            unit: None,
            kind: Kind::Counter,
        }
    }

    pub(crate) const fn unit(self, unit: &'static str) -> Spec {
        Spec {
            unit: Some(unit),
            ..self
        }
    }
}

#[derive(Debug, Default)]
pub(crate) struct Sheet {
    families: BTreeMap<&'static str, (&'static Spec, Vec<Series>)>,
}

impl Sheet {
    /// Add a series. Label values come from the driver and the kubelet: their control
    /// characters are made visible, so no scrape carries an escape sequence to a terminal.
    pub(crate) fn set(&mut self, spec: &'static Spec, mut labels: Labels, value: f64) {
        for (_, v) in &mut labels {
            if let std::borrow::Cow::Owned(safe) = crate::support::output::escape_controls(v, true)
            {
                *v = safe;
            }
        }
        self.families
            .entry(spec.name)
            .or_insert_with(|| (spec, Vec::new()))
            .1
            .push((labels, value));
    }

    /// Whether `spec` has a series with exactly `labels`.
    pub(crate) fn contains(&self, spec: &Spec, labels: &Labels) -> bool {
        self.families
            .get(spec.name)
            .is_some_and(|(_, series)| series.iter().any(|(l, _)| l == labels))
    }

    /// The value of the series of `spec` with exactly `labels` (tests).
    #[cfg(test)]
    pub(crate) fn value(&self, spec: &Spec, labels: &Labels) -> Option<f64> {
        let (_, series) = self.families.get(spec.name)?;
        series.iter().find(|(l, _)| l == labels).map(|(_, v)| *v)
    }

    /// The series of `spec` (tests).
    #[cfg(test)]
    pub(crate) fn series(&self, spec: &Spec) -> Vec<Series> {
        self.families
            .get(spec.name)
            .map_or_else(Vec::new, |(_, s)| s.clone())
    }

    /// How many series `spec` has (tests).
    #[cfg(test)]
    pub(crate) fn count(&self, spec: &Spec) -> usize {
        self.families.get(spec.name).map_or(0, |(_, s)| s.len())
    }

    pub(crate) fn into_registry(self) -> Registry {
        let mut registry = Registry::with_prefix("gpushare");
        registry.register_collector(Box::new(self));
        registry
    }
}

impl Collector for Sheet {
    /// Families in name order, series in the order they were set.
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        for (spec, series) in self.families.values() {
            let unit = spec.unit.map(|u| match u {
                "bytes" => Unit::Bytes,
                "seconds" => Unit::Seconds,
                other => Unit::Other(other.to_string()),
            });
            let kind = match spec.kind {
                Kind::Gauge => MetricType::Gauge,
                Kind::Counter => MetricType::Counter,
            };
            let mut family =
                encoder.encode_descriptor(spec.name, spec.help, unit.as_ref(), kind)?;
            for (labels, value) in series {
                let mut metric = family.encode_family(labels)?;
                match spec.kind {
                    Kind::Gauge => metric.encode_gauge(value)?,
                    Kind::Counter => {
                        metric.encode_counter::<NoLabelSet, u64, u64>(&(*value as u64), None)?
                    }
                }
            }
        }
        Ok(())
    }
}
