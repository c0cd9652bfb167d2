//! `agent-bridge-dev bench --acp`: every ACP agent's turn through the bridge against the same
//! agent driven directly over ACP, one agent after the other in one run, against the mock
//! model server. For each agent (its pinned CLI, its hermetic environment):
//! - direct: the very command line the bridge runs (the profile's program and arguments, the
//!   same environment and working directory), driven by [`Acp`] (initialize, session/new,
//!   session/prompt);
//! - bridge: the agent's provider through a bridge's `serve` (the agent-bridge next to this
//!   binary, or `--bridge-bin`), `session.open` then `session.prompt`.
//!
//! Cold opens alternate (a fresh bridge process for each); then rounds of "say hi" turns on a
//! fresh session of each, interleaved turn by turn with the order swapped every turn and a
//! quiet gap before each. The mock stamps each model request's arrival and its answer's end
//! with the wall clock, so each turn splits into prompt -> model request and model end ->
//! turn end, the part the bridge can add to.

use super::acp_drive::Acp;
use super::acp_report::{AcpReport, AgentReport, Side};
use super::bridge::Bridge;
use super::claude::{connect, open_with};
use super::codex_modes::{bridge_close, bridge_turn, TurnTimes};
use super::stats::Dist;
use super::turn_phases::{anthropic_generation, Clock};
use crate::host::locate::{package_version, pinned_cli};
use crate::host::mock::{Hermetic, MockServer};
use crate::host::proc_tree::{tree_rss, PeakSampler};
use crate::host::table::Verdict;
use crate::plugin;
use agent_bridge_core::supervisor::{LaunchOverride, SpawnSpec};
use agent_bridge_protocol::ProviderSessionConfig;
use anyhow::{anyhow, bail, Context};
use clap::Args;
use mock_llm::{Family, RecordedRequest};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Lets closed processes go and memory settle before the idle RSS is read.
const SETTLE: Duration = Duration::from_millis(1500);
/// Quiet time before each measured turn (an agent keeps working a little after its turn).
const TURN_GAP: Duration = Duration::from_millis(300);

#[derive(Debug, Args)]
pub struct AcpArgs {
    /// Run the ACP section: each ACP agent's turn through the bridge vs the agent driven
    /// directly over ACP, interleaved, against the mock model server.
    #[arg(long, conflicts_with_all = ["claude", "codex", "sharing"])]
    pub acp: bool,
    /// The ACP agents, by pinned CLI name.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "gemini,qwen,opencode,claude-agent-acp,codex-acp"
    )]
    pub acp_agents: Vec<String>,
    /// Turns of each side per round (the first of each round is not counted).
    #[arg(long, default_value_t = 12)]
    pub acp_turns: usize,
    /// Rounds of turns, each on fresh sessions.
    #[arg(long, default_value_t = 2)]
    pub acp_rounds: usize,
    /// Cold opens of each side.
    #[arg(long, default_value_t = 4)]
    pub acp_opens: usize,
}

/// Samples of one side.
#[derive(Default)]
struct Samples {
    open: Vec<i64>,
    turn: Vec<i64>,
    to_request: Vec<i64>,
    model_to_end: Vec<i64>,
    rss_peak: u64,
    rss_idle: u64,
}

impl Samples {
    fn side(self) -> Side {
        Side {
            open: Dist::from_nanos(self.open),
            turn: Dist::from_nanos(self.turn),
            to_model_request: Dist::from_nanos(self.to_request),
            model_end_to_turn_end: Dist::from_nanos(self.model_to_end),
            rss_peak_bytes: self.rss_peak,
            rss_idle_bytes: self.rss_idle,
        }
    }
}

/// Whether a logged request is a model generation (not a token count, not a trap).
fn is_generation(r: &RecordedRequest) -> bool {
    match r.family {
        Family::Anthropic => anthropic_generation(&r.path),
        Family::OpenaiResponses | Family::OpenaiChat => true,
        Family::Gemini => r.path.contains("enerateContent"),
        _ => false,
    }
}

/// The model requests that arrived during a turn (`sent`..=`end`, µs since the epoch): the
/// first arrival and the last answer's end before the turn end.
pub(super) fn model_span(log: &[RecordedRequest], sent: i64, end: i64) -> Option<(i64, i64)> {
    let during: Vec<&RecordedRequest> = log
        .iter()
        .filter(|r| is_generation(r))
        .filter(|r| i64::try_from(r.at_unix_us).is_ok_and(|at| at >= sent && at <= end))
        .collect();
    let first = during.iter().map(|r| r.at_unix_us).min()?;
    let last = during
        .iter()
        .filter_map(|r| r.done_unix_us)
        .filter_map(|d| i64::try_from(d).ok())
        .filter(|d| *d <= end)
        .max()?;
    Some((i64::try_from(first).ok()?, last))
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
    let (sent, end) = (clock.unix_us(t.sent), clock.unix_us(t.end));
    let (request, done) = model_span(&log, sent, end)
        .ok_or_else(|| anyhow!("the turn made no complete model request"))?;
    if counted {
        s.turn
            .push(t.end.saturating_duration_since(t.sent).as_nanos() as i64);
        s.to_request.push((request - sent) * 1000);
        s.model_to_end.push((end - done) * 1000);
    }
    Ok(())
}

/// One agent as both sides run it.
struct Setup {
    cli: String,
    name: &'static str,
    plugin_dir: Option<PathBuf>,
    provider: String,
    bridge_exe: PathBuf,
    launch: Value,
    direct: SpawnSpec,
    cwd: String,
    _hermetic: Hermetic,
}

impl Setup {
    fn new(
        mock: &MockServer,
        cli: &str,
        plugin_dir: Option<PathBuf>,
        bridge_exe: PathBuf,
    ) -> anyhow::Result<Setup> {
        let name = mock_llm::Cli::ALL
            .into_iter()
            .map(mock_llm::Cli::bin_name)
            .find(|n| *n == cli)
            .ok_or_else(|| anyhow!("the mock has no hermetic recipe for {cli}"))?;
        let path = pinned_cli(cli)?;
        let hermetic = Hermetic::for_cli(mock, cli, &path)?;
        let entry = plugin::providers(plugin_dir.as_deref())?
            .into_iter()
            .find(|p| p.agent == "acp" && p.command.first().map(String::as_str) == Some(cli))
            .ok_or_else(|| anyhow!("plugin.json has no ACP provider for {cli}"))?;
        let profile = agent_bridge_acp::profile::for_entry(&entry);
        let cwd = hermetic.workdir.display().to_string();
        let launch = LaunchOverride {
            command: Some(path.display().to_string()),
            env: Some(hermetic.env.clone()),
            ..LaunchOverride::default()
        };
        // The very command line the bridge runs.
        let direct =
            agent_bridge_acp::launch::spec(&profile, &launch, Some(&cwd), &BTreeMap::new());
        Ok(Setup {
            cli: cli.to_string(),
            name,
            plugin_dir,
            provider: entry.id,
            bridge_exe,
            launch: json!({"command": path.display().to_string(), "args": [], "env": hermetic.env}),
            direct,
            cwd,
            _hermetic: hermetic,
        })
    }

    fn bridge(&self) -> anyhow::Result<(Bridge, String)> {
        let mut b = Bridge::spawn(&self.bridge_exe, self.plugin_dir.as_deref())?;
        let conn = connect(&mut b, &self.provider, &self.launch)?;
        Ok((b, conn))
    }

    fn bridge_open(&self, b: &mut Bridge, conn: &str, sid: &str) -> anyhow::Result<Duration> {
        let config = ProviderSessionConfig {
            cwd: self.cwd.clone(),
            ..Default::default()
        };
        open_with(b, conn, sid, config)
    }

    fn direct(&self) -> anyhow::Result<(Acp, Duration)> {
        let (cli, started) = Acp::spawn(&self.direct, self.name)?;
        Acp::open(cli, started, &self.cwd)
    }
}

fn shutdown(b: Bridge) {
    if let Err(e) = b.shutdown(Duration::from_secs(15)) {
        eprintln!("warning: {e:#}");
    }
}

/// Cold opens, alternating which side goes first.
fn opens(setup: &Setup, n: usize, s: &mut [Samples; 2]) -> anyhow::Result<()> {
    let ns = |d: Duration| d.as_nanos() as i64;
    for i in 0..n {
        for k in 0..2 {
            if (i + k) % 2 == 0 {
                let (direct, d) = setup.direct()?;
                s[0].open.push(ns(d));
                drop(direct);
            } else {
                let (mut b, conn) = setup.bridge()?;
                s[1].open
                    .push(ns(setup.bridge_open(&mut b, &conn, "open")?));
                bridge_close(&mut b, &conn, "open")?;
                shutdown(b);
            }
        }
    }
    Ok(())
}

/// One round: a fresh session of each side, `turns` turns each, interleaved; returns the
/// paired bridge − direct turn differences.
fn round(
    setup: &Setup,
    r: usize,
    turns: usize,
    mock: &MockServer,
    s: &mut [Samples; 2],
) -> anyhow::Result<Vec<i64>> {
    let clock = Clock::now();
    let (mut b, conn) = setup.bridge()?;
    let bridge_rss = PeakSampler::tree(b.pid)?;
    let sid = format!("round{r}");
    setup.bridge_open(&mut b, &conn, &sid)?;
    let (mut direct, _) = setup.direct()?;
    let direct_rss = PeakSampler::tree(direct.cli.pid)?;
    mock.clear_log()?;
    let mut paired = Vec::new();
    for t in 0..turns {
        let counted = t > 0;
        let mut took = [0i64; 2];
        let order = if t % 2 == 0 { [0, 1] } else { [1, 0] };
        for side in order {
            std::thread::sleep(TURN_GAP);
            mock.clear_log()?;
            let times = if side == 0 {
                direct.turn()
            } else {
                bridge_turn(&mut b, &conn, &sid)
            }
            .with_context(|| format!("{} turn {t}", setup.cli))?;
            took[side] = times.end.saturating_duration_since(times.sent).as_nanos() as i64;
            record(&mut s[side], &times, mock, &clock, counted)?;
        }
        if counted {
            paired.push(took[1] - took[0]);
        }
    }
    std::thread::sleep(SETTLE);
    let idle = [tree_rss(direct.cli.pid), tree_rss(b.pid)];
    let peaks = [direct_rss.finish(), bridge_rss.finish()];
    for k in 0..2 {
        s[k].rss_peak = s[k].rss_peak.max(peaks[k]);
        s[k].rss_idle = s[k].rss_idle.max(idle[k]);
    }
    drop(direct);
    bridge_close(&mut b, &conn, &sid)?;
    shutdown(b);
    Ok(paired)
}

fn agent(args: &AcpArgs, setup: &Setup, mock: &MockServer) -> anyhow::Result<AgentReport> {
    let progress = |what: String| eprintln!("bench acp: {} · {what}", setup.cli);
    let mut samples: [Samples; 2] = Default::default();
    progress(format!("{} cold opens of each side", args.acp_opens));
    opens(setup, args.acp_opens, &mut samples)?;
    let mut paired = Vec::new();
    for r in 0..args.acp_rounds {
        progress(format!(
            "round {}/{}: {} turns of each side, interleaved",
            r + 1,
            args.acp_rounds,
            args.acp_turns
        ));
        paired.extend(round(setup, r, args.acp_turns, mock, &mut samples)?);
    }
    let [direct, bridge] = samples;
    Ok(AgentReport {
        cli: setup.cli.clone(),
        provider: setup.provider.clone(),
        version: package_version(&pinned_cli(&setup.cli)?),
        direct: direct.side(),
        bridge: bridge.side(),
        turn_overhead: Dist::from_nanos(paired),
    })
}

pub fn run(
    args: &AcpArgs,
    json_out: bool,
    plugin_dir: Option<PathBuf>,
    bridge: PathBuf,
) -> anyhow::Result<ExitCode> {
    let release = !cfg!(debug_assertions);
    if !release {
        eprintln!("warning: this is a debug build; build with --release for meaningful numbers");
    }
    if args.acp_turns < 2 {
        bail!("--acp-turns must be at least 2 (the first turn of a round is not counted)");
    }
    let dir = plugin::plugin_dir(plugin_dir);
    let mock = MockServer::start()?;
    let load_before = super::codex::load_average();
    let mut agents = Vec::new();
    for cli in &args.acp_agents {
        let setup = Setup::new(&mock, cli, dir.clone(), bridge.clone())?;
        agents.push(agent(args, &setup, &mock)?);
    }
    let report = AcpReport {
        release_build: release,
        bridge: bridge.display().to_string(),
        load_before,
        load_after: super::codex::load_average(),
        agents,
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
    use crate::host::mock::recorded;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_turn_spans_the_generations_that_arrived_during_it() {
        let log = vec![
            recorded(Family::OpenaiChat, "/v1/chat/completions", 90, Some(95)),
            recorded(Family::OpenaiChat, "/v1/chat/completions", 100, Some(150)),
            recorded(
                Family::Gemini,
                "/v1beta/models/m:countTokens",
                101,
                Some(102),
            ),
            recorded(
                Family::Gemini,
                "/v1beta/models/m:streamGenerateContent",
                120,
                Some(170),
            ),
            recorded(Family::Unknown, "/x", 105, Some(190)),
            recorded(Family::OpenaiChat, "/v1/chat/completions", 180, Some(250)),
        ];
        assert_eq!(model_span(&log, 100, 200), Some((100, 170)));
        assert_eq!(model_span(&log, 300, 400), None);
        let unfinished = vec![recorded(
            Family::OpenaiResponses,
            "/v1/responses",
            100,
            None,
        )];
        assert_eq!(model_span(&unfinished, 0, 200), None);
    }

    #[test]
    fn token_counts_are_not_generations() {
        let count = recorded(Family::Anthropic, "/v1/messages/count_tokens", 0, None);
        let messages = recorded(Family::Anthropic, "/v1/messages?beta=true", 0, None);
        assert!(!is_generation(&count));
        assert!(is_generation(&messages));
    }
}
