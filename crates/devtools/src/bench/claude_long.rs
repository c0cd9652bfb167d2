//! `agent-bridge-dev bench --claude --long-session`: the bridge's memory over one long Claude
//! session. The real pinned claude (mock model, `bypassPermissions`) runs turn after turn;
//! in each the model calls Bash with a few KB of output and answers with that output. The
//! bridge's RSS (`VmRSS` of the `serve` process only, not of its CLIs) is read after turn 100
//! and after the last turn: what the bridge keeps of a session must not grow with its turns.

use super::{connect, open_with, prompt_turn, ClaudeArgs};
use crate::bench::bridge::Bridge;
use crate::bench::phases::SETTLE;
use crate::bench::stats::{fmt_mb, fmt_ms, Dist};
use crate::host::mock::{Hermetic, MockServer};
use crate::host::proc_tree::rss_bytes;
use crate::host::table::{format_table, Row, Verdict};
use agent_bridge_protocol::ProviderSessionConfig;
use anyhow::{anyhow, bail};
use serde::Serialize;
use serde_json::json;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

/// The turn after which the first RSS figure is read.
const MARK: usize = 100;
/// RSS samples are also taken every this many turns (the curve in the JSON report).
const SAMPLE_EVERY: usize = 100;
/// 500 lines of 7 bytes: 3.5 KB of tool output per turn (and as much again in the answer).
const PROMPT: &str = "run `seq 100000 100499`";
const TOOL_OUTPUT_BYTES: usize = 500 * 7;
/// Flat: less growth from turn 100 to the last than one turn's output per 10 turns.
const TARGET_GROWTH_BYTES: f64 = 4.0 * 1024.0 * 1024.0;
const SESSION: &str = "long";

/// What the Claude section found out before choosing this figure.
pub struct Setup<'a> {
    pub bridge: &'a Path,
    pub plugin_dir: Option<&'a Path>,
    pub provider: &'a str,
    pub claude: &'a Path,
    pub version: String,
}

#[derive(Debug, Serialize)]
pub struct LongReport {
    pub release_build: bool,
    pub claude_version: String,
    pub turns: usize,
    pub tool_output_bytes: usize,
    pub rss_after_mark_bytes: u64,
    pub rss_after_last_bytes: u64,
    pub growth_bytes: i64,
    /// (turn, VmRSS) every [`SAMPLE_EVERY`] turns.
    pub rss_samples: Vec<(usize, u64)>,
    pub turn: Option<Dist>,
}

impl LongReport {
    pub fn rows(&self) -> Vec<Row> {
        let info = |metric: String, measured: String| Row {
            metric,
            measured,
            target: String::new(),
            verdict: Verdict::Info,
        };
        let growth = self.growth_bytes as f64;
        let per_turn = growth / (self.turns.saturating_sub(MARK).max(1)) as f64;
        let turn = match &self.turn {
            Some(d) => format!("{} / {}", fmt_ms(d.p50_ms), fmt_ms(d.p95_ms)),
            None => "no samples".into(),
        };
        vec![
            info("turn with a shell tool (p50 / p95)".into(), turn),
            info(
                format!("bridge RSS after turn {MARK}"),
                fmt_mb(self.rss_after_mark_bytes as f64),
            ),
            info(
                format!("bridge RSS after turn {}", self.turns),
                fmt_mb(self.rss_after_last_bytes as f64),
            ),
            Row {
                metric: format!("growth, turn {MARK} -> {}", self.turns),
                measured: format!(
                    "{}{} ({:.0} B/turn)",
                    if growth < 0.0 { "-" } else { "" },
                    fmt_mb(growth.abs()),
                    per_turn
                ),
                target: "< 4 MB (flat)".into(),
                verdict: if growth < TARGET_GROWTH_BYTES {
                    Verdict::Pass
                } else {
                    Verdict::Fail
                },
            },
        ]
    }
}

fn rss_now(b: &Bridge) -> anyhow::Result<u64> {
    std::thread::sleep(SETTLE);
    rss_bytes(b.pid)
        .map(|(rss, _)| rss)
        .ok_or_else(|| anyhow!("cannot read /proc/{}/status", b.pid))
}

pub fn run(args: &ClaudeArgs, json_out: bool, setup: Setup<'_>) -> anyhow::Result<ExitCode> {
    let release = !cfg!(debug_assertions);
    let turns = args.long_turns;
    if turns < MARK {
        bail!("--long-turns must be at least {MARK}");
    }
    let progress = |what: &str| {
        if !json_out {
            eprintln!("bench claude long session: {what}");
        }
    };
    let mock = MockServer::start()?;
    let herm = Hermetic::for_cli(&mock, "claude", setup.claude)?;
    let launch =
        json!({"command": setup.claude.display().to_string(), "args": [], "env": herm.env});
    let mut b = Bridge::spawn(setup.bridge, setup.plugin_dir)?;
    let conn = connect(&mut b, setup.provider, &launch)?;
    let config = ProviderSessionConfig {
        cwd: herm.workdir.display().to_string(),
        mode: Some("bypassPermissions".into()),
        ..Default::default()
    };
    open_with(&mut b, &conn, SESSION, config)?;
    progress(&format!("{turns} turns, each running a shell tool"));
    let (mut times, mut samples) = (Vec::new(), Vec::new());
    let (mut at_mark, mut at_last) = (0, 0);
    for i in 1..=turns {
        let took = prompt_turn(&mut b, &conn, SESSION, PROMPT)?;
        times.push(took.end.saturating_duration_since(took.sent).as_nanos() as i64);
        if i == 1 {
            let replies: Vec<String> = mock.requests()?.into_iter().map(|r| r.reply).collect();
            if !replies.iter().any(|r| r == "tool-call:Bash") {
                bail!("the first turn ran no shell tool (mock replies: {replies:?})");
            }
        }
        mock.clear_log()?;
        if i % SAMPLE_EVERY == 0 || i == MARK || i == turns {
            let rss = rss_now(&b)?;
            samples.push((i, rss));
            progress(&format!("turn {i}: bridge RSS {}", fmt_mb(rss as f64)));
            if i == MARK {
                at_mark = rss;
            }
            if i == turns {
                at_last = rss;
            }
        }
    }
    if let Err(e) = b.shutdown(Duration::from_secs(10)) {
        eprintln!("warning: {e:#}");
    }
    let report = LongReport {
        release_build: release,
        claude_version: setup.version,
        turns,
        tool_output_bytes: TOOL_OUTPUT_BYTES,
        rss_after_mark_bytes: at_mark,
        rss_after_last_bytes: at_last,
        growth_bytes: at_last as i64 - at_mark as i64,
        rss_samples: samples,
        turn: Dist::from_nanos(times),
    };
    let rows = report.rows();
    if json_out {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "agent-bridge bench · {} build · claude {} (mock model) · one session of {turns} turns\n",
            if release { "release" } else { "debug" },
            report.claude_version
        );
        print!("{}", format_table(&rows));
    }
    let missed = rows.iter().any(|r| r.verdict == Verdict::Fail);
    Ok(if missed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
