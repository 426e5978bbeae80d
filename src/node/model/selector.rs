//! `--gpu SEL`: which GPUs of a node a command acts on.
//!
//! Grammar: `all`, or a comma list of indexes (`0`), ranges (`0-3`), UUIDs (`GPU-…`, a prefix is
//! enough when it is unique) and PCI bus ids (`00000000:07:00.0` or the short `07:00.0`).

use crate::node::model::Node;
use crate::support::error::{Error, Result};

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) enum GpuSelector {
    #[default]
    All,
    Items(Vec<SelectorItem>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SelectorItem {
    Index(u32),
    Range(u32, u32),
    Uuid(String),
    BusId(String),
}

impl std::str::FromStr for GpuSelector {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("all") {
            return Ok(GpuSelector::All);
        }
        let mut items = Vec::new();
        for part in s.split(',').map(str::trim) {
            items.push(parse_item(part)?);
        }
        Ok(GpuSelector::Items(items))
    }
}

fn parse_item(part: &str) -> std::result::Result<SelectorItem, String> {
    let bad = || {
        format!(
            "`{part}` is not a GPU selector (use `all`, an index `0`, a range `0-3`, a UUID `GPU-…` or a PCI bus id `07:00.0`)"
        )
    };
    if part.is_empty() {
        return Err(bad());
    }
    if part.starts_with("GPU-") || part.starts_with("MIG-") {
        return Ok(SelectorItem::Uuid(part.to_string()));
    }
    if part.contains(':') {
        return Ok(SelectorItem::BusId(part.to_ascii_lowercase()));
    }
    if let Some((a, b)) = part.split_once('-') {
        let (a, b) = (
            a.trim().parse().map_err(|_| bad())?,
            b.trim().parse().map_err(|_| bad())?,
        );
        if a > b {
            return Err(format!(
                "`{part}`: a range goes from low to high, e.g. `0-3`"
            ));
        }
        return Ok(SelectorItem::Range(a, b));
    }
    part.parse().map(SelectorItem::Index).map_err(|_| bad())
}

impl GpuSelector {
    /// Indexes of the selected GPUs, in node order. Fails when an item matches no GPU, or a range
    /// reaches past the node: `0-99` on 8 GPUs is a mistake, never "the 8 there are".
    pub(crate) fn resolve(&self, node: &Node) -> Result<Vec<u32>> {
        let items = match self {
            GpuSelector::All => return Ok(node.gpus.iter().map(|g| g.index).collect()),
            GpuSelector::Items(items) => items,
        };
        let mut selected = Vec::new();
        let known = || {
            node.gpus
                .iter()
                .map(|g| format!("{} ({})", g.index, g.pci_bus_id))
                .collect::<Vec<_>>()
                .join(", ")
        };
        for item in items {
            if let SelectorItem::Range(a, b) = item
                && let Some(missing) = (*a..=*b).find(|i| node.gpu(*i).is_none())
            {
                return Err(Error::usage(format!(
                    "GPU range `{a}-{b}` goes beyond this node: there is no GPU {missing}"
                ))
                .with_hint(format!("this node has GPUs {}", known())));
            }
            let matched: Vec<u32> = node
                .gpus
                .iter()
                .filter(|g| item.matches(g))
                .map(|g| g.index)
                .collect();
            if matched.is_empty() {
                return Err(
                    Error::usage(format!("no GPU matches `{}`", item.describe()))
                        .with_hint(format!("this node has GPUs {}", known())),
                );
            }
            if let SelectorItem::Uuid(u) = item
                && matched.len() > 1
            {
                return Err(
                    Error::usage(format!("UUID prefix `{u}` matches several GPUs"))
                        .with_hint("give more of the UUID"),
                );
            }
            selected.extend(matched);
        }
        selected.sort_unstable();
        selected.dedup();
        Ok(selected)
    }
}

impl SelectorItem {
    fn matches(&self, gpu: &crate::node::model::Gpu) -> bool {
        match self {
            SelectorItem::Index(i) => gpu.index == *i,
            SelectorItem::Range(a, b) => (*a..=*b).contains(&gpu.index),
            SelectorItem::Uuid(u) => {
                gpu.uuid.starts_with(u.as_str())
                    || gpu.mig.instances.iter().flatten().any(|gi| {
                        gi.compute_instances.iter().any(|ci| {
                            ci.uuid
                                .as_deref()
                                .is_some_and(|c| c.starts_with(u.as_str()))
                        })
                    })
            }
            SelectorItem::BusId(b) => {
                let bus = gpu.pci_bus_id.to_ascii_lowercase();
                bus == *b || bus.ends_with(&format!(":{b}")) || short_bus(&bus) == short_bus(b)
            }
        }
    }

    fn describe(&self) -> String {
        match self {
            SelectorItem::Index(i) => i.to_string(),
            SelectorItem::Range(a, b) => format!("{a}-{b}"),
            SelectorItem::Uuid(u) | SelectorItem::BusId(u) => u.clone(),
        }
    }
}

/// `0000:07:00.0` and `00000000:07:00.0` name the same device: compare without the domain padding.
fn short_bus(bus: &str) -> String {
    match bus.split_once(':') {
        Some((domain, rest)) if rest.contains(':') => {
            format!(
                "{:x}:{rest}",
                u32::from_str_radix(domain, 16).unwrap_or(u32::MAX)
            )
        }
        _ => format!("0:{bus}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::backend::Backend;
    use crate::node::backend::sim::SimBackend;

    fn node() -> Node {
        SimBackend::from_preset("dgx-a100")
            .unwrap()
            .snapshot()
            .unwrap()
    }

    #[test]
    fn all_selects_every_gpu() {
        assert_eq!(GpuSelector::All.resolve(&node()).unwrap().len(), 8);
    }

    #[test]
    fn lists_ranges_uuids_and_bus_ids() {
        let node = node();
        let sel: GpuSelector = "0, 2-3".parse().unwrap();
        assert_eq!(sel.resolve(&node).unwrap(), vec![0, 2, 3]);
        let uuid = node.gpus[5].uuid.clone();
        let sel: GpuSelector = uuid[..12].parse().unwrap();
        assert_eq!(sel.resolve(&node).unwrap(), vec![5]);
        let bus = node.gpus[1].pci_bus_id.clone();
        let sel: GpuSelector = bus[9..].parse().unwrap();
        assert_eq!(sel.resolve(&node).unwrap(), vec![1]);
        let sel: GpuSelector = format!("0000{}", &bus[8..]).parse().unwrap();
        assert_eq!(sel.resolve(&node).unwrap(), vec![1]);
    }

    #[test]
    fn a_selector_that_matches_nothing_is_a_usage_error() {
        let sel: GpuSelector = "9".parse().unwrap();
        let err = sel.resolve(&node()).unwrap_err();
        assert_eq!(err.exit, crate::support::error::Exit::Usage);
        assert!(err.message.contains("no GPU matches `9`"));
    }

    #[test]
    fn a_range_past_the_node_is_a_usage_error_not_clipped() {
        for text in ["0-99", "5-8", "7-4294967295"] {
            let sel: GpuSelector = text.parse().unwrap();
            let err = sel.resolve(&node()).unwrap_err();
            assert_eq!(err.exit, crate::support::error::Exit::Usage, "{text}");
            assert!(err.message.contains("there is no GPU 8"), "{}", err.message);
        }
        let sel: GpuSelector = "0-7".parse().unwrap();
        assert_eq!(sel.resolve(&node()).unwrap().len(), 8);
    }

    #[test]
    fn malformed_selectors_are_rejected() {
        assert!("".parse::<GpuSelector>().is_err());
        assert!("3-1".parse::<GpuSelector>().is_err());
        assert!("x".parse::<GpuSelector>().is_err());
    }
}
