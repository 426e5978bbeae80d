//! Statistics of repeated measurements: medians for bandwidth (as nvbandwidth reports), nearest-rank
//! percentiles for latency, and the bandwidth of a timed copy.

/// The median of `samples` (mean of the middle two for an even count); `None` when empty or when
/// a sample is not a number.
pub(crate) fn median(samples: &[f64]) -> Option<f64> {
    let sorted = sorted(samples)?;
    let n = sorted.len();
    Some(if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    })
}

/// The nearest-rank percentile `p` (0 < p ≤ 100): the smallest sample that at least p% of the
/// samples are less than or equal to. p99 of 1000 launches is the 990th fastest.
pub(crate) fn percentile(samples: &[f64], p: f64) -> Option<f64> {
    if !(p > 0.0 && p <= 100.0) {
        return None;
    }
    let sorted = sorted(samples)?;
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// Decimal gigabytes per second (1 GB/s = 1e9 bytes/s, as nvbandwidth and vendor sheets count)
/// for `bytes` moved in `millis` milliseconds.
pub(crate) fn gbps(bytes: u64, millis: f64) -> Option<f64> {
    if millis > 0.0 && millis.is_finite() {
        Some(bytes as f64 / (millis / 1000.0) / 1e9)
    } else {
        None
    }
}

/// Round to two decimals, for reports people read.
pub(crate) fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn sorted(samples: &[f64]) -> Option<Vec<f64>> {
    if samples.is_empty() || samples.iter().any(|s| !s.is_finite()) {
        return None;
    }
    let mut v = samples.to_vec();
    v.sort_by(f64::total_cmp);
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[7.0]), Some(7.0));
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[1.0, f64::NAN]), None);
    }

    #[test]
    fn nearest_rank_percentiles() {
        let samples: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&samples, 50.0), Some(50.0));
        assert_eq!(percentile(&samples, 99.0), Some(99.0));
        assert_eq!(percentile(&samples, 100.0), Some(100.0));
        assert_eq!(percentile(&samples, 0.5), Some(1.0));
        // One slow launch in a thousand shows in p99.9 but not in p99.
        let mut launches = vec![2.0; 999];
        launches.push(500.0);
        assert_eq!(percentile(&launches, 99.0), Some(2.0));
        assert_eq!(percentile(&launches, 100.0), Some(500.0));
        assert_eq!(percentile(&[5.0], 99.0), Some(5.0));
        assert_eq!(percentile(&samples, 0.0), None);
        assert_eq!(percentile(&samples, 101.0), None);
        assert_eq!(percentile(&[], 50.0), None);
    }

    #[test]
    fn bandwidth_in_decimal_gigabytes() {
        // 256 MiB sixteen times in 160 ms: 26.8 GB/s, a PCIe Gen4 x16 figure.
        let g = gbps(256 * 1024 * 1024 * 16, 160.0).unwrap();
        assert!((g - 26.84).abs() < 0.01, "{g}");
        assert_eq!(gbps(1, 0.0), None);
        assert_eq!(gbps(1, f64::INFINITY), None);
        assert_eq!(round2(26.8435), 26.84);
    }
}
