//! Programs of `../shared/tools/<tool>`, each shipped as `<program>.xz`, unpacked once into
//! `target/<tool>-bin`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Unpack `programs` of `tool` (those not unpacked yet); the folder, or why not.
pub fn unpack(tool: &str, programs: &[&str]) -> Result<PathBuf, String> {
    let from = super::repo().join("../shared/tools").join(tool);
    let out = super::repo().join(format!("target/{tool}-bin"));
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    for program in programs {
        let xz = from.join(format!("{program}.xz"));
        if !xz.is_file() {
            return Err(format!("{} does not exist", xz.display()));
        }
        let bin = out.join(program);
        if bin.exists() {
            continue;
        }
        let part = out.join(format!("{program}.part.{}", std::process::id()));
        let file = std::fs::File::create(&part).map_err(|e| e.to_string())?;
        let ok = Command::new("xz")
            .arg("-dc")
            .arg(&xz)
            .stdout(file)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            return Err(format!("cannot unpack {}", xz.display()));
        }
        std::fs::set_permissions(&part, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .map_err(|e| e.to_string())?;
        std::fs::rename(&part, &bin).map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// The unpacked folder; None, said loudly, when `test` cannot have it (`what` is not
/// available), and a failure under `GPUSHARE_REQUIRE_NVIDIA_TOOLS=1`.
pub fn or_skip<'a>(test: &str, what: &str, dir: &'a Result<PathBuf, String>) -> Option<&'a Path> {
    match dir {
        Ok(dir) => Some(dir),
        Err(why) => {
            if std::env::var_os("GPUSHARE_REQUIRE_NVIDIA_TOOLS").is_some_and(|v| v == "1") {
                panic!("{test}: GPUSHARE_REQUIRE_NVIDIA_TOOLS=1 but {why}");
            }
            eprintln!("SKIPPED: {test}: {what} not available: {why}");
            None
        }
    }
}
