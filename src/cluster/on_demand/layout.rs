//! The layout the controller writes for a node (annotation `gpushare.io/mig.layout`): a
//! gpushare.toml with one entry per MIG GPU, every instance at its placement, so the agent's
//! planner keeps each instance that stays exactly where it is. The agent checks it as any
//! gpushare.toml, and takes from this annotation only what the controller writes here
//! ([`parse`]); the controller reads its own back to know what a node is heading to.
//!
//! The text is made by the `toml` serializer from typed values, never by formatting, and read
//! back before it is written: a profile name, whoever published it, cannot add a line.

use crate::sharing::mig::profile_name::ProfileName;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Per GPU index, `(profile, start)` in start order.
pub(crate) type NodeOffer = BTreeMap<u32, Vec<(String, u32)>>;

const HEADER: &str = "# MIG on demand: the layout gpushare controller chose for this node.\n\
     # Remove the node's label gpushare.io/mig.on-demand to return it to its own layout.\n\n";

/// The annotation's shape: nothing but MIG instances at placements.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    gpus: Vec<Entry>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    select: Vec<u32>,
    mode: Mode,
    mig: Mig,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Mode {
    Mig,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Mig {
    instances: Vec<Placed>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Placed {
    profile: String,
    start: u32,
}

/// The annotation's text for `layout`; an error when a profile is not a MIG profile name or the
/// text would not read back as `layout` and as a gpushare.toml.
pub(crate) fn render(layout: &NodeOffer) -> Result<String, String> {
    for (gpu, instances) in layout {
        for (profile, _) in instances {
            let parsed = ProfileName::parse(profile)
                .map_err(|_| format!("GPU {gpu}: {profile:?} is not a MIG profile name"))?;
            if parsed.to_string() != *profile {
                return Err(format!(
                    "GPU {gpu}: {profile:?} is not a profile name as the driver writes it"
                ));
            }
        }
    }
    let file = File {
        gpus: layout
            .iter()
            .map(|(gpu, instances)| Entry {
                select: vec![*gpu],
                mode: Mode::Mig,
                mig: Mig {
                    instances: instances
                        .iter()
                        .map(|(profile, start)| Placed {
                            profile: profile.clone(),
                            start: *start,
                        })
                        .collect(),
                },
            })
            .collect(),
    };
    let body = toml::to_string(&file).map_err(|e| format!("cannot write the layout: {e}"))?;
    let text = format!("{HEADER}{body}");
    if parse(&text).as_ref() != Ok(layout) {
        return Err("the layout written does not read back as itself".into());
    }
    crate::node::config::Config::parse(crate::support::source_file::SourceFile::inline(
        "layout", &text,
    ))
    .map_err(|e| {
        format!(
            "the layout written is not a valid gpushare.toml: {}",
            e.message
        )
    })?;
    Ok(text)
}

/// A layout as [`render`] writes it, or why the text is not one: anything else in the
/// annotation (another section, another mode, a hand edit) is not taken from it.
pub(crate) fn parse(text: &str) -> Result<NodeOffer, String> {
    let file: File = toml::from_str(text).map_err(|e| e.message().to_string())?;
    let mut out = NodeOffer::new();
    for e in file.gpus {
        let [gpu] = e.select[..] else {
            return Err("each entry selects one GPU by index".into());
        };
        let mut list: Vec<(String, u32)> = e
            .mig
            .instances
            .into_iter()
            .map(|p| (p.profile, p.start))
            .collect();
        list.sort_by_key(|(_, s)| *s);
        if out.insert(gpu, list).is_some() {
            return Err(format!("GPU {gpu} has two entries"));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::config::Config;
    use crate::support::source_file::SourceFile;

    #[test]
    fn a_written_layout_is_a_valid_gpushare_toml_and_reads_back() {
        let layout = NodeOffer::from([
            (
                0,
                vec![("1g.5gb".to_string(), 0), ("3g.20gb".to_string(), 4)],
            ),
            (3, vec![("7g.40gb".to_string(), 0)]),
        ]);
        let text = render(&layout).unwrap();
        let config = Config::parse(SourceFile::inline("layout", &text)).unwrap();
        assert_eq!(config.file.gpus.len(), 2);
        assert_eq!(parse(&text), Ok(layout));
        assert!(parse("[[gpus]]\nselect = \"all\"\nmode = \"mig\"\n").is_err());
    }

    #[test]
    fn a_profile_name_cannot_add_a_line() {
        let evil = "1g.5gb\", start = 0 }]\n[clients]\nsystemd = [\"kubelet.service\"]\n#";
        let layout = NodeOffer::from([(0, vec![(evil.to_string(), 0)])]);
        let e = render(&layout).unwrap_err();
        assert!(
            e.contains("is not a MIG profile name") && !e.contains('\n'),
            "{e}"
        );
        // Anything but instances at placements is not taken from the annotation.
        for other in [
            "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.instances = []\n[clients]\nsystemd = [\"kubelet.service\"]\n",
            "[[gpus]]\nselect = [0]\nmode = \"mps\"\nmig.instances = []\n",
            "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.instances = []\nmig.time_slicing.replicas = 4\n",
            "[[gpus]]\nselect = [0, 1]\nmode = \"mig\"\nmig.instances = []\n",
            "[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.instances = []\n[[gpus]]\nselect = [0]\nmode = \"mig\"\nmig.instances = []\n",
            "[hooks]\n",
        ] {
            assert!(parse(other).is_err(), "{other}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]

        /// Any offer: refused, or written as text that reads back as itself and as a valid
        /// gpushare.toml; any text: read or refused, never a panic.
        #[test]
        fn a_layout_is_written_only_when_it_reads_back(
            offer in proptest::collection::btree_map(
                0u32..70,
                proptest::collection::vec(
                    (
                        proptest::prop_oneof![
                            proptest::strategy::Just("1g.5gb".to_string()),
                            proptest::strategy::Just("1g.10gb+me".to_string()),
                            "[0-9a-z.+\\-\"\\n\\[\\]=# ]{0,16}",
                        ],
                        0u32..10,
                    ),
                    0..4,
                ),
                0..3,
            ),
            text in "[\\[\\]a-z0-9 =\"\\n.{},]{0,120}",
        ) {
            let _ = parse(&text);
            if let Ok(written) = render(&offer) {
                let mut sorted = offer.clone();
                for list in sorted.values_mut() {
                    list.sort_by_key(|(_, s)| *s);
                }
                proptest::prop_assert_eq!(parse(&written), Ok(sorted));
                proptest::prop_assert!(Config::parse(SourceFile::inline("x", &written)).is_ok());
            }
        }
    }
}
