//! `agent-bridge-dev bench`: runs a built agent-bridge's `serve` as a child over pipes with the
//! demo agent, measures latency, throughput and memory, and prints them beside their targets
//! (`--claude`, `--codex`, `--acp`: the real CLIs, directly and through the bridge).

mod acp;
mod acp_drive;
mod acp_report;
mod bridge;
mod claude;
mod claude_cli;
mod codex;
mod codex_drive;
mod codex_modes;
mod codex_report;
mod compare;
mod facade;
mod facade_report;
mod phases;
mod report;
mod sharing;
pub(crate) mod stats;
mod turn_phases;
mod warm_open;

use crate::host::locate::bridge_binary;
use crate::host::proc_tree::{rss_bytes, PeakSampler};
use crate::host::table::{format_table, Verdict};
use crate::plugin;
use anyhow::anyhow;
use bridge::Bridge;
use clap::Args;
use phases::SETTLE;
use report::Report;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Sequential opens measured for the open latency.
const OPEN_SAMPLES: usize = 50;
/// Sessions held open for the per-session memory figure.
const RSS_SESSIONS: usize = 100;
/// Small turns (and items per turn) for the unloaded latency.
const SMALL_TURNS: usize = 200;
const SMALL_TURN_EVENTS: u32 = 5;

#[derive(Debug, Args)]
#[command(after_help = "\
Build both in release mode first (cargo build --release -p agent-bridge -p \
agent-bridge-devtools): a debug build is measured as it is. The bridge is the agent-bridge next \
to this binary (or --bridge-bin), run as `serve` over pipes with the demo agent; the host reads \
its stdout on a thread of its own.

Exit status: 0 when every target is met and no event was lost, 1 otherwise.")]
pub struct BenchArgs {
    /// Sessions streaming at once in the concurrent run.
    #[arg(long, default_value_t = 200)]
    pub sessions: usize,
    /// Items each of those sessions streams (`BENCH n`).
    #[arg(long, default_value_t = 1000)]
    pub events: u32,
    /// Items of the single streaming turn.
    #[arg(long, default_value_t = 20_000)]
    pub stream_events: u32,
    /// Print the results as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Folder holding plugin.json (default: as `serve` finds it).
    #[arg(long)]
    pub plugin_dir: Option<PathBuf>,
    /// The agent-bridge whose `serve` is measured (default: the one next to this binary).
    #[arg(long)]
    pub bridge_bin: Option<PathBuf>,
    #[command(flatten)]
    pub claude: claude::ClaudeArgs,
    #[command(flatten)]
    pub codex: codex::CodexArgs,
    #[command(flatten)]
    pub sharing: sharing::SharingArgs,
    #[command(flatten)]
    pub acp: acp::AcpArgs,
    #[command(flatten)]
    pub facade: facade::FacadeArgs,
}

pub fn run(args: BenchArgs) -> anyhow::Result<ExitCode> {
    let bridge = bridge_binary(args.bridge_bin.as_deref())?;
    if args.facade.facade {
        return facade::run(&args.facade, args.json, bridge);
    }
    if args.acp.acp {
        return acp::run(&args.acp, args.json, args.plugin_dir, bridge);
    }
    if args.sharing.sharing {
        return sharing::run(&args.sharing, args.json, args.plugin_dir, bridge);
    }
    if args.codex.codex {
        return codex::run(&args.codex, args.json, args.plugin_dir, bridge);
    }
    if args.claude.claude {
        return claude::run(&args.claude, args.json, args.plugin_dir, &bridge);
    }
    let release = !cfg!(debug_assertions);
    if !release {
        eprintln!("warning: this is a debug build; build with --release for meaningful numbers");
    }
    let dir = plugin::plugin_dir(args.plugin_dir.clone());
    let demo = plugin::providers(dir.as_deref())?
        .into_iter()
        .find(|p| p.agent == "demo")
        .map(|p| p.id)
        .ok_or_else(|| anyhow!("plugin.json has no provider with agent `demo`"))?;
    let cwd = std::env::temp_dir().to_string_lossy().into_owned();
    let progress = |what: &str| {
        if !args.json {
            eprintln!("bench: {what}");
        }
    };

    let mut b = Bridge::spawn(&bridge, dir.as_deref())?;
    progress("initialize");
    let (initialize_first_ms, initialize_repeat) = phases::initialize(&mut b, 20)?;
    std::thread::sleep(SETTLE);
    let rss_idle = phases::current_rss(&b)?;

    progress("opening sessions");
    let c1 = phases::connect(&mut b, &demo)?;
    let ids: Vec<String> = (0..RSS_SESSIONS).map(|i| format!("s{i}")).collect();
    let open_ns = phases::open_sequential(&mut b, &c1, &ids[..OPEN_SAMPLES], &cwd)?;
    phases::open_all(&mut b, &c1, &ids[OPEN_SAMPLES..], &cwd)?;
    std::thread::sleep(SETTLE);
    let rss_with = phases::current_rss(&b)?;

    progress("latency of small turns");
    let latency_unloaded =
        phases::small_turns(&mut b, &c1, &ids[0], SMALL_TURNS, SMALL_TURN_EVENTS)?;
    progress(&format!(
        "one streaming turn of {} items",
        args.stream_events
    ));
    let limit = Duration::from_secs(60 + u64::from(args.stream_events) / 1000);
    let (single_stream, _) = phases::stream(&mut b, &c1, &ids[..1], args.stream_events, limit)?;
    let _ = b.call(
        agent_bridge_protocol::wire::METHOD_CLOSE,
        serde_json::json!({ "connectionId": c1 }),
    )?;
    std::thread::sleep(SETTLE);
    let rss_after_close = phases::current_rss(&b)?;

    progress(&format!(
        "{} sessions x {} items at once",
        args.sessions, args.events
    ));
    let c2 = phases::connect(&mut b, &demo)?;
    let ids: Vec<String> = (0..args.sessions).map(|i| format!("c{i}")).collect();
    phases::open_all(&mut b, &c2, &ids, &cwd)?;
    let total = args.sessions as u64 * u64::from(args.events);
    let limit = Duration::from_secs(60 + total / 2000);
    let sampler = PeakSampler::process(b.pid)?;
    let concurrent = phases::stream(&mut b, &c2, &ids, args.events, limit);
    let peak = sampler.finish();
    let (concurrent, _) = concurrent?;
    std::thread::sleep(SETTLE);
    let (rss_after, hwm) = rss_bytes(b.pid).unwrap_or((0, 0));
    if let Err(e) = b.shutdown(Duration::from_secs(10)) {
        eprintln!("warning: {e:#}");
    }

    let report = Report {
        release_build: release,
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        initialize_first_ms,
        initialize_repeat,
        open: stats::Dist::from_nanos(open_ns),
        latency_unloaded,
        single_stream,
        rss_idle_bytes: rss_idle,
        rss_open_sessions: RSS_SESSIONS,
        rss_with_sessions_bytes: rss_with,
        rss_per_session_bytes: (rss_with as f64 - rss_idle as f64) / RSS_SESSIONS as f64,
        rss_after_close_bytes: rss_after_close,
        concurrent,
        concurrent_peak_rss_bytes: peak.max(rss_after),
        concurrent_after_rss_bytes: rss_after,
        vm_hwm_bytes: hwm,
    };
    let rows = report.rows();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "agent-bridge bench · {} build · {} CPUs · demo agent over pipes\n",
            if release { "release" } else { "debug" },
            report.cpus
        );
        print!("{}", format_table(&rows));
        println!(
            "\nbridge peak RSS over the whole run (VmHWM): {}",
            stats::fmt_mb(report.vm_hwm_bytes as f64)
        );
    }
    let missed = rows.iter().any(|r| r.verdict == Verdict::Fail);
    Ok(if missed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
