//! End-to-end failures (real bridge, real pinned `claude`, mock model) that only Claude Code
//! has: the CLI killed during the first turn (no handle yet), its guard killed, an API error
//! from the model server. The `kill -9` scenarios every family shares (mid-turn, right after a
//! completed turn, with a pending permission) are `agent_bridge_conformance::kill`, run for
//! claude-bridge by `tests/conformance/tests/agnostic_claude.rs`.

mod common;

use agent_bridge_conformance::procs;
use common::*;
use mock_llm::ScriptReply;
use serde_json::json;
use std::time::Duration;

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_killed_during_the_first_turn_publishes_no_handle_and_restarts() {
    let Some(rig) = rig().await else { return };
    rig.open("s-first", json!({})).await;
    let victim = first_session_cli(&rig);
    let (_, turn) = rig.start_turn("s-first", "SLOW please").await;
    rig.wait_streaming("s-first").await;
    let group = kill_group_of(&victim);
    let end = rig.turn_end("s-first", &turn).await;
    assert_eq!(end.turn_state(), Some("failed"), "{end}");
    assert!(procs::wait_gone(&group, Duration::from_secs(5))
        .await
        .is_empty());
    // Nothing was saved: no handle the host could fail to reopen.
    assert!(
        !rig.host
            .events()
            .iter()
            .any(|e| e.is_for("session.persistence", "s-first")),
        "a handle published before the transcript exists"
    );
    let again = rig.run_turn("s-first", "say hi").await;
    assert_eq!(
        again.state(),
        "completed",
        "{:?}\nbridge stderr:\n{}",
        again.end,
        rig.host.stderr()
    );
    // The CLI may have written the prompt to its transcript before it died (it resumes
    // that), or not (a new conversation): one notice says which.
    let fresh = rig.host.session_events("s-first").iter().any(|e| {
        e.is("session.notice")
            && e.string_at("/notice/id")
                .starts_with("agent-conversation-lost:")
    });
    assert_restarted_once(&rig, "s-first", fresh);
    // The new conversation's handle resumes.
    let handle = rig
        .wait("s-first", "session.persistence", |_| true)
        .await
        .at("/persistence")
        .cloned()
        .unwrap_or_default();
    rig.finish("s-first").await;
    rig.resume("s-reopened", json!({}), handle).await;
    let run = rig.run_turn("s-reopened", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    rig.finish("s-reopened").await;
    rig.report("kill-9-first-turn");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_guard_counts_as_the_cli_dying() {
    let Some(rig) = rig().await else { return };
    rig.open("s-guard", json!({})).await;
    let cli = first_session_cli(&rig);
    let guard = procs::read_proc(cli.ppid).expect("the CLI's parent");
    assert!(guard.cmdline.contains("__guard"), "the guard: {guard:?}");
    let (_, turn) = rig.start_turn("s-guard", "SLOW please").await;
    rig.wait_streaming("s-guard").await;
    // SAFETY: kill(2) of a process this test observed.
    unsafe {
        libc::kill(guard.pid, libc::SIGKILL);
    }
    let end = rig.turn_end("s-guard", &turn).await;
    assert_eq!(end.turn_state(), Some("failed"), "{end}");
    assert!(
        procs::wait_gone(&[cli.clone(), guard], Duration::from_secs(5))
            .await
            .is_empty(),
        "the CLI does not outlive its guard"
    );
    let again = rig.run_turn("s-guard", "say hi").await;
    assert_eq!(
        again.state(),
        "completed",
        "{:?}\nbridge stderr:\n{}",
        again.end,
        rig.host.stderr()
    );
    rig.finish("s-guard").await;
    rig.report("kill-9-guard");
}

/// SIGKILLs `victim` and returns everything that was in its process group.
fn kill_group_of(victim: &procs::ProcInfo) -> Vec<procs::ProcInfo> {
    let group: Vec<procs::ProcInfo> = procs::all_procs()
        .into_iter()
        .filter(|p| p.pgid == victim.pgid)
        .collect();
    // SAFETY: plain kill(2) of a process this test observed.
    unsafe {
        libc::kill(victim.pid, libc::SIGKILL);
    }
    group
}

/// Exactly one notice says the agent restarted, resuming its conversation or (`fresh`) in a new
/// one.
fn assert_restarted_once(rig: &Rig, sid: &str, fresh: bool) {
    let notices: Vec<String> = rig
        .host
        .session_events(sid)
        .iter()
        .filter(|e| e.is("session.notice"))
        .map(|e| e.string_at("/notice/id"))
        .collect();
    let restarted = notices
        .iter()
        .filter(|id| id.starts_with("agent-restarted:"))
        .count();
    let new_conversation = notices
        .iter()
        .filter(|id| id.starts_with("agent-conversation-lost:"))
        .count();
    assert_eq!(
        (restarted, new_conversation),
        if fresh { (0, 1) } else { (1, 0) },
        "{notices:?}"
    );
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_error_fails_the_turn_with_the_cli_message() {
    let Some(rig) = rig().await else { return };
    rig.open("s-err", json!({})).await;
    rig.mock.push_steps([ScriptReply::Error {
        status: 400,
        message: "mock says this request is invalid".into(),
    }]);
    let run = rig.run_turn("s-err", "say hi").await;
    assert_eq!(run.state(), "failed", "{:?}", run.end);
    let message = run.end.string_at("/error/message");
    assert!(
        message.contains("mock says this request is invalid"),
        "the CLI's message: {}",
        run.end
    );
    let diagnostic = run.end.string_at("/error/diagnostic");
    assert!(
        diagnostic.contains("mock says this request is invalid"),
        "diagnostic: {}",
        run.end
    );
    assert_eq!(run.end.at("/error/code"), Some(&json!("api_error")));
    // The session goes on.
    let run = rig.run_turn("s-err", "say hi").await;
    assert_eq!(run.state(), "completed");
    rig.finish("s-err").await;
    rig.report("api-error");
}
