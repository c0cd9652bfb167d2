//! `agent-bridge-dev bench --sharing --sharing-warm-rounds N`: the open after a close, per
//! family, with warm spares and without. One bridge per family and setting runs N rounds of
//! open → close (one session at a time, sessions with the same launch): with spares (the idle
//! time long) the closed session's process is the provider's spare and the next open joins it;
//! without (`AGENT_BRIDGE_SPARE_IDLE_SECS=0`) every open starts the agent. The first round is
//! cold either way; the table gives the later opens' p50 and how many agent processes the
//! bridge started in all. With `--sharing-per-session` the entries have `"processPerSession":
//! true`: the spare is the process started ahead after an open (the core's prestarted pool),
//! which the next open takes.

use super::bridge::Bridge;
use super::claude::{connect, open_with};
use super::codex_modes::{bridge_close, bridge_config};
use super::sharing::{plugin_dir, Family};
use super::stats::Dist;
use crate::host::table::{format_table, Row, Verdict};
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

/// How long a round waits after its close (answered once the session's process is gone) before
/// the next open; with spares, after the fresh spare is reported (a user rarely opens the next
/// session within the seconds an ACP agent takes to start).
const AFTER_CLOSE: Duration = Duration::from_millis(1000);
/// The longest a round waits for the spare to be reported.
const SPARE_WAIT: Duration = Duration::from_secs(60);
/// The goal for a warm open (p50).
const WARM_OPEN_GOAL_MS: f64 = 50.0;
/// The idle time with spares: longer than any run.
const LONG_IDLE: &str = "600";

/// One family and setting.
#[derive(Debug, Clone, Serialize)]
pub struct WarmRun {
    pub cli: String,
    /// `"processPerSession": true` (the spare is started ahead) rather than shared.
    pub per_session: bool,
    pub spares: bool,
    pub first_open_ms: f64,
    /// The opens after a close.
    pub later_opens: Option<Dist>,
    /// Agent processes (guards) the bridge started over the rounds.
    pub agents_started: usize,
}

fn measure(
    family: &Family,
    base: Option<&Path>,
    bridge_exe: &Path,
    spares: bool,
    rounds: usize,
    per_session: bool,
) -> anyhow::Result<WarmRun> {
    let dir = plugin_dir(base, &family.provider, per_session)?;
    // The bridge inherits the bench's environment.
    std::env::set_var(
        agent_bridge_core::spares::IDLE_ENV,
        if spares { LONG_IDLE } else { "0" },
    );
    let mut b = Bridge::spawn(bridge_exe, Some(dir.path()))?;
    let conn = connect(&mut b, &family.provider, &family.launch)?;
    let mut opens = Vec::new();
    let mut guards = BTreeSet::new();
    for i in 0..rounds {
        let sid = format!("warm-{i}");
        let config = if family.codex {
            bridge_config(&family.cwd)
        } else {
            agent_bridge_protocol::ProviderSessionConfig {
                cwd: family.cwd.clone(),
                ..Default::default()
            }
        };
        opens.push(open_with(&mut b, &conn, &sid, config)?.as_nanos() as i64);
        guards.extend(guard_pids(b.pid));
        bridge_close(&mut b, &conn, &sid)?;
        if spares {
            wait_for_spare(b.pid);
        }
        std::thread::sleep(AFTER_CLOSE);
    }
    if let Err(e) = b.shutdown(Duration::from_secs(15)) {
        eprintln!("warning: {e:#}");
    }
    let first_open_ms = opens.first().map_or(0.0, |ns| *ns as f64 / 1e6);
    let later = opens.split_off(1.min(opens.len()));
    Ok(WarmRun {
        cli: family.cli.clone(),
        per_session,
        spares,
        first_open_ms,
        later_opens: Dist::from_nanos(later),
        agents_started: guards.len(),
    })
}

/// Waits (at most [`SPARE_WAIT`]) until bridge `pid` reports an idle spare.
fn wait_for_spare(pid: u32) {
    let deadline = std::time::Instant::now() + SPARE_WAIT;
    while std::time::Instant::now() < deadline {
        if agent_bridge_core::spares::running()
            .iter()
            .any(|s| s.bridge_pid == pid)
        {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    eprintln!("warning: bridge {pid} reported no spare within {SPARE_WAIT:?}");
}

/// The guards (one per agent process) under `root`.
fn guard_pids(root: u32) -> Vec<u32> {
    crate::host::proc_tree::tree(root)
        .into_iter()
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains("__guard"))
        })
        .collect()
}

fn rows(runs: &[WarmRun]) -> Vec<Row> {
    runs.iter()
        .map(|run| {
            let setting = match (run.spares, run.per_session) {
                (true, true) => "per session, prestarted spare",
                (true, false) => "warm spare",
                (false, true) => "per session, no spare",
                (false, false) => "no spare",
            };
            let later = run.later_opens.as_ref();
            Row {
                metric: format!("{} · {setting}: open after a close", run.cli),
                measured: format!(
                    "first {:.0} ms; later p50 {} (n {}); {} agent processes started",
                    run.first_open_ms,
                    later.map_or("–".into(), |d| format!("{:.1} ms", d.p50_ms)),
                    later.map_or(0, |d| d.n),
                    run.agents_started
                ),
                target: if run.spares {
                    format!("later p50 ≤ {WARM_OPEN_GOAL_MS} ms")
                } else {
                    String::new()
                },
                verdict: match (run.spares, later) {
                    (true, Some(d)) if d.p50_ms <= WARM_OPEN_GOAL_MS => Verdict::Pass,
                    (true, Some(_)) => Verdict::Fail,
                    _ => Verdict::Info,
                },
            }
        })
        .collect()
}

pub fn run(
    families: &[Family],
    rounds: usize,
    per_session: bool,
    json_out: bool,
    base: Option<&Path>,
    bridge: &Path,
) -> anyhow::Result<ExitCode> {
    let mut runs = Vec::new();
    for family in families {
        for spares in [true, false] {
            if !json_out {
                let setting = if spares { "warm spare" } else { "no spare" };
                eprintln!(
                    "bench warm opens: {} · {setting} · {rounds} rounds",
                    family.cli
                );
            }
            runs.push(measure(family, base, bridge, spares, rounds, per_session)?);
        }
    }
    let rows = rows(&runs);
    if json_out {
        println!("{}", serde_json::to_string_pretty(&runs)?);
    } else {
        println!("agent-bridge bench · warm opens · an open after the last session closed\n");
        print!("{}", format_table(&rows));
    }
    Ok(if rows.iter().any(|r| r.verdict == Verdict::Fail) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
