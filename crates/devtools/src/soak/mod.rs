//! `agent-bridge-dev soak`: N concurrent sessions x M turns against one provider (or several,
//! one after the other) through agent-bridge's `serve`, the real CLIs talking to the mock model
//! server, with seeded `kill -9`s of the session's CLI mid-turn, interrupts, permissions
//! allowed and denied, and tool turns. It counts what the protocol promises (one prompt result
//! per prompt, an end for every turn, an answer for every request, valid events, no process
//! left behind) and the bridge's memory over the run, prints a table per agent, and exits
//! non-zero on any loss.

mod driver;
mod host;
mod ledger;
mod one;
mod plan;
mod procs;
mod profile;
mod report;
mod session;
mod turns;

use crate::host::locate::bridge_binary;
use crate::plugin;
use clap::Args;
use plan::Rates;
use procs::KillTarget;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Args)]
#[command(after_help = "\
The bridge is the agent-bridge next to this binary (cargo build --release -p agent-bridge), or \
--bridge-bin. Providers with a CLI need the pinned CLIs (tests/clis/install.sh); they talk to \
the mock model server of tests/mock-llm, run inside this process and listening on 127.0.0.1 \
only, each CLI in the hermetic environment of its mock-llm recipe.

Exit status: 0 when nothing was lost (every prompt answered once, every turn ended, every \
request answered, no invalid event, no orphan, no hung turn, a clean bridge exit), 1 otherwise. \
The issue's targets (turns, kill share, recoveries, RSS growth) are reported, not enforced.")]
pub struct SoakArgs {
    /// Provider id of plugin.json (repeatable), or `all` (those whose CLI is installed).
    #[arg(long, default_value = "demo")]
    pub agent: Vec<String>,
    /// Sessions driven at once.
    #[arg(long, default_value_t = 4)]
    pub sessions: usize,
    /// Turns of each session.
    #[arg(long, default_value_t = 250)]
    pub turns: usize,
    /// Seed of the turn plan (kills, interrupts, tool turns, permission answers, delays).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Share of turns whose CLI is killed (`kill -9`) mid-turn; the demo: a `CRASH` prompt.
    #[arg(long, default_value_t = 0.2)]
    pub kill_rate: f64,
    /// Share of turns interrupted while they stream.
    #[arg(long, default_value_t = 0.1)]
    pub interrupt_rate: f64,
    /// Share of the other turns that run a shell command (asking first in the session's mode).
    #[arg(long, default_value_t = 0.3)]
    pub tool_rate: f64,
    /// Share of the permissions that are allowed (the rest are denied).
    #[arg(long, default_value_t = 0.5)]
    pub allow_rate: f64,
    /// Longest delay of a kill or interrupt after its turn began to stream, in ms.
    #[arg(long, default_value_t = 300)]
    pub max_delay_ms: u64,
    /// What a kill hits.
    #[arg(long, value_enum, default_value_t = KillTarget::Cli)]
    pub kill_target: KillTarget,
    /// Seconds a turn (or an open, a close) may take before the soak calls it hung.
    #[arg(long, default_value_t = 120)]
    pub turn_timeout: u64,
    /// The finished turn after which the warm-up RSS is read (default: 200 from 1,000 turns
    /// on, else a tenth of the turns).
    #[arg(long)]
    pub warmup: Option<usize>,
    /// Keep prompting a session whose runtime failed for good instead of opening a
    /// replacement.
    #[arg(long)]
    pub no_reopen: bool,
    /// Give every session the same launch, so that a provider whose agent process serves
    /// several sessions (codex app-server, the ACP agents) runs them all on one process: a
    /// kill then fails every session's running turn, and each must recover in place.
    #[arg(long)]
    pub shared: bool,
    /// A folder holding the CLIs (default: the pinned ones in `.cache/clis`).
    #[arg(long)]
    pub cli_bin: Option<PathBuf>,
    /// The agent-bridge whose `serve` is soaked (default: the one next to this binary).
    #[arg(long)]
    pub bridge_bin: Option<PathBuf>,
    /// Print the results as JSON instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Folder holding plugin.json (default: as `serve` finds it).
    #[arg(long)]
    pub plugin_dir: Option<PathBuf>,
}

impl SoakArgs {
    fn rates(&self) -> Rates {
        Rates {
            kill: self.kill_rate,
            interrupt: self.interrupt_rate,
            tool: self.tool_rate,
            allow: self.allow_rate,
            max_delay_ms: self.max_delay_ms,
        }
    }

    fn warmup(&self) -> usize {
        let total = self.sessions * self.turns;
        self.warmup
            .unwrap_or(if total >= 1000 { 200 } else { total / 10 })
            .clamp(1, total.max(1))
    }
}

pub fn run(args: SoakArgs) -> anyhow::Result<ExitCode> {
    args.rates().check().map_err(anyhow::Error::msg)?;
    if args.sessions == 0 || args.turns == 0 {
        anyhow::bail!("--sessions and --turns must be at least 1");
    }
    if cfg!(debug_assertions) {
        eprintln!("warning: this is a debug build; its memory figures are a debug build's");
    }
    let dir = plugin::plugin_dir(args.plugin_dir.clone());
    let providers = plugin::providers(dir.as_deref())?;
    let bridge = bridge_binary(args.bridge_bin.as_deref())?;
    let all = args.agent.iter().any(|a| a == "all");
    let mut summaries = Vec::new();
    let mut failed = false;
    for entry in &providers {
        let id = &entry.id;
        if !all && !args.agent.contains(id) {
            continue;
        }
        let Some(profile) = profile::profile(id, &entry.agent) else {
            eprintln!("soak: no soak profile for provider `{id}`; skipped");
            failed |= !all;
            continue;
        };
        match one::soak(&args, profile, dir.as_deref(), &bridge, all) {
            Ok(Some(summary)) => {
                failed |= !summary.losses().is_empty();
                if !args.json {
                    summary.print();
                }
                summaries.push(summary);
            }
            Ok(None) => {}
            Err(e) => {
                eprintln!("soak {id}: {e:#}");
                failed = true;
            }
        }
    }
    for name in &args.agent {
        if name != "all" && !providers.iter().any(|p| &p.id == name) {
            eprintln!("soak: plugin.json has no provider `{name}`");
            failed = true;
        }
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summaries)?);
    }
    Ok(if failed || summaries.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
