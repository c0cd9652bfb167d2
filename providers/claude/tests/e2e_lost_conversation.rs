//! End-to-end (real bridge, real pinned `claude`, mock model): a conversation the CLI has not
//! written to disk, or whose transcript is gone, never costs the session.
//!
//! Claude Code writes its transcript from a 100 ms timer after a run's `result` (see
//! `crate::saved`). These tests force the window instead of timing it: the transcript is
//! removed after the CLI is killed, so `--resume` has nothing to find, whenever the kill came.

mod common;

use agent_bridge_conformance::procs;
use common::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The transcript of the native session `id`, wherever the CLI put it.
fn transcript(rig: &Rig, id: &str) -> Option<PathBuf> {
    let projects = rig.env.config_dir.join("projects");
    std::fs::read_dir(projects)
        .ok()?
        .flatten()
        .map(|d| d.path().join(format!("{id}.jsonl")))
        .find(|p| p.is_file())
}

fn native_id(handle: &Value) -> String {
    handle["data"]["sessionId"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// The session CLI's process group, read before a kill so the kill itself is immediate.
fn group_of(victim: &procs::ProcInfo) -> Vec<procs::ProcInfo> {
    procs::all_procs()
        .into_iter()
        .filter(|p| p.pgid == victim.pgid)
        .collect()
}

fn kill(victim: &procs::ProcInfo) {
    // SAFETY: plain kill(2) of a process this test observed.
    unsafe {
        libc::kill(victim.pid, libc::SIGKILL);
    }
}

/// SIGKILLs the session's CLI and waits until its whole group is gone.
async fn kill_and_wait(victim: &procs::ProcInfo) {
    let group = group_of(victim);
    kill(victim);
    wait_gone(&group).await;
}

async fn wait_gone(group: &[procs::ProcInfo]) {
    assert!(
        procs::wait_gone(group, Duration::from_secs(5))
            .await
            .is_empty(),
        "no orphan of the killed CLI"
    );
}

fn notices(rig: &Rig, sid: &str) -> Vec<Value> {
    rig.host
        .session_events(sid)
        .iter()
        .filter(|e| e.is("session.notice"))
        .filter_map(|e| e.at("/notice").cloned())
        .collect()
}

fn model_bodies_since(rig: &Rig, before: usize) -> Vec<String> {
    rig.mock.requests()[before..]
        .iter()
        .filter(|r| r.is_model_call())
        .map(|r| r.body.to_string())
        .collect()
}

fn assert_not_given_up(rig: &Rig) {
    assert!(
        !rig.host
            .events()
            .iter()
            .any(|e| e.is("session.runtime_failed")),
        "no session was given up:\n{}",
        rig.host.stderr()
    );
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_handle_is_published_once_the_transcript_holds_the_turn() {
    let Some(rig) = rig().await else { return };
    rig.open("s-saved", json!({})).await;
    let run = rig.run_turn("s-saved", "remember the word PELICAN").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let reply = last_assistant_text(&rig.timeline("s-saved"));
    assert!(!reply.is_empty());
    let handle = rig
        .wait("s-saved", "session.persistence", |_| true)
        .await
        .at("/persistence")
        .cloned()
        .unwrap_or_default();
    // Read at once: a handle published at the run's `result` finds no file yet.
    let path = transcript(&rig, &native_id(&handle)).expect("the transcript exists");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        text.contains("remember the word PELICAN") && text.contains(&reply),
        "the transcript holds the turn when its handle is out: {text}"
    );
    rig.finish("s-saved").await;
    rig.report("handle-after-transcript");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cli_killed_right_after_a_published_turn_resumes_it() {
    // The window of issue 25: first turn completed and its handle published, the CLI killed
    // right after the second prompt was written.
    let Some(rig) = rig().await else { return };
    rig.open("s-early", json!({})).await;
    let victim = first_session_cli(&rig);
    let first = rig.run_turn("s-early", "remember the word PELICAN").await;
    assert_eq!(first.state(), "completed", "{:?}", first.end);
    rig.wait("s-early", "session.persistence", |_| true).await;
    let group = group_of(&victim);
    // The kill follows the second prompt's line at once.
    let cmid = rig
        .host
        .prompt(&rig.conn, "s-early", "SLOW please")
        .await
        .expect("prompt admitted");
    kill(&victim);
    wait_gone(&group).await;
    let result = rig.prompt_result("s-early", &cmid).await;
    if let Some(turn) = result["turnId"].as_str() {
        let end = rig.turn_end("s-early", turn).await;
        assert_eq!(end.turn_state(), Some("failed"), "{end}");
    }
    let before = rig.mock.requests().len();
    let again = rig
        .run_turn("s-early", "which word did I ask you to remember")
        .await;
    assert_eq!(
        again.state(),
        "completed",
        "{:?}\nbridge stderr:\n{}",
        again.end,
        rig.host.stderr()
    );
    let ids: Vec<String> = notices(&rig, "s-early")
        .iter()
        .map(|n| n["id"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(ids, vec!["agent-restarted:1"], "resumed, not fresh");
    assert!(
        model_bodies_since(&rig, before)
            .iter()
            .any(|b| b.contains("PELICAN") && b.contains("which word")),
        "the resumed conversation reaches the model"
    );
    assert_not_given_up(&rig);
    rig.finish("s-early").await;
    rig.report("kill-9-after-published-turn");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conversation_lost_with_its_cli_continues_anew_with_the_timeline_as_context() {
    let Some(rig) = rig().await else { return };
    rig.open("s-lost", json!({})).await;
    let victim = first_session_cli(&rig);
    let first = rig.run_turn("s-lost", "remember the word PELICAN").await;
    assert_eq!(first.state(), "completed", "{:?}", first.end);
    // Killed right after the turn's end, then the transcript removed: whether or not the CLI
    // had flushed it, there is nothing to resume.
    kill_and_wait(&victim).await;
    let projects = rig.env.config_dir.join("projects");
    remove_transcripts(&projects);
    let before = rig.mock.requests().len();
    let since = rig
        .host
        .session_events("s-lost")
        .iter()
        .map(|e| e.seq)
        .max()
        .unwrap_or(0);
    let again = rig
        .run_turn("s-lost", "which word did I ask you to remember")
        .await;
    assert_eq!(
        again.state(),
        "completed",
        "{:?}\nbridge stderr:\n{}",
        again.end,
        rig.host.stderr()
    );
    let notices = notices(&rig, "s-lost");
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert_eq!(notices[0]["id"], "agent-conversation-lost:1");
    assert_eq!(notices[0]["severity"], "warning");
    // The model got the earlier exchange as context with the new prompt.
    let bodies = model_bodies_since(&rig, before);
    assert!(
        bodies
            .iter()
            .any(|b| b.contains("remember the word PELICAN") && b.contains("which word")),
        "the carried context reaches the model: {bodies:?}"
    );
    // The timeline shows the prompt as typed.
    let rows = rig.timeline("s-lost");
    let typed: Vec<&Value> = of_type(&rows, "user_message")
        .into_iter()
        .filter(|r| r["text"] == "which word did I ask you to remember")
        .collect();
    assert_eq!(typed.len(), 1, "{rows:?}");
    assert!(
        !rows.iter().any(|r| r["text"]
            .as_str()
            .is_some_and(|t| t.contains("agent-bridge-context"))),
        "no context in the timeline"
    );
    assert_not_given_up(&rig);
    // The new conversation gets a handle of its own, which reopens with the prompt as typed.
    let handle = rig
        .wait("s-lost", "session.persistence", |e| e.seq > since)
        .await
        .at("/persistence")
        .cloned()
        .unwrap_or_default();
    assert!(
        transcript(&rig, &native_id(&handle)).is_some(),
        "the new handle names a saved conversation: {handle}"
    );
    rig.finish("s-lost").await;
    rig.resume("s-lost-again", json!({}), handle).await;
    let replayed = rig.timeline("s-lost-again");
    assert!(
        of_type(&replayed, "user_message")
            .iter()
            .any(|r| r["text"] == "which word did I ask you to remember"),
        "the replay shows the prompt as typed: {replayed:?}"
    );
    let run = rig.run_turn("s-lost-again", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    rig.finish("s-lost-again").await;
    rig.report("conversation-lost");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_saved_handle_whose_transcript_is_gone_opens_a_new_conversation() {
    let Some(rig) = rig().await else { return };
    rig.open("s-old", json!({})).await;
    let run = rig.run_turn("s-old", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let handle = rig
        .wait("s-old", "session.persistence", |_| true)
        .await
        .at("/persistence")
        .cloned()
        .unwrap_or_default();
    rig.finish("s-old").await;
    remove_transcripts(&rig.env.config_dir.join("projects"));
    let opened = rig.resume("s-reopened", json!({}), handle.clone()).await;
    assert!(
        opened.iter().any(|e| e.is("session.ready")),
        "the open succeeds: {opened:?}"
    );
    let notices = notices(&rig, "s-reopened");
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(
        notices[0]["id"]
            .as_str()
            .is_some_and(|id| id.starts_with("claude-conversation-not-resumed:")),
        "{notices:?}"
    );
    assert_eq!(notices[0]["severity"], "warning");
    let run = rig.run_turn("s-reopened", "say hi").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let fresh = rig
        .wait("s-reopened", "session.persistence", |_| true)
        .await
        .at("/persistence")
        .cloned()
        .unwrap_or_default();
    assert_ne!(native_id(&fresh), native_id(&handle), "a new conversation");
    rig.finish("s-reopened").await;
    rig.report("reopen-lost-transcript");
}

fn remove_transcripts(projects: &Path) {
    for dir in std::fs::read_dir(projects).into_iter().flatten().flatten() {
        for file in std::fs::read_dir(dir.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if file.path().extension().is_some_and(|e| e == "jsonl") {
                let _ = std::fs::remove_file(file.path());
            }
        }
    }
}
