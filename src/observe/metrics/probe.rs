//! The series of the probe's last kept report (`<lib_dir>/probe.json`): the verdict per target,
//! the memory limit it tested and what could be allocated, and the bandwidth measured.

use super::sheet::{Labels, Sheet, Spec};
use crate::observe::probe::kept::KeptReport;

pub(crate) static REPORT_TIME: Spec = Spec::gauge(
    "probe_report_timestamp",
    "When the probe's last report was made",
)
.unit("seconds");
pub(crate) static PASSED: Spec = Spec::gauge(
    "probe_passed",
    "The verdict of the probe's last report: 1 pass, 0 fail",
);
pub(crate) static TARGET_PASSED: Spec = Spec::gauge(
    "probe_target_passed",
    "Whether a target kept every promise in the probe's last report: 1 yes, 0 no",
);
pub(crate) static MEMORY_LIMIT: Spec = Spec::gauge(
    "probe_memory_limit",
    "The memory limit the probe tested on a target (what it was promised)",
)
.unit("bytes");
pub(crate) static MEMORY_ALLOCATED: Spec = Spec::gauge(
    "probe_memory_allocated",
    "The memory the probe could allocate on a target before the driver refused",
)
.unit("bytes");
pub(crate) static LIMIT_ENFORCED: Spec = Spec::gauge(
    "probe_memory_limit_enforced",
    "Whether no allocation past a target's memory limit succeeded: 1 yes, 0 no",
);
pub(crate) static BANDWIDTH: Spec = Spec::gauge(
    "probe_bandwidth",
    "Bandwidth the probe measured on a target, by direction (h2d, d2h, d2d: read + written)",
)
.unit("bytes_per_second");

const MIB: f64 = 1024.0 * 1024.0;

pub(crate) fn add(sheet: &mut Sheet, report: &KeptReport) {
    sheet.set(&REPORT_TIME, Vec::new(), report.time);
    sheet.set(
        &PASSED,
        Vec::new(),
        f64::from(u8::from(report.verdict == "pass")),
    );
    for t in &report.targets {
        let l: Labels = vec![
            ("target", t.label.clone()),
            ("kind", t.kind.clone()),
            ("gpu", t.gpu.to_string()),
            ("uuid", t.uuid.clone()),
        ];
        sheet.set(
            &TARGET_PASSED,
            l.clone(),
            f64::from(u8::from(report.passed(t))),
        );
        if let Some(mib) = t.memory.limit_mib {
            sheet.set(&MEMORY_LIMIT, l.clone(), mib as f64 * MIB);
        }
        if let Some(mib) = t.memory.allocated_mib {
            sheet.set(&MEMORY_ALLOCATED, l.clone(), mib as f64 * MIB);
        }
        if let Some(on) = t.memory.limit_enforced {
            sheet.set(&LIMIT_ENFORCED, l.clone(), f64::from(u8::from(on)));
        }
        let b = &t.bandwidth_gbps;
        for (direction, gbps) in [("h2d", b.h2d), ("d2h", b.d2h), ("d2d", b.d2d)] {
            if let Some(gbps) = gbps {
                let mut l = l.clone();
                l.push(("direction", direction.into()));
                sheet.set(&BANDWIDTH, l, gbps * 1e9);
            }
        }
    }
}
