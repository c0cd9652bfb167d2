//! `agent-bridge-dev bench --claude`: the Claude Code section. The real `claude` (the pinned one
//! in `.cache/clis`, hermetic env) talks to the mock model server; the same CLI is driven through
//! the bridge and directly (stream-json over stdio, the bridge's own flags), interleaved, so
//! the difference is what the bridge costs:
//! - a turn (prompt written -> turn end / `result` read), paired bridge − direct;
//! - a cold open (a bridge with spares off: `session.open` -> `session.ready`) against the
//!   CLI's own start to its `initialize` answer (the bridge's open waits for exactly that, plus
//!   `get_settings`); also the CLI's start to its first `system/init`, which it prints only
//!   once a first prompt arrives (written at once here);
//! - the bridge's own share of a cold open: its latency minus the CLI's spawn -> answer that
//!   the provider logs (at debug level, into a file) — the paired difference is too noisy to
//!   resolve a few milliseconds;
//! - a warm open: a matching spare ready (see the provider's `warm` module).

#[path = "claude_locate.rs"]
mod claude_locate;
#[path = "claude_long.rs"]
mod claude_long;
#[path = "claude_report.rs"]
mod claude_report;
#[path = "claude_turns.rs"]
mod claude_turns;

use super::bridge::{Bridge, Tally};
use super::claude_cli::{cli_start_times, DirectCli};
use super::compare::format_comparison;
use super::stats::Dist;
use super::turn_phases::TurnStamps;
use crate::host::locate::{cli_version, package_version};
use crate::host::mock::{Hermetic, MockServer};
use crate::host::proc_tree;
use crate::host::table::{format_table, Verdict};
use crate::plugin;
use agent_bridge_claude::launch::LaunchOptions;
use agent_bridge_core::supervisor::LaunchOverride;
use agent_bridge_protocol::wire::{METHOD_CONNECT, METHOD_INITIALIZE, METHOD_SEND};
use agent_bridge_protocol::{
    HistoryMode, PromptDelivery, PromptInput, ProviderContent, ProviderInput, ProviderPrompt,
    ProviderSessionConfig, TurnState,
};
use anyhow::{anyhow, bail};
use clap::Args;
use claude_locate::locate_claude;
use claude_locate::locate_claude_acp;
use claude_report::{ClaudeReport, NOTES};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Time for a new spare to start and initialize before the next warm open is measured.
const SPARE_SETTLE: Duration = Duration::from_millis(2500);
pub(super) const STEP: Duration = Duration::from_secs(60);
/// Longest wait for a closed session's CLI to exit before the next measurement.
const CLOSE_SETTLE: Duration = Duration::from_secs(5);
pub(super) const PROMPT: &str = "say hi";

#[derive(Debug, Args)]
pub struct ClaudeArgs {
    /// Run the Claude Code section (the real pinned claude against the mock model server)
    /// instead of the demo agent's.
    #[arg(long)]
    pub claude: bool,
    /// Turns through the bridge and directly (interleaved), each.
    #[arg(long, default_value_t = 30)]
    pub claude_turns: usize,
    /// Samples of each open measurement (a CLI start varies by a few hundred ms).
    #[arg(long, default_value_t = 15)]
    pub claude_opens: usize,
    /// Rounds of the turn comparison (each starts all three ways afresh).
    #[arg(long, default_value_t = 3)]
    pub claude_rounds: usize,
    /// Quiet time before each measured turn, in ms (a CLI keeps working after its turn).
    #[arg(long, default_value_t = 300)]
    pub claude_gap_ms: u64,
    /// An argument put before the bridge's own CLI flags (repeatable), to measure what a flag
    /// costs, e.g. `--claude-bridge-arg=-p` (print mode, as the bridge ran before).
    #[arg(long, allow_hyphen_values = true)]
    pub claude_bridge_arg: Vec<String>,
    /// Zed's claude-agent-acp (default: next to the claude executable).
    #[arg(long)]
    pub claude_acp_bin: Option<PathBuf>,
    /// The claude executable (default: the pinned one in `.cache/clis`).
    #[arg(long)]
    pub claude_bin: Option<PathBuf>,
    /// Instead of the other figures: the bridge's memory over one long session, each turn
    /// running a shell tool with a few KB of output.
    #[arg(long, requires = "claude")]
    pub long_session: bool,
    /// Turns of that session (its RSS is read after turn 100 and after the last).
    #[arg(long, default_value_t = 1000)]
    pub long_turns: usize,
}

/// A bridge connected to the Claude provider with the hermetic launch; returns the connection.
pub(super) fn connect(b: &mut Bridge, provider: &str, launch: &Value) -> anyhow::Result<String> {
    let params = json!({ "apiVersion": 1, "host": { "name": "agent-bridge bench", "version": env!("CARGO_PKG_VERSION") } });
    b.call(METHOD_INITIALIZE, params)?;
    let request = json!({ "versions": [1], "capabilities": ["prompt.message", "permission"], "launch": launch });
    let (result, _) = b.call(
        METHOD_CONNECT,
        json!({ "providerId": provider, "request": request }),
    )?;
    result
        .get("connectionId")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| anyhow!("connect returned no connectionId: {result}"))
}

fn send(b: &mut Bridge, connection: &str, input: Value) -> anyhow::Result<Instant> {
    let params = json!({ "connectionId": connection, "input": input });
    let line = b.request_line(METHOD_SEND, params).1;
    let at = Instant::now();
    b.write_lines(&[line])?;
    Ok(at)
}

/// Opens a session (request id = session id) and returns send -> `session.ready`.
fn open(b: &mut Bridge, connection: &str, sid: &str, cwd: &str) -> anyhow::Result<Duration> {
    let config = ProviderSessionConfig {
        cwd: cwd.to_string(),
        ..Default::default()
    };
    open_with(b, connection, sid, config)
}

/// [`open`] with a whole config.
pub(super) fn open_with(
    b: &mut Bridge,
    connection: &str,
    sid: &str,
    config: ProviderSessionConfig,
) -> anyhow::Result<Duration> {
    let input = ProviderInput::SessionOpen {
        request_id: sid.to_string(),
        session_id: sid.to_string(),
        config,
        persistence: None,
        history: HistoryMode::Skip,
    };
    let sent = send(b, connection, serde_json::to_value(input)?)?;
    let (at, result) = b.wait(STEP, "session.ready", |s| s.ready.remove(sid))?;
    result.map_err(|e| anyhow!("session.open failed: {e}"))?;
    Ok(at.saturating_duration_since(sent))
}

fn close(b: &mut Bridge, connection: &str, sid: &str) -> anyhow::Result<()> {
    let input =
        json!({"type": "session.close", "requestId": format!("close-{sid}"), "sessionId": sid});
    send(b, connection, input).map(|_| ())
}

/// One prompt through the bridge: written -> `session.turn` end read, with the first
/// assistant item between.
pub(super) fn prompt_turn(
    b: &mut Bridge,
    connection: &str,
    sid: &str,
    text: &str,
) -> anyhow::Result<TurnStamps> {
    b.state().tallies.insert(sid.to_string(), Tally::new(0));
    let prompt = ProviderPrompt {
        client_message_id: format!("bench-{}", super::bridge::unix_nanos()),
        delivery: PromptDelivery::Auto,
        input: PromptInput::Message {
            content: vec![ProviderContent::text(text)],
        },
        output_schema: None,
        clear_pending_permissions: None,
    };
    let input = ProviderInput::SessionPrompt {
        session_id: sid.to_string(),
        prompt,
    };
    let sent = send(b, connection, serde_json::to_value(input)?)?;
    let (state, end, first_output) = b.wait(STEP, "the turn end", |s| {
        let t = s.tallies.get(sid)?;
        t.end.map(|(state, at)| (state, at, t.first_item))
    })?;
    if state != TurnState::Completed {
        bail!("a bench turn ended {state:?}");
    }
    Ok(TurnStamps {
        sent,
        first_output,
        end,
    })
}

/// Waits (up to [`CLOSE_SETTLE`]) until `pid` has no child process left, so a closing CLI does
/// not compete with the next measurement.
fn wait_no_children(pid: u32) {
    let deadline = Instant::now() + CLOSE_SETTLE;
    while Instant::now() < deadline && proc_tree::has_children(pid) {
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn nanos(d: Duration) -> i64 {
    d.as_nanos() as i64
}

pub fn run(
    args: &ClaudeArgs,
    json_out: bool,
    plugin_dir: Option<PathBuf>,
    bridge: &Path,
) -> anyhow::Result<ExitCode> {
    let release = !cfg!(debug_assertions);
    if !release {
        eprintln!("warning: this is a debug build; build with --release for meaningful numbers");
    }
    let progress = |what: &str| {
        if !json_out {
            eprintln!("bench claude: {what}");
        }
    };
    let dir = plugin::plugin_dir(plugin_dir);
    let provider = plugin::providers(dir.as_deref())?
        .into_iter()
        .find(|p| p.agent == "claude")
        .map(|p| p.id)
        .ok_or_else(|| anyhow!("plugin.json has no provider with agent `claude`"))?;
    let claude = locate_claude(args)?;
    let version = cli_version(&claude);
    if args.long_session {
        let setup = claude_long::Setup {
            bridge,
            plugin_dir: dir.as_deref(),
            provider: &provider,
            claude: &claude,
            version,
        };
        return claude_long::run(args, json_out, setup);
    }
    let mock = MockServer::start()?;
    let herm = Hermetic::for_cli(&mock, "claude", &claude)?;
    let cwd = herm.workdir.display().to_string();
    // The bridge's launch: the hermetic env, plus any `--claude-bridge-arg` before its flags.
    let launch_value = json!({"command": claude.display().to_string(),
        "args": args.claude_bridge_arg, "env": herm.env});
    let launch = LaunchOverride {
        command: Some(claude.display().to_string()),
        args: Vec::new(),
        env: Some(herm.env.clone()),
        ..LaunchOverride::default()
    };
    let config = ProviderSessionConfig {
        cwd: cwd.clone(),
        ..Default::default()
    };
    // The very command line the bridge runs for that config.
    let spec = LaunchOptions::from_config(&config, &herm.env).spec(&launch, &BTreeMap::new(), None);

    progress(&format!(
        "cold opens, bridge (spares off) vs claude {version} direct"
    ));
    let log = herm.root.join("cold-bridge.log");
    let launcher = herm.no_spare_launcher(bridge, Some(&log))?;
    let mut cold = Bridge::spawn(&launcher, dir.as_deref())?;
    let cold_conn = connect(&mut cold, &provider, &launch_value)?;
    let (mut open_bridge, mut to_init, mut to_system) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..args.claude_opens {
        let direct = |to_init: &mut Vec<i64>| -> anyhow::Result<()> {
            let (mut cli, started) = DirectCli::spawn(&spec)?;
            to_init.push(nanos(
                cli.initialize(STEP)?.saturating_duration_since(started),
            ));
            Ok(())
        };
        if i % 2 == 1 {
            direct(&mut to_init)?;
        }
        let sid = format!("cold{i}");
        open_bridge.push(nanos(open(&mut cold, &cold_conn, &sid, &cwd)?));
        close(&mut cold, &cold_conn, &sid)?;
        wait_no_children(cold.pid);
        if i % 2 == 0 {
            direct(&mut to_init)?;
        }
        let (mut cli, started) = DirectCli::spawn(&spec)?;
        cli.send_user(PROMPT)?;
        let init = cli.wait_line(STEP, "system/init", |v| {
            v["type"] == "system" && v["subtype"] == "init"
        })?;
        to_system.push(nanos(init.saturating_duration_since(started)));
        cli.wait_line(STEP, "result", |v| v["type"] == "result")?;
    }
    if let Err(e) = cold.shutdown(Duration::from_secs(10)) {
        eprintln!("warning: {e:#}");
    }
    let open_overhead: Vec<i64> = open_bridge
        .iter()
        .zip(&to_init)
        .map(|(b, d)| b - d)
        .collect();
    let started = cli_start_times(&std::fs::read_to_string(&log).unwrap_or_default());
    let in_bridge: Vec<i64> = started.values().map(|ms| (ms * 1e6) as i64).collect();
    let open_own: Vec<i64> = open_bridge
        .iter()
        .enumerate()
        .filter_map(|(i, b)| {
            let ms = started.get(&format!("cold{i}"))?;
            Some(b - (ms * 1e6) as i64)
        })
        .collect();

    progress("warm opens (a spare ready each time)");
    let mut warm = Bridge::spawn(bridge, dir.as_deref())?;
    let conn = connect(&mut warm, &provider, &launch_value)?;
    let first_open = open(&mut warm, &conn, "warm0", &cwd)?;
    let mut open_warm = Vec::new();
    for i in 1..=args.claude_opens {
        std::thread::sleep(SPARE_SETTLE);
        open_warm.push(nanos(open(&mut warm, &conn, &format!("warm{i}"), &cwd)?));
        close(&mut warm, &conn, &format!("warm{}", i - 1))?;
    }
    // The spare this bridge holds now (started by the last open): its whole tree's memory.
    std::thread::sleep(SPARE_SETTLE);
    let spare = proc_tree::memory(&proc_tree::newest_child_tree(warm.pid));
    if let Err(e) = warm.shutdown(Duration::from_secs(10)) {
        eprintln!("warning: {e:#}");
    }

    let acp_program = locate_claude_acp(args, &claude)?;
    let mut acp_env = herm.env.clone();
    acp_env.insert(
        "CLAUDE_CODE_EXECUTABLE".into(),
        claude.display().to_string(),
    );
    // The direct drive of the turn comparison: `claude -p` stream-json, the documented
    // headless use, with the bridge's other flags (the bridge itself runs without `-p`).
    let mut direct_spec = spec.clone();
    direct_spec.args.insert(0, "-p".into());
    let turn_setup = claude_turns::Setup {
        spec: &direct_spec,
        acp_program,
        acp_env,
        bridge_exe: &herm.no_spare_launcher(bridge, None)?,
        plugin_dir: dir.as_deref(),
        provider: &provider,
        launch: &launch_value,
        cwd: &herm.workdir,
        mock: &mock,
    };
    let samples = claude_turns::run(
        &turn_setup,
        args.claude_rounds,
        args.claude_turns,
        Duration::from_millis(args.claude_gap_ms),
        &progress,
    )?;

    let report = ClaudeReport {
        release_build: release,
        claude_version: version,
        claude_agent_acp_version: package_version(&turn_setup.acp_program),
        modes: samples.iter().map(|s| s.figures()).collect(),
        open_cold_bridge: Dist::from_nanos(open_bridge),
        cli_start_to_initialize: Dist::from_nanos(to_init),
        cli_start_to_system_init: Dist::from_nanos(to_system),
        open_overhead: Dist::from_nanos(open_overhead),
        open_own: Dist::from_nanos(open_own),
        cli_start_in_bridge: Dist::from_nanos(in_bridge),
        open_first_warm_bridge_ms: first_open.as_secs_f64() * 1e3,
        open_warm: Dist::from_nanos(open_warm),
        spare_rss_bytes: spare.rss,
    };
    let rows = report.rows();
    if json_out {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "agent-bridge bench · {} build · {} CPUs · claude {} (mock model) through the bridge vs direct\n",
            if release { "release" } else { "debug" },
            std::thread::available_parallelism().map_or(1, |n| n.get()),
            report.claude_version
        );
        print!(
            "{}",
            format_comparison(
                [
                    "claude direct",
                    &format!("claude-agent-acp {}", report.claude_agent_acp_version),
                    "claude-bridge"
                ],
                &report.modes
            )
        );
        println!();
        print!("{}", format_table(&rows));
        println!("\n{NOTES}");
    }
    let missed = rows.iter().any(|r| r.verdict == Verdict::Fail);
    Ok(if missed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
