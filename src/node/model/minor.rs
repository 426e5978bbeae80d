//! A GPU's minor number (`/dev/nvidia<minor>`), as the driver gives it in
//! `/proc/driver/nvidia/gpus/<bus>/information`: CDI specs name device nodes by it, and
//! NVIDIA's DRA driver names its devices by it (`gpu-<minor>`).

use crate::node::model::{Gpu, Node};
use crate::support::error::{Error, Result};
use std::collections::BTreeMap;
use std::path::Path;

/// `/proc/driver/nvidia/gpus/<bus>/information` names the bus id `0000:07:00.0` (4-digit domain,
/// lower case) where NVML prints `00000000:07:00.0`.
fn proc_bus_id(nvml_bus_id: &str) -> String {
    let lower = nvml_bus_id.to_ascii_lowercase();
    match lower.split_once(':') {
        Some((domain, rest)) if domain.len() > 4 => {
            format!("{}:{rest}", &domain[domain.len() - 4..])
        }
        _ => lower,
    }
}

/// The driver's minor of a GPU; `None` when its information file does not say. A file that is
/// there but refused (a FIFO, a device) is an error, never a guess.
pub(crate) fn gpu_minor(root: &Path, gpu: &Gpu) -> Result<Option<u32>> {
    let path = root
        .join("proc/driver/nvidia/gpus")
        .join(proc_bus_id(&gpu.pci_bus_id))
        .join("information");
    let text = match crate::support::fsutil::read_host(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {
            return Err(Error::failed(format!(
                "cannot read {}: {e}",
                path.display()
            )));
        }
        Err(_) => None,
    };
    Ok(text.and_then(|text| {
        text.lines()
            .find_map(|l| l.strip_prefix("Device Minor:"))
            .and_then(|v| v.trim().parse().ok())
    }))
}

/// GPU index → its minor, as the driver under `root` says (in PCI order, as NVML indexes them,
/// where it says nothing); a GPU whose file is refused has none.
pub(crate) fn minors(node: &Node, root: &Path) -> BTreeMap<u32, u32> {
    node.gpus
        .iter()
        .filter_map(|g| match gpu_minor(root, g) {
            Ok(minor) => Some((g.index, minor.unwrap_or(g.index))),
            Err(_) => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_bus_ids_use_a_four_digit_domain() {
        assert_eq!(proc_bus_id("00000000:07:00.0"), "0000:07:00.0");
        assert_eq!(proc_bus_id("0000:AB:00.0"), "0000:ab:00.0");
    }
}
