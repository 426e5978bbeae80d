//! MIG instances made for DRA claims: the record gpushare's DRA plugin keeps of what each claim's
//! prepare made (`<lib>/dra-plugin/made/<claim uid>.json`), written before the instance is made
//! and removed once its unprepare removed it. Every plan reads it: an instance made for a claim is
//! never destroyed by another change (`apply`, `mig apply`, the agent), only by its claim's
//! unprepare.

use crate::node::model::{Gpu, GpuInstance};
use crate::support::error::Result;
use crate::support::fsutil::claim_records;
use crate::support::paths::Paths;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// An instance made for a claim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Made {
    pub gpu_uuid: String,
    pub profile: String,
    pub start: u32,
    pub size: u32,
}

impl Made {
    /// Whether `gi` of `gpu` is this instance.
    pub(crate) fn is(&self, gpu: &Gpu, gi: &GpuInstance) -> bool {
        gpu.uuid == self.gpu_uuid
            && gi.profile == self.profile
            && gi.placement.start == self.start
            && gi.placement.size == self.size
    }
}

fn dir(paths: &Paths) -> PathBuf {
    paths.lib_dir().join("dra-plugin/made")
}

pub(crate) use crate::support::fsutil::claim_records::is_uid;

/// What was made for claim `uid` (none when nothing was).
pub(crate) fn recorded(paths: &Paths, uid: &str) -> Result<Vec<Made>> {
    claim_records::read(&dir(paths), uid)
}

/// Every instance made for a claim and not removed yet, with its claim's UID. A record that
/// cannot be read is an error: what it names cannot be told apart from an idle instance.
pub(crate) fn all(paths: &Paths) -> Result<Vec<(String, Made)>> {
    claim_records::all(&dir(paths))
}

/// Record what was made for claim `uid`; nothing: the record goes.
pub(crate) fn record(paths: &Paths, uid: &str, made: &[Made]) -> Result<()> {
    claim_records::write(&dir(paths), uid, made)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_round_trips_and_names_only_uids() {
        let root = tempfile::tempdir().unwrap();
        let paths = Paths::new(Some(root.path().to_path_buf()));
        let made = Made {
            gpu_uuid: "GPU-1".into(),
            profile: "1g.5gb".into(),
            start: 6,
            size: 1,
        };
        let uid = "0b6f0c9e-3a51-4c55-9a5e-1f0e0d8c7b6a";
        record(&paths, uid, std::slice::from_ref(&made)).unwrap();
        assert_eq!(recorded(&paths, uid).unwrap(), vec![made.clone()]);
        assert_eq!(all(&paths).unwrap(), vec![(uid.to_string(), made)]);
        assert!(record(&paths, "../../etc/passwd", &[]).is_err());
        std::fs::write(dir(&paths).join("junk.json"), "{").unwrap();
        assert_eq!(
            all(&paths).unwrap().len(),
            1,
            "a file not named by a UID is not a record"
        );
        std::fs::write(dir(&paths).join(format!("{uid}.json")), "{").unwrap();
        assert!(all(&paths).is_err(), "a broken record is an error");
        record(&paths, uid, &[]).unwrap();
        assert!(all(&paths).unwrap().is_empty());
    }
}
