//! gpushare's container image, as `scripts/build-image.sh` builds it, and its import into a real
//! node's containerd (nothing is pulled).
//!
//! `.ci/run` builds the release image first and names it in `GPUSHARE_TEST_IMAGE`; without it the
//! tests build one from this build's binary with the same script (which needs umoci and root).

use super::real_node::RealNode;
use super::repo;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// An image archive and the reference it is imported under.
pub struct Image {
    pub archive: PathBuf,
    pub reference: String,
}

/// The image; None (said loudly, a failure under `GPUSHARE_REQUIRE_KUBE=1`) when it cannot be
/// built here.
pub fn image(test: &str) -> Option<&'static Image> {
    static BUILT: OnceLock<Result<Image, String>> = OnceLock::new();
    let built = BUILT.get_or_init(|| match std::env::var_os("GPUSHARE_TEST_IMAGE") {
        Some(archive) => {
            let archive = PathBuf::from(archive);
            tag(&archive).map(|tag| Image {
                reference: format!("localhost/gpushare:{tag}"),
                archive,
            })
        }
        None => build(),
    });
    match built {
        Ok(image) => Some(image),
        Err(why) => {
            if std::env::var_os("GPUSHARE_REQUIRE_KUBE").is_some_and(|v| v == "1") {
                panic!("{test}: GPUSHARE_REQUIRE_KUBE=1 but gpushare's image: {why}");
            }
            eprintln!("SKIPPED: {test}: gpushare's image cannot be built here: {why}");
            None
        }
    }
}

/// The image of this build's binary, by the script users run.
fn build() -> Result<Image, String> {
    let archive = repo().join("target/image/gpushare-test.oci.tar");
    let out = Command::new("bash")
        .arg(repo().join("scripts/build-image.sh"))
        .arg("--binary")
        .arg(assert_cmd::cargo::cargo_bin!("gpushare"))
        .arg("--out")
        .arg(&archive)
        .output()
        .map_err(|e| format!("scripts/build-image.sh: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "scripts/build-image.sh failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let reference = String::from_utf8_lossy(&out.stdout).trim().to_string();
    Ok(Image { archive, reference })
}

/// The tag an archive's index gives its image.
fn tag(archive: &Path) -> Result<String, String> {
    let out = Command::new("tar")
        .arg("-xOf")
        .arg(archive)
        .arg("./index.json")
        .output()
        .map_err(|e| format!("tar: {e}"))?;
    let index: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("{}: no OCI index: {e}", archive.display()))?;
    index["manifests"][0]["annotations"]["org.opencontainers.image.ref.name"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("{}: its index names no tag", archive.display()))
}

impl RealNode {
    /// Import `image` into this node's containerd, under its reference.
    pub fn import(&self, image: &Image) {
        let cache = std::env::var_os("KUBE_NODE_CACHE")
            .map(PathBuf::from)
            .unwrap_or_else(|| std::env::temp_dir().join("kube-node-bin"));
        let out = Command::new(cache.join("ctr"))
            .arg("--address")
            .arg(self.dir.join("containerd/containerd.sock"))
            .args(["-n", "k8s.io", "images", "import", "--base-name"])
            .arg("localhost/gpushare")
            .arg(&image.archive)
            .output()
            .expect("ctr runs");
        assert!(
            out.status.success(),
            "ctr images import {}: {}",
            image.archive.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
