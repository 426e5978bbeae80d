//! The wall clock as the journal, the kept probe report, the metrics and the controller's
//! annotations write it: seconds since the Unix epoch.

/// Now, in seconds since the Unix epoch to the millisecond (0 on a clock set before 1970).
pub(crate) fn unix_now() -> f64 {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    ms as f64 / 1000.0
}
