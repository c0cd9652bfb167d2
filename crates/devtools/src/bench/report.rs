//! The benchmark's results, the targets they are held to, and the table that shows both.

use super::stats::{fmt_mb, fmt_ms, fmt_rate, thousands, Dist};
use crate::host::table::{row, Row};
use serde::Serialize;

pub const TARGET_LATENCY_P99_MS: f64 = 1.0;
pub const TARGET_RSS_IDLE: f64 = 10e6;
pub const TARGET_RSS_PER_SESSION: f64 = 1e6;
pub const TARGET_INITIALIZE_MS: f64 = 10.0;
pub const TARGET_OPEN_MS: f64 = 5.0;
pub const TARGET_CONCURRENT_RATE: f64 = 20_000.0;

/// One streaming run: how many items, how fast, whether all arrived.
#[derive(Debug, Clone, Serialize)]
pub struct Stream {
    pub sessions: usize,
    pub events_per_session: u32,
    pub events_received: u64,
    pub seconds: f64,
    pub events_per_sec: f64,
    pub events_lost: u64,
    pub duplicates: u64,
    pub turns_not_completed: usize,
    pub latency: Option<Dist>,
    /// CPU time (user + system) the bridge spent on the run.
    pub bridge_cpu_seconds: Option<f64>,
}

impl Stream {
    /// Bridge CPU time per received item, in microseconds.
    pub fn cpu_per_event_us(&self) -> Option<f64> {
        let cpu = self.bridge_cpu_seconds?;
        (self.events_received > 0).then(|| cpu * 1e6 / self.events_received as f64)
    }
}

fn cpu_text(s: &Stream) -> String {
    match (s.cpu_per_event_us(), s.bridge_cpu_seconds) {
        (Some(us), Some(total)) => format!("{us:.1} us/event ({total:.2} s CPU)"),
        _ => "unknown".into(),
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub release_build: bool,
    pub cpus: usize,
    pub initialize_first_ms: f64,
    pub initialize_repeat: Option<Dist>,
    pub open: Option<Dist>,
    /// Per-event latency of small turns (no queueing).
    pub latency_unloaded: Option<Dist>,
    pub single_stream: Stream,
    pub rss_idle_bytes: u64,
    pub rss_open_sessions: usize,
    pub rss_with_sessions_bytes: u64,
    pub rss_per_session_bytes: f64,
    pub rss_after_close_bytes: u64,
    pub concurrent: Stream,
    pub concurrent_peak_rss_bytes: u64,
    pub concurrent_after_rss_bytes: u64,
    pub vm_hwm_bytes: u64,
}

fn dist_text(d: &Option<Dist>, hi: f64) -> String {
    match d {
        Some(d) => format!(
            "{} / {} (n={})",
            fmt_ms(d.p50_ms),
            fmt_ms(if hi >= 99.0 { d.p99_ms } else { d.p95_ms }),
            d.n
        ),
        None => "no samples".into(),
    }
}

impl Report {
    /// The bound on memory while every session streams: idle + the per-session budget.
    pub fn memory_bound(&self) -> f64 {
        TARGET_RSS_IDLE + TARGET_RSS_PER_SESSION * self.concurrent.sessions as f64
    }

    pub fn rows(&self) -> Vec<Row> {
        let c = &self.concurrent;
        let s = &self.single_stream;
        let lossless =
            |st: &Stream| st.events_lost == 0 && st.duplicates == 0 && st.turns_not_completed == 0;
        vec![
            row(
                "initialize round trip (first call)",
                fmt_ms(self.initialize_first_ms),
                "< 10 ms",
                Some(self.initialize_first_ms < TARGET_INITIALIZE_MS),
            ),
            row(
                "initialize round trip, repeated (p50 / p95)",
                dist_text(&self.initialize_repeat, 95.0),
                "",
                None,
            ),
            row(
                "session.open -> session.ready (p50 / p95)",
                dist_text(&self.open, 95.0),
                "< 5 ms",
                self.open.map(|d| d.p95_ms < TARGET_OPEN_MS),
            ),
            row(
                "event latency, small turns (p50 / p99)",
                dist_text(&self.latency_unloaded, 99.0),
                "p99 < 1 ms",
                self.latency_unloaded
                    .map(|d| d.p99_ms < TARGET_LATENCY_P99_MS),
            ),
            row(
                &format!(
                    "event latency, BENCH {} flood (p50 / p99)",
                    s.events_per_session
                ),
                dist_text(&s.latency, 99.0),
                "(queueing; info)",
                None,
            ),
            row(
                &format!("one streaming turn, BENCH {}", s.events_per_session),
                format!("{} in {:.2} s", fmt_rate(s.events_per_sec), s.seconds),
                "no loss",
                Some(lossless(s)),
            ),
            row(
                "  bridge CPU (user+sys) in that turn",
                cpu_text(s),
                "",
                None,
            ),
            row(
                "bridge RSS idle after initialize",
                fmt_mb(self.rss_idle_bytes as f64),
                "<= 10 MB",
                Some((self.rss_idle_bytes as f64) <= TARGET_RSS_IDLE),
            ),
            row(
                &format!("bridge RSS with {} open sessions", self.rss_open_sessions),
                format!(
                    "{} (+{}/session)",
                    fmt_mb(self.rss_with_sessions_bytes as f64),
                    fmt_mb(self.rss_per_session_bytes)
                ),
                "<= 1 MB/session",
                Some(self.rss_per_session_bytes <= TARGET_RSS_PER_SESSION),
            ),
            row(
                "bridge RSS after closing them",
                fmt_mb(self.rss_after_close_bytes as f64),
                "",
                None,
            ),
            row(
                &format!(
                    "{} sessions x BENCH {}: combined rate",
                    c.sessions, c.events_per_session
                ),
                format!("{} in {:.2} s", fmt_rate(c.events_per_sec), c.seconds),
                ">= 20,000/s",
                Some(c.events_per_sec >= TARGET_CONCURRENT_RATE),
            ),
            row(
                "  items received / lost / duplicated",
                format!(
                    "{} / {} / {}",
                    thousands(c.events_received),
                    c.events_lost,
                    c.duplicates
                ),
                "0 lost",
                Some(c.events_lost == 0 && c.duplicates == 0),
            ),
            row(
                "  turns not completed",
                c.turns_not_completed.to_string(),
                "0",
                Some(c.turns_not_completed == 0),
            ),
            row("  bridge CPU (user+sys) in that run", cpu_text(c), "", None),
            row(
                "  event latency under that load (p50 / p99)",
                dist_text(&c.latency, 99.0),
                "(queueing; info)",
                None,
            ),
            row(
                "  peak RSS during the run (sampled)",
                format!(
                    "{} (after: {})",
                    fmt_mb(self.concurrent_peak_rss_bytes as f64),
                    fmt_mb(self.concurrent_after_rss_bytes as f64)
                ),
                &format!("bounded, <= {}", fmt_mb(self.memory_bound())),
                Some((self.concurrent_peak_rss_bytes as f64) <= self.memory_bound()),
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn distribution_text_picks_the_upper_percentile() {
        let d = Some(Dist {
            n: 10,
            p50_ms: 0.5,
            p95_ms: 0.9,
            p99_ms: 2.0,
            max_ms: 3.0,
        });
        assert_eq!(dist_text(&d, 95.0), "0.500 ms / 0.900 ms (n=10)");
        assert_eq!(dist_text(&d, 99.0), "0.500 ms / 2.00 ms (n=10)");
        assert_eq!(dist_text(&None, 99.0), "no samples");
    }
}
