//! The Claude turn comparison: the same pinned `claude` binary driven three ways, interleaved
//! turn by turn against the same mock model server —
//! - **direct**: `claude -p` stream-json over its stdio (the documented headless drive), with
//!   the bridge's other flags;
//! - **claude-agent-acp**: Zed's ACP adapter (from `tests/clis`) pointed at that binary with
//!   `CLAUDE_CODE_EXECUTABLE`, driven as an editor drives it;
//! - **bridge**: `claude-bridge` through agent-bridge's `serve` (spares off: one CLI per
//!   session, like the others).
//!
//! Each round starts all three afresh, discards its first turn, then runs `turns` turns of
//! each, cycling through every order of the three, with a quiet gap before each turn. Every turn is split with the mock's timestamps (see `turn_phases`).

use super::{connect, open_with, prompt_turn, PROMPT, STEP};
use crate::bench::acp_drive::Acp;
use crate::bench::bridge::Bridge;
use crate::bench::claude_cli::DirectCli;
use crate::bench::compare::{Mode, ModeSamples, ORDERS};
use crate::bench::turn_phases::{anthropic_generation, phases, Clock, Phases, TurnStamps};
use crate::host::mock::MockServer;
use crate::host::proc_tree;
use agent_bridge_core::supervisor::SpawnSpec;
use agent_bridge_protocol::ProviderSessionConfig;
use anyhow::Context;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Quiet time after a round's last turn before its idle memory is read.
const IDLE_SETTLE: Duration = Duration::from_millis(1000);

/// How each mode is started.
pub struct Setup<'a> {
    /// The direct drive's command line (the bridge's own for this config).
    pub spec: &'a SpawnSpec,
    /// claude-agent-acp's entry script.
    pub acp_program: PathBuf,
    /// Its environment: the hermetic one plus `CLAUDE_CODE_EXECUTABLE`.
    pub acp_env: BTreeMap<String, String>,
    /// A launcher of the agent-bridge under test with spares off.
    pub bridge_exe: &'a Path,
    pub plugin_dir: Option<&'a Path>,
    pub provider: &'a str,
    pub launch: &'a Value,
    pub cwd: &'a Path,
    pub mock: &'a MockServer,
}

/// One round's three live sessions.
struct Round {
    direct: DirectCli,
    acp: Acp,
    bridge: Bridge,
    conn: String,
    sid: String,
}

impl Round {
    /// Starts the three; returns them and each one's spawn (or open) -> ready, in ns.
    fn start(setup: &Setup, round: usize) -> anyhow::Result<(Round, [i64; 3])> {
        let ns = |d: Duration| d.as_nanos() as i64;
        let (mut direct, spawned) = DirectCli::spawn(setup.spec)?;
        let direct_ready = direct.initialize(STEP).context("the direct claude")?;
        let acp_spec = SpawnSpec {
            program: setup.acp_program.display().to_string(),
            args: Vec::new(),
            cwd: Some(setup.cwd.to_path_buf()),
            base_env: Some(setup.acp_env.clone()),
            env: BTreeMap::new(),
            env_remove: Vec::new(),
            private_dirs: Vec::new(),
        };
        let (cli, acp_spawned) = Acp::spawn(&acp_spec, "claude-agent-acp")?;
        let (acp, acp_ready) = Acp::open(cli, acp_spawned, &setup.cwd.display().to_string())?;
        let mut bridge = Bridge::spawn(setup.bridge_exe, setup.plugin_dir)?;
        let conn = connect(&mut bridge, setup.provider, setup.launch)?;
        let sid = format!("turns{round}");
        let config = ProviderSessionConfig {
            cwd: setup.cwd.display().to_string(),
            ..Default::default()
        };
        let opened = open_with(&mut bridge, &conn, &sid, config)?;
        let ready = [
            ns(direct_ready.saturating_duration_since(spawned)),
            ns(acp_ready),
            ns(opened),
        ];
        let round = Round {
            direct,
            acp,
            bridge,
            conn,
            sid,
        };
        Ok((round, ready))
    }

    fn turn(&mut self, mode: Mode) -> anyhow::Result<TurnStamps> {
        match mode {
            Mode::Direct => self.direct.turn(PROMPT, STEP),
            Mode::Acp => self.acp.turn().map(|t| TurnStamps {
                sent: t.sent,
                first_output: t.outputs.first().copied(),
                end: t.end,
            }),
            Mode::Bridge => prompt_turn(&mut self.bridge, &self.conn, &self.sid, PROMPT),
        }
    }

    fn root_pid(&self, mode: Mode) -> u32 {
        match mode {
            Mode::Direct => self.direct.pid(),
            Mode::Acp => self.acp.cli.pid,
            Mode::Bridge => self.bridge.pid,
        }
    }
}

/// One turn of `mode`, split with the mock's log of it.
fn measured_turn(round: &mut Round, mode: Mode, mock: &MockServer) -> anyhow::Result<Phases> {
    mock.clear_log()?;
    let clock = Clock::now();
    let stamps = round
        .turn(mode)
        .with_context(|| format!("a {} turn", mode.label()))?;
    let log = mock.requests()?;
    Ok(phases(&clock, &stamps, &log, anthropic_generation))
}

/// Runs `rounds` × `turns` turns of each mode; returns their samples by mode.
pub fn run(
    setup: &Setup,
    rounds: usize,
    turns: usize,
    gap: Duration,
    progress: &dyn Fn(&str),
) -> anyhow::Result<Vec<ModeSamples>> {
    let mut samples: Vec<ModeSamples> = Mode::ALL.iter().map(|m| ModeSamples::new(*m)).collect();
    for r in 0..rounds {
        progress(&format!(
            "turns, round {}/{rounds}: direct, claude-agent-acp, bridge interleaved",
            r + 1
        ));
        let (mut round, ready) = Round::start(setup, r)?;
        for (at, ns) in ready.into_iter().enumerate() {
            samples[at].ready.push(ns);
        }
        // Turn 1 of each is not measured (first-request caches, lazy loading).
        for mode in Mode::ALL {
            round.turn(mode)?;
        }
        for i in 0..turns {
            for at in ORDERS[i % ORDERS.len()] {
                // Each CLI keeps working for a while after its turn (transcript writes,
                // timers): let that finish before the next one is measured.
                std::thread::sleep(gap);
                let p = measured_turn(&mut round, Mode::ALL[at], setup.mock)?;
                samples[at].push(&p);
            }
        }
        std::thread::sleep(IDLE_SETTLE);
        for (at, mode) in Mode::ALL.iter().enumerate() {
            let mem = proc_tree::memory(&proc_tree::tree(round.root_pid(*mode)));
            samples[at].memory(mem);
        }
    }
    Ok(samples)
}
