//! `agent-bridge-dev bench --codex`: the Codex section, three ways in one run against the
//! mock model server (OpenAI Responses), the same pinned codex binary, model and hermetic
//! config (full-access, never ask), a "say hi" turn:
//! - `codex app-server` driven directly (JSON-RPC lines: initialize, thread/start, turn/start);
//! - codex-acp (ACP: initialize, session/new, session/prompt);
//! - `codex-bridge` through a bridge's `serve` (the agent-bridge next to this binary, or
//!   `--bridge-bin`: an older build for a before/after comparison from the same bench code).
//!
//! Opens are sampled first (a fresh bridge process for each cold open, then a second open in
//! it), then rounds of turns interleaved turn by turn, cycling through every order of the three with
//! a quiet gap before each turn. The mock stamps each
//! request's arrival and its response's end with the wall clock; the host stamps the prompt
//! write, the first assistant text and the turn end it reads, so each turn splits into prompt
//! -> model request, the model's own time, and model end -> turn end.

use super::acp_drive::Acp;
use super::bridge::Bridge;
use super::claude::connect;
use super::codex_modes::{bridge_close, bridge_open, bridge_turn, Direct, TurnTimes};
use super::codex_report::{CodexReport, ModeReport};
use super::compare::ORDERS;
use super::stats::Dist;
use super::turn_phases::Clock;
use crate::host::locate::{cli_version, package_version, pinned_cli};
use crate::host::mock::{Hermetic, MockServer};
use crate::host::proc_tree::{tree_rss, PeakSampler};
use crate::host::table::Verdict;
use crate::plugin;
use agent_bridge_core::supervisor::LaunchOverride;
use anyhow::{anyhow, bail};
use clap::Args;
use mock_llm::{Family, RecordedRequest};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Lets closed processes go and memory settle before the idle RSS is read.
const SETTLE: Duration = Duration::from_millis(1500);
/// Quiet time before each measured turn.
const TURN_GAP: Duration = Duration::from_millis(300);

#[derive(Debug, Args)]
pub struct CodexArgs {
    /// Run the Codex section: `codex app-server` directly, codex-acp and codex-bridge against
    /// the mock model server, interleaved.
    #[arg(long, conflicts_with = "claude")]
    pub codex: bool,
    /// Turns of each mode per round (the first of each round is not counted).
    #[arg(long, default_value_t = 30)]
    pub codex_turns: usize,
    /// Rounds of turns, each on fresh sessions.
    #[arg(long, default_value_t = 3)]
    pub codex_rounds: usize,
    /// Cold opens of each mode.
    #[arg(long, default_value_t = 8)]
    pub codex_opens: usize,
    /// The codex executable (default: the pinned one in `.cache/clis`).
    #[arg(long)]
    pub codex_bin: Option<PathBuf>,
    /// The codex-acp executable (default: the pinned one in `.cache/clis`).
    #[arg(long)]
    pub codex_acp_bin: Option<PathBuf>,
}

/// Samples of one mode.
#[derive(Default)]
struct Samples {
    open: Vec<i64>,
    turn: Vec<i64>,
    to_request: Vec<i64>,
    model_to_end: Vec<i64>,
    first_output: Vec<i64>,
    rss_peak: u64,
    rss_idle: u64,
}

impl Samples {
    fn report(self) -> ModeReport {
        ModeReport {
            open: Dist::from_nanos(self.open),
            turn: Dist::from_nanos(self.turn),
            to_model_request: Dist::from_nanos(self.to_request),
            model_end_to_turn_end: Dist::from_nanos(self.model_to_end),
            first_output: Dist::from_nanos(self.first_output),
            rss_peak_bytes: self.rss_peak,
            rss_idle_bytes: self.rss_idle,
        }
    }
}

/// The model requests of one turn from the mock's log: the first arrival and the last end
/// (µs since the epoch).
fn model_span(log: &[RecordedRequest]) -> Option<(i64, i64)> {
    let calls: Vec<&RecordedRequest> = log
        .iter()
        .filter(|r| r.family == Family::OpenaiResponses)
        .collect();
    let first = calls.iter().map(|r| r.at_unix_us).min()?;
    let last = calls
        .iter()
        .map(|r| r.done_unix_us)
        .collect::<Option<Vec<_>>>()?
        .into_iter()
        .max()?;
    Some((i64::try_from(first).ok()?, i64::try_from(last).ok()?))
}

fn record(
    s: &mut Samples,
    t: &TurnTimes,
    mock: &MockServer,
    clock: &Clock,
    counted: bool,
) -> anyhow::Result<()> {
    let log = mock.requests()?;
    mock.clear_log()?;
    let (request, done) =
        model_span(&log).ok_or_else(|| anyhow!("the turn made no complete model request"))?;
    if !counted {
        return Ok(());
    }
    let ns = |d: Duration| d.as_nanos() as i64;
    s.turn.push(ns(t.end.saturating_duration_since(t.sent)));
    s.to_request.push((request - clock.unix_us(t.sent)) * 1000);
    s.model_to_end.push((clock.unix_us(t.end) - done) * 1000);
    let first = t.outputs.iter().find(|at| clock.unix_us(**at) >= request);
    if let Some(first) = first {
        s.first_output
            .push(ns(first.saturating_duration_since(t.sent)));
    }
    Ok(())
}

pub(super) fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".into())
}

struct Setup {
    plugin_dir: Option<PathBuf>,
    provider: String,
    bridge_exe: PathBuf,
    launch: Value,
    direct: agent_bridge_core::supervisor::SpawnSpec,
    acp: agent_bridge_core::supervisor::SpawnSpec,
    cwd: String,
}

impl Setup {
    fn bridge(&self) -> anyhow::Result<(Bridge, String)> {
        let mut b = Bridge::spawn(&self.bridge_exe, self.plugin_dir.as_deref())?;
        let conn = connect(&mut b, &self.provider, &self.launch)?;
        Ok((b, conn))
    }
}

fn opens(
    setup: &Setup,
    n: usize,
    s: &mut [Samples; 3],
    repeat: &mut Vec<i64>,
) -> anyhow::Result<()> {
    let ns = |d: Duration| d.as_nanos() as i64;
    for i in 0..n {
        for k in 0..3 {
            match (i + k) % 3 {
                0 => {
                    let (cli, started) = Direct::spawn(&setup.direct)?;
                    let (_, d) = Direct::open(cli, started, &setup.cwd)?;
                    s[0].open.push(ns(d));
                }
                1 => {
                    let (cli, started) = Acp::spawn(&setup.acp, "codex-acp")?;
                    let (_, d) = Acp::open(cli, started, &setup.cwd)?;
                    s[1].open.push(ns(d));
                }
                _ => {
                    let (mut b, conn) = setup.bridge()?;
                    s[2].open
                        .push(ns(bridge_open(&mut b, &conn, "open-a", &setup.cwd)?));
                    repeat.push(ns(bridge_open(&mut b, &conn, "open-b", &setup.cwd)?));
                    if let Err(e) = b.shutdown(Duration::from_secs(10)) {
                        eprintln!("warning: {e:#}");
                    }
                }
            }
        }
    }
    Ok(())
}

/// One round: a fresh session of each mode, `turns` turns each, interleaved.
fn round(
    setup: &Setup,
    r: usize,
    turns: usize,
    mock: &MockServer,
    s: &mut [Samples; 3],
    paired: &mut Vec<i64>,
) -> anyhow::Result<()> {
    let clock = Clock::now();
    let (mut b, conn) = setup.bridge()?;
    let bridge_rss = PeakSampler::tree(b.pid)?;
    let sid = format!("round{r}");
    bridge_open(&mut b, &conn, &sid, &setup.cwd)?;
    let (cli, started) = Direct::spawn(&setup.direct)?;
    let direct_rss = PeakSampler::tree(cli.pid)?;
    let (mut direct, _) = Direct::open(cli, started, &setup.cwd)?;
    let (cli, started) = Acp::spawn(&setup.acp, "codex-acp")?;
    let acp_rss = PeakSampler::tree(cli.pid)?;
    let (mut acp, _) = Acp::open(cli, started, &setup.cwd)?;
    mock.clear_log()?;
    for t in 0..turns {
        let counted = t > 0;
        let (mut direct_ns, mut bridge_ns) = (0, 0);
        for mode in ORDERS[t % ORDERS.len()] {
            // A CLI keeps working for a while after its turn: let that pass first.
            std::thread::sleep(TURN_GAP);
            match mode {
                0 => {
                    let times = direct.turn()?;
                    direct_ns = times.end.saturating_duration_since(times.sent).as_nanos() as i64;
                    record(&mut s[0], &times, mock, &clock, counted)?;
                }
                1 => {
                    let times = acp.turn()?;
                    record(&mut s[1], &times, mock, &clock, counted)?;
                }
                _ => {
                    let times = bridge_turn(&mut b, &conn, &sid)?;
                    bridge_ns = times.end.saturating_duration_since(times.sent).as_nanos() as i64;
                    record(&mut s[2], &times, mock, &clock, counted)?;
                }
            }
        }
        if counted {
            paired.push(bridge_ns - direct_ns);
        }
    }
    std::thread::sleep(SETTLE);
    let idle = [
        tree_rss(direct.cli.pid),
        tree_rss(acp.cli.pid),
        tree_rss(b.pid),
    ];
    let peaks = [direct_rss.finish(), acp_rss.finish(), bridge_rss.finish()];
    for k in 0..3 {
        s[k].rss_peak = s[k].rss_peak.max(peaks[k]);
        s[k].rss_idle = s[k].rss_idle.max(idle[k]);
    }
    drop(direct);
    drop(acp);
    bridge_close(&mut b, &conn, &sid)?;
    if let Err(e) = b.shutdown(Duration::from_secs(10)) {
        eprintln!("warning: {e:#}");
    }
    Ok(())
}

pub fn run(
    args: &CodexArgs,
    json_out: bool,
    plugin_dir: Option<PathBuf>,
    bridge: PathBuf,
) -> anyhow::Result<ExitCode> {
    let release = !cfg!(debug_assertions);
    if !release {
        eprintln!("warning: this is a debug build; build with --release for meaningful numbers");
    }
    if args.codex_turns < 2 {
        bail!("--codex-turns must be at least 2 (the first turn of a round is not counted)");
    }
    let progress = |what: &str| {
        if !json_out {
            eprintln!("bench codex: {what}");
        }
    };
    let dir = plugin::plugin_dir(plugin_dir);
    let provider = plugin::providers(dir.as_deref())?
        .into_iter()
        .find(|p| p.agent == "codex")
        .map(|p| p.id)
        .ok_or_else(|| anyhow!("plugin.json has no provider with agent `codex`"))?;
    let codex = match &args.codex_bin {
        Some(p) => p.clone(),
        None => pinned_cli("codex")?,
    };
    let codex_acp = match &args.codex_acp_bin {
        Some(p) => p.clone(),
        None => pinned_cli("codex-acp")?,
    };
    let mock = MockServer::start()?;
    let herm = Hermetic::for_cli(&mock, "codex", &codex)?;
    let herm_acp = Hermetic::for_cli(&mock, "codex-acp", &codex_acp)?;
    let cwd = herm.workdir.display().to_string();
    let launch = LaunchOverride {
        command: Some(codex.display().to_string()),
        env: Some(herm.env.clone()),
        ..LaunchOverride::default()
    };
    let acp_launch = LaunchOverride {
        command: Some(codex_acp.display().to_string()),
        env: Some(herm_acp.env.clone()),
        ..LaunchOverride::default()
    };
    let setup = Setup {
        plugin_dir: dir,
        provider,
        bridge_exe: bridge,
        launch: json!({"command": codex.display().to_string(), "args": [], "env": herm.env}),
        // The very command line the bridge runs.
        direct: agent_bridge_codex::launch::app_server_spec(&launch, Some(&cwd), &BTreeMap::new()),
        acp: acp_launch.spec("codex-acp", Vec::new()).cwd(&cwd),
        cwd: cwd.clone(),
    };
    let load_before = load_average();
    let mut samples: [Samples; 3] = Default::default();
    let (mut repeat, mut paired) = (Vec::new(), Vec::new());
    progress(&format!("{} cold opens of each mode", args.codex_opens));
    opens(&setup, args.codex_opens, &mut samples, &mut repeat)?;
    for r in 0..args.codex_rounds {
        progress(&format!(
            "round {}/{}: {} turns of each mode, interleaved",
            r + 1,
            args.codex_rounds,
            args.codex_turns
        ));
        round(
            &setup,
            r,
            args.codex_turns,
            &mock,
            &mut samples,
            &mut paired,
        )?;
    }
    let [direct, acp, bridge] = samples;
    let report = CodexReport {
        release_build: release,
        codex_version: cli_version(&codex),
        codex_acp_version: package_version(&codex_acp),
        load_before,
        load_after: load_average(),
        direct: direct.report(),
        acp: acp.report(),
        bridge: bridge.report(),
        bridge_repeat_open: Dist::from_nanos(repeat),
        turn_overhead: Dist::from_nanos(paired),
    };
    if json_out {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        report.print();
    }
    let missed = report.rows().iter().any(|r| r.verdict == Verdict::Fail);
    Ok(if missed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    use crate::host::mock::recorded;

    fn request(family: Family, at: u64, done: Option<u64>) -> RecordedRequest {
        recorded(family, "/v1/responses", at, done)
    }

    #[test]
    fn a_turn_spans_its_model_requests() {
        let log = vec![
            request(Family::OpenaiResponses, 100, Some(150)),
            request(Family::Unknown, 50, Some(60)),
            request(Family::OpenaiResponses, 160, Some(170)),
        ];
        assert_eq!(model_span(&log), Some((100, 170)));
        let unfinished = vec![request(Family::OpenaiResponses, 100, None)];
        assert_eq!(model_span(&unfinished), None);
        assert_eq!(model_span(&[]), None);
    }
}
