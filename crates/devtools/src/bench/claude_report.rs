//! The Claude section's results and their table (see `claude.rs` for how they are measured).

use crate::bench::compare::{Mode, ModeFigures};
use crate::bench::stats::{fmt_mb, fmt_ms, Dist};
use crate::host::table::{Row, Verdict};
use serde::Serialize;

/// The targets: a warm open under 50 ms; the bridge adds at most 5 ms to an open.
pub const TARGET_WARM_OPEN_MS: f64 = 50.0;
pub const TARGET_OPEN_OVERHEAD_MS: f64 = 5.0;
/// The bridge's "model end -> turn end" may exceed the direct drive's by this much.
pub const TARGET_AFTER_MODEL_MS: f64 = 0.5;
pub const NOTES: &str = "\
p50 / p95. \"paired\" = bridge − direct over interleaved pairs; a CLI start varies by a few
hundred ms, so a paired open difference cannot resolve milliseconds. The bridge's own time =
the open latency − its CLI's spawn to initialize answer as the provider logs it (the process
guard's exec counts as CLI time).";

#[derive(Debug, Serialize)]
pub struct ClaudeReport {
    pub release_build: bool,
    pub claude_version: String,
    pub claude_agent_acp_version: String,
    /// The turn comparison: direct, claude-agent-acp, bridge (in that order).
    pub modes: Vec<ModeFigures>,
    pub open_cold_bridge: Option<Dist>,
    pub cli_start_to_initialize: Option<Dist>,
    pub cli_start_to_system_init: Option<Dist>,
    pub open_overhead: Option<Dist>,
    /// A cold open minus its CLI's spawn -> `initialize` answer (the provider's debug log).
    pub open_own: Option<Dist>,
    /// That spawn -> answer of the CLIs the bridge started (`initialize` and `get_settings`).
    pub cli_start_in_bridge: Option<Dist>,
    pub open_first_warm_bridge_ms: f64,
    pub open_warm: Option<Dist>,
    /// Resident memory of the one spare (its guard and CLI) a bridge holds after an open.
    pub spare_rss_bytes: u64,
}

/// Like `fmt_ms`, for values that may be negative (differences).
fn fmt_signed_ms(ms: f64) -> String {
    if ms < 0.0 {
        format!("-{}", fmt_ms(-ms))
    } else {
        fmt_ms(ms)
    }
}

fn dist_row(metric: &str, d: &Option<Dist>, target: Option<(f64, &str)>) -> Row {
    let measured = match d {
        Some(d) => format!(
            "{} / {} (n={})",
            fmt_signed_ms(d.p50_ms),
            fmt_signed_ms(d.p95_ms),
            d.n
        ),
        None => "no samples".into(),
    };
    let (target, verdict) = match (target, d) {
        (Some((limit, text)), Some(d)) if d.p50_ms <= limit => (text, Verdict::Pass),
        (Some((_, text)), _) => (text, Verdict::Fail),
        (None, _) => ("", Verdict::Info),
    };
    Row {
        metric: metric.into(),
        measured,
        target: target.into(),
        verdict,
    }
}

impl ClaudeReport {
    fn mode(&self, mode: Mode) -> Option<&ModeFigures> {
        self.modes.iter().find(|f| f.mode == mode)
    }

    /// The turn targets: the bridge's turn p50 at most the faster of direct and
    /// claude-agent-acp, its "model end -> turn end" at most direct's + 0.5 ms.
    fn turn_targets(&self) -> Vec<Row> {
        let p50 = |mode, pick: fn(&ModeFigures) -> Option<Dist>| {
            self.mode(mode).and_then(pick).map(|d| d.p50_ms)
        };
        let judge = |metric: &str, bridge: Option<f64>, limit: Option<f64>, target: &str| {
            let (measured, verdict) = match (bridge, limit) {
                (Some(b), Some(l)) => (
                    format!("{} (limit {})", fmt_signed_ms(b), fmt_signed_ms(l)),
                    if b <= l { Verdict::Pass } else { Verdict::Fail },
                ),
                _ => ("no samples".into(), Verdict::Fail),
            };
            Row {
                metric: metric.into(),
                measured,
                target: target.into(),
                verdict,
            }
        };
        let fastest = match (p50(Mode::Direct, |f| f.turn), p50(Mode::Acp, |f| f.turn)) {
            (Some(d), Some(a)) => Some(d.min(a)),
            (d, a) => d.or(a),
        };
        let after = |f: &ModeFigures| f.model_end_to_turn_end;
        vec![
            judge(
                "bridge turn p50",
                p50(Mode::Bridge, |f| f.turn),
                fastest,
                "<= faster of direct, ACP",
            ),
            judge(
                "bridge model end -> turn end p50",
                p50(Mode::Bridge, after),
                p50(Mode::Direct, after).map(|d| d + TARGET_AFTER_MODEL_MS),
                "<= direct + 0.5 ms",
            ),
        ]
    }

    pub fn rows(&self) -> Vec<Row> {
        let mut first = dist_row("first open in a bridge (no spare yet)", &None, None);
        first.measured = fmt_ms(self.open_first_warm_bridge_ms);
        let mut spare = dist_row("memory of the spare (guard + CLI)", &None, None);
        spare.measured = fmt_mb(self.spare_rss_bytes as f64);
        let mut rows = self.turn_targets();
        rows.extend([
            dist_row(
                "CLI start -> initialize answered",
                &self.cli_start_to_initialize,
                None,
            ),
            dist_row(
                "CLI start -> first system/init",
                &self.cli_start_to_system_init,
                None,
            ),
            dist_row(
                "CLI start -> answered, in the bridge",
                &self.cli_start_in_bridge,
                None,
            ),
            dist_row("cold open through the bridge", &self.open_cold_bridge, None),
            dist_row(
                "cold open, bridge − direct (paired)",
                &self.open_overhead,
                None,
            ),
            dist_row(
                "bridge's own time in a cold open",
                &self.open_own,
                Some((TARGET_OPEN_OVERHEAD_MS, "p50 <= 5 ms")),
            ),
            first,
            dist_row(
                "warm open (spare ready)",
                &self.open_warm,
                Some((TARGET_WARM_OPEN_MS, "p50 < 50 ms")),
            ),
            spare,
        ]);
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn dist(p50_ms: f64, p95_ms: f64) -> Option<Dist> {
        Some(Dist {
            n: 3,
            p50_ms,
            p95_ms,
            p99_ms: p95_ms,
            max_ms: p95_ms,
        })
    }

    #[test]
    fn differences_keep_their_sign_and_targets_judge_the_median() {
        assert_eq!(fmt_signed_ms(-12.08), "-12.1 ms");
        assert_eq!(fmt_signed_ms(0.5), "0.500 ms");
        let ok = dist_row("warm", &dist(7.6, 60.0), Some((50.0, "p50 < 50 ms")));
        assert_eq!(ok.verdict, Verdict::Pass);
        assert_eq!(ok.measured, "7.60 ms / 60.0 ms (n=3)");
        let missed = dist_row("warm", &dist(51.0, 60.0), Some((50.0, "p50 < 50 ms")));
        assert_eq!(missed.verdict, Verdict::Fail);
        assert_eq!(
            dist_row("none", &None, Some((5.0, "x"))).verdict,
            Verdict::Fail
        );
        assert_eq!(
            dist_row("info", &dist(1.0, 2.0), None).verdict,
            Verdict::Info
        );
    }
}
