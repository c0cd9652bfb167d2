//! `agent-bridge-dev bench --sharing`: sessions sharing one agent process vs a process per
//! session, side by side in one run against the mock model server: for each agent family
//! (Codex; `--sharing-acp`: an ACP agent) and each count of sessions (1, 4, 16), a fresh bridge
//! whose plugin.json entry has `"processPerSession"` false, then true, opens that many sessions
//! one after the other and, once they are idle, reads the resident memory of the bridge's whole
//! process tree (the bridge, its guards and the agents).
//!
//! The first open of a bridge starts an agent either way; the later ones are what sharing
//! changes (a running process takes the session: no spawn, no `initialize`).

use super::bridge::Bridge;
use super::claude::{connect, open_with};
use super::codex_modes::{bridge_close, bridge_config};
use super::stats::{fmt_mb, Dist};
use crate::host::locate::pinned_cli;
use crate::host::mock::{Hermetic, MockServer};
use crate::host::proc_tree::tree_rss;
use crate::host::table::{format_table, Row, Verdict};
use anyhow::{anyhow, Context};
use clap::Args;
use serde::Serialize;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// Lets the sessions' processes settle before their memory is read.
const SETTLE: Duration = Duration::from_millis(2000);
/// The goal: 16 sessions of one agent in at most this many times the memory of one.
const RSS_GOAL_RATIO: f64 = 2.0;
/// The goal for a later open of a shared agent (p50).
const WARM_OPEN_GOAL_MS: f64 = 50.0;

#[derive(Debug, Args)]
pub struct SharingArgs {
    /// Run the sharing section: opens and process-tree RSS with 1, 4 and 16 sessions, shared
    /// vs a process per session.
    #[arg(long, conflicts_with_all = ["claude", "codex"])]
    pub sharing: bool,
    /// The session counts.
    #[arg(long, value_delimiter = ',', default_value = "1,4,16")]
    pub sharing_sessions: Vec<usize>,
    /// Also measure this ACP agent (its pinned CLI's name: `opencode`, `qwen`...).
    #[arg(long)]
    pub sharing_acp: Option<String>,
    /// Instead: warm opens after a close, this many open → close rounds per family on one
    /// bridge, with warm spares (the closed process is the spare) and without (idle time 0).
    #[arg(long)]
    pub sharing_warm_rounds: Option<usize>,
    /// With `--sharing-warm-rounds`: the entries have `"processPerSession": true` (the spare
    /// is a process started ahead after each open).
    #[arg(long, requires = "sharing_warm_rounds")]
    pub sharing_per_session: bool,
}

/// One agent family as the bench drives it.
pub(super) struct Family {
    pub(super) cli: String,
    pub(super) provider: String,
    pub(super) launch: Value,
    pub(super) cwd: String,
    pub(super) codex: bool,
    _hermetic: Hermetic,
}

/// One measured bridge: `sessions` sessions, shared or not.
#[derive(Debug, Clone, Serialize)]
pub struct Run {
    pub cli: String,
    pub shared: bool,
    pub sessions: usize,
    /// The first open (it starts an agent process either way).
    pub first_open_ms: f64,
    /// The later opens.
    pub later_opens: Option<Dist>,
    /// Resident memory of the bridge's process tree with every session open and idle.
    pub tree_rss_bytes: u64,
    /// Agent processes (guards' groups) under the bridge.
    pub agent_processes: usize,
}

/// A plugin folder whose `provider` entry has `"processPerSession": per_session`.
pub(super) fn plugin_dir(
    base: Option<&Path>,
    provider: &str,
    per_session: bool,
) -> anyhow::Result<tempfile::TempDir> {
    let text = match base {
        Some(dir) => std::fs::read_to_string(dir.join("plugin.json"))
            .with_context(|| format!("reading {}/plugin.json", dir.display()))?,
        None => crate::plugin::EMBEDDED_MANIFEST.to_string(),
    };
    let mut manifest: Value = serde_json::from_str(&text)?;
    let entry = manifest["providers"]
        .as_array_mut()
        .and_then(|ps| ps.iter_mut().find(|p| p["id"] == provider))
        .ok_or_else(|| anyhow!("plugin.json has no provider `{provider}`"))?;
    entry["options"]["processPerSession"] = json!(per_session);
    let dir = tempfile::tempdir()?;
    std::fs::write(dir.path().join("plugin.json"), manifest.to_string())?;
    Ok(dir)
}

/// Agent processes under `root`: one guard each.
fn agent_processes(root: u32) -> usize {
    crate::host::proc_tree::tree(root)
        .into_iter()
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains("__guard"))
        })
        .count()
}

fn measure(
    family: &Family,
    base: Option<&Path>,
    bridge_exe: &Path,
    shared: bool,
    sessions: usize,
) -> anyhow::Result<Run> {
    let dir = plugin_dir(base, &family.provider, !shared)?;
    let mut b = Bridge::spawn(bridge_exe, Some(dir.path()))?;
    let conn = connect(&mut b, &family.provider, &family.launch)?;
    let mut opens = Vec::new();
    for i in 0..sessions {
        let sid = format!("share-{i}");
        let config = if family.codex {
            bridge_config(&family.cwd)
        } else {
            agent_bridge_protocol::ProviderSessionConfig {
                cwd: family.cwd.clone(),
                ..Default::default()
            }
        };
        opens.push(open_with(&mut b, &conn, &sid, config)?.as_nanos() as i64);
    }
    std::thread::sleep(SETTLE);
    let tree_rss_bytes = tree_rss(b.pid);
    let agents = agent_processes(b.pid);
    for i in 0..sessions {
        bridge_close(&mut b, &conn, &format!("share-{i}"))?;
    }
    if let Err(e) = b.shutdown(Duration::from_secs(15)) {
        eprintln!("warning: {e:#}");
    }
    let first_open_ms = opens.first().map_or(0.0, |ns| *ns as f64 / 1e6);
    let later = opens.split_off(1.min(opens.len()));
    Ok(Run {
        cli: family.cli.clone(),
        shared,
        sessions,
        first_open_ms,
        later_opens: Dist::from_nanos(later),
        tree_rss_bytes,
        agent_processes: agents,
    })
}

pub(super) fn family(
    mock: &MockServer,
    cli: &str,
    agent: &str,
    base: Option<&Path>,
) -> anyhow::Result<Family> {
    let path = pinned_cli(cli)?;
    let hermetic = Hermetic::for_cli(mock, cli, &path)?;
    let provider = crate::plugin::providers(base)?
        .into_iter()
        .find(|p| {
            p.agent == agent
                && (agent == "codex" || p.command.first().map(String::as_str) == Some(cli))
        })
        .map(|p| p.id)
        .ok_or_else(|| anyhow!("plugin.json has no {agent} provider for {cli}"))?;
    Ok(Family {
        cli: cli.to_string(),
        provider,
        launch: json!({"command": path.display().to_string(), "args": [], "env": hermetic.env}),
        cwd: hermetic.workdir.display().to_string(),
        codex: agent == "codex",
        _hermetic: hermetic,
    })
}

/// The table: one row per run, with the goals where they apply.
fn rows(runs: &[Run]) -> Vec<Row> {
    let mut rows = Vec::new();
    for run in runs {
        let one = runs
            .iter()
            .find(|r| r.cli == run.cli && r.shared == run.shared && r.sessions == 1)
            .map(|r| r.tree_rss_bytes as f64);
        let ratio = one.map(|one| run.tree_rss_bytes as f64 / one.max(1.0));
        let mode = if run.shared { "shared" } else { "per session" };
        let name = format!("{} · {} · {} sessions", run.cli, mode, run.sessions);
        let goal = (run.shared && run.sessions == 16)
            .then_some(ratio)
            .flatten();
        rows.push(Row {
            metric: format!("{name}: tree RSS"),
            measured: format!(
                "{} ({} agent processes{})",
                fmt_mb(run.tree_rss_bytes as f64),
                run.agent_processes,
                ratio.map_or(String::new(), |r| format!(", {r:.2}× one session"))
            ),
            target: if goal.is_some() {
                format!("≤ {RSS_GOAL_RATIO}× one session")
            } else {
                String::new()
            },
            verdict: match goal {
                Some(r) if r <= RSS_GOAL_RATIO => Verdict::Pass,
                Some(_) => Verdict::Fail,
                None => Verdict::Info,
            },
        });
        let later = run.later_opens.as_ref();
        rows.push(Row {
            metric: format!("{name}: opens"),
            measured: format!(
                "first {:.0} ms; later p50 {}",
                run.first_open_ms,
                later.map_or("–".into(), |d| format!("{:.1} ms", d.p50_ms))
            ),
            target: if run.shared && later.is_some() {
                format!("later p50 ≤ {WARM_OPEN_GOAL_MS} ms")
            } else {
                String::new()
            },
            verdict: match (run.shared, later) {
                (true, Some(d)) if d.p50_ms <= WARM_OPEN_GOAL_MS => Verdict::Pass,
                (true, Some(_)) => Verdict::Fail,
                _ => Verdict::Info,
            },
        });
    }
    rows
}

pub fn run(
    args: &SharingArgs,
    json_out: bool,
    plugin_dir: Option<PathBuf>,
    bridge: PathBuf,
) -> anyhow::Result<ExitCode> {
    if cfg!(debug_assertions) {
        eprintln!("warning: this is a debug build; build with --release for meaningful numbers");
    }
    let base = crate::plugin::plugin_dir(plugin_dir);
    let mock = MockServer::start()?;
    let mut families = vec![family(&mock, "codex", "codex", base.as_deref())?];
    if let Some(cli) = &args.sharing_acp {
        families.push(family(&mock, cli, "acp", base.as_deref())?);
    }
    if let Some(rounds) = args.sharing_warm_rounds {
        let per_session = args.sharing_per_session;
        let base = base.as_deref();
        return super::warm_open::run(&families, rounds, per_session, json_out, base, &bridge);
    }
    let mut runs = Vec::new();
    for family in &families {
        for &sessions in &args.sharing_sessions {
            for shared in [true, false] {
                if !json_out {
                    let mode = if shared { "shared" } else { "per session" };
                    eprintln!(
                        "bench sharing: {} · {mode} · {sessions} sessions",
                        family.cli
                    );
                }
                runs.push(measure(family, base.as_deref(), &bridge, shared, sessions)?);
            }
        }
    }
    let rows = rows(&runs);
    if json_out {
        println!("{}", serde_json::to_string_pretty(&runs)?);
    } else {
        println!("agent-bridge bench · sharing agent processes · idle sessions after open\n");
        print!("{}", format_table(&rows));
    }
    let missed = rows.iter().any(|r| r.verdict == Verdict::Fail);
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

    #[test]
    fn the_plugin_folder_sets_the_entrys_option_only() {
        let dir = plugin_dir(None, "codex-bridge", true).expect("plugin folder");
        let providers = crate::plugin::providers(Some(dir.path())).expect("it loads");
        let codex = providers
            .iter()
            .find(|p| p.id == "codex-bridge")
            .expect("codex");
        assert_eq!(codex.options.get("processPerSession"), Some(&json!(true)));
        // Every other entry keeps its own value (droid-bridge and pi-bridge set it in plugin.json
        // itself).
        let embedded = crate::plugin::providers(None).expect("the embedded plugin.json");
        for p in providers.iter().filter(|p| p.id != "codex-bridge") {
            let own = embedded
                .iter()
                .find(|e| e.id == p.id)
                .expect("same entries");
            assert_eq!(
                p.options.get("processPerSession"),
                own.options.get("processPerSession"),
                "{}",
                p.id
            );
        }
        assert!(plugin_dir(None, "no-such-provider", true).is_err());
    }
}
