//! The series of GPU health: each GPU's and MIG device's health by the policy, and the Xid and
//! ECC errors the watch counted (from the health record, so they survive the watch's restarts).
//! Bounded: the record keeps at most 64 causes per GPU.

use super::devices::gpu_labels;
use super::sheet::{Labels, Sheet, Spec};
use crate::node::backend::events::Cause;
use crate::node::gpu_health::NodeHealth;
use crate::node::gpu_health::record::HealthRecord;
use crate::node::model::Node;

pub(crate) static GPU_HEALTHY: Spec = Spec::gauge(
    "gpu_healthy",
    "The whole GPU by the health policy: 1 healthy, 0 unhealthy (absent while no health watch runs)",
);
pub(crate) static MIG_HEALTHY: Spec = Spec::gauge(
    "mig_device_healthy",
    "The MIG device by the health policy (its own Xids and its GPU's): 1 healthy, 0 unhealthy",
);
pub(crate) static XID_ERRORS: Spec = Spec::counter(
    "xid_errors",
    "Xid errors the health watch heard on the GPU (its MIG devices included), by Xid",
);
pub(crate) static ECC_ERRORS: Spec = Spec::counter(
    "ecc_errors",
    "ECC error events the health watch heard on the GPU, by type (single_bit corrected, double_bit not)",
);

pub(crate) fn add(
    sheet: &mut Sheet,
    node: &Node,
    record: Option<&HealthRecord>,
    health: &NodeHealth,
) {
    for gpu in &node.gpus {
        let base = gpu_labels(gpu);
        let Some(Ok(h)) = health.gpus.get(&gpu.index) else {
            continue;
        };
        sheet.set(&GPU_HEALTHY, base.clone(), f64::from(u8::from(h.healthy)));
        for gi in gpu.mig.instances.iter().flatten() {
            for ci in &gi.compute_instances {
                let Some(uuid) = &ci.uuid else { continue };
                let mut l = base.clone();
                l.push(("profile", ci.profile.clone()));
                l.push(("mig_uuid", uuid.clone()));
                let ok = h.mig_device_healthy((gi.gpu_instance_id, ci.compute_instance_id));
                sheet.set(&MIG_HEALTHY, l, f64::from(u8::from(ok)));
            }
        }
        // A watched GPU nothing was heard of has counted no ECC errors.
        let causes = record
            .and_then(|r| r.gpus.get(&gpu.uuid))
            .map_or(&[][..], |g| g.causes.as_slice());
        let mut xids: std::collections::BTreeMap<u64, u64> = Default::default();
        let (mut single, mut double) = (0u64, 0u64);
        for c in causes {
            match c.cause {
                Cause::Xid(x) => {
                    let n = xids.entry(x).or_default();
                    *n = n.saturating_add(c.count);
                }
                Cause::EccSingleBit => single = single.saturating_add(c.count),
                Cause::EccDoubleBit => double = double.saturating_add(c.count),
            }
        }
        for (xid, n) in xids {
            let mut l: Labels = base.clone();
            l.push(("xid", xid.to_string()));
            sheet.set(&XID_ERRORS, l, n as f64);
        }
        for (kind, n) in [("single_bit", single), ("double_bit", double)] {
            let mut l: Labels = base.clone();
            l.push(("type", kind.into()));
            sheet.set(&ECC_ERRORS, l, n as f64);
        }
    }
}
