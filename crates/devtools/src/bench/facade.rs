//! `agent-bridge-dev bench --facade`: the bridge as an ACP agent (`agent-bridge acp --provider
//! ID`) against the ACP adapter the ecosystem runs for the same CLI, both driven by the same
//! ACP client ([`Acp`]: initialize, session/new, session/prompt) against the mock model server:
//! - `claude-bridge` over ACP against Zed's `claude-agent-acp`, both running the pinned
//!   `claude` (`CLAUDE_CODE_EXECUTABLE` for the adapter);
//! - `codex-bridge` over ACP against Zed's `codex-acp` (which links codex's engine in: it runs
//!   no `codex` process of its own).
//!
//! Cold opens alternate; then rounds of "say hi" turns on one fresh agent process of each,
//! interleaved turn by turn with the order swapped every turn. Memory: the adapter's own
//! processes (its tree without the CLI's subtree: agent-bridge alone; claude-agent-acp's node;
//! codex-acp's npm launcher and native binary) and the whole tree, peak while the turns run
//! and idle after them. The bridge runs with its defaults except Claude spares
//! (`AGENT_BRIDGE_CLAUDE_SPARE=0`), so both trees hold one CLI.

use super::acp::model_span;
use super::acp_drive::Acp;
use super::facade_report::{FacadeReport, PairReport, Side};
use super::stats::Dist;
use super::turn_phases::Clock;
use crate::host::locate::{cli_version, package_version, pinned_cli};
use crate::host::mock::{Hermetic, MockServer};
use crate::host::proc_tree::{tree, PeakSampler};
use crate::host::table::Verdict;
use agent_bridge_core::supervisor::{LaunchOverride, SpawnSpec};
use anyhow::{anyhow, bail, Context};
use clap::Args;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// Lets a closed process go and memory settle before the idle RSS is read.
const SETTLE: Duration = Duration::from_millis(1500);
/// Quiet time before each measured turn (an agent keeps working a little after its turn).
const TURN_GAP: Duration = Duration::from_millis(300);

#[derive(Debug, Args)]
pub struct FacadeArgs {
    /// Run the facade section: `agent-bridge acp` for claude-bridge and codex-bridge against
    /// claude-agent-acp and codex-acp, same ACP client, same pinned CLIs, mock model.
    #[arg(long, conflicts_with_all = ["claude", "codex", "sharing", "acp"])]
    pub facade: bool,
    /// Turns of each side per round (the first of each round is not counted).
    #[arg(long, default_value_t = 12)]
    pub facade_turns: usize,
    /// Rounds of turns, each on fresh agent processes.
    #[arg(long, default_value_t = 2)]
    pub facade_rounds: usize,
    /// Cold opens of each side.
    #[arg(long, default_value_t = 3)]
    pub facade_opens: usize,
}

/// What one side measured, in ns and bytes.
#[derive(Default)]
struct Samples {
    open: Vec<i64>,
    turn: Vec<i64>,
    to_request: Vec<i64>,
    model_to_end: Vec<i64>,
    adapter_peak: u64,
    adapter_idle: u64,
    tree_peak: u64,
    tree_idle: u64,
}

impl Samples {
    fn side(self) -> Side {
        Side {
            open: Dist::from_nanos(self.open),
            turn: Dist::from_nanos(self.turn),
            to_model_request: Dist::from_nanos(self.to_request),
            model_end_to_turn_end: Dist::from_nanos(self.model_to_end),
            adapter_rss_peak_bytes: self.adapter_peak,
            adapter_rss_idle_bytes: self.adapter_idle,
            tree_rss_peak_bytes: self.tree_peak,
            tree_rss_idle_bytes: self.tree_idle,
        }
    }
}

/// One CLI as both sides run it: [adapter, bridge].
struct Pair {
    cli: &'static str,
    cli_path: PathBuf,
    provider: &'static str,
    adapter_name: &'static str,
    adapter_path: PathBuf,
    specs: [SpawnSpec; 2],
    cwd: String,
    _hermetic: Vec<Hermetic>,
    _plugin: tempfile::TempDir,
}

/// A plugin folder whose plugin.json holds the repo's entry of `provider` with the CLI's path.
fn plugin_dir(provider: &str, cli: &Path) -> anyhow::Result<tempfile::TempDir> {
    let mut manifest: Value = serde_json::from_str(crate::plugin::EMBEDDED_MANIFEST)?;
    let entries = manifest["providers"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut entry = entries
        .into_iter()
        .find(|p| p["id"] == provider)
        .ok_or_else(|| anyhow!("plugin.json has no {provider}"))?;
    entry["command"] = json!([cli.display().to_string()]);
    manifest["providers"] = json!([entry]);
    let dir = tempfile::tempdir()?;
    std::fs::write(dir.path().join("plugin.json"), manifest.to_string())?;
    Ok(dir)
}

fn bridge_spec(
    bridge: &Path,
    provider: &str,
    plugin: &Path,
    herm: &Hermetic,
    cwd: &str,
) -> SpawnSpec {
    let path = |p: &Path| p.display().to_string();
    let mut env = herm.env.clone();
    env.insert("AGENT_BRIDGE_CLAUDE_SPARE".into(), "0".into());
    SpawnSpec {
        program: path(bridge),
        args: vec![
            "acp".into(),
            "--provider".into(),
            provider.into(),
            "--plugin-dir".into(),
            path(plugin),
            "--data-dir".into(),
            path(&plugin.join("data")),
        ],
        cwd: Some(PathBuf::from(cwd)),
        base_env: Some(env),
        env: Default::default(),
        env_remove: Vec::new(),
        private_dirs: Vec::new(),
    }
}

impl Pair {
    fn claude(mock: &MockServer, bridge: &Path) -> anyhow::Result<Pair> {
        let cli_path = pinned_cli("claude")?;
        let adapter_path = pinned_cli("claude-agent-acp")?;
        let herm = Hermetic::for_cli(mock, "claude", &cli_path)?;
        let cwd = herm.workdir.display().to_string();
        let mut env = herm.env.clone();
        env.insert(
            "CLAUDE_CODE_EXECUTABLE".into(),
            cli_path.display().to_string(),
        );
        let adapter = LaunchOverride {
            command: Some(adapter_path.display().to_string()),
            env: Some(env),
            ..LaunchOverride::default()
        }
        .spec("claude-agent-acp", Vec::new())
        .cwd(&cwd);
        let plugin = plugin_dir("claude-bridge", &cli_path)?;
        let facade = bridge_spec(bridge, "claude-bridge", plugin.path(), &herm, &cwd);
        Ok(Pair {
            cli: "claude",
            cli_path,
            provider: "claude-bridge",
            adapter_name: "claude-agent-acp",
            adapter_path,
            specs: [adapter, facade],
            cwd,
            _hermetic: vec![herm],
            _plugin: plugin,
        })
    }

    fn codex(mock: &MockServer, bridge: &Path) -> anyhow::Result<Pair> {
        let cli_path = pinned_cli("codex")?;
        let adapter_path = pinned_cli("codex-acp")?;
        let herm = Hermetic::for_cli(mock, "codex", &cli_path)?;
        let herm_acp = Hermetic::for_cli(mock, "codex-acp", &adapter_path)?;
        let cwd = herm.workdir.display().to_string();
        let adapter = LaunchOverride {
            command: Some(adapter_path.display().to_string()),
            env: Some(herm_acp.env.clone()),
            ..LaunchOverride::default()
        }
        .spec("codex-acp", Vec::new())
        .cwd(&cwd);
        let plugin = plugin_dir("codex-bridge", &cli_path)?;
        let facade = bridge_spec(bridge, "codex-bridge", plugin.path(), &herm, &cwd);
        Ok(Pair {
            cli: "codex",
            cli_path,
            provider: "codex-bridge",
            adapter_name: "codex-acp",
            adapter_path,
            specs: [adapter, facade],
            cwd,
            _hermetic: vec![herm, herm_acp],
            _plugin: plugin,
        })
    }

    fn name(&self, side: usize) -> &'static str {
        [self.adapter_name, self.provider][side]
    }

    fn start(&self, side: usize) -> anyhow::Result<(Acp, Duration)> {
        let (child, started) = Acp::spawn(&self.specs[side], self.name(side))?;
        Acp::open(child, started, &self.cwd).with_context(|| format!("opening {}", self.name(side)))
    }
}

fn cmdline(pid: u32) -> Vec<String> {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| {
            b.split(|c| *c == 0)
                .map(|s| String::from_utf8_lossy(s).into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// `root`'s tree without the subtree of the CLI (the process started as `cli`, natively or
/// through `env node`).
fn adapter_pids(root: u32, cli: &Path) -> BTreeSet<u32> {
    let cli = cli.display().to_string();
    let all = tree(root);
    let mut out = all.clone();
    for pid in &all {
        let argv = cmdline(*pid);
        if *pid != root && argv.iter().take(2).any(|a| *a == cli) {
            for p in tree(*pid) {
                out.remove(&p);
            }
        }
    }
    out
}

fn adapter_rss(root: u32, cli: &Path) -> u64 {
    crate::host::proc_tree::memory(&adapter_pids(root, cli)).rss
}

fn record(
    s: &mut Samples,
    t: &super::codex_modes::TurnTimes,
    mock: &MockServer,
    clock: &Clock,
) -> anyhow::Result<()> {
    let log = mock.requests()?;
    let (sent, end) = (clock.unix_us(t.sent), clock.unix_us(t.end));
    let (request, done) = model_span(&log, sent, end)
        .ok_or_else(|| anyhow!("the turn made no complete model request"))?;
    s.turn
        .push(t.end.saturating_duration_since(t.sent).as_nanos() as i64);
    s.to_request.push((request - sent) * 1000);
    s.model_to_end.push((end - done) * 1000);
    Ok(())
}

/// Closes an agent: its stdin (the bridge then stops its CLI and exits), then (`Acp`'s drop)
/// its process group.
fn stop(mut a: Acp) {
    a.cli.close_stdin_and_wait(Duration::from_secs(10));
}

fn measure(
    args: &FacadeArgs,
    pair: &Pair,
    mock: &MockServer,
) -> anyhow::Result<(PairReport, Vec<i64>)> {
    let progress = |what: String| eprintln!("bench facade: {} · {what}", pair.cli);
    let mut s: [Samples; 2] = Default::default();
    progress(format!("{} cold opens of each side", args.facade_opens));
    for i in 0..args.facade_opens {
        for k in 0..2 {
            let side = (i + k) % 2;
            let (a, took) = pair.start(side)?;
            s[side].open.push(took.as_nanos() as i64);
            stop(a);
        }
    }
    let mut paired = Vec::new();
    for r in 0..args.facade_rounds {
        progress(format!(
            "round {}/{}: {} turns of each side, interleaved",
            r + 1,
            args.facade_rounds,
            args.facade_turns
        ));
        let clock = Clock::now();
        let mut agents = [pair.start(0)?.0, pair.start(1)?.0];
        let pids = [agents[0].cli.pid, agents[1].cli.pid];
        let cli = pair.cli_path.clone();
        let samplers: Vec<(PeakSampler, PeakSampler)> = pids
            .iter()
            .map(|&pid| {
                let cli = cli.clone();
                Ok((
                    PeakSampler::tree(pid)?,
                    PeakSampler::with("bench-adapter-rss", move || adapter_rss(pid, &cli))?,
                ))
            })
            .collect::<anyhow::Result<_>>()?;
        for t in 0..args.facade_turns {
            let mut took = [0i64; 2];
            let order = if t % 2 == 0 { [0, 1] } else { [1, 0] };
            for side in order {
                std::thread::sleep(TURN_GAP);
                mock.clear_log()?;
                let times = agents[side]
                    .turn()
                    .with_context(|| format!("{} turn {t}", pair.name(side)))?;
                took[side] = times.end.saturating_duration_since(times.sent).as_nanos() as i64;
                if t > 0 {
                    record(&mut s[side], &times, mock, &clock)?;
                }
            }
            if t > 0 {
                paired.push(took[1] - took[0]);
            }
        }
        std::thread::sleep(SETTLE);
        for (side, (tree_peak, adapter_peak)) in samplers.into_iter().enumerate() {
            let x = &mut s[side];
            x.tree_peak = x.tree_peak.max(tree_peak.finish());
            x.adapter_peak = x.adapter_peak.max(adapter_peak.finish());
            x.tree_idle = x
                .tree_idle
                .max(crate::host::proc_tree::tree_rss(pids[side]));
            x.adapter_idle = x.adapter_idle.max(adapter_rss(pids[side], &pair.cli_path));
        }
        let [a, b] = agents;
        stop(a);
        stop(b);
    }
    let [adapter, bridge] = s;
    Ok((
        PairReport {
            cli: format!("{} {}", pair.cli, cli_version(&pair.cli_path)),
            adapter: format!(
                "{} {}",
                pair.adapter_name,
                package_version(&pair.adapter_path)
            ),
            provider: pair.provider.into(),
            adapter_side: adapter.side(),
            bridge_side: bridge.side(),
            turn_overhead: None,
        },
        paired,
    ))
}

pub fn run(args: &FacadeArgs, json_out: bool, bridge: PathBuf) -> anyhow::Result<ExitCode> {
    let release = !cfg!(debug_assertions);
    if !release {
        eprintln!("warning: this is a debug build; build with --release for meaningful numbers");
    }
    if args.facade_turns < 2 {
        bail!("--facade-turns must be at least 2 (the first turn of a round is not counted)");
    }
    let mock = MockServer::start()?;
    let load_before = super::codex::load_average();
    let mut pairs = Vec::new();
    for make in [Pair::claude, Pair::codex] {
        let pair = make(&mock, &bridge)?;
        let (mut report, paired) = measure(args, &pair, &mock)?;
        report.turn_overhead = Dist::from_nanos(paired);
        pairs.push(report);
    }
    let report = FacadeReport {
        release_build: release,
        bridge: bridge.display().to_string(),
        load_before,
        load_after: super::codex::load_average(),
        pairs,
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
