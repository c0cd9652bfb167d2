//! Process hygiene: the bridge exits promptly on stdin close, `shutdown` and SIGTERM, and no
//! child outlives it, not even when it is SIGKILLed while a tool runs.

mod common;
use agent_bridge_conformance::procs;
use common::*;

/// The command line of the tool's own `sleep` process (not the shell or guard running it).
const SLEEP: &str = "sleep 30";

/// A bridge running `sleep 30` as the demo's shell tool; returns it with the recorded
/// descendants (the shell and the sleep).
async fn bridge_running_sleep() -> (Demo, Vec<ProcInfo>) {
    let d = demo().await;
    d.open("s", json!({"mode": "auto"})).await;
    d.prompt("s", "run `sleep 30`").await;
    d.wait(|e| e.is_for("timeline.item", "s") && e.item_type() == Some("tool_call"))
        .await;
    let procs = wait_descendant(&d.host, SLEEP).await;
    (d, procs)
}

async fn assert_clean_exit(d: &Demo, procs: &[ProcInfo], how: &str, since: std::time::Instant) {
    let status = d
        .host
        .wait_exit(EXIT_LIMIT)
        .await
        .unwrap_or_else(|e| panic!("{how}: {e:#}\n{}", d.host.stderr()));
    let took = since.elapsed();
    assert!(took <= EXIT_LIMIT, "{how}: exit took {took:?}");
    let alive = procs::wait_gone(procs, Duration::from_millis(200)).await;
    assert!(
        alive.is_empty(),
        "{how}: children outlived the bridge: {alive:#?}"
    );
    assert!(status.success(), "{how}: exit status {status}");
}

#[tokio::test]
async fn idle_bridge_exits_at_once_when_stdin_closes() {
    let d = demo().await;
    d.open("s", json!({})).await;
    let since = std::time::Instant::now();
    d.host.close_stdin().await;
    assert_clean_exit(&d, &[], "stdin close", since).await;
    assert!(
        since.elapsed() < Duration::from_secs(1),
        "an idle bridge exits promptly: {:?}",
        since.elapsed()
    );
    d.host.assert_invariants();
}

#[tokio::test]
async fn stdin_close_stops_running_tools() {
    let (d, procs) = bridge_running_sleep().await;
    let since = std::time::Instant::now();
    d.host.close_stdin().await;
    assert_clean_exit(&d, &procs, "stdin close", since).await;
    d.host.assert_invariants();
}

#[tokio::test]
async fn shutdown_notification_stops_running_tools() {
    let (d, procs) = bridge_running_sleep().await;
    let since = std::time::Instant::now();
    d.host.shutdown().await.expect("send shutdown");
    assert_clean_exit(&d, &procs, "shutdown", since).await;
    d.host.assert_invariants();
}

#[tokio::test]
async fn sigterm_takes_the_same_shutdown_path() {
    let (d, procs) = bridge_running_sleep().await;
    let since = std::time::Instant::now();
    d.host.signal(libc::SIGTERM).expect("SIGTERM");
    let status = d
        .host
        .wait_exit(EXIT_LIMIT)
        .await
        .expect("exit after SIGTERM");
    assert!(
        since.elapsed() <= EXIT_LIMIT,
        "SIGTERM: exit took {:?}",
        since.elapsed()
    );
    let alive = procs::wait_gone(&procs, Duration::from_millis(200)).await;
    assert!(
        alive.is_empty(),
        "SIGTERM: children outlived the bridge: {alive:#?}"
    );
    assert!(
        status.code().is_some(),
        "SIGTERM is handled, not fatal: {status}"
    );
    d.host.assert_invariants();
}

#[tokio::test]
async fn sigkill_leaves_no_orphan() {
    let (d, procs) = bridge_running_sleep().await;
    assert!(
        procs.len() >= 2 || procs.iter().any(|p| p.cmdline.starts_with("sleep")),
        "{procs:#?}"
    );
    d.host.signal(libc::SIGKILL).expect("SIGKILL");
    d.host
        .wait_exit(Duration::from_secs(2))
        .await
        .expect("the bridge died");
    let alive = procs::wait_gone(&procs, Duration::from_secs(1)).await;
    assert!(
        alive.is_empty(),
        "processes survived the SIGKILLed bridge (PR_SET_PDEATHSIG): {alive:#?}"
    );
}

#[tokio::test]
async fn session_close_stops_its_tool_processes() {
    let d = demo().await;
    d.open("a", json!({"mode": "auto"})).await;
    d.prompt("a", "run `sleep 30`").await;
    let procs = wait_descendant(&d.host, SLEEP).await;
    let rid = d.host.unique("close");
    let answer = d.ask(input::close(&rid, "a")).await;
    assert_eq!(answer.kind(), "request.completed", "{answer}");
    let alive = procs::wait_gone(&procs, Duration::from_secs(1)).await;
    assert!(
        alive.is_empty(),
        "session.close left processes behind: {alive:#?}"
    );
    d.host.assert_invariants();
}

#[tokio::test]
async fn a_tool_ignoring_sigterm_is_killed_within_the_budget() {
    let d = demo().await;
    d.open("s", json!({"mode": "auto"})).await;
    d.prompt("s", "run `trap '' TERM; sleep 30`").await;
    let procs = wait_descendant(&d.host, SLEEP).await;
    let since = std::time::Instant::now();
    d.host.close_stdin().await;
    assert_clean_exit(&d, &procs, "stdin close with a TERM-ignoring tool", since).await;
    d.host.assert_invariants();
}

/// A minimal ACP agent in sh that ignores SIGTERM and, once its stdin closes, stays (as
/// `sleep 60`, which inherits the ignored SIGTERM): only a kill ends it.
const STUBBORN_AGENT: &str = r#"trap '' TERM
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
  case "$line" in
    *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[]}}\n' "$id" ;;
    *'"method":"session/new"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"sessionId":"stub-1"}}\n' "$id" ;;
  esac
done
exec sleep 60
"#;

/// A plugin folder whose plugin.json is the workspace's with one provider: the stubborn agent.
fn stubborn_plugin() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("plugin dir");
    let script = dir.path().join("stubborn-agent.sh");
    std::fs::write(&script, STUBBORN_AGENT).expect("write the agent");
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../plugin.json");
    let text = std::fs::read_to_string(root).expect("the workspace plugin.json");
    let mut manifest: Value = serde_json::from_str(&text).expect("plugin.json parses");
    manifest["providers"] = json!([{"id": "stubborn", "label": "Stubborn", "agent": "acp",
        "command": ["sh", script.display().to_string()]}]);
    std::fs::write(dir.path().join("plugin.json"), manifest.to_string()).expect("plugin.json");
    dir
}

/// Paseo SIGTERMs its plugin process 2 s after `shutdown`: by then the bridge and every process
/// under it are gone, even an agent that ignores stdin close and SIGTERM (the graceful stop of
/// a session alone would wait 1.5 s + 1.5 s).
#[tokio::test]
async fn shutdown_ends_a_stubborn_agent_within_paseos_two_seconds() {
    let plugin = stubborn_plugin();
    let host = BridgeHost::spawn_with(HostOptions::default().env(
        "AGENT_BRIDGE_PLUGIN_DIR",
        plugin.path().display().to_string(),
    ))
    .await
    .expect("spawn");
    host.initialize().await.expect("initialize");
    let (conn, _) = host
        .connect("stubborn", &["prompt.message"], None)
        .await
        .expect("connect");
    let config = input::session_config(plugin.path(), json!({}));
    host.open_session(&conn, input::open("open", "s", config))
        .await
        .unwrap_or_else(|e| panic!("open: {e:#}\n{}", host.stderr()));
    let procs = host.descendants();
    assert!(
        procs
            .iter()
            .any(|p| p.cmdline.contains("stubborn-agent.sh")),
        "{procs:#?}"
    );
    let since = std::time::Instant::now();
    host.shutdown().await.expect("send shutdown");
    host.wait_exit(Duration::from_secs(2))
        .await
        .unwrap_or_else(|e| panic!("the bridge outlived 2 s: {e:#}\n{}", host.stderr()));
    let left = Duration::from_secs(2).saturating_sub(since.elapsed());
    let alive = procs::wait_gone(&procs, left).await;
    assert!(
        alive.is_empty(),
        "processes outlived 2 s after shutdown ({:?}): {alive:#?}",
        since.elapsed()
    );
}
