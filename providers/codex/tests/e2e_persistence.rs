//! Persistence through the real bridge and the real pinned `codex app-server`: resume in a
//! fresh bridge with history replay, the mode the reopen asks for, and the session list
//! (threads started outside Paseo included).

mod common;

use agent_bridge_conformance::Event;
use common::*;
use serde_json::{json, Value};

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_in_a_fresh_bridge_replays_the_thread_and_continues_it() {
    let Some(rig) = rig().await else { return };
    let opened = rig.open("s-first", json!({"mode": "full-access"})).await;
    let persistence = opened
        .iter()
        .find(|e| e.is("session.opened"))
        .and_then(|e| e.at("/persistence").cloned())
        .expect("persistence at open");
    let run = rig.run_turn("s-first", "say hi").await;
    assert_eq!(run.state(), "completed");
    let run = rig.run_turn("s-first", "please run `echo hello`").await;
    assert_eq!(run.state(), "completed");
    let first_reply = last_assistant_text(&rig.timeline("s-first"));
    rig.finish("s-first").await;

    // A new bridge process, same CODEX_HOME.
    let again = rig.reconnect().await;
    let events = again
        .resume("s-again", json!({}), persistence.clone())
        .await;
    let host = &again.host;
    assert!(
        !host.stderr().contains("thread/turns/list failed"),
        "paged history: {}",
        host.stderr()
    );
    let opened = events
        .iter()
        .find(|e| e.is("session.opened"))
        .expect("opened");
    assert_eq!(
        opened.at("/persistence/data/threadId"),
        persistence.pointer("/data/threadId")
    );
    assert_eq!(opened.at("/title"), Some(&json!("say hi")), "{opened}");
    // Replayed before session.ready, in order: prompt, reply, prompt, shell, reply.
    let replayed: Vec<Value> = events
        .iter()
        .filter(|e| e.is("timeline.item"))
        .filter_map(|e| e.item().cloned())
        .collect();
    let kinds: Vec<&str> = replayed.iter().filter_map(|i| i["type"].as_str()).collect();
    assert_eq!(
        kinds,
        vec![
            "user_message",
            "assistant_message",
            "user_message",
            "tool_call",
            "assistant_message"
        ],
        "{replayed:#?}"
    );
    assert_eq!(replayed[0]["text"], "say hi");
    assert!(replayed[1]["text"]
        .as_str()
        .unwrap_or("")
        .starts_with("hi! (mock reply"));
    assert_eq!(replayed[3]["detail"]["command"], "echo hello");
    assert_eq!(replayed[3]["status"], "completed");
    assert_eq!(replayed[4]["text"], json!(first_reply));

    // The thread continues: the next model request carries the earlier conversation.
    rig.mock.clear_requests();
    let run = again.run_turn("s-again", "say hi again").await;
    assert_eq!(run.state(), "completed", "{:?}", run.end);
    let request = rig.last_model_request();
    let body = request.body.to_string();
    assert!(
        body.contains("say hi again") && body.contains("please run `echo hello`"),
        "{body}"
    );
    again.finish("s-again").await;
    rig.report("resume-replay");
}

/// Paseo reopens a session with the mode it last had (its agent record's `config.modeId`, sent
/// in the resume's config). Codex's `thread/resume` brings back the approval policy and sandbox
/// the thread's last turn ran with, but a mode chosen after the last turn never reached Codex
/// (it travels with the next `turn/start`): that session comes back in the mode its open asks
/// for, and uses it.
#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resume_in_a_fresh_bridge_runs_in_the_mode_its_open_asks_for() {
    let Some(rig) = rig().await else { return };
    let handle = |opened: &[Event]| {
        opened
            .iter()
            .find(|e| e.is("session.opened"))
            .and_then(|e| e.at("/persistence").cloned())
            .expect("persistence at open")
    };
    // `ask`, then a turn in it.
    let turned = handle(&rig.open("s-turned", json!({})).await);
    let done = rig.configure("s-turned", json!({"mode": "ask"})).await;
    assert!(done.is("request.completed"), "{done}");
    let run = rig.run_turn("s-turned", "say hi").await;
    assert_eq!(run.state(), "completed");
    rig.finish("s-turned").await;
    // A turn, then `ask` and no turn.
    let persistence = handle(&rig.open("s-mode", json!({})).await);
    let run = rig.run_turn("s-mode", "say hi").await;
    assert_eq!(run.state(), "completed");
    let done = rig.configure("s-mode", json!({"mode": "ask"})).await;
    assert!(done.is("request.completed"), "{done}");
    rig.finish("s-mode").await;

    let again = rig.reconnect().await;
    let mode_of = |events: &[Event]| {
        events
            .iter()
            .find(|e| e.is("session.config"))
            .and_then(|e| e.at("/config/mode").cloned())
    };
    // Without a mode: the one the last turn ran in, Codex's default when none did.
    let kept = again.resume("s-kept", json!({}), turned).await;
    assert_eq!(mode_of(&kept), Some(json!("ask")));
    again.finish("s-kept").await;
    let bare = again.resume("s-bare", json!({}), persistence.clone()).await;
    assert_eq!(mode_of(&bare), Some(json!("full-access")));
    again.finish("s-bare").await;

    // With the mode the host last had: it is the session's, and a command asks.
    let asked = again
        .resume("s-ask", json!({"mode": "ask"}), persistence)
        .await;
    assert_eq!(mode_of(&asked), Some(json!("ask")));
    let (_, turn) = again
        .start_turn("s-ask", "please run `touch after-reopen.txt`")
        .await;
    let (_, pid) = again.wait_permission("s-ask", None).await;
    again
        .answer_permission(
            "s-ask",
            &pid,
            json!({"behavior": "deny", "selectedActionId": "deny"}),
        )
        .await;
    let end = again.turn_end("s-ask", &turn).await;
    assert_eq!(end.turn_state(), Some("completed"), "{end}");
    assert!(!again.cwd().join("after-reopen.txt").exists());
    again.finish("s-ask").await;
    rig.report("resume-mode");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_list_shows_bridge_threads_and_threads_started_outside() {
    let Some(rig) = rig().await else { return };
    rig.open("s-list", json!({})).await;
    let run = rig.run_turn("s-list", "say hi from the bridge").await;
    assert_eq!(run.state(), "completed");
    let ours = rig
        .host
        .session_events("s-list")
        .into_iter()
        .find(|e| e.is("session.opened"))
        .and_then(|e| e.at("/persistence/data/threadId").cloned())
        .expect("thread id");
    rig.finish("s-list").await;

    // A thread started with the plain CLI, outside Paseo.
    let mut cmd = tokio::process::Command::new(&rig.cli);
    cmd.args([
        "exec",
        "--json",
        "--skip-git-repo-check",
        "say hi from exec",
    ])
    .stdin(std::process::Stdio::null())
    .kill_on_drop(true);
    rig.env.apply(&mut cmd);
    let out = tokio::time::timeout(STEP, cmd.output())
        .await
        .expect("codex exec finished")
        .expect("codex exec ran");
    assert!(
        out.status.success(),
        "codex exec: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    let cwd = rig.cwd().display().to_string();
    let answer = rig
        .ask(
            "list",
            |rid| json!({"type": "sessions", "requestId": rid, "cwd": cwd}),
        )
        .await;
    assert!(answer.is("sessions"), "{answer}");
    let sessions = answer
        .at("/sessions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let bridge = sessions
        .iter()
        .find(|s| s.pointer("/persistence/data/threadId") == Some(&ours))
        .unwrap_or_else(|| panic!("our thread is listed: {sessions:#?}"));
    assert_eq!(bridge["firstPromptPreview"], "say hi from the bridge");
    assert_eq!(bridge["cwd"], json!(rig.cwd().display().to_string()));
    assert!(bridge["updatedAt"]
        .as_str()
        .is_some_and(|t| t.ends_with('Z')));
    assert!(
        sessions
            .iter()
            .any(|s| s["firstPromptPreview"] == "say hi from exec"),
        "the exec thread is listed: {sessions:#?}"
    );
    rig.host.assert_invariants();
    rig.report("session-list");
}

#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thread_that_cannot_be_resumed_continues_in_a_new_one_with_a_notice() {
    let Some(rig) = rig().await else { return };
    let gone = json!({"version": 1, "data": {"threadId": "019a0000-0000-7000-8000-000000000000", "cwd": "/nowhere"}});
    let events = rig.resume("s-gone", json!({}), gone).await;
    let opened = events
        .iter()
        .find(|e| e.is("session.opened"))
        .expect("opened");
    let thread = opened
        .at("/persistence/data/threadId")
        .and_then(Value::as_str)
        .unwrap_or_default();
    assert!(
        !thread.is_empty() && thread != "019a0000-0000-7000-8000-000000000000",
        "{opened}"
    );
    assert!(
        !events
            .iter()
            .any(|e| e.is("timeline.item") && e.item_type() != Some("notification")),
        "nothing to replay"
    );
    let notice = rig.wait("s-gone", "session.notice", |_| true).await;
    assert_eq!(
        notice.at("/notice/severity"),
        Some(&json!("warning")),
        "{notice}"
    );
    let run = rig.run_turn("s-gone", "say hi").await;
    assert_eq!(run.state(), "completed");
    rig.finish("s-gone").await;
    rig.report("resume-fallback");
}

/// `CODEX_HOME` set only in plugin.json's `env`: the threads land there, the handle is
/// published and a fresh bridge replays the thread.
#[ignore = "needs the pinned vendor CLIs (tests/clis/install.sh); run with --include-ignored"]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_home_only_in_plugin_json_persists_and_replays() {
    use agent_bridge_conformance::plugin_env::{config_dir_only_in_plugin_json, ConfigDirCase};
    let case = ConfigDirCase {
        var: "CODEX_HOME",
        written: "sessions",
        default: ".codex/sessions",
        patch: || json!({}),
    };
    config_dir_only_in_plugin_json(SPEC, case).await;
}
