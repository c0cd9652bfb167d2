//! A Codex session survives its app-server's death, through the real bridge and the real
//! pinned `codex app-server`: after a `kill -9` the running turn fails with the exit status,
//! no process is left, and the next prompt starts a new app-server that resumes the thread
//! (`thread/resume`; the model sees the earlier conversation) with a warning notice, no
//! `session.runtime_failed` and no timeline row sent twice. A pending approval of the killed
//! turn is resolved; a thread that never got a rollout continues in a new thread.

mod common;

use agent_bridge_conformance::procs::ProcInfo;
use agent_bridge_conformance::Event;
use common::*;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::time::Duration;

/// SIGKILLs the session's app-server (the native binary behind the npm launcher); returns
/// every codex process of the bridge seen before, to check none survives.
fn kill_app_server(rig: &Rig) -> Vec<ProcInfo> {
    let codex =
        rig.procs_where(|p| p.cmdline.contains("codex") && p.cmdline.contains("app-server"));
    assert!(
        !codex.is_empty(),
        "no codex app-server among {:?}",
        rig.host.descendants()
    );
    let target = codex
        .iter()
        .find(|p| !p.cmdline.contains("node"))
        .unwrap_or(&codex[0]);
    // SAFETY: kill(2) on a pid just read from /proc.
    unsafe {
        libc::kill(target.pid, libc::SIGKILL);
    }
    codex
}

/// Waits until none of `procs` lives (the launcher and what it left go with the group).
async fn assert_all_gone(procs: &[ProcInfo]) {
    let deadline = tokio::time::Instant::now() + STEP;
    loop {
        let left: Vec<_> = procs.iter().filter(|p| p.is_alive()).collect();
        if left.is_empty() {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "orphans: {left:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits until the bridge took the death in (it logs that the runtime restarts with the next
/// prompt); a session with no turn running shows it nowhere else.
async fn wait_down(rig: &Rig) {
    let deadline = tokio::time::Instant::now() + STEP;
    while !rig
        .host
        .stderr()
        .contains("it restarts with the next prompt")
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the bridge did not notice the death:\n{}",
            rig.host.stderr()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The turn failed because the app-server died, and says how.
fn assert_died(end: &Event) {
    assert_eq!(end.turn_state(), Some("failed"), "{end}");
    let message = end.string_at("/error/message");
    assert!(
        message.contains("codex app-server exited unexpectedly (")
            && (message.contains("signal: 9") || message.contains("exit status")),
        "the error carries the exit status: {end}"
    );
}

/// The restart's notice: the agent resumed its conversation, or lost it.
fn is_restart_notice(e: &Event) -> bool {
    e.is("session.notice")
        && matches!(
            e.string_at("/notice/id").as_str(),
            "agent-restarted:1" | "agent-conversation-lost:1"
        )
}

/// The warning notice of the restart, and every event after it.
fn after_restart(events: &[Event]) -> (Event, Vec<Event>) {
    let at = events
        .iter()
        .position(is_restart_notice)
        .unwrap_or_else(|| panic!("a notice says the agent restarted: {events:#?}"));
    (events[at].clone(), events[at + 1..].to_vec())
}

/// No row sent before the restart is sent again after it (nothing replayed or duplicated).
fn assert_no_row_sent_again(events: &[Event]) {
    let (_, after) = after_restart(events);
    let before: HashSet<String> = events
        .iter()
        .take_while(|e| !is_restart_notice(e))
        .filter(|e| e.is("timeline.item"))
        .filter_map(|e| e.item_id().map(str::to_string))
        .collect();
    let again: Vec<&str> = after
        .iter()
        .filter(|e| e.is("timeline.item"))
        .filter_map(Event::item_id)
        .filter(|id| before.contains(*id))
        .collect();
    assert!(
        again.is_empty(),
        "rows sent again after the restart: {again:?}"
    );
}

fn assert_no_runtime_failed(rig: &Rig, session_id: &str) {
    let events = rig.host.session_events(session_id);
    assert!(
        !events.iter().any(|e| e.is("session.runtime_failed")),
        "{events:#?}"
    );
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_mid_turn_fails_the_turn_and_the_next_prompt_resumes_the_thread() {
    let Some(rig) = rig().await else { return };
    rig.open("s-kill", json!({})).await;
    let first = rig.run_turn("s-kill", "say hi").await;
    assert_eq!(first.state(), "completed", "{:?}", first.end);
    let first_reply = last_assistant_text(&rig.timeline("s-kill"));
    assert!(first_reply.starts_with("hi! (mock reply"), "{first_reply}");

    let (_, turn) = rig
        .start_turn("s-kill", "SLOW please write a long text")
        .await;
    // The slow reply streams (not the first turn's reply).
    rig.wait_streaming("s-kill").await;
    let codex = kill_app_server(&rig);
    let end = rig.turn_end("s-kill", &turn).await;
    assert_died(&end);
    assert_all_gone(&codex).await;

    // The next prompt restarts Codex, which resumes the thread: the model gets the earlier
    // conversation with it.
    rig.mock.clear_requests();
    let again = rig.run_turn("s-kill", "what did I say first?").await;
    assert_eq!(
        again.state(),
        "completed",
        "{:?}\nbridge stderr:\n{}",
        again.end,
        rig.host.stderr()
    );
    let body = rig.last_model_request().body.to_string();
    assert!(
        body.contains("what did I say first?")
            && body.contains("say hi")
            && body.contains(&first_reply),
        "the resumed thread carries the conversation: {body}"
    );
    let events = rig.host.session_events("s-kill");
    let (notice, _) = after_restart(&events);
    assert_eq!(
        notice.at("/notice/severity"),
        Some(&json!("warning")),
        "{notice}"
    );
    assert_no_row_sent_again(&events);
    assert_no_runtime_failed(&rig, "s-kill");
    let prompts: Vec<Value> = of_type(&rig.timeline("s-kill"), "user_message")
        .into_iter()
        .map(|i| i["text"].clone())
        .collect();
    assert_eq!(
        prompts,
        vec![
            json!("say hi"),
            json!("SLOW please write a long text"),
            json!("what did I say first?")
        ],
        "each prompt once"
    );
    // And it goes on: a later turn works on the new app-server.
    let later = rig.run_turn("s-kill", "say hi once more").await;
    assert_eq!(later.state(), "completed", "{:?}", later.end);
    rig.finish("s-kill").await;
    rig.report("kill-9-mid-turn-restart");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_with_a_pending_approval_resolves_it_and_the_session_recovers() {
    let Some(rig) = rig().await else { return };
    rig.open("s-perm", json!({"mode": "ask"})).await;
    let (_, turn) = rig
        .start_turn("s-perm", "please run `touch never.txt`")
        .await;
    let (_, pid) = rig.wait_permission("s-perm", None).await;
    let codex = kill_app_server(&rig);
    rig.wait_resolved("s-perm", &pid).await;
    let end = rig.turn_end("s-perm", &turn).await;
    assert_died(&end);
    assert_all_gone(&codex).await;
    assert!(!rig.cwd().join("never.txt").exists());

    // The restarted Codex runs in the committed mode: it asks again, and runs when allowed.
    let (_, turn) = rig
        .start_turn("s-perm", "please run `touch allowed.txt`")
        .await;
    let (_, pid2) = rig.wait_permission("s-perm", Some(&pid)).await;
    rig.answer_permission("s-perm", &pid2, json!({"behavior": "allow"}))
        .await;
    rig.wait_resolved("s-perm", &pid2).await;
    let end = rig.turn_end("s-perm", &turn).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    assert!(rig.cwd().join("allowed.txt").exists());
    let events = rig.host.session_events("s-perm");
    after_restart(&events);
    assert_no_row_sent_again(&events);
    assert_no_runtime_failed(&rig, "s-perm");
    rig.finish("s-perm").await;
    rig.report("kill-9-pending-approval-restart");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_before_the_first_turn_continues_in_a_new_thread_with_a_notice() {
    let Some(rig) = rig().await else { return };
    let opened = rig.open("s-fresh", json!({})).await;
    let thread = opened
        .iter()
        .find(|e| e.is("session.opened"))
        .map(|e| e.string_at("/persistence/data/threadId"))
        .expect("opened");
    let codex = kill_app_server(&rig);
    assert_all_gone(&codex).await;
    wait_down(&rig).await;

    let run = rig.run_turn("s-fresh", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    // Codex had written nothing of the thread ("no rollout found"): a new thread, announced.
    let lost = rig
        .wait("s-fresh", "session.notice", |e| {
            e.string_at("/notice/id") == "agent-conversation-lost:1"
        })
        .await;
    assert_eq!(
        lost.at("/notice/severity"),
        Some(&json!("warning")),
        "{lost}"
    );
    assert!(
        lost.string_at("/notice/description").contains(&thread),
        "{lost}"
    );
    let handle = rig.wait("s-fresh", "session.persistence", |_| true).await;
    let new_thread = handle.string_at("/persistence/data/threadId");
    assert!(!new_thread.is_empty() && new_thread != thread, "{handle}");
    let events = rig.host.session_events("s-fresh");
    after_restart(&events);
    assert_no_runtime_failed(&rig, "s-fresh");
    // The new thread keeps the conversation from now on.
    let next = rig.run_turn("s-fresh", "and now?").await;
    assert_eq!(next.state(), "completed", "{:?}", next.end);
    let body = rig.last_model_request().body.to_string();
    assert!(
        body.contains("and now?") && body.contains("say hi"),
        "{body}"
    );
    rig.finish("s-fresh").await;
    rig.report("kill-9-before-first-turn-new-thread");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_right_after_a_completed_turn_keeps_the_conversation() {
    // The audit of issue 25 for Codex: the app-server killed the moment a turn completed,
    // before it may have flushed the turn to its rollout. Resumed or carried over, the model
    // sees the earlier turn and the session is never given up.
    let Some(rig) = rig().await else { return };
    rig.open("s-after", json!({})).await;
    let first = rig
        .run_turn("s-after", "say hi, and remember the word PLUM-AFTER-9")
        .await;
    assert_eq!(first.state(), "completed", "{:?}", first.end);
    let codex = kill_app_server(&rig);
    assert_all_gone(&codex).await;
    rig.mock.clear_requests();
    let again = rig
        .run_turn("s-after", "which word did I ask you to remember")
        .await;
    assert_eq!(
        again.state(),
        "completed",
        "{:?}\nbridge stderr:\n{}",
        again.end,
        rig.host.stderr()
    );
    let body = rig.last_model_request().body.to_string();
    assert!(
        body.contains("PLUM-AFTER-9") && body.contains("which word"),
        "the earlier turn reaches the model: {body}"
    );
    let events = rig.host.session_events("s-after");
    let (notice, _) = after_restart(&events);
    eprintln!(
        "AUDIT: codex {} killed right after a completed turn: {}",
        rig.version,
        notice.string_at("/notice/id")
    );
    assert_no_runtime_failed(&rig, "s-after");
    rig.finish("s-after").await;
    rig.report("kill-9-after-completed-turn");
}
