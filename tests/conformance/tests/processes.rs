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
