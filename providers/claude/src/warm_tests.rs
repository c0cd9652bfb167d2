//! Unit tests of the spare pool, with a stand-in `claude` (a shell script that answers every
//! control request and records its pid).

use super::*;
use agent_bridge_core::spares::PrestartedPool;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

const STAND_IN: &str = r#"#!/bin/sh
echo $$ >> "$(dirname "$0")/starts"
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"request_id":"\([^"]*\)".*/\1/p')
  if [ -n "$id" ]; then
    printf '{"type":"control_response","response":{"subtype":"success","request_id":"%s","response":{"commands":[],"models":[]}}}\n' "$id"
  fi
done
"#;

fn stand_in(dir: &Path) -> LaunchOverride {
    let path = dir.join("claude");
    std::fs::write(&path, STAND_IN).expect("write the stand-in");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    LaunchOverride {
        command: Some(path.display().to_string()),
        args: Vec::new(),
        env: None,
        ..LaunchOverride::default()
    }
}

fn start_in(launch: &LaunchOverride, cwd: &Path) -> SpareStart {
    SpareStart {
        launch: launch.clone(),
        env: BTreeMap::new(),
        opts: LaunchOptions {
            cwd: cwd.display().to_string(),
            mode: "default".into(),
            ..LaunchOptions::default()
        },
    }
}

fn starts(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("starts"))
        .map(|s| s.lines().count())
        .unwrap_or(0)
}

/// Alive and not a zombie.
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .and_then(|(_, rest)| rest.trim().chars().next())
        })
        .is_some_and(|state| state != 'Z' && state != 'X')
}

async fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !cond() {
        assert!(tokio::time::Instant::now() < deadline, "never: {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The idle time of the tests' spares (the bridge's default).
const IDLE: Duration = agent_bridge_core::spares::DEFAULT_IDLE;

/// A Claude provider's processes: spares kept `idle`, at most `max_spares`.
fn processes(idle: Duration, max_spares: usize) -> ClaudeProcesses {
    let options = ProcessOptions {
        max_spares,
        ..ProcessOptions::defaults(Sharing::Never)
    };
    let spares = agent_bridge_core::spares::Spares::new(idle);
    ClaudeProcesses::new("claude-bridge", &options, &spares, Duration::from_secs(5))
}

/// The prestarted spares of `processes`.
fn pool(processes: &ClaudeProcesses) -> &PrestartedPool<SpareKey, Spare> {
    processes.prestarted().expect("a process per session")
}

/// The pid of the ready spare for `start` (taken and put back).
async fn spare_pid(pool: &PrestartedPool<SpareKey, Spare>, start: &SpareStart) -> u32 {
    let spare = pool.take(&start.key()).expect("a ready spare");
    let pid = spare.pid().await.expect("pid");
    assert!(pool.offer(start.key(), spare).is_none(), "kept again");
    pid
}

#[test]
fn any_difference_in_the_spawn_is_another_key() {
    let launch = LaunchOverride::default();
    let base = start_in(&launch, Path::new("/w"));
    assert_eq!(base.key(), start_in(&launch, Path::new("/w")).key());
    let mut variants = Vec::new();
    let mut v = base.clone();
    v.opts.resume = Some("abc".into());
    variants.push(v);
    let mut v = base.clone();
    v.opts.model = Some("sonnet".into());
    variants.push(v);
    let mut v = base.clone();
    v.opts.mode = "plan".into();
    variants.push(v);
    let mut v = base.clone();
    v.opts.effort = Some("low".into());
    variants.push(v);
    let mut v = base.clone();
    v.env.insert("FOO".into(), "1".into());
    variants.push(v);
    let mut v = base.clone();
    v.launch.env = Some(BTreeMap::new());
    variants.push(v);
    variants.push(start_in(&launch, Path::new("/other")));
    // MCP servers are passed in a file, not on the command line: still another key.
    let mut v = base.clone();
    v.opts.mcp_servers.insert(
        "tools".into(),
        agent_bridge_protocol::McpServerConfig::Stdio {
            command: "srv".into(),
            args: None,
            env: None,
            always_load: None,
        },
    );
    let mut w = v.clone();
    w.opts.mcp_servers.insert(
        "more".into(),
        agent_bridge_protocol::McpServerConfig::Stdio {
            command: "srv2".into(),
            args: None,
            env: None,
            always_load: None,
        },
    );
    assert_ne!(v.key(), w.key());
    variants.push(v);
    for v in variants {
        assert_ne!(base.key(), v.key(), "{:?}", v.opts);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_spare_per_key_is_taken_once_and_dropping_the_pool_kills_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let launch = stand_in(dir.path());
    let start = start_in(&launch, dir.path());
    let processes = processes(IDLE, 1);
    let pool = pool(&processes);
    prestart(&processes, start.clone());
    prestart(&processes, start.clone());
    eventually("a spare is ready", || pool.len() == 1).await;
    prestart(&processes, start.clone());
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(starts(dir.path()), 1, "one spare per key");
    assert_eq!(
        peek_init(&processes, &start.key()),
        Some(serde_json::json!({"commands": [], "models": []}))
    );

    let mut other = start.clone();
    other.opts.mode = "plan".into();
    assert!(pool.take(&other.key()).is_none(), "other flags never match");

    let pid = spare_pid(pool, &start).await;
    assert!(alive(pid));
    let spare = pool.take(&start.key()).expect("taken");
    assert!(pool.take(&start.key()).is_none(), "taken once");
    let (sink, _events) = SessionSink::channel();
    let (runtime, init) = spare.attach("s1", sink);
    assert_eq!(init["commands"], serde_json::json!([]));
    assert!(runtime.events.sink().is_some(), "events go to the session");
    drop(runtime);
    eventually("a dropped runtime kills its process", || !alive(pid)).await;

    prestart(&processes, start.clone());
    eventually("a new spare is ready", || pool.len() == 1).await;
    let pid = spare_pid(pool, &start).await;
    drop(processes);
    eventually("dropping the pool kills the spare", || !alive(pid)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_spare_is_stopped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let start = start_in(&stand_in(dir.path()), dir.path());
    let processes = processes(Duration::from_millis(500), 1);
    let pool = pool(&processes);
    prestart(&processes, start.clone());
    eventually("a spare is ready", || pool.len() == 1).await;
    let pid = spare_pid(pool, &start).await;
    eventually("the idle spare is gone", || pool.is_empty()).await;
    eventually("its process is stopped", || !alive(pid)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_spare_is_not_handed_out() {
    let dir = tempfile::tempdir().expect("tempdir");
    let start = start_in(&stand_in(dir.path()), dir.path());
    let processes = processes(IDLE, 1);
    let pool = pool(&processes);
    prestart(&processes, start.clone());
    eventually("a spare is ready", || pool.len() == 1).await;
    let pid = spare_pid(pool, &start).await;
    // SAFETY: plain kill(2) of the stand-in this test started.
    unsafe {
        libc::kill(pid as libc::pid_t, libc::SIGKILL);
    }
    eventually("the spare is seen dead", || {
        peek_init(&processes, &start.key()).is_none()
    })
    .await;
    assert!(pool.take(&start.key()).is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_oldest_spare_goes_beyond_the_limit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let launch = stand_in(dir.path());
    let processes = processes(IDLE, 2);
    let pool = pool(&processes);
    let cwds: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().expect("cwd")).collect();
    let mut pids = Vec::new();
    for (n, cwd) in cwds.iter().enumerate() {
        let start = start_in(&launch, cwd.path());
        prestart(&processes, start.clone());
        eventually("a spare is ready", || {
            peek_init(&processes, &start.key()).is_some()
        })
        .await;
        pids.push(spare_pid(pool, &start).await);
        assert_eq!(pool.len(), (n + 1).min(2));
    }
    assert!(pool
        .take(&start_in(&launch, cwds[0].path()).key())
        .is_none());
    eventually("the evicted spare is killed", || !alive(pids[0])).await;
    assert!(alive(pids[1]) && alive(pids[2]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_disabled_pool_keeps_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let start = start_in(&stand_in(dir.path()), dir.path());
    let processes = processes(IDLE, 0);
    let pool = pool(&processes);
    prestart(&processes, start.clone());
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(starts(dir.path()), 0);
    let mut spare = Spare::start(&start).await.expect("a process");
    spare = pool.offer(start.key(), spare).expect("handed back");
    spare.runtime.shutdown().await;
    assert!(pool.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_take_waits_for_a_starting_spare() {
    let dir = tempfile::tempdir().expect("tempdir");
    let start = start_in(&stand_in(dir.path()), dir.path());
    let processes = processes(IDLE, 1);
    let pool = pool(&processes);
    prestart(&processes, start.clone());
    // Still starting: the take waits for it instead of missing it.
    let spare = pool.take_or_wait(&start.key()).await.expect("the spare");
    assert_eq!(starts(dir.path()), 1);
    assert!(pool.is_empty());
    // Nothing starting, nothing ready: no wait, no spare.
    assert!(pool.take_or_wait(&start.key()).await.is_none());
    drop(spare);
}
