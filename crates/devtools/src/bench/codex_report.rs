//! The Codex section's results: one column per mode, and the targets for the bridge
//! (see `codex.rs` for how they are measured).

use super::acp_report::p50;
use crate::bench::stats::{fmt_mb, fmt_ms, Dist};
use crate::host::table::{format_table, Row, Verdict};
use serde::Serialize;

/// Targets: a cold open through the bridge within 10 ms of the direct spawn -> thread
/// started, a turn within 1 ms of the direct one (p50s).
pub const TARGET_OPEN_MS: f64 = 10.0;
pub const TARGET_TURN_MS: f64 = 1.0;

/// What one mode measured.
#[derive(Debug, Default, Serialize)]
pub struct ModeReport {
    /// Spawn (or `session.open`) -> session ready.
    pub open: Option<Dist>,
    pub turn: Option<Dist>,
    /// Prompt written -> the model request arrives at the mock.
    pub to_model_request: Option<Dist>,
    /// The mock's response finished -> the turn end read by the host.
    pub model_end_to_turn_end: Option<Dist>,
    /// Prompt written -> the first assistant text read after the model request arrived.
    pub first_output: Option<Dist>,
    pub rss_peak_bytes: u64,
    pub rss_idle_bytes: u64,
}

#[derive(Debug, Serialize)]
pub struct CodexReport {
    pub release_build: bool,
    pub codex_version: String,
    pub codex_acp_version: String,
    pub load_before: String,
    pub load_after: String,
    pub direct: ModeReport,
    pub acp: ModeReport,
    pub bridge: ModeReport,
    /// The second open in a bridge (what the bridge cached from the first).
    pub bridge_repeat_open: Option<Dist>,
    /// Paired bridge − direct per interleaved turn.
    pub turn_overhead: Option<Dist>,
}

fn p50_p95(d: &Option<Dist>) -> String {
    d.map_or_else(
        || "-".into(),
        |d| format!("{} / {}", fmt_ms(d.p50_ms), fmt_ms(d.p95_ms)),
    )
}

fn signed(ms: f64) -> String {
    if ms < 0.0 {
        format!("-{}", fmt_ms(-ms))
    } else {
        fmt_ms(ms)
    }
}

impl CodexReport {
    /// The three-way table: metric | direct | codex-acp | codex-bridge.
    pub fn table(&self) -> String {
        let modes = [&self.direct, &self.acp, &self.bridge];
        let mut rows: Vec<[String; 4]> = vec![[
            String::new(),
            "codex app-server direct".into(),
            "codex-acp".into(),
            "codex-bridge".into(),
        ]];
        let mut row = |name: &str, f: &dyn Fn(&ModeReport) -> String| {
            rows.push([name.into(), f(modes[0]), f(modes[1]), f(modes[2])]);
        };
        row("spawn -> session ready (p50 / p95)", &|m| p50_p95(&m.open));
        row("turn (p50 / p95)", &|m| p50_p95(&m.turn));
        row("prompt written -> model request", &|m| {
            p50(&m.to_model_request)
        });
        row("model response ends -> turn end", &|m| {
            p50(&m.model_end_to_turn_end)
        });
        row(
            "prompt -> first assistant output",
            &|m| p50(&m.first_output),
        );
        row("process tree RSS peak", &|m| {
            fmt_mb(m.rss_peak_bytes as f64)
        });
        row("process tree RSS idle", &|m| {
            fmt_mb(m.rss_idle_bytes as f64)
        });
        let widths: Vec<usize> = (0..4)
            .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
            .collect();
        let mut out = String::new();
        for r in &rows {
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

    /// The targets, judged on p50s.
    pub fn rows(&self) -> Vec<Row> {
        let diff =
            |a: &Option<Dist>, b: &Option<Dist>| Some(a.as_ref()?.p50_ms - b.as_ref()?.p50_ms);
        let judged = |metric: &str, d: Option<f64>, limit: f64, target: &str| Row {
            metric: metric.into(),
            measured: d.map_or_else(|| "no samples".into(), signed),
            target: target.into(),
            verdict: match d {
                Some(d) if d <= limit => Verdict::Pass,
                _ => Verdict::Fail,
            },
        };
        let info = |metric: &str, d: Option<f64>| Row {
            metric: metric.into(),
            measured: d.map_or_else(|| "no samples".into(), signed),
            target: String::new(),
            verdict: Verdict::Info,
        };
        vec![
            judged(
                "cold open, bridge − direct (p50s)",
                diff(&self.bridge.open, &self.direct.open),
                TARGET_OPEN_MS,
                "<= 10 ms",
            ),
            info(
                "second open in a bridge (p50)",
                self.bridge_repeat_open.map(|d| d.p50_ms),
            ),
            judged(
                "turn, bridge − direct (p50s)",
                diff(&self.bridge.turn, &self.direct.turn),
                TARGET_TURN_MS,
                "<= 1 ms",
            ),
            info(
                "turn, bridge − direct (paired, p50)",
                self.turn_overhead.map(|d| d.p50_ms),
            ),
            info(
                "model end -> turn end, bridge − codex-acp (p50s)",
                diff(
                    &self.bridge.model_end_to_turn_end,
                    &self.acp.model_end_to_turn_end,
                ),
            ),
        ]
    }

    pub fn print(&self) {
        println!(
            "agent-bridge bench · {} build · codex {} · codex-acp {} · mock model · load {} (before) / {} (after)\n",
            if self.release_build { "release" } else { "debug" },
            self.codex_version,
            self.codex_acp_version,
            self.load_before,
            self.load_after
        );
        print!("{}", self.table());
        println!();
        print!("{}", format_table(&self.rows()));
        println!(
            "\np50 of turns 2..N of each round, interleaved turn by turn; the mock stamps a request's\n\
             arrival and its response's end (wall clock, same machine)."
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
            p95_ms: p50_ms * 2.0,
            p99_ms: p50_ms * 2.0,
            max_ms: p50_ms * 2.0,
        })
    }

    #[test]
    fn targets_compare_the_bridge_with_the_direct_drive() {
        let mode = |open: f64, turn: f64| ModeReport {
            open: dist(open),
            turn: dist(turn),
            ..ModeReport::default()
        };
        let report = CodexReport {
            release_build: true,
            codex_version: "0.171.0".into(),
            codex_acp_version: "0.16.0".into(),
            load_before: "0.1".into(),
            load_after: "0.2".into(),
            direct: mode(250.0, 60.0),
            acp: mode(160.0, 80.0),
            bridge: mode(262.0, 60.5),
            bridge_repeat_open: None,
            turn_overhead: None,
        };
        let rows = report.rows();
        assert_eq!(rows[0].verdict, Verdict::Fail, "12 ms over the direct open");
        assert_eq!(rows[0].measured, "12.0 ms");
        assert_eq!(
            rows[2].verdict,
            Verdict::Pass,
            "0.5 ms over the direct turn"
        );
        assert_eq!(rows[1].measured, "no samples");
        let table = report.table();
        assert!(table.contains("262.0 ms / 524.0 ms"), "{table}");
        assert_eq!(table.lines().count(), 8);
    }
}
