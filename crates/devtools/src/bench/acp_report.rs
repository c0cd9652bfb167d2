//! The ACP section's results (see `acp.rs` for how they are measured): per agent, the agent
//! driven directly over ACP against the same agent through the bridge, and issue 23's goal:
//! a turn through the bridge within 1.03× the direct one (p50s).

use crate::bench::stats::{fmt_mb, fmt_ms, Dist};
use crate::host::table::{format_table, Row, Verdict};
use serde::Serialize;

/// The goal: bridge turn p50 ≤ 1.03 × direct turn p50.
pub const TARGET_TURN_RATIO: f64 = 1.03;

/// What one side measured.
#[derive(Debug, Default, Serialize)]
pub struct Side {
    /// Spawn (or `session.open` written) -> session ready.
    pub open: Option<Dist>,
    pub turn: Option<Dist>,
    /// Prompt written -> the first model request arrives at the mock.
    pub to_model_request: Option<Dist>,
    /// The mock's last answer of the turn finished -> the turn end read by the host.
    pub model_end_to_turn_end: Option<Dist>,
    pub rss_peak_bytes: u64,
    pub rss_idle_bytes: u64,
}

#[derive(Debug, Serialize)]
pub struct AgentReport {
    pub cli: String,
    pub provider: String,
    pub version: String,
    pub direct: Side,
    pub bridge: Side,
    /// Paired bridge − direct per interleaved turn.
    pub turn_overhead: Option<Dist>,
}

impl AgentReport {
    /// Bridge p50 / direct p50 of a metric.
    fn ratio(&self, f: impl Fn(&Side) -> Option<Dist>) -> Option<f64> {
        let (b, d) = (f(&self.bridge)?, f(&self.direct)?);
        (d.p50_ms > 0.0).then(|| b.p50_ms / d.p50_ms)
    }

    pub fn turn_ratio(&self) -> Option<f64> {
        self.ratio(|s| s.turn)
    }
}

#[derive(Debug, Serialize)]
pub struct AcpReport {
    pub release_build: bool,
    pub bridge: String,
    pub load_before: String,
    pub load_after: String,
    pub agents: Vec<AgentReport>,
}

/// A distribution's p50 as a table cell (`-` when there is none).
pub(super) fn p50(d: &Option<Dist>) -> String {
    d.map_or_else(|| "-".into(), |d| fmt_ms(d.p50_ms))
}

/// A ratio as a table cell (`-` when there is none).
pub(super) fn ratio(r: Option<f64>) -> String {
    r.map_or_else(|| "-".into(), |r| format!("{r:.3}×"))
}

/// Columns padded to their widest cell.
pub(super) fn columns(rows: &[Vec<String>]) -> String {
    let n = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..n)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in rows {
        let cells: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

impl AcpReport {
    /// One line per agent and side: open, turn, prompt -> model request, model end -> turn
    /// end (p50s), tree RSS; the bridge's line with its ratios to the direct one.
    pub fn table(&self) -> String {
        let mut rows = vec![vec![
            "agent".to_string(),
            "side".into(),
            "open p50".into(),
            "turn p50".into(),
            "prompt -> model request".into(),
            "model end -> turn end".into(),
            "tree RSS peak".into(),
            "turn bridge/direct".into(),
            "open bridge/direct".into(),
        ]];
        for a in &self.agents {
            for (name, s) in [("direct ACP", &a.direct), ("bridge", &a.bridge)] {
                let bridge = std::ptr::eq(s, &a.bridge);
                rows.push(vec![
                    format!("{} {}", a.cli, a.version),
                    name.into(),
                    p50(&s.open),
                    p50(&s.turn),
                    p50(&s.to_model_request),
                    p50(&s.model_end_to_turn_end),
                    fmt_mb(s.rss_peak_bytes as f64),
                    if bridge {
                        ratio(a.turn_ratio())
                    } else {
                        String::new()
                    },
                    if bridge {
                        ratio(a.ratio(|s| s.open))
                    } else {
                        String::new()
                    },
                ]);
            }
        }
        columns(&rows)
    }

    /// The goal per agent, judged on the turn p50s, and the paired difference.
    pub fn rows(&self) -> Vec<Row> {
        let mut rows = Vec::new();
        for a in &self.agents {
            let r = a.turn_ratio();
            rows.push(Row {
                metric: format!("{}: turn, bridge / direct (p50s)", a.cli),
                measured: ratio(r),
                target: format!("≤ {TARGET_TURN_RATIO}×"),
                verdict: match r {
                    Some(r) if r <= TARGET_TURN_RATIO => Verdict::Pass,
                    _ => Verdict::Fail,
                },
            });
            rows.push(Row {
                metric: format!("{}: turn, bridge − direct (paired, p50)", a.cli),
                measured: a.turn_overhead.map_or_else(
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
            "agent-bridge bench · ACP agents · {} build · mock model · load {} (before) / {} (after)\n",
            if self.release_build { "release" } else { "debug" },
            self.load_before,
            self.load_after
        );
        print!("{}", self.table());
        println!();
        print!("{}", format_table(&self.rows()));
        println!(
            "\np50 of turns 2..N of each round, interleaved turn by turn (order swapped every turn);\n\
             the mock stamps a request's arrival and its response's end (wall clock, same machine)."
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

    fn agent(cli: &str, direct_turn: f64, bridge_turn: f64) -> AgentReport {
        let side = |turn: f64| Side {
            open: dist(1000.0),
            turn: dist(turn),
            ..Side::default()
        };
        AgentReport {
            cli: cli.into(),
            provider: format!("{cli}-bridge"),
            version: "1.0.0".into(),
            direct: side(direct_turn),
            bridge: side(bridge_turn),
            turn_overhead: dist(bridge_turn - direct_turn),
        }
    }

    #[test]
    fn the_goal_is_the_turn_ratio_per_agent() {
        let report = AcpReport {
            release_build: true,
            bridge: "agent-bridge".into(),
            load_before: "1".into(),
            load_after: "1".into(),
            agents: vec![agent("qwen", 100.0, 102.0), agent("gemini", 100.0, 110.0)],
        };
        let rows = report.rows();
        assert_eq!(rows[0].verdict, Verdict::Pass);
        assert_eq!(rows[0].measured, "1.020×");
        assert_eq!(rows[2].verdict, Verdict::Fail);
        assert_eq!(rows[3].measured, "10.0 ms");
        let table = report.table();
        assert_eq!(table.lines().count(), 5, "{table}");
        assert!(table.contains("1.100×"), "{table}");
    }
}
