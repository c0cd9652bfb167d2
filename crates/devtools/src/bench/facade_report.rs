//! The facade section's results (see `facade.rs` for how they are measured): per CLI, its ACP
//! adapter against the bridge's ACP agent, side by side, and issue 34's goal: a turn p50 at most
//! 0.95× the adapter's, and the bridge process's RSS at most ¼ of the adapter's.

use super::acp_report::{columns, p50, ratio};
use crate::bench::stats::{fmt_mb, fmt_ms, Dist};
use crate::host::table::{format_table, Row, Verdict};
use serde::Serialize;

/// Bridge turn p50 ≤ 0.95 × the adapter's.
pub const TARGET_TURN_RATIO: f64 = 0.95;
/// Bridge process RSS ≤ ¼ of the adapter's.
pub const TARGET_RSS_RATIO: f64 = 0.25;

#[derive(Debug, Default, Serialize)]
pub struct Side {
    /// Spawn -> session/new answered.
    pub open: Option<Dist>,
    pub turn: Option<Dist>,
    /// Prompt written -> the first model request arrives at the mock.
    pub to_model_request: Option<Dist>,
    /// The mock's last answer of the turn finished -> the prompt's answer read.
    pub model_end_to_turn_end: Option<Dist>,
    /// The adapter's own processes (its tree without the CLI's subtree).
    pub adapter_rss_peak_bytes: u64,
    pub adapter_rss_idle_bytes: u64,
    pub tree_rss_peak_bytes: u64,
    pub tree_rss_idle_bytes: u64,
}

#[derive(Debug, Serialize)]
pub struct PairReport {
    /// The CLI and its version.
    pub cli: String,
    /// The adapter and its version.
    pub adapter: String,
    pub provider: String,
    pub adapter_side: Side,
    pub bridge_side: Side,
    /// Paired bridge − adapter per interleaved turn.
    pub turn_overhead: Option<Dist>,
}

impl PairReport {
    pub fn turn_ratio(&self) -> Option<f64> {
        let (b, a) = (self.bridge_side.turn?, self.adapter_side.turn?);
        (a.p50_ms > 0.0).then(|| b.p50_ms / a.p50_ms)
    }

    pub fn rss_ratio(&self) -> Option<f64> {
        let a = self.adapter_side.adapter_rss_peak_bytes;
        (a > 0).then(|| self.bridge_side.adapter_rss_peak_bytes as f64 / a as f64)
    }
}

#[derive(Debug, Serialize)]
pub struct FacadeReport {
    pub release_build: bool,
    pub bridge: String,
    pub load_before: String,
    pub load_after: String,
    pub pairs: Vec<PairReport>,
}

impl FacadeReport {
    /// One line per CLI and side.
    pub fn table(&self) -> String {
        let mut rows = vec![[
            "CLI",
            "ACP agent",
            "open p50",
            "turn p50",
            "prompt -> model request",
            "model end -> turn end",
            "adapter RSS peak / idle",
            "tree RSS peak / idle",
        ]
        .map(String::from)
        .to_vec()];
        for p in &self.pairs {
            for (name, s) in [
                (p.adapter.clone(), &p.adapter_side),
                (
                    format!("agent-bridge acp --provider {}", p.provider),
                    &p.bridge_side,
                ),
            ] {
                rows.push(vec![
                    p.cli.clone(),
                    name,
                    p50(&s.open),
                    p50(&s.turn),
                    p50(&s.to_model_request),
                    p50(&s.model_end_to_turn_end),
                    format!(
                        "{} / {}",
                        fmt_mb(s.adapter_rss_peak_bytes as f64),
                        fmt_mb(s.adapter_rss_idle_bytes as f64)
                    ),
                    format!(
                        "{} / {}",
                        fmt_mb(s.tree_rss_peak_bytes as f64),
                        fmt_mb(s.tree_rss_idle_bytes as f64)
                    ),
                ]);
            }
        }
        columns(&rows)
    }

    /// The two goals per CLI, and the paired turn difference.
    pub fn rows(&self) -> Vec<Row> {
        let mut rows = Vec::new();
        for p in &self.pairs {
            let judge = |r: Option<f64>, max: f64| match r {
                Some(r) if r <= max => Verdict::Pass,
                _ => Verdict::Fail,
            };
            rows.push(Row {
                metric: format!("{}: turn p50, bridge / {}", p.cli, p.adapter),
                measured: ratio(p.turn_ratio()),
                target: format!("≤ {TARGET_TURN_RATIO}×"),
                verdict: judge(p.turn_ratio(), TARGET_TURN_RATIO),
            });
            rows.push(Row {
                metric: format!("{}: adapter RSS peak, bridge / {}", p.cli, p.adapter),
                measured: ratio(p.rss_ratio()),
                target: format!("≤ {TARGET_RSS_RATIO}×"),
                verdict: judge(p.rss_ratio(), TARGET_RSS_RATIO),
            });
            rows.push(Row {
                metric: format!("{}: turn, bridge − adapter (paired, p50)", p.cli),
                measured: p.turn_overhead.map_or_else(
                    || "no samples".into(),
                    |d| {
                        if d.p50_ms < 0.0 {
                            format!("-{}", fmt_ms(-d.p50_ms))
                        } else {
                            fmt_ms(d.p50_ms)
                        }
                    },
                ),
                target: String::new(),
                verdict: Verdict::Info,
            });
        }
        rows
    }

    pub fn print(&self) {
        println!(
            "agent-bridge bench · bridge as an ACP agent vs the ACP adapters · {} build · mock model · load {} (before) / {} (after)\n",
            if self.release_build { "release" } else { "debug" },
            self.load_before,
            self.load_after
        );
        print!("{}", self.table());
        println!();
        print!("{}", format_table(&self.rows()));
        println!(
            "\nBoth sides driven by the same ACP client; p50 of turns 2..N of each round, interleaved\n\
             turn by turn (order swapped every turn). Adapter RSS: the ACP agent's own processes (its\n\
             tree without the CLI's subtree; codex-acp links codex's engine in, so its adapter is its\n\
             whole tree). Claude spares off in the bridge, so both trees hold one CLI."
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn dist(p50_ms: f64) -> Option<Dist> {
        Some(Dist {
            n: 3,
            p50_ms,
            p95_ms: p50_ms,
            p99_ms: p50_ms,
            max_ms: p50_ms,
        })
    }

    fn side(turn: f64, rss: u64) -> Side {
        Side {
            turn: dist(turn),
            adapter_rss_peak_bytes: rss,
            ..Side::default()
        }
    }

    #[test]
    fn the_goals_are_the_turn_and_rss_ratios() {
        let report = FacadeReport {
            release_build: true,
            bridge: "agent-bridge".into(),
            load_before: "1".into(),
            load_after: "1".into(),
            pairs: vec![PairReport {
                cli: "claude 2".into(),
                adapter: "claude-agent-acp 1".into(),
                provider: "claude-bridge".into(),
                adapter_side: side(100.0, 80 << 20),
                bridge_side: side(90.0, 30 << 20),
                turn_overhead: dist(-10.0),
            }],
        };
        let rows = report.rows();
        assert_eq!(
            (rows[0].measured.as_str(), rows[0].verdict),
            ("0.900×", Verdict::Pass)
        );
        assert_eq!(
            (rows[1].measured.as_str(), rows[1].verdict),
            ("0.375×", Verdict::Fail)
        );
        assert_eq!(rows[2].measured, "-10.0 ms");
        assert_eq!(report.table().lines().count(), 3);
    }
}
