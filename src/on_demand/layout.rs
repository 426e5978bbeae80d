//! The layout the controller writes for a node (annotation `gpushare.io/mig.layout`): a
//! gpushare.toml with one entry per MIG GPU, every instance at its placement, so the agent's
//! planner keeps each instance that stays exactly where it is. The agent checks it as any
//! gpushare.toml; the controller reads its own back to know what a node is heading to.

use serde::Deserialize;
use std::collections::BTreeMap;

/// Per GPU index, `(profile, start)` in start order.
pub(crate) type NodeOffer = BTreeMap<u32, Vec<(String, u32)>>;

pub(crate) fn render(node: &str, layout: &NodeOffer) -> String {
    let mut text = format!(
        "# MIG on demand: the layout gpushare controller chose for node {node}.\n\
         # Remove the node's label gpushare.io/mig.on-demand to return it to its own layout.\n"
    );
    for (gpu, instances) in layout {
        let list: Vec<String> = instances
            .iter()
            .map(|(profile, start)| format!("{{ profile = \"{profile}\", start = {start} }}"))
            .collect();
        text.push_str(&format!(
            "\n[[gpus]]\nselect = [{gpu}]\nmode = \"mig\"\nmig.instances = [{}]\n",
            list.join(", ")
        ));
    }
    text
}

#[derive(Deserialize)]
struct File {
    #[serde(default)]
    gpus: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    select: Vec<u32>,
    #[serde(default)]
    mig: Option<Mig>,
}

#[derive(Deserialize)]
struct Mig {
    #[serde(default)]
    instances: Vec<Placed>,
}

#[derive(Deserialize)]
struct Placed {
    profile: String,
    start: u32,
}

/// A layout [`render`] wrote; `None` for anything else (a hand edit is not a layout the
/// controller knows the target of).
pub(crate) fn parse(text: &str) -> Option<NodeOffer> {
    let file: File = toml::from_str(text).ok()?;
    let mut out = NodeOffer::new();
    for e in file.gpus {
        let [gpu] = e.select[..] else { return None };
        let mut list: Vec<(String, u32)> = e
            .mig?
            .instances
            .into_iter()
            .map(|p| (p.profile, p.start))
            .collect();
        list.sort_by_key(|(_, s)| *s);
        out.insert(gpu, list);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::source_file::SourceFile;

    #[test]
    fn a_written_layout_is_a_valid_gpushare_toml_and_reads_back() {
        let layout = NodeOffer::from([
            (
                0,
                vec![("1g.5gb".to_string(), 0), ("3g.20gb".to_string(), 4)],
            ),
            (3, vec![("7g.40gb".to_string(), 0)]),
        ]);
        let text = render("gpu-1", &layout);
        let config = Config::parse(SourceFile::inline("layout", &text)).unwrap();
        assert_eq!(config.file.gpus.len(), 2);
        assert_eq!(parse(&text), Some(layout));
        assert_eq!(parse("[[gpus]]\nselect = \"all\"\nmode = \"mig\"\n"), None);
    }
}
