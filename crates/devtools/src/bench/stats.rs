//! Percentiles and human formatting of durations, sizes and rates.

use serde::Serialize;

/// The nearest-rank percentile `p` (0–100) of sorted values.
pub fn percentile<T: Copy>(sorted: &[T], p: f64) -> Option<T> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// Distribution of a sample, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Dist {
    pub n: usize,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

impl Dist {
    /// Summarizes samples given in nanoseconds.
    pub fn from_nanos(mut ns: Vec<i64>) -> Option<Dist> {
        ns.sort_unstable();
        let ms = |v: i64| v as f64 / 1e6;
        Some(Dist {
            n: ns.len(),
            p50_ms: ms(percentile(&ns, 50.0)?),
            p95_ms: ms(percentile(&ns, 95.0)?),
            p99_ms: ms(percentile(&ns, 99.0)?),
            max_ms: ms(*ns.last()?),
        })
    }
}

/// "0.042 ms", "3.21 ms", "42.1 ms", "1.52 s".
pub fn fmt_ms(ms: f64) -> String {
    if ms >= 1000.0 {
        format!("{:.2} s", ms / 1000.0)
    } else if ms >= 10.0 {
        format!("{ms:.1} ms")
    } else if ms >= 1.0 {
        format!("{ms:.2} ms")
    } else {
        format!("{ms:.3} ms")
    }
}

/// Bytes as decimal megabytes ("6.3 MB").
pub fn fmt_mb(bytes: f64) -> String {
    let mb = bytes / 1e6;
    if mb.abs() >= 100.0 {
        format!("{mb:.0} MB")
    } else if mb.abs() >= 1.0 {
        format!("{mb:.1} MB")
    } else {
        format!("{:.0} kB", bytes / 1e3)
    }
}

/// A rate with thousands separators ("123,456/s").
pub fn fmt_rate(per_sec: f64) -> String {
    format!("{}/s", thousands(per_sec.round() as u64))
}

pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut groups: Vec<&str> = digits
        .as_bytes()
        .rchunks(3)
        .map(|g| std::str::from_utf8(g).unwrap_or_default())
        .collect();
    groups.reverse();
    groups.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<u32> = (1..=100).collect();
        assert_eq!(percentile(&v, 50.0), Some(50));
        assert_eq!(percentile(&v, 99.0), Some(99));
        assert_eq!(percentile(&v, 100.0), Some(100));
        assert_eq!(percentile(&v, 0.0), Some(1));
        assert_eq!(percentile(&[7], 99.0), Some(7));
        assert_eq!(percentile::<u32>(&[], 50.0), None);
        let ten: Vec<u32> = (1..=10).collect();
        assert_eq!(percentile(&ten, 95.0), Some(10));
        assert_eq!(percentile(&ten, 50.0), Some(5));
    }

    #[test]
    fn dist_converts_nanoseconds() {
        let d = Dist::from_nanos(vec![3_000_000, 1_000_000, 2_000_000]).expect("samples");
        assert_eq!(d.n, 3);
        assert_eq!(d.p50_ms, 2.0);
        assert_eq!(d.max_ms, 3.0);
        assert!(Dist::from_nanos(vec![]).is_none());
    }

    #[test]
    fn human_formats() {
        assert_eq!(fmt_ms(0.0421), "0.042 ms");
        assert_eq!(fmt_ms(3.214), "3.21 ms");
        assert_eq!(fmt_ms(42.13), "42.1 ms");
        assert_eq!(fmt_ms(1520.0), "1.52 s");
        assert_eq!(fmt_mb(6_300_000.0), "6.3 MB");
        assert_eq!(fmt_mb(420_000.0), "420 kB");
        assert_eq!(fmt_rate(123_456.4), "123,456/s");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
    }
}
