//! One agent's soak from start to end: the mock and the CLI's hermetic environment (for a
//! provider with a CLI), the bridge, the run, the closes, the bridge's exit and what outlived
//! it.

use super::driver::{Driver, Setup};
use super::host::Host;
use super::ledger::Ledger;
use super::plan::plan;
use super::procs::Recorder;
use super::profile::Profile;
use super::report::Summary;
use super::SoakArgs;
use crate::host::locate::{package_version, pinned_cli};
use crate::host::mock::{Hermetic, MockServer};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long the bridge may take to exit after `shutdown` before it is killed.
const EXIT_LIMIT: Duration = Duration::from_secs(20);
/// How long the bridge's processes may take to disappear after it exited.
const ORPHAN_GRACE: Duration = Duration::from_secs(3);
const CLOSE_LIMIT: Duration = Duration::from_secs(60);

/// What a CLI needs: the mock, its hermetic environment (kept for the run), the launch.
struct Cli {
    _mock: MockServer,
    herm: Hermetic,
    launch: Value,
    label: String,
}

fn prepare_cli(args: &SoakArgs, name: &str, profile: &Profile) -> anyhow::Result<Cli> {
    let path = match &args.cli_bin {
        Some(dir) => dir.join(name),
        None => pinned_cli(name)?,
    };
    if !path.is_file() {
        anyhow::bail!("{} is not installed", path.display());
    }
    let mock = MockServer::start()?;
    let mut herm = Hermetic::for_cli(&mock, name, &path)?;
    for (k, v) in profile.extra_env {
        herm.env.insert((*k).to_string(), (*v).to_string());
    }
    let launch = json!({"command": path.display().to_string(), "args": [], "env": herm.env});
    Ok(Cli {
        _mock: mock,
        herm,
        launch,
        label: format!("{name} {}", package_version(&path)),
    })
}

/// Soaks one provider; `None` when its CLI is missing and `all` was asked for (skipped).
pub fn soak(
    args: &SoakArgs,
    profile: Profile,
    plugin_dir: Option<&Path>,
    bridge: &Path,
    all: bool,
) -> anyhow::Result<Option<Summary>> {
    let started = Instant::now();
    let cli = match profile.cli {
        Some(name) => match prepare_cli(args, name, &profile) {
            Ok(cli) => Some(cli),
            Err(e) if all => {
                eprintln!("soak {}: skipped: {e:#}", profile.provider);
                return Ok(None);
            }
            Err(e) => return Err(e),
        },
        None => None,
    };
    let tag = format!(
        "agent-bridge-soak-{}-{}",
        profile.provider,
        std::process::id()
    );
    let scratch = std::env::temp_dir().join(&tag);
    let cwd: PathBuf = match &cli {
        Some(c) => c.herm.workdir.clone(),
        None => scratch.clone(),
    };
    std::fs::create_dir_all(&cwd)?;
    let log = std::env::temp_dir().join(format!("{tag}.log"));
    if !args.json {
        eprintln!(
            "soak {}: {} sessions x {} turns, bridge log {}",
            profile.provider,
            args.sessions,
            args.turns,
            log.display()
        );
    }
    let mut summary = Summary {
        agent: profile.provider.clone(),
        cli: cli.as_ref().map(|c| c.label.clone()),
        sessions: args.sessions,
        turns_per_session: args.turns,
        seed: args.seed,
        kill_rate: args.kill_rate,
        interrupt_rate: args.interrupt_rate,
        warmup_turn: args.warmup(),
        bridge_log: log.display().to_string(),
        ..Summary::default()
    };
    let setup = Setup {
        profile,
        cwd: cwd.display().to_string(),
        turn_timeout: Duration::from_secs(args.turn_timeout),
        kill_target: args.kill_target,
        reopen: !args.no_reopen,
        warmup: args.warmup(),
        progress: !args.json,
        total: args.sessions * args.turns,
        shared: args.shared,
    };
    let plans = (0..args.sessions)
        .map(|i| plan(args.seed, i, args.turns, &args.rates()))
        .collect();
    let env = [("AGENT_BRIDGE_CLAUDE_SPARE", "0")];
    let mut host = Host::spawn(bridge, plugin_dir, &env, &log)?;
    let mut recorder = Recorder::start(host.pid)?;
    let mut ledger = Ledger::new();
    let mut driver = Driver::new(&mut host, &mut ledger, &recorder, &setup);
    let params = json!({"apiVersion": 1, "host": {"name": "agent-bridge soak", "version": env!("CARGO_PKG_VERSION")}});
    driver.call(
        agent_bridge_protocol::wire::METHOD_INITIALIZE,
        params,
        Duration::from_secs(30),
    )?;
    driver.connect(&setup.profile.provider, cli.as_ref().map(|c| &c.launch))?;
    summary.rss_start_bytes = driver.rss();
    driver.run(plans)?;
    summary.rss_end_bytes = driver.rss();
    summary.rss_warmup_bytes = driver.rss_warmup.unwrap_or(0);
    driver.close_all(CLOSE_LIMIT)?;
    let gone = driver.bridge_gone;
    summary.book(&ledger);
    let (status, killed) = host.shutdown(EXIT_LIMIT)?;
    summary.bridge_exit = format!("{status}{}", if killed { " (killed)" } else { "" });
    summary.bridge_trouble = if gone {
        Some(format!("the bridge stopped during the run ({status})"))
    } else if killed {
        Some(format!(
            "the bridge did not exit within {EXIT_LIMIT:?} of shutdown"
        ))
    } else {
        None
    };
    summary.processes_seen = recorder.finish();
    summary.orphans = recorder.survivors(ORPHAN_GRACE);
    summary.wall_seconds = started.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(Some(summary))
}
