//! One agent's soak result: the figures, what counts as a loss (the exit status), and the
//! table beside the targets (reported, never asserted by a test).

use super::ledger::{Counts, Ledger};
use crate::bench::stats::fmt_mb;
use crate::host::table::{format_table, row, Row};
use agent_bridge_protocol::invariants::Tally;
use serde::Serialize;

/// The targets.
pub const TARGET_TURNS: usize = 1000;
pub const TARGET_KILL_SHARE: f64 = 0.2;
pub const TARGET_RSS_GROWTH_PCT: f64 = 5.0;

/// What one soak of one agent found.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Summary {
    pub agent: String,
    /// The CLI driven and its version (none for the demo).
    pub cli: Option<String>,
    pub sessions: usize,
    pub turns_per_session: usize,
    pub seed: u64,
    pub kill_rate: f64,
    pub interrupt_rate: f64,
    pub tally: Tally,
    pub counts: Counts,
    /// The host's own JSON-RPC requests left unanswered (methods).
    pub rpc_unanswered: Vec<String>,
    /// Processes seen under the bridge during the run.
    pub processes_seen: usize,
    /// Of those, the ones still running after the bridge exited (pid and command line).
    pub orphans: Vec<String>,
    /// How the bridge ended: `exited (status)`, or what went wrong.
    pub bridge_exit: String,
    /// The bridge stopped on its own, or had to be killed after shutdown.
    pub bridge_trouble: Option<String>,
    pub rss_start_bytes: u64,
    /// After the warm-up turn (`warmup_turn`).
    pub rss_warmup_bytes: u64,
    pub warmup_turn: usize,
    pub rss_end_bytes: u64,
    pub wall_seconds: f64,
    /// The first problems seen, verbatim.
    pub problems: Vec<String>,
    /// Where the bridge's stderr went.
    pub bridge_log: String,
}

impl Summary {
    /// Copies the ledger's books.
    pub fn book(&mut self, ledger: &Ledger) {
        self.tally = ledger.tally();
        self.counts = ledger.counts.clone();
        self.rpc_unanswered = ledger.rpc_unanswered();
        self.problems = ledger.problems().to_vec();
    }

    /// Events that break the protocol: the checker's violations (not the duplicated results,
    /// counted on their own) and lines that are not the wire's.
    pub fn invalid_events(&self) -> usize {
        self.tally.other_violations() + self.counts.invalid_lines
    }

    pub fn unterminated_turns(&self) -> usize {
        self.tally.turns_unended + self.tally.turns_never_started
    }

    pub fn unanswered_requests(&self) -> usize {
        self.tally.requests_unanswered + self.rpc_unanswered.len()
    }

    /// Every loss; any one makes the command exit non-zero.
    pub fn losses(&self) -> Vec<String> {
        let t = &self.tally;
        let mut out = Vec::new();
        let mut lost = |n: usize, what: &str| {
            if n > 0 {
                out.push(format!("{n} {what}"));
            }
        };
        lost(t.prompts_lost, "prompts without a session.prompt_result");
        lost(t.prompts_duplicated, "prompts with more than one result");
        lost(self.unterminated_turns(), "turns never ended");
        lost(self.unanswered_requests(), "requests never answered");
        lost(self.invalid_events(), "invalid events");
        lost(self.orphans.len(), "orphan processes");
        lost(self.counts.hung, "turns hung past the turn timeout");
        if let Some(trouble) = &self.bridge_trouble {
            out.push(trouble.clone());
        }
        out
    }

    /// RSS growth from the warm-up to the end, in percent.
    pub fn rss_growth_pct(&self) -> Option<f64> {
        (self.rss_warmup_bytes > 0).then(|| {
            (self.rss_end_bytes as f64 - self.rss_warmup_bytes as f64) * 100.0
                / self.rss_warmup_bytes as f64
        })
    }

    fn kill_share(&self) -> f64 {
        self.counts.kills as f64 / self.tally.prompts.max(1) as f64
    }

    pub fn rows(&self) -> Vec<Row> {
        let (t, c) = (&self.tally, &self.counts);
        let zero = |n: usize| Some(n == 0);
        let probes = c.recovered + c.not_recovered;
        let growth = self.rss_growth_pct();
        vec![
            row(
                "prompts sent (admitted)",
                t.prompts.to_string(),
                &format!("> {TARGET_TURNS}"),
                Some(t.prompts > TARGET_TURNS),
            ),
            row(
                "prompts with exactly one prompt_result",
                t.prompts_answered_once.to_string(),
                "all",
                Some(t.prompts_answered_once == t.prompts),
            ),
            row(
                "lost (no prompt_result)",
                t.prompts_lost.to_string(),
                "0",
                zero(t.prompts_lost),
            ),
            row(
                "duplicated (> 1 prompt_result)",
                t.prompts_duplicated.to_string(),
                "0",
                zero(t.prompts_duplicated),
            ),
            row(
                "turns started / never ended",
                format!("{} / {}", t.turns, self.unterminated_turns()),
                "0",
                zero(self.unterminated_turns()),
            ),
            row(
                "requests (requestId) / never answered",
                format!("{} / {}", t.requests, self.unanswered_requests()),
                "0",
                zero(self.unanswered_requests()),
            ),
            row(
                "invalid events",
                self.invalid_events().to_string(),
                "0",
                zero(self.invalid_events()),
            ),
            row(
                "turns: completed / failed / canceled / prompt failed",
                format!(
                    "{} / {} / {} / {}",
                    c.completed, c.failed, c.canceled, c.prompt_failed
                ),
                "",
                None,
            ),
            row(
                "tool turns / permissions allowed / denied",
                format!(
                    "{} / {} / {}",
                    c.tool_turns, c.permissions_allowed, c.permissions_denied
                ),
                "",
                None,
            ),
            row("interrupts sent", c.interrupts_sent.to_string(), "", None),
            row(
                "kills (kill -9 mid-turn) / planned but missed",
                format!(
                    "{} ({:.1} %) / {}",
                    c.kills,
                    self.kill_share() * 100.0,
                    c.kills_missed
                ),
                "20 % of turns",
                Some(self.kill_share() >= TARGET_KILL_SHARE * 0.9),
            ),
            row(
                "sessions recovered after a kill (next prompt completed)",
                format!("{} / {probes}", c.recovered),
                "all",
                Some(c.not_recovered == 0),
            ),
            row(
                "session.runtime_failed / restart notices (of which in a new conversation)",
                format!(
                    "{} / {} ({})",
                    c.runtime_failed, c.restart_notices, c.conversations_lost
                ),
                "",
                None,
            ),
            row(
                "failed turns, neither killed nor after a kill",
                c.unexpected_failures.to_string(),
                "",
                None,
            ),
            row(
                "opens / failed / reopened after runtime_failed / turns not run",
                format!(
                    "{} / {} / {} / {}",
                    c.opens, c.opens_failed, c.reopens, c.turns_not_run
                ),
                "",
                None,
            ),
            row(
                "inputs refused at admission",
                c.refused.to_string(),
                "",
                None,
            ),
            row(
                "turns hung (no end within the timeout)",
                c.hung.to_string(),
                "0",
                zero(c.hung),
            ),
            row(
                "orphan processes after the bridge exited",
                format!("{} of {} seen", self.orphans.len(), self.processes_seen),
                "0",
                zero(self.orphans.len()),
            ),
            row(
                &format!("bridge RSS start / turn {} / end", self.warmup_turn),
                format!(
                    "{} / {} / {}",
                    fmt_mb(self.rss_start_bytes as f64),
                    fmt_mb(self.rss_warmup_bytes as f64),
                    fmt_mb(self.rss_end_bytes as f64)
                ),
                "",
                None,
            ),
            row(
                &format!("RSS growth turn {} -> end", self.warmup_turn),
                growth.map_or("unknown".into(), |g| format!("{g:+.1} %")),
                &format!("< {TARGET_RSS_GROWTH_PCT} %"),
                growth.map(|g| g < TARGET_RSS_GROWTH_PCT),
            ),
            row("bridge exit", self.bridge_exit.clone(), "", None),
            row("wall time", format!("{:.1} s", self.wall_seconds), "", None),
        ]
    }

    /// The table with a heading and what went wrong.
    pub fn print(&self) {
        println!(
            "\nagent-bridge soak · {}{} · {} sessions x {} turns · seed {} · kill rate {} · interrupt rate {}\n",
            self.agent,
            self.cli.as_deref().map(|c| format!(" ({c})")).unwrap_or_default(),
            self.sessions,
            self.turns_per_session,
            self.seed,
            self.kill_rate,
            self.interrupt_rate
        );
        print!("{}", format_table(&self.rows()));
        let losses = self.losses();
        if losses.is_empty() {
            println!("\nno loss");
        } else {
            println!("\nLOSS: {}", losses.join("; "));
        }
        for p in &self.problems {
            println!("  problem: {p}");
        }
        for o in &self.orphans {
            println!("  orphan: {o}");
        }
        println!("bridge log: {}", self.bridge_log);
    }
}
