//! Side-by-side figures of one agent driven three ways (the CLI directly, its ACP adapter,
//! the bridge): the samples each mode collects, their summary, and the comparison table.

use super::stats::{fmt_mb, fmt_ms, Dist};
use super::turn_phases::Phases;
use agent_bridge_core::proc_info::Memory;
use serde::Serialize;

/// Every order of the three modes (indices into [`Mode::ALL`]): cycling through them, each
/// mode follows each other equally often (a turn right after another CLI's pays for that one's
/// leftover work on a small machine).
pub const ORDERS: [[usize; 3]; 6] = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
];

/// A way of driving the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    Direct,
    Acp,
    Bridge,
}

impl Mode {
    pub const ALL: [Mode; 3] = [Mode::Direct, Mode::Acp, Mode::Bridge];

    pub fn label(self) -> &'static str {
        match self {
            Mode::Direct => "direct",
            Mode::Acp => "ACP adapter",
            Mode::Bridge => "bridge",
        }
    }
}

/// Everything measured of one mode, in nanoseconds and bytes.
#[derive(Debug, Clone)]
pub struct ModeSamples {
    pub mode: Mode,
    turn: Vec<i64>,
    to_model: Vec<i64>,
    after_model: Vec<i64>,
    first_output: Vec<i64>,
    idle: Vec<u64>,
    peak: Vec<u64>,
    /// Cold starts: spawn -> ready for a prompt.
    pub ready: Vec<i64>,
}

impl ModeSamples {
    pub fn new(mode: Mode) -> Self {
        ModeSamples {
            mode,
            turn: Vec::new(),
            to_model: Vec::new(),
            after_model: Vec::new(),
            first_output: Vec::new(),
            idle: Vec::new(),
            peak: Vec::new(),
            ready: Vec::new(),
        }
    }

    pub fn push(&mut self, p: &Phases) {
        self.turn.push(p.turn);
        self.to_model.extend(p.to_model);
        self.after_model.extend(p.after_model);
        self.first_output.extend(p.first_output);
    }

    /// The process tree's memory at the end of a round.
    pub fn memory(&mut self, m: Memory) {
        self.idle.push(m.rss);
        self.peak.push(m.peak);
    }

    pub fn figures(&self) -> ModeFigures {
        ModeFigures {
            mode: self.mode,
            turn: Dist::from_nanos(self.turn.clone()),
            prompt_to_model_request: Dist::from_nanos(self.to_model.clone()),
            model_end_to_turn_end: Dist::from_nanos(self.after_model.clone()),
            first_output: Dist::from_nanos(self.first_output.clone()),
            ready: Dist::from_nanos(self.ready.clone()),
            rss_peak_bytes: self.peak.iter().copied().max(),
            rss_idle_bytes: self.idle.iter().copied().max(),
        }
    }
}

/// The summary of one mode.
#[derive(Debug, Clone, Serialize)]
pub struct ModeFigures {
    pub mode: Mode,
    pub turn: Option<Dist>,
    pub prompt_to_model_request: Option<Dist>,
    pub model_end_to_turn_end: Option<Dist>,
    pub first_output: Option<Dist>,
    /// Spawn -> ready for a first prompt (initialize and session start).
    pub ready: Option<Dist>,
    /// Highest, over the rounds, of the tree's summed per-process peaks.
    pub rss_peak_bytes: Option<u64>,
    /// Highest, over the rounds, of the tree's resident memory after its turns.
    pub rss_idle_bytes: Option<u64>,
}

fn p50(d: &Option<Dist>) -> String {
    d.map_or("–".into(), |d| fmt_ms(d.p50_ms))
}

fn p50_p95(d: &Option<Dist>) -> String {
    d.map_or("–".into(), |d| {
        format!("{} / {}", fmt_ms(d.p50_ms), fmt_ms(d.p95_ms))
    })
}

fn mb(b: Option<u64>) -> String {
    b.map_or("–".into(), |b| fmt_mb(b as f64))
}

/// The comparison table: one column per mode, headed by `names` (in [`Mode::ALL`] order).
pub fn format_comparison(names: [&str; 3], figures: &[ModeFigures]) -> String {
    type Cell = fn(&ModeFigures) -> String;
    let rows: [(&str, Cell); 7] = [
        ("spawn -> ready (p50 / p95)", |f| p50_p95(&f.ready)),
        ("turn (p50 / p95)", |f| p50_p95(&f.turn)),
        ("prompt written -> model request", |f| {
            p50(&f.prompt_to_model_request)
        }),
        ("model response end -> turn end", |f| {
            p50(&f.model_end_to_turn_end)
        }),
        ("prompt -> first assistant text", |f| p50(&f.first_output)),
        ("process tree RSS peak", |f| mb(f.rss_peak_bytes)),
        ("process tree RSS idle", |f| mb(f.rss_idle_bytes)),
    ];
    let mut table: Vec<Vec<String>> = vec![std::iter::once(String::new())
        .chain(names.iter().map(|n| n.to_string()))
        .collect()];
    for (metric, cell) in rows {
        let cells = figures.iter().map(cell);
        table.push(std::iter::once(metric.to_string()).chain(cells).collect());
    }
    let widths: Vec<usize> = (0..=names.len())
        .map(|c| {
            table
                .iter()
                .map(|r| r.get(c).map_or(0, |s| s.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in &table {
        let line: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(c, (s, w))| {
                if c == 0 {
                    format!("{s:<w$}")
                } else {
                    format!("{s:>w$}")
                }
            })
            .collect();
        out.push_str(line.join("   ").trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn samples_summarize_and_tabulate_by_mode() {
        let mut s = ModeSamples::new(Mode::Bridge);
        for ms in [30, 40, 50] {
            s.push(&Phases {
                turn: ms * 1_000_000,
                to_model: Some(20_000_000),
                after_model: None,
                first_output: Some(25_000_000),
            });
        }
        s.memory(Memory {
            rss: 300_000_000,
            peak: 400_000_000,
        });
        let f = s.figures();
        assert_eq!(f.turn.map(|d| d.p50_ms), Some(40.0));
        assert_eq!(f.model_end_to_turn_end, None);
        let table = format_comparison(["a", "b", "c"], &[f.clone(), f.clone(), f]);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 8);
        assert!(lines[2].starts_with("turn (p50 / p95)"), "{table}");
        assert!(lines[2].ends_with("40.0 ms / 50.0 ms"), "{table}");
        assert!(lines[4].ends_with("–"), "{table}");
        assert!(lines[6].ends_with("400 MB"), "{table}");
    }
}
